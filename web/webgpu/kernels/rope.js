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

/**
 * WGSL statements rotating one pair (columns a, b of a row at `base`) from the f32 values x0, x1 into y — the
 * formulas above, shared with norm_rope.js so that a fused norm + RoPE rotates bit for bit as this kernel does.
 * Needs c, s (the position's cos, sin) in scope.
 */
export function rotatePairWgsl(S, y, a, b) {
  return `${y}[base + ${a}] = ${S.store('x0 * c - x1 * s')};
  ${y}[base + ${b}] = ${S.store('x1 * c + x0 * s')};`;
}

/** The pair of columns rotated by invocation i: [a, b] WGSL expressions for the layout. */
export function ropePair(layout) {
  return layout === 'half' ? ['i', 'i + dims.h'] : ['2u * i', '2u * i + 1u'];
}

export function ropeWgsl(layout, dtype = 'f32', into = false, pair = false) {
  const S = storage(dtype);
  const [a, b] = ropePair(layout);
  if (pair && !into) throw new Error('webgpu: rope: a pair (q and k in one dispatch) rotates into y and y2');
  // one rotation of tensor x into y (x itself in place) with its own rows, heads, strides and offset
  const body = (x, y, rows, heads, rowStride, headStride, offset) => `  let row = g / dims.w;
  let i = g % dims.w;
  let token = row / ${heads};
  let p = token % dims.seq;
  let base = ${offset} + token * ${rowStride} + (row % ${heads}) * ${headStride};
${into ? `  if (i >= dims.h) {
    let col = i + dims.h;
    ${y}[base + col] = ${x}[base + col];
    return;
  }
` : ''}  let c = cosT[p * dims.h + i];
  let s = sinT[p * dims.h + i];
  let x0 = ${S.load(`${x}[base + ${a}]`)};
  let x1 = ${S.load(`${x}[base + ${b}]`)};
  ${rotatePairWgsl(S, y, a, b)}`;
  // into y: an invocation per rotated pair and per column ≥ rotaryDim (w = h + dim − 2h per row), the latter copied;
  // a pair: k's rows (x2 into y2) after q's, in one dispatch
  return `${S.enable}// relpos rope ${layout}${into ? ' into y' : ''}${pair ? ' pair' : ''}
struct Dims { rows: u32, seq: u32, dim: u32, h: u32, gx: u32, heads: u32, rowStride: u32, headStride: u32, offset: u32, w: u32, p1: u32, p2: u32${pair ? ', rows2: u32, heads2: u32, rowStride2: u32, offset2: u32' : ''} }
@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, ${into ? 'read' : 'read_write'}> x: array<${S.E}>;
@group(0) @binding(2) var<storage, read> cosT: array<f32>;
@group(0) @binding(3) var<storage, read> sinT: array<f32>;
${into ? `@group(0) @binding(4) var<storage, read_write> y: array<${S.E}>;` : ''}
${pair ? `@group(0) @binding(5) var<storage, read> x2: array<${S.E}>;\n@group(0) @binding(6) var<storage, read_write> y2: array<${S.E}>;` : ''}
fn first(g: u32) {
${body('x', into ? 'y' : 'x', 'dims.rows', 'dims.heads', 'dims.rowStride', 'dims.headStride', 'dims.offset')}
}
${pair ? `fn second(g: u32) {
${body('x2', 'y2', 'dims.rows2', 'dims.heads2', 'dims.rowStride2', 'dims.headStride', 'dims.offset2')}
}` : ''}
@compute @workgroup_size(${THREADS})
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let g = gid.y * dims.gx * ${THREADS}u + gid.x;
  if (g < dims.rows * dims.w) { first(g); return; }
${pair ? '  if (g < (dims.rows + dims.rows2) * dims.w) { second(g - dims.rows * dims.w); }' : ''}
}`;
}

/**
 * args: { x, y? (rotated into y at the same offsets, x unchanged; without y, in place on x), cos, sin (buffers
 * [seqLen, rotaryDim/2]), rows: batch·heads·seqLen, seqLen, headDim, rotaryDim, layout, heads = 1,
 * rowStride = headDim, headStride = 0, offset = 0 (elements; token-major layout above), dtype = 'f32' (of x),
 * second? { x, y, rows, heads, rowStride, offset }: k rotated in the same dispatch (into y; same tables, head size
 * and head stride) }.
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
  const into = !!args.y, two = args.second;
  if (two) {
    if (!into || !two.x || !two.y) throw new Error('webgpu: rope: second: expected { x, y, rows, heads, rowStride, offset } and a y for the first');
    if (!Number.isInteger(two.heads) || two.heads < 1 || two.rows % (seqLen * two.heads)) throw new RangeError(`webgpu: rope: second: rows ${two.rows} is not a multiple of seqLen ${seqLen} × heads ${two.heads}`);
  }
  const key = `rope:${layout}${dtype === 'f32' ? '' : `:${dtype}`}${into ? ':into' : ''}${two ? ':pair' : ''}`;
  const pipeline = ctx.pipeline(key, () => ropeWgsl(layout, dtype, into, !!two));
  const w = into ? headDim - h : h; // invocations per row: the pairs, and into y the columns ≥ rotaryDim
  const g = grid(ctx, Math.ceil(((rows + (two ? two.rows : 0)) * w) / THREADS));
  const words = [rows, seqLen, headDim, h, g[0], heads, rowStride, headStride, offset, w, 0, 0];
  if (two) words.push(two.rows, two.heads, two.rowStride ?? headDim, two.offset ?? 0);
  const buffers = [ctx.uniforms(words), args.x, args.cos, args.sin];
  if (into) buffers.push(args.y);
  if (two) buffers.push(two.x, two.y);
  dispatch(ctx, encoder, pipeline, buffers, g, key);
}
