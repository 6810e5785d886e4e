// Patterns of a plan (cpp/src/plan/plan.h) that the WebGPU executor runs as fewer dispatches, found from the plan's
// structure alone (so every shape of a model fuses the same ops); the plan stays the CPU's.
//
//   gemmGroups(plan) → Map(first op index → { ops: [op indices], N, act: { member, op } | null }): consecutive GEMMs
//     over the same input rows — a layer's q, k and v projections, a gated FFN's gate and up projections — as one GEMM
//     over their weights concatenated along N (PlanExecutor.fuseWeights, at load), each op's columns to its own output
//     (kernels/gemm.js parts). One dispatch instead of two or three, and one product with 2–3× the workgroups: at a
//     few hundred rows (one sentence, a 128-token query) a GEMM is latency-bound, so the separate products cost
//     about as much each as the group does.
//   normRopeGroups(plan) → Map(q norm's index → { q, k, attention }): Qwen3's / Gemma3's q / k norms and RoPE in one
//     dispatch (kernels/norm_rope.js) instead of four
//   gatedGemms(plan) → Map(product's index → { gemm, glu }): a gated FFN's product (multiply or pair-layout glu)
//     formed by its down projection's loads (kernels/gemm.js gate, glu)
//   sandwichNorms(plan) → Map(post-norm's index → { add, norm, intoY }): Gemma3's post-norm, residual add and next
//     (or final) norm as one norm dispatch (kernels/norm.js residualNorm)
//
// A pattern that leaves an intermediate unwritten holds only where nobody reads it afterwards (overwrittenNext).
// A GEMM group: 2 or 3 gemm ops in a row with the same input (buffer and offset), M and K, float weights or q8 weights
// alike (no derived ones), each with a bias or none with one, no op writing the buffer the group reads. An
// `activate` right after the group over exactly one member's output becomes that member's epilogue (act.op: the
// activate's index, skipped).

/** The plan's GEMM groups, keyed by their first op's index. */
export function gemmGroups(plan) {
  const ops = plan.ops, weights = plan.weights, groups = new Map();
  const kind = (w) => (weights[w]?.kind === 'q8' ? 'q8' : weights[w]?.kind === 'derived' ? 'derived' : 'float');
  for (let i = 0; i < ops.length; ++i) {
    const head = ops[i];
    if (head.op !== 'gemm' || kind(head.w) === 'derived' || head.c === head.a) continue;
    const members = [i];
    for (let j = i + 1; j < ops.length && members.length < 3; ++j) {
      const op = ops[j];
      const joins = op.op === 'gemm' && op.a === head.a && op.a_off === head.a_off && op.M === head.M && op.K === head.K &&
        kind(op.w) === kind(head.w) && (op.bias >= 0) === (head.bias >= 0) && op.c !== head.a &&
        !members.some((m) => ops[m].w === op.w || (ops[m].c === op.c && ops[m].c_off === op.c_off));
      if (!joins) break;
      members.push(j);
    }
    if (members.length < 2) continue;
    const last = members.at(-1), next = ops[last + 1];
    let act = null;
    if (next?.op === 'activate') {
      const member = members.findIndex((m) => ops[m].c === next.x && ops[m].c_off === next.x_off && ops[m].M * ops[m].N === next.n);
      if (member >= 0) act = { member, op: last + 1 };
    }
    groups.set(i, { ops: members, N: members.reduce((s, m) => s + ops[m].N, 0), act });
    i = act ? act.op : last;
  }
  return groups;
}

// The plan-buffer fields of ops (weights and constants are other index spaces).
const BUFFER_KEYS = ['a', 'c', 'x', 'y', 'out', 'q', 'k', 'v', 'ctx'];

// The field each op writes without reading it (its output), where it has one.
const WRITES = { gemm: 'c', glu: 'y', attention: 'ctx', gather: 'out' };

// Whether buffer b (from op index `from` on) is next touched by an op that only writes it (a GEMM's output, a GLU's,
// attention's, a gather's), or never again: what it held before is not read by anyone.
export function overwrittenNext(ops, from, b) {
  for (let j = from; j < ops.length; ++j) {
    const op = ops[j], keys = BUFFER_KEYS.filter((key) => op[key] === b);
    if (keys.length) return keys.length === 1 && keys[0] === WRITES[op.op];
  }
  return true;
}

/**
 * The q / k RMSNorms before a RoPE attention (Qwen3, Gemma3: q_norm and k_norm in place on every head, then the
 * rotation), keyed by the first norm's index: { q: norm index, k: norm index, attention: index }, run as one
 * normRope dispatch (kernels/norm_rope.js) that writes the normed, rotated heads where RoPE writes them. Only where
 * the norms are in place over whole heads of contiguous rows and nothing reads the un-normed q and k afterwards.
 */
