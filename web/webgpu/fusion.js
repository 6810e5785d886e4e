// GEMM groups of a plan (cpp/src/plan/plan.h), which the WebGPU executor runs as one product each: consecutive
// gemm ops over the same input rows — a layer's q, k and v projections, a gated FFN's gate and up projections —
// become one GEMM over their weights concatenated along N, writing each op's columns to that op's own output
// (kernels/gemm.js parts). One dispatch instead of two or three, and one product with 2–3× the workgroups: at a
// few hundred rows (one sentence, a 128-token query) a GEMM is latency-bound, so the separate products cost
// about as much each as the group does.
//
//   gemmGroups(plan) → Map(first op index → { ops: [op indices], N, act: { member, op } | null })
//
// A group: 2 or 3 gemm ops in a row with the same input (buffer and offset), M and K, float weights or q8 weights
// alike (no derived ones), each with a bias or none with one, no op writing the buffer the group reads. An
// `activate` right after the group over exactly one member's output becomes that member's epilogue (act.op: the
// activate's index, skipped). The grouping depends on the plan's structure only, so every shape of a model groups
// the same ops (the executor concatenates each group's weights once, at its first recording).

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
