// Rotary position embedding, in place on x or from x into y (same layout), [batch, heads, seqLen, headDim] f32 or f16 (dtype.js; the
// cos/sin tables stay f32, the rotation is computed in f32) (a pre-pass on q and k
// before attention), the twin of cpp/src/kernels/rope_rotate_f32:
//   half (LLaMA rotate_half):  (x[i], x[i + h])   ← (x[i]·c − x[i + h]·s,  x[i + h]·c + x[i]·s)
//   interleaved (RoFormer):    (x[2i], x[2i + 1]) ← (x[2i]·c − x[2i + 1]·s, x[2i + 1]·c + x[2i]·s)
// with c, s = cos, sin(p·ω_i), ω_i = theta^(−2i/rotaryDim), i < h = rotaryDim/2; columns ≥ rotaryDim stay (copied
// to y when there is one: y holds every column of each row rotated, nothing else of it is written).
// The cos/sin tables [seqLen, h] come from the CPU in float64 then rounded (ropeTables): a GPU sin() of
// p·ω up to 8192 rad is not accurate enough. One invocation per (row, i) pair, 256 per workgroup.
// Token-major layout (the plan executor: q/k read in place from projections [B·L, …]): with
// `heads` > 1 or strides given, row r is head r % heads of token t = r / heads, at position t % seqLen,
// starting at float offset + t·rowStride + (r % heads)·headStride.
import { dispatch, grid } from '../device.js';
import { storage, requireDtype } from './dtype.js';

const THREADS = 256;

/** cos and sin tables [seqLen, rotaryDim/2] for positions 0..seqLen−1 (float64 angles, like the CPU's). */
export function ropeTables(seqLen, rotaryDim, theta = 10000) {
  if (!Number.isInteger(rotaryDim) || rotaryDim < 2 || rotaryDim % 2)
    throw new RangeError(`webgpu: rope: rotaryDim: expected a positive even integer, got ${rotaryDim}`);
  const h = rotaryDim / 2;
  const cos = new Float32Array(seqLen * h), sin = new Float32Array(seqLen * h);
  for (let i = 0; i < h; ++i) {
    const w = Math.pow(theta, (-2 * i) / rotaryDim);
    for (let p = 0; p < seqLen; ++p) {
      cos[p * h + i] = Math.cos(p * w);
      sin[p * h + i] = Math.sin(p * w);
    }
  }
  return { cos, sin };
}

export function ropeWgsl(layout, dtype = 'f32', into = false) {
  const S = storage(dtype);
  const [a, b] = layout === 'half' ? ['i', 'i + dims.h'] : ['2u * i', '2u * i + 1u'];
  const y = into ? 'y' : 'x';
  // into y: an invocation per rotated pair and per column ≥ rotaryDim (w = h + dim − 2h per row), the latter copied
  return `${S.enable}// relpos rope ${layout}${into ? ' into y' : ''}
struct Dims { rows: u32, seq: u32, dim: u32, h: u32, gx: u32, heads: u32, rowStride: u32, headStride: u32, offset: u32, w: u32, p1: u32, p2: u32 }
@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, ${into ? 'read' : 'read_write'}> x: array<${S.E}>;
@group(0) @binding(2) var<storage, read> cosT: array<f32>;
@group(0) @binding(3) var<storage, read> sinT: array<f32>;
${into ? `@group(0) @binding(4) var<storage, read_write> y: array<${S.E}>;` : ''}
@compute @workgroup_size(${THREADS})
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let g = gid.y * dims.gx * ${THREADS}u + gid.x;
  if (g >= dims.rows * dims.w) { return; }
  let row = g / dims.w;
  let i = g % dims.w;
  let token = row / dims.heads;
  let p = token % dims.seq;
  let base = dims.offset + token * dims.rowStride + (row % dims.heads) * dims.headStride;
${into ? `  if (i >= dims.h) {
    let col = i + dims.h;
    y[base + col] = x[base + col];
    return;
  }
` : ''}  let c = cosT[p * dims.h + i];
  let s = sinT[p * dims.h + i];
  let x0 = ${S.load(`x[base + ${a}]`)};
  let x1 = ${S.load(`x[base + ${b}]`)};
  ${y}[base + ${a}] = ${S.store('x0 * c - x1 * s')};
  ${y}[base + ${b}] = ${S.store('x1 * c + x0 * s')};
}`;
}

/**
 * args: { x, y? (rotated into y at the same offsets, x unchanged; without y, in place on x), cos, sin (buffers
 * [seqLen, rotaryDim/2]), rows: batch·heads·seqLen, seqLen, headDim, rotaryDim, layout, heads = 1,
 * rowStride = headDim, headStride = 0, offset = 0 (elements; token-major layout above), dtype = 'f32' (of x) }.
 */
export function rope(ctx, encoder, args) {
  const layout = args.layout ?? 'half';
  if (layout !== 'half' && layout !== 'interleaved') throw new Error(`webgpu: rope: layout '${layout}' (expected 'half' or 'interleaved')`);
  const { rows, seqLen, headDim } = args;
  const rotaryDim = args.rotaryDim || headDim;
  if (rotaryDim % 2 || rotaryDim > headDim) throw new RangeError(`webgpu: rope: rotaryDim: expected an even number ≤ headDim ${headDim}, got ${rotaryDim}`);
  const heads = args.heads ?? 1;
  if (rows % (seqLen * heads)) throw new RangeError(`webgpu: rope: rows ${rows} is not a multiple of seqLen ${seqLen} × heads ${heads}`);
  const rowStride = args.rowStride ?? headDim, headStride = args.headStride ?? 0, offset = args.offset ?? 0;
  const h = rotaryDim / 2;
  const dtype = args.dtype ?? 'f32';
  requireDtype(ctx, dtype, 'rope');
  const into = !!args.y;
  const key = `rope:${layout}${dtype === 'f32' ? '' : `:${dtype}`}${into ? ':into' : ''}`;
  const pipeline = ctx.pipeline(key, () => ropeWgsl(layout, dtype, into));
  const w = into ? headDim - h : h; // invocations per row: the pairs, and into y the columns ≥ rotaryDim
  const g = grid(ctx, Math.ceil((rows * w) / THREADS));
  const buffers = [ctx.uniforms([rows, seqLen, headDim, h, g[0], heads, rowStride, headStride, offset, w, 0, 0]), args.x, args.cos, args.sin];
  if (into) buffers.push(args.y);
  dispatch(ctx, encoder, pipeline, buffers, g, key);
}
