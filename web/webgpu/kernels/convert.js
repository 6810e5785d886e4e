// Storage type conversion on the GPU:  y[i] = to(x[i]),  i < n,  to/from ∈ f32, f16 (dtype.js).
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
