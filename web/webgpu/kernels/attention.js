// Flash-style multi-head attention, f32 or f16 storage of q, k, v, out, a bucket table and relative-vector tables
// (dtype.js; scores, softmax and sums in f32, K/V tiles widened to f32 in shared memory): online softmax over key
// tiles, no L×L tensor in memory.
//
//   logit(i, j) = scale · q_i·k_j + bias_h(i, j)
//   bias: none | ALiBi m_h·(j − i) (symmetric: −m_h·|i − j|) | bucket: table[bucket(j − i), h]
//         (T5 scale 1, MPNet scale 1/sqrt(d); bucket(·) is any host-computed map, e.g. t5Buckets())
//         | relative_vectors: termScale · (q_i·T_h[row(j − i)] + k_j·T2_h[row(j − i)]) (either table
//         optional; DeBERTa c2p = q·Kr, p2c = k·Qr; BERT relative_key = q·E, _query adds k·E)
//   masked when mask[b, j] = 0, or window ≥ 0 and |i − j| > window, or causal and j > i
//   out_i = Σ_j softmax_j(logit(i, ·)) v_j over unmasked keys; a row with no unmasked key gives 0
// RoPE is a pre-pass on q and k (rope.js). q, k, v, out: f32 rows of headDim (headDim % 4 = 0), element
// (b, h, l, c) at off + b·sB + h·sH + l·sL + c (in floats, all multiples of 4). Default strides are the
// [batch, heads, seqLen, headDim] layout; [batch, seqLen, heads·headDim] (a QKV GEMM's output) is
// sB = L·H·D, sH = D, sL = H·D with no copy. mask: u32 [batch, seqLen]; ALiBi slopes: f32 [heads];
// buckets: i32 [2·seqLen − 1], index (j − i) + seqLen − 1; table: f32 [numBuckets, heads].
// relative_vectors: rows i32 [2·seqLen − 1] at (j − i) + seqLen − 1; T, T2: f32 rows of headDim, head h's
// table at h·tableHead floats (0: one table for every head).
//
// Grouped-query attention: query head h reads key/value head h / G (G = heads / kvHeads); k and v have their own
// batch and row strides (kB, kL: a [batch, seqLen, kvHeads·headDim] projection), the head stride is q's.
//
// Workgroup = BQ threads (64) = BQ consecutive queries of one (b, h); each thread keeps its scaled q row
// and its output row in vec4 registers (generated per headDim, fully unrolled). Key tiles of BKV rows of
// K and V (BKV = 32 when 2·BKV·headDim·4 bytes fit the device's workgroup memory, else 16, 8) are staged
// in shared memory with the tile's mask bits and, for buckets, the BQ + BKV − 1 biases of the relative
// distances the tile spans (relative_vectors: those distances' table row offsets; the rows themselves are
// read from storage, headDim MACs per (query, key) and table, no L×L tensor). Keys are consumed 4 at a
// time: one max, one rescale per 4 keys. With a window, only the tiles within [q0 − w, q0 + BQ − 1 + w]
// are visited (O(L·w) work).
// Numerics: every exp() argument is ≤ 0 (running max subtracted, and clamped to 0 for the masked keys whose
// score is discarded anyway; the first rescale is exp(−3e38 − m) = 0),
// and probabilities below e^−87 (the float32 normal range) are flushed to 0 rather than left subnormal.
import { dispatch } from '../device.js';
import { storage, requireDtype } from './dtype.js';

const NEG = '-3.0e38';

