// RMSNorm of every head of q and k, then RoPE, from q and k into their own buffers, in one dispatch: Qwen3's and
// Gemma3's q_norm / k_norm before the rotation (the executor's fused pre-attention, fusion.js normRopeGroups),
// the work of two in-place norms (norm.js) and two rotations into y (rope.js) without their four dispatches.
//   n = x / sqrt(mean(x²) + eps) · γ        over each head's dim columns (γ: q's or k's own, [dim])
//   y = rope(n)                              half (rotate_half) or interleaved pairs of the first rotaryDim columns,
//                                            the rest of n copied (rope.js's formulas and cos / sin tables)
// Each normalized value is rounded to the storage type before its rotation, as the two kernels store it between
// them, and computed by the same expressions (the rotation is rope.js's own rotatePairWgsl) with the same reduction
// (reduce.js), so the result equals norm then rope bit for bit. x stays as it is (the plan reads q and k through y alone).
// Layout (token-major, as the plan's projections): head h of token t at offset + t·rowStride + h·dim; position t %
// seqLen. One workgroup (256 threads) per head row: q's batch·seqLen·heads rows first, then k's.
import { dispatch, grid } from '../device.js';
import { storage, requireDtype } from './dtype.js';
import { reduceSum } from './reduce.js';
import { ropePair, rotatePairWgsl } from './rope.js';

const THREADS = 256;

export function normRopeWgsl({ layout, dtype = 'f32', subgroups = false }) {
  const S = storage(dtype), E = S.E;
  const R = reduceSum({ threads: THREADS, subgroups });
  const [a, b] = ropePair(layout);
  // one head row of x (q or k) into y, γ g, `heads` per token, rows from `first`
  const body = (x, y, g, heads, stride, off, first) => `    let r = row - ${first};
    let token = r / ${heads};
    let p = token % dims.seq;
    let base = ${off} + token * ${stride} + (r % ${heads}) * dims.dim;
    var sq = 0.0;
    for (var i = tid; i < dims.dim; i += ${THREADS}u) { let s = ${S.load(`${x}[base + i]`)}; sq += s * s; }
    let inv = inverseSqrt(${R.call('sq')} / f32(dims.dim) + dims.eps);
    for (var i = tid; i < dims.h; i += ${THREADS}u) {
      let c = cosT[p * dims.h + i];
      let s = sinT[p * dims.h + i];
      let x0 = ${S.load(S.store(`${S.load(`${x}[base + ${a}]`)} * inv * ${S.load(`${g}[${a}]`)}`))};
      let x1 = ${S.load(S.store(`${S.load(`${x}[base + ${b}]`)} * inv * ${S.load(`${g}[${b}]`)}`))};
      ${rotatePairWgsl(S, y, a, b)}
    }
    for (var i = 2u * dims.h + tid; i < dims.dim; i += ${THREADS}u) { ${y}[base + i] = ${S.store(`${S.load(`${x}[base + i]`)} * inv * ${S.load(`${g}[i]`)}`)}; }`;
  return `${S.enable}${R.enable}// relpos rmsnorm + rope ${layout}${dtype === 'f32' ? '' : ` dtype=${dtype}`} subgroups=${subgroups}
struct Dims { rowsQ: u32, rows: u32, seq: u32, dim: u32, h: u32, gx: u32, heads: u32, kvHeads: u32, rowQ: u32, rowK: u32, offQ: u32, offK: u32, eps: f32, p0: u32, p1: u32, p2: u32 }
@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read> q: array<${E}>;
@group(0) @binding(2) var<storage, read> k: array<${E}>;
@group(0) @binding(3) var<storage, read> cosT: array<f32>;
@group(0) @binding(4) var<storage, read> sinT: array<f32>;
@group(0) @binding(5) var<storage, read_write> yq: array<${E}>;
@group(0) @binding(6) var<storage, read_write> yk: array<${E}>;
@group(0) @binding(7) var<storage, read> gq: array<${E}>;
@group(0) @binding(8) var<storage, read> gk: array<${E}>;
${R.code}
@compute @workgroup_size(${THREADS})
fn main(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>${R.params}) {
  let row = wg.y * dims.gx + wg.x;
  if (row >= dims.rows) { return; }
  if (row < dims.rowsQ) {
${body('q', 'yq', 'gq', 'dims.heads', 'dims.rowQ', 'dims.offQ', '0u')}
  } else {
${body('k', 'yk', 'gk', 'dims.kvHeads', 'dims.rowK', 'dims.offK', 'dims.rowsQ')}
  }
}`;
}

/**
 * Records yq, yk = rope(rmsnorm(q)), rope(rmsnorm(k)) per head into `encoder`. args: { q, k, yq, yk, gammaQ, gammaK,
 * cos, sin (tables [seqLen, rotaryDim/2], rope.js ropeTables), tokens (batch·seqLen), seqLen, heads, kvHeads, headDim,
 * rotaryDim = headDim, layout = 'half' | 'interleaved', eps, qRowStride = heads·headDim, kRowStride = kvHeads·headDim,
 * qOffset = 0, kOffset = 0 (elements), dtype = 'f32' }. yq and yk have q's and k's layout.
 */
export function normRope(ctx, encoder, args) {
  const layout = args.layout ?? 'half';
  if (layout !== 'half' && layout !== 'interleaved') throw new Error(`webgpu: normRope: layout '${layout}' (expected 'half' or 'interleaved')`);
  const { tokens, seqLen, heads, kvHeads, headDim } = args;
  for (const [name, v] of [['tokens', tokens], ['seqLen', seqLen], ['heads', heads], ['kvHeads', kvHeads], ['headDim', headDim]])
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`webgpu: normRope: ${name}: expected a positive integer, got ${v}`);
  if (tokens % seqLen) throw new RangeError(`webgpu: normRope: tokens ${tokens} is not a multiple of seqLen ${seqLen}`);
  const rotaryDim = args.rotaryDim || headDim;
  if (rotaryDim % 2 || rotaryDim > headDim) throw new RangeError(`webgpu: normRope: rotaryDim: expected an even number ≤ headDim ${headDim}, got ${rotaryDim}`);
  const eps = args.eps ?? 1e-6;
  if (!(eps >= 0)) throw new RangeError(`webgpu: normRope: eps: expected a number ≥ 0, got ${eps}`);
  const dtype = args.dtype ?? 'f32';
  requireDtype(ctx, dtype, 'normRope');
  const subgroups = !!ctx.subgroups;
  const key = `normrope:${layout}${dtype === 'f32' ? '' : `:${dtype}`}${subgroups ? ':sg' : ''}`;
  const pipeline = ctx.pipeline(key, () => normRopeWgsl({ layout, dtype, subgroups }));
  const rowsQ = tokens * heads, rows = rowsQ + tokens * kvHeads, g = grid(ctx, rows);
  const uniforms = ctx.uniforms([rowsQ, rows, seqLen, headDim, rotaryDim / 2, g[0], heads, kvHeads, args.qRowStride ?? heads * headDim,
    args.kRowStride ?? kvHeads * headDim, args.qOffset ?? 0, args.kOffset ?? 0, { f: eps }, 0, 0, 0]);
  dispatch(ctx, encoder, pipeline, [uniforms, args.q, args.k, args.cos, args.sin, args.yq, args.yk, args.gammaQ, args.gammaK], g, key);
}
