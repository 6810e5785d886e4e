// Token-major rows to head-major tables, f32 or f16 storage (dtype.js), one invocation per element (256 per workgroup,
// 2-D grid past 65535 groups):
//   y[(h·rows + r)·d + c] = x[r·heads·d + h·d + c]      (x [rows, heads·d] → y [heads, rows, d])
// The layout of a derived table (cpp/src/plan/plan.h Recorder::derive): DeBERTa's relative embeddings projected through
// a layer's key or query projection on the GPU (a gemm into x), laid out per head as the attention kernel reads its
// relative_vectors tables — the twin of the per-head copy in cpp/src/models/deberta_v2.cpp.
import { dispatch, grid } from '../device.js';
import { storage, requireDtype } from './dtype.js';

const THREADS = 256;

export function splitHeadsWgsl(dtype = 'f32') {
  const S = storage(dtype);
  return `${S.enable}// relpos split_heads dtype=${dtype}
struct Dims { n: u32, rows: u32, d: u32, gx: u32 }
@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read> x: array<${S.E}>;
@group(0) @binding(2) var<storage, read_write> y: array<${S.E}>;
@compute @workgroup_size(${THREADS})
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.y * dims.gx * ${THREADS}u + gid.x;  // element of y
  if (i >= dims.n) { return; }
  let c = i % dims.d;
  let r = (i / dims.d) % dims.rows;
  let h = i / (dims.d * dims.rows);
  let width = dims.n / dims.rows;
  y[i] = x[r * width + h * dims.d + c];
}`;
}

/** y [heads, rows, d] = x [rows, heads·d] per head. args: { x, y, rows, heads, d, dtype = 'f32' (of x and y) }. */
export function splitHeads(ctx, encoder, { x, y, rows, heads, d, dtype = 'f32' }) {
  requireDtype(ctx, dtype, 'splitHeads');
  for (const [name, v] of [['rows', rows], ['heads', heads], ['d', d]])
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`webgpu: splitHeads: ${name}: expected a positive integer, got ${v}`);
  const n = rows * heads * d, bytes = n * (dtype === 'f16' ? 2 : 4);
  for (const [name, b] of [['x', x], ['y', y]])
    if (!b || b.size < bytes) throw new RangeError(`webgpu: splitHeads: ${name}: expected a GPUBuffer of at least ${bytes} bytes (${n} ${dtype}), got ${b ? b.size + ' bytes' : b}`);
  const pipeline = ctx.pipeline(`split_heads${dtype === 'f32' ? '' : `:${dtype}`}`, () => splitHeadsWgsl(dtype));
  const g = grid(ctx, Math.ceil(n / THREADS));
  dispatch(ctx, encoder, pipeline, [ctx.uniforms([n, rows, d, g[0]]), x, y], g, 'split_heads');
}