export function attentionWgsl({ D, BQ, BKV, scheme, hasMask, hasTable = false, hasTable2 = false, dtype = 'f32' }) {
  const S = storage(dtype);
  if (D % 4) throw new RangeError(`webgpu: attention: headDim must be a multiple of 4, got ${D}`);
  const D4 = D / 4;
  const L = [];
  const rel = scheme === 'relative_vectors';
  L.push(`${S.enable}// relpos attention D=${D} BQ=${BQ} BKV=${BKV} scheme=${scheme} mask=${hasMask}${rel ? ` table=${hasTable} table2=${hasTable2}` : ''}
struct Params {
  B: u32, H: u32, L: u32, window: i32,
  scale: f32, causal: u32, symmetric: u32, G: u32,
  qOff: u32, kOff: u32, vOff: u32, oOff: u32,
  sB: u32, sH: u32, sL: u32, kL: u32,
  oB: u32, oH: u32, oL: u32, kB: u32,
  tq: f32, tk: f32, tH: u32, t2H: u32,
}
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> q: array<${S.V}>;
@group(0) @binding(2) var<storage, read> k: array<${S.V}>;
@group(0) @binding(3) var<storage, read> v: array<${S.V}>;
@group(0) @binding(4) var<storage, read_write> out: array<${S.V}>;`);
  let bind = 5;
  if (hasMask) L.push(`@group(0) @binding(${bind++}) var<storage, read> mask: array<u32>;`);
  if (scheme === 'alibi') L.push(`@group(0) @binding(${bind++}) var<storage, read> slopes: array<f32>;`);
  if (scheme === 'bucket')
    L.push(`@group(0) @binding(${bind++}) var<storage, read> buckets: array<i32>;`, `@group(0) @binding(${bind++}) var<storage, read> table: array<${S.E}>;`);
  if (rel) {
    L.push(`@group(0) @binding(${bind++}) var<storage, read> rows: array<i32>;`);
    if (hasTable) L.push(`@group(0) @binding(${bind++}) var<storage, read> T: array<${S.V}>;`);
    if (hasTable2) L.push(`@group(0) @binding(${bind++}) var<storage, read> T2: array<${S.V}>;`);
  }
  L.push(`var<workgroup> Ks: array<vec4<f32>, ${BKV * D4}>;
var<workgroup> Vs: array<vec4<f32>, ${BKV * D4}>;`);
  if (hasMask) L.push(`var<workgroup> Ms: array<u32, ${BKV}>;`);
  if (scheme === 'bucket') L.push(`var<workgroup> Rb: array<f32, ${BQ + BKV - 1}>;`);
  if (rel) L.push(`var<workgroup> Ri: array<u32, ${BQ + BKV - 1}>;`);
  L.push(`@compute @workgroup_size(${BQ})
fn main(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>) {
  let h = wg.y;
  let b = wg.z;
  let q0 = wg.x * ${BQ}u;
  let i = q0 + tid;
  let ii = i32(i);
  let iq = min(i, P.L - 1u);
  let qb = (P.qOff + b * P.sB + h * P.sH + iq * P.sL) / 4u;
  let kb = (P.kOff + b * P.kB + (h / P.G) * P.sH) / 4u;
  let vb = (P.vOff + b * P.kB + (h / P.G) * P.sH) / 4u;
  let sl = P.kL / 4u;`);
  for (let c = 0; c < D4; ++c) L.push(`  let qr${c} = ${S.loadV(`q[qb + ${c}u]`)} * P.scale;`);
  for (let c = 0; c < D4; ++c) L.push(`  var o${c} = vec4<f32>(0.0);`);
  if (scheme === 'alibi') L.push('  let slope = slopes[h];');
  if (rel && hasTable) L.push('  let tb = h * P.tH;');
  if (rel && hasTable2) L.push('  let t2b = h * P.t2H;');
  L.push(`  var m = ${NEG};
  var l = 0.0;
  var kBegin = 0u;
  var kEnd = P.L;
  if (P.window >= 0) {
    let w = u32(P.window);
    kBegin = select(0u, q0 - w, q0 > w);
    kEnd = min(P.L, q0 + ${BQ}u + w);
  }
  if (P.causal != 0u) { kEnd = min(kEnd, q0 + ${BQ}u); }
  kBegin = (kBegin / ${BKV}u) * ${BKV}u;
  for (var k0 = kBegin; k0 < kEnd; k0 += ${BKV}u) {
    for (var e = tid; e < ${BKV * D4}u; e += ${BQ}u) {
      let j = min(k0 + e / ${D4}u, P.L - 1u);
      Ks[e] = ${S.loadV(`k[kb + j * sl + e % ${D4}u]`)};
      Vs[e] = ${S.loadV(`v[vb + j * sl + e % ${D4}u]`)};
    }`);
  if (hasMask)
    L.push(`    for (var e = tid; e < ${BKV}u; e += ${BQ}u) {
      let j = k0 + e;
      Ms[e] = select(0u, mask[b * P.L + min(j, P.L - 1u)], j < P.L);
    }`);
  if (scheme === 'bucket')
    L.push(`    for (var e = tid; e < ${BQ + BKV - 1}u; e += ${BQ}u) {
      let d = i32(k0) - i32(q0) - ${BQ - 1} + i32(e);
      let at = clamp(d + i32(P.L) - 1, 0, 2 * i32(P.L) - 2);
      Rb[e] = ${S.load('table[u32(buckets[at]) * P.H + h]')};
    }`);
  if (rel)
    L.push(`    for (var e = tid; e < ${BQ + BKV - 1}u; e += ${BQ}u) {
      let d = i32(k0) - i32(q0) - ${BQ - 1} + i32(e);
      let at = clamp(d + i32(P.L) - 1, 0, 2 * i32(P.L) - 2);
      Ri[e] = u32(rows[at]) * ${D4}u;
    }`);
  L.push(`    workgroupBarrier();
    for (var jj = 0u; jj < ${BKV}u; jj += 4u) {`);
  for (let c = 0; c < 4; ++c) {
    const row = `(jj + ${c}u) * ${D4}u`;
    const dots = [];
    for (let x = 0; x < D4; ++x) dots.push(`dot(qr${x}, Ks[${row} + ${x}u])`);
    L.push(`      let j${c} = k0 + jj + ${c}u;`);
    L.push(`      var s${c} = ${dots.join(' + ')};`);
    if (scheme === 'alibi')
      L.push(`      s${c} += select(slope * f32(i32(j${c}) - ii), -slope * f32(abs(i32(j${c}) - ii)), P.symmetric != 0u);`);
    if (scheme === 'bucket') L.push(`      s${c} += Rb[jj + ${c}u + ${BQ - 1}u - tid];`);
    if (rel) {
      L.push(`      let r${c} = Ri[jj + ${c}u + ${BQ - 1}u - tid];`);
      const terms = [];
      if (hasTable) {
        const t = [];
        for (let x = 0; x < D4; ++x) t.push(`dot(qr${x}, ${S.loadV(`T[tb + r${c} + ${x}u]`)})`);
        terms.push(`(${t.join(' + ')}) * P.tq`);
      }
      if (hasTable2) {
        const t = [];
        for (let x = 0; x < D4; ++x) t.push(`dot(Ks[${row} + ${x}u], ${S.loadV(`T2[t2b + r${c} + ${x}u]`)})`);
        terms.push(`(${t.join(' + ')}) * P.tk`);
      }
      L.push(`      s${c} += ${terms.join(' + ')};`);
    }
    const conds = [`j${c} < P.L`];
    if (hasMask) conds.push(`Ms[jj + ${c}u] != 0u`);
    conds.push(`(P.window < 0 || abs(i32(j${c}) - ii) <= P.window)`, `(P.causal == 0u || j${c} <= i)`);
    L.push(`      let ok${c} = ${conds.join(' && ')};`);
  }
  L.push(`      let mx = max(max(select(${NEG}, s0, ok0), select(${NEG}, s1, ok1)), max(select(${NEG}, s2, ok2), select(${NEG}, s3, ok3)));
      let mn = max(m, mx);
      let corr = exp(m - mn);`);
  for (let c = 0; c < 4; ++c) L.push(`      let p${c} = select(0.0, exp(min(s${c} - mn, 0.0)), ok${c} && s${c} - mn > -87.0);`);
  L.push('      l = l * corr + (p0 + p1) + (p2 + p3);');
  for (let x = 0; x < D4; ++x) {
    const vs = [0, 1, 2, 3].map((c) => `p${c} * Vs[(jj + ${c}u) * ${D4}u + ${x}u]`);
    L.push(`      o${x} = o${x} * corr + (${vs[0]} + ${vs[1]}) + (${vs[2]} + ${vs[3]});`);
  }
  L.push(`      m = mn;
    }
    workgroupBarrier();
  }
  if (i < P.L) {
    let inv = select(0.0, 1.0 / l, l > 0.0);
    let ob = (P.oOff + b * P.oB + h * P.oH + i * P.oL) / 4u;`);
  for (let x = 0; x < D4; ++x) L.push(`    out[ob + ${x}u] = ${S.storeV(`o${x} * inv`)};`);
  L.push('  }\n}');
  return L.join('\n');
}

