// Masked rows to zero, f32 or f16 storage (dtype.js), in place, one invocation per element (256 per workgroup, 2-D grid past
// 65535 groups):
//   x[r, c] = 0 where mask[r] = 0, else unchanged       (x [rows, width]; mask u32 [rows], one per token)
// DeBERTa multiplies its embeddings by the attention mask (the plan's mask_rows op, cpp/src/plan).
import { dispatch, grid } from '../device.js';
import { storage, requireDtype } from './dtype.js';

const THREADS = 256;

export function maskRowsWgsl(dtype = 'f32') {
  const S = storage(dtype);
  return `${S.enable}struct Dims { n: u32, width: u32, gx: u32, p0: u32 }
@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read_write> x: array<${S.E}>;
@group(0) @binding(2) var<storage, read> mask: array<u32>;
@compute @workgroup_size(${THREADS})
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.y * dims.gx * ${THREADS}u + gid.x;
  if (i >= dims.n) { return; }
  if (mask[i / dims.width] == 0u) { x[i] = ${S.store('0.0')}; }
}`;
}

/** x[r, :] = 0 where mask[r] = 0. args: { x ([rows, width]), mask (u32 [rows]), rows, width, dtype = 'f32' (of x) }. */
export function maskRows(ctx, encoder, { x, mask, rows, width, dtype = 'f32' }) {
  requireDtype(ctx, dtype, 'maskRows');
  for (const [name, v] of [['rows', rows], ['width', width]])
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`webgpu: maskRows: ${name}: expected a positive integer, got ${v}`);
  if (!x || !mask) throw new Error('webgpu: maskRows: needs x (f32 [rows, width]) and mask (u32 [rows])');
  const n = rows * width;
  const pipeline = ctx.pipeline(`mask_rows${dtype === 'f32' ? '' : `:${dtype}`}`, () => maskRowsWgsl(dtype));
  const g = grid(ctx, Math.ceil(n / THREADS));
  dispatch(ctx, encoder, pipeline, [ctx.uniforms([n, width, g[0], 0]), x, mask], g, 'mask_rows');
}