export function normRopeGroups(plan) {
  const ops = plan.ops, groups = new Map();
  const headNorm = (op, buffer, off, rows, dim) => op?.op === 'norm' && op.kind === 1 && op.beta < 0 && op.x === buffer && op.y === buffer &&
    op.x_off === off && op.y_off === off && op.rows === rows && op.dim === dim;
  for (let i = 0; i + 2 < ops.length; ++i) {
    const at = ops[i + 2];
    if (at.op !== 'attention' || at.kind !== 'rope' || at.q === at.k) continue;
    const tokens = at.batch * at.seq, D = at.head_dim;
    const contiguous = at.q_head === D && at.k_head === D && at.q_row === at.heads * D && at.k_row === at.kv_heads * D;
    if (!contiguous || !headNorm(ops[i], at.q, at.q_off, tokens * at.heads, D) || !headNorm(ops[i + 1], at.k, at.k_off, tokens * at.kv_heads, D)) continue;
    if (ops[i].eps !== ops[i + 1].eps || !overwrittenNext(ops, i + 3, at.q) || !overwrittenNext(ops, i + 3, at.k)) continue;
    groups.set(i, { q: i, k: i + 1, attention: i + 2 });
  }
  return groups;
}

/**
 * Gated products that only feed the next GEMM (a gated FFN's gate ⊙ act(up) before its down projection: a multiply of
 * split halves, or a glu of a pair layout, ModernBERT's), keyed by the product's index: { gemm: index, glu }. The GEMM
 * forms its A operand as it loads it (kernels/gemm.js gate, glu), so the product is never written: one dispatch and
 * one [rows, intermediate] round trip fewer. Only where the GEMM reads exactly the product and nobody reads it after.
 */
export function gatedGemms(plan) {
  const ops = plan.ops, found = new Map();
  for (let i = 0; i + 1 < ops.length; ++i) {
    const mul = ops[i], g = ops[i + 1];
    if (g.op !== 'gemm') continue;
    // multiply: x = x ⊙ y (split halves), the product in x; glu: y = act(x[:, :F]) ⊙ x[:, F:] (pair layout), in y
    if (mul.op !== 'multiply' && mul.op !== 'glu') continue;
    const key = mul.op === 'multiply' ? 'x' : 'y', size = mul.op === 'multiply' ? mul.n : mul.rows * mul.width;
    if (g.a !== mul[key] || g.a_off !== mul[`${key}_off`] || g.M * g.K !== size || (mul.op === 'glu' && g.K !== mul.width)) continue;
    if (g.c === mul.x || g.c === mul.y || !overwrittenNext(ops, i + 2, mul[key])) continue;
    if (ops[i + 2]?.op === 'activate' && ops[i + 2].x === g.c) continue; // (an activation epilogue: not a down projection)
    found.set(i, { gemm: i + 1, glu: mul.op === 'glu' });
  }
  return found;
}

/**
 * Gemma3's sandwich norms: y = rms₁(y) in place; x += y; then y = rms₂(x) (the next layer's pre-norm: intoY) or
 * x = rms₂(x) in place (the final norm, y not read again), keyed by the post-norm's index: { add, norm, intoY }, run as
 * one norm dispatch that RMS-norms the residual on its way in (kernels/norm.js residualNorm). x and y distinct buffers.
 */
export function sandwichNorms(plan) {
  const ops = plan.ops, found = new Map();
  const same = (a, ka, b, kb) => a[ka] === b[kb] && a[`${ka}_off`] === b[`${kb}_off`];
  const rms = (op) => op?.op === 'norm' && op.kind === 1 && op.beta < 0;
  for (let i = 0; i + 2 < ops.length; ++i) {
    const post = ops[i], add = ops[i + 1], norm = ops[i + 2];
    if (!rms(post) || !same(post, 'x', post, 'y') || add.op !== 'add' || !same(add, 'y', post, 'x') || add.x === add.y) continue;
    if (add.n !== post.rows * post.dim || !rms(norm) || !same(norm, 'x', add, 'x') || norm.rows !== post.rows || norm.dim !== post.dim || norm.eps !== post.eps) continue;
    const intoY = same(norm, 'y', add, 'y');
    if (intoY || (same(norm, 'y', add, 'x') && overwrittenNext(ops, i + 3, add.y))) found.set(i, { add: i + 1, norm: i + 2, intoY });
  }
  return found;
}