/** Key-tile rows for a head dim within the device's workgroup memory (with room for mask and biases). */
export function attentionTile(ctx, headDim, BQ = 64) {
  const limit = ctx.limits.maxComputeWorkgroupStorageSize ?? 16384;
  for (const BKV of [32, 16, 8, 4]) if (2 * BKV * headDim * 4 + 4 * (2 * BKV + BQ) <= limit) return BKV;
  throw new RangeError(`webgpu: attention: headDim ${headDim} does not fit ${limit} bytes of workgroup memory`);
}

const int = (v, name, min = 1) => {
  if (!Number.isInteger(v) || v < min) throw new RangeError(`webgpu: attention: ${name}: expected an integer ≥ ${min}, got ${v}`);
  return v;
};

/**
 * Records attention into `encoder`. args: { q, k, v, out (buffers), batch, heads, seqLen, headDim,
 * mask? (u32 buffer [batch, seqLen]), window = −1, causal = false, scale = 1/sqrt(headDim),
 * scheme: { type: 'none' } | { type: 'alibi', slopes (buffer [heads]), symmetric? } |
 *         { type: 'bucket', buckets (i32 buffer [2·seqLen − 1]), table (buffer [numBuckets, heads]) } |
 *         { type: 'relative_vectors', rows (i32 buffer [2·seqLen − 1]), table? (with q), table2? (with k):
 *           buffers of headDim rows, tableHead / table2Head (floats between heads, default 0), termScale },
 * kvHeads = heads (grouped-query attention: query head h reads k/v head h / (heads / kvHeads)),
 * strides?: { in: { off: {q, k, v}, b, h, l }, kv?: { b, l } (k and v; head stride in.h), out: { off, b, h, l } }
 * (elements), bq = 64, bkv?,
 * dtype = 'f32' (of q, k, v, out, a bucket table and relative-vector tables; slopes and row indices stay f32 / i32) }.
 */
