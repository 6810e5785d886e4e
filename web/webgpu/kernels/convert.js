// Storage type conversion on the GPU:  y[i] = to(x[i]),  i < n,  to/from ∈ f32, f16 (dtype.js); widen (below): F16 /
// BF16 checkpoint bytes → f32 or f16.
// f16 → f32 widens an f16 model's outputs before read-back (nothing converted per element in JavaScript);
// f32 → f16 narrows float weights uploaded as float32 (round to nearest even, as WGSL's f16() conversion;
// out of f16's range → ±Infinity is not guaranteed by WGSL, so weights beyond ±65504 are clamped first).
// One invocation per element, 256 per workgroup, 2-D grid past 65535 groups.
import { dispatch, grid } from '../device.js';
import { storage, requireDtype, checkDtype } from './dtype.js';

const THREADS = 256;

export function convertWgsl({ from, to }) {
  const X = storage(from), Y = storage(to);
  const value = to === 'f16' ? `f16(clamp(${X.load('x[i]')}, -65504.0, 65504.0))` : Y.store(X.load('x[i]'));
  return `${X.enable || Y.enable}// relpos convert ${from} → ${to}
struct Dims { n: u32, gx: u32, pad0: u32, pad1: u32 }
@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read> x: array<${X.E}>;
@group(0) @binding(2) var<storage, read_write> y: array<${Y.E}>;
@compute @workgroup_size(${THREADS})
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.y * dims.gx * ${THREADS}u + gid.x;
  if (i >= dims.n) { return; }
  y[i] = ${value};
}`;
}

/** y = x converted, over n elements. args: { x, y, n, from: 'f16' | 'f32', to: 'f32' | 'f16' }. */
export function convert(ctx, encoder, { x, y, n, from, to }) {
  checkDtype(from, 'convert');
  checkDtype(to, 'convert');
  if (from === to) throw new Error(`webgpu: convert: from and to are both '${from}' (a copy, not a conversion)`);
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`webgpu: convert: n: expected a positive integer, got ${n}`);
  requireDtype(ctx, 'f16', 'convert');
  const key = `convert:${from}>${to}`;
  const pipeline = ctx.pipeline(key, () => convertWgsl({ from, to }));
  const g = grid(ctx, Math.ceil(n / THREADS));
  dispatch(ctx, encoder, pipeline, [ctx.uniforms([n, g[0], 0, 0]), x, y], g, key);
}

// 2-byte floats as a checkpoint holds them (a safetensors F16 or BF16 tensor's bytes, which a streamed load writes to
// the GPU as they are: weight-sink.js), widened on the GPU:  y[i] = float(x's i-th 2-byte value),  i < n (even).
// To 'f32': the bits io/dtype_convert.h's CPU decoding gives (BF16: the bits << 16; F16: exact, subnormals, ±inf and
// NaN payloads included), in integer arithmetic, stored as bits — nothing rounds or flushes. To 'f16': that float32
// narrowed as convert's f32 → f16 narrows it, so a layer equals the one a float32 upload and convert would make.
// One invocation per 32-bit word (two values); layers past the binding limit go in slices.
export function widenWgsl({ from, to }) {
  const [lo, hi] = from === 'bf16' ? ['w << 16u', 'w & 0xffff0000u'] : ['half_bits(w & 0xffffu)', 'half_bits(w >> 16u)'];
  const store = to === 'f16' ? (v) => `f16(clamp(bitcast<f32>(${v}), -65504.0, 65504.0))` : (v) => v;
  return `${to === 'f16' ? 'enable f16;\n' : ''}// relpos widen ${from} → ${to}
struct Dims { words: u32, gx: u32, pad0: u32, pad1: u32 }
@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read> x: array<u32>;
@group(0) @binding(2) var<storage, read_write> y: array<${to === 'f16' ? 'f16' : 'u32'}>;
fn half_bits(h: u32) -> u32 {
  let sign = (h & 0x8000u) << 16u;
  let e = (h >> 10u) & 0x1fu;
  let m = h & 0x3ffu;
  if (e == 0x1fu) { return sign | 0x7f800000u | (m << 13u); }
  if (e == 0u) {
    if (m == 0u) { return sign; }
    let shift = 10u - firstLeadingBit(m);
    return sign | ((113u - shift) << 23u) | (((m << shift) & 0x3ffu) << 13u);
  }
  return sign | ((e + 112u) << 23u) | (m << 13u);
}
@compute @workgroup_size(${THREADS})
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.y * dims.gx * ${THREADS}u + gid.x;
  if (i >= dims.words) { return; }
  let w = x[i];
  y[2u * i] = ${store(lo)};
  y[2u * i + 1u] = ${store(hi)};
}`;
}

/** y = x's n 2-byte values widened. args: { x, y, n (even), from: 'f16' | 'bf16', to: 'f32' | 'f16' }. */
export function widen(ctx, encoder, { x, y, n, from, to }) {
  if (from !== 'f16' && from !== 'bf16') throw new Error(`webgpu: widen: from: expected 'f16' or 'bf16', got '${from}'`);
  checkDtype(to, 'widen');
  if (!Number.isInteger(n) || n < 2 || n % 2 !== 0) throw new RangeError(`webgpu: widen: n: expected a positive even integer, got ${n}`);
  if (to === 'f16') requireDtype(ctx, 'f16', 'widen');
  const key = `widen:${from}>${to}`;
  const pipeline = ctx.pipeline(key, () => widenWgsl({ from, to }));
  const out = to === 'f16' ? 4 : 8; // bytes of y per word of x
  const limit = ctx.limits.maxStorageBufferBindingSize ?? 134217728;
  const slice = Math.max(64, Math.floor(limit / out / 64) * 64); // words per dispatch (offsets stay 256-byte aligned)
  for (let first = 0, words = n / 2; first < words; first += slice) {
    const count = Math.min(slice, words - first);
    const g = grid(ctx, Math.ceil(count / THREADS));
    const xs = { buffer: x, offset: 4 * first, size: 4 * count }, ys = { buffer: y, offset: out * first, size: out * count };
    dispatch(ctx, encoder, pipeline, [ctx.uniforms([count, g[0], 0, 0]), xs, ys], g, key);
  }
}