export function attention(ctx, encoder, args) {
  const B = int(args.batch, 'batch'), H = int(args.heads, 'heads'), Lq = int(args.seqLen, 'seqLen'), D = int(args.headDim, 'headDim');
  if (D % 4) throw new RangeError(`webgpu: attention: headDim must be a multiple of 4 (vec4 rows), got ${D}`);
  const window = args.window ?? -1;
  if (!Number.isInteger(window) || window < -1) throw new RangeError(`webgpu: attention: window: expected −1 (none) or an integer ≥ 0, got ${window}`);
  const scheme = args.scheme ?? { type: 'none' };
  const type = scheme.type;
  if (!['none', 'alibi', 'bucket', 'relative_vectors'].includes(type)) throw new Error(`webgpu: attention: scheme.type '${type}' (expected 'none', 'alibi', 'bucket' or 'relative_vectors'; RoPE is rope() on q and k first)`);
  if (type === 'alibi' && !scheme.slopes) throw new Error('webgpu: attention: alibi needs scheme.slopes (f32 buffer [heads])');
  if (type === 'bucket' && (!scheme.buckets || !scheme.table)) throw new Error('webgpu: attention: bucket needs scheme.buckets (i32 [2·seqLen − 1]) and scheme.table (f32 [numBuckets, heads])');
  const scale = args.scale ?? 1 / Math.sqrt(D);
  const rel = type === 'relative_vectors';
  if (rel) {
    if (!scheme.rows || !(scheme.table || scheme.table2)) throw new Error('webgpu: attention: relative_vectors needs scheme.rows (i32 [2·seqLen − 1]) and scheme.table and/or scheme.table2 (f32 rows of headDim)');
    for (const key of ['tableHead', 'table2Head'])
      if (!Number.isInteger(scheme[key] ?? 0) || (scheme[key] ?? 0) < 0 || (scheme[key] ?? 0) % 4) throw new RangeError(`webgpu: attention: scheme.${key}: expected a non-negative multiple of 4 floats, got ${scheme[key]}`);
    if (!Number.isFinite(scheme.termScale)) throw new RangeError(`webgpu: attention: relative_vectors needs a finite scheme.termScale, got ${scheme.termScale}`);
    if (scheme.table && (scale === 0 || !Number.isFinite(scale))) throw new RangeError('webgpu: attention: relative_vectors with a q-side table needs a finite scale ≠ 0 (q is read pre-scaled)');
  }
  const BQ = args.bq ?? 64;
  const BKV = args.bkv ?? attentionTile(ctx, D, BQ);
  if (BKV % 4) throw new RangeError(`webgpu: attention: bkv must be a multiple of 4, got ${BKV}`);
  const st = args.strides ?? {};
  const inS = st.in ?? { b: H * Lq * D, h: Lq * D, l: D };
  const inOff = st.in?.off ?? { q: 0, k: 0, v: 0 };
  const outS = st.out ?? { b: H * Lq * D, h: Lq * D, l: D };
  const KV = int(args.kvHeads ?? H, 'kvHeads');
  if (H % KV) throw new RangeError(`webgpu: attention: heads ${H} is not a multiple of kvHeads ${KV}`);
  const kvS = st.kv ?? { b: (inS.b / H) * KV, l: inS.l };
  const all = [inS.b, inS.h, inS.l, inOff.q, inOff.k, inOff.v, outS.b, outS.h, outS.l, outS.off ?? 0, kvS.b, kvS.l];
  if (all.some((x) => !Number.isInteger(x) || x < 0 || x % 4)) throw new RangeError(`webgpu: attention: strides and offsets must be non-negative multiples of 4 floats, got ${all.join(', ')}`);
  const hasMask = !!args.mask;
  const hasTable = rel && !!scheme.table, hasTable2 = rel && !!scheme.table2;
  const dtype = args.dtype ?? 'f32';
  requireDtype(ctx, dtype, 'attention');
  const opts = { D, BQ, BKV, scheme: type, hasMask, hasTable, hasTable2, dtype };
  const key = `attention:${D}:${BQ}:${BKV}:${type}:${hasMask}${rel ? `:${hasTable}:${hasTable2}` : ''}${dtype === 'f32' ? '' : `:${dtype}`}`;
  const pipeline = ctx.pipeline(key, () => attentionWgsl(opts));
  const u = ctx.uniforms([
    B, H, Lq, { i: window },
    { f: scale }, args.causal ? 1 : 0, scheme.symmetric ? 1 : 0, H / KV,
    inOff.q, inOff.k, inOff.v, outS.off ?? 0,
    inS.b, inS.h, inS.l, kvS.l,
    outS.b, outS.h, outS.l, kvS.b,
    // relative_vectors: q is read pre-scaled (q·scale), so its table's dot is multiplied by termScale / scale
    { f: rel && hasTable ? scheme.termScale / scale : 0 }, { f: rel ? scheme.termScale : 0 },
    rel ? (scheme.tableHead ?? 0) / 4 : 0, rel ? (scheme.table2Head ?? 0) / 4 : 0,
  ]);
  const buffers = [u, args.q, args.k, args.v, args.out];
  if (hasMask) buffers.push(args.mask);
  if (type === 'alibi') buffers.push(scheme.slopes);
  if (type === 'bucket') buffers.push(scheme.buckets, scheme.table);
  if (rel) {
    buffers.push(scheme.rows);
    if (hasTable) buffers.push(scheme.table);
    if (hasTable2) buffers.push(scheme.table2);
  }
  dispatch(ctx, encoder, pipeline, buffers, [Math.ceil(Lq / BQ), H, B], key);
}

/**
 * T5 relative buckets by distance, exactly cpp/src/positions/t5_buckets.cpp (Hugging Face, float32 log
 * term): Int32Array [2·seqLen − 1], entry (j − i) + seqLen − 1.
 */
export function t5Buckets(seqLen, { bidirectional = true, numBuckets = 32, maxDistance = 128 } = {}) {
  const f = Math.fround;
  const out = new Int32Array(2 * seqLen - 1);
  for (let d = 1 - seqLen; d < seqLen; ++d) {
    let nb = numBuckets, bucket = 0, n;
    if (bidirectional) {
      nb = Math.trunc(nb / 2);
      if (d > 0) bucket += nb;
      n = Math.abs(d);
    } else n = -Math.min(d, 0);
    const maxExact = Math.trunc(nb / 2);
    if (n < maxExact) out[d + seqLen - 1] = bucket + n;
    else {
      const ratio = f(f(n) / f(maxExact));
      const denominator = f(Math.log(maxDistance / maxExact));
      const scaled = f(f(f(Math.log(ratio)) / denominator) * f(nb - maxExact));
      out[d + seqLen - 1] = bucket + Math.min(maxExact + Math.trunc(scaled), nb - 1);
    }
  }
  return out;
}

/** ALiBi slopes as cpp/src/positions/alibi_slopes.cpp computes them: 'bloom' or 'mpt' (biasMax 8). */
export function alibiSlopes(heads, rule = 'bloom', biasMax = 8) {
  const f = Math.fround;
  const out = new Float32Array(heads);
  for (let h = 0; h < heads; ++h) {
    if (rule === 'bloom') {
      let closest = 1;
      while (closest * 2 <= heads) closest *= 2;
      if (h < closest) out[h] = f(Math.pow(f(Math.pow(2, -8 / closest)), h + 1));
      else out[h] = f(Math.pow(f(Math.pow(2, -4 / closest)), 2 * (h - closest) + 1));
    } else if (rule === 'mpt') {
      let pow2 = 1;
      while (pow2 < heads) pow2 *= 2;
      let index = h;
      if (pow2 !== heads) index = h < pow2 / 2 ? 2 * h + 1 : 2 * (h - pow2 / 2);
      const step = f(biasMax / pow2);
      out[h] = f(1 / f(Math.pow(2, f(f(index + 1) * step))));
    } else throw new Error(`webgpu: alibiSlopes: rule '${rule}' (expected 'bloom' or 'mpt')`);
  }
  return out;
}
