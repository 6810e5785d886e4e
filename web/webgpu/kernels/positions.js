// Position ids that follow the padding (MPNet, RoBERTa-style padding_idx), i32 ids → u32 positions:
//
//   pos[b, l] = p + #{ l' ≤ l : ids[b, l'] ≠ p }   when ids[b, l] ≠ p      (p = padding_idx)
//   pos[b, l] = p                                 when ids[b, l] = p
// ids: i32 [batch, seq]; out: u32 [batch, seq] — the twin of relpos::padded_position_ids
// (cpp/src/positions, relpos/positions.h) and of paddedPositionsCpu below. The embedding gather then
// reads the position table at these ids. One invocation per token, 256 per workgroup; each counts the
// real tokens of its row up to itself (seq ≤ a model's position table, so at most a few hundred reads).
import { dispatch, grid } from '../device.js';

const THREADS = 256;

export function paddedPositionsWgsl() {
  return `struct Dims { tokens: u32, seq: u32, pad: i32, gx: u32 }
@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read> ids: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(${THREADS})
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.y * dims.gx * ${THREADS}u + gid.x;
  if (i >= dims.tokens) { return; }
  let p = u32(dims.pad);
  if (ids[i] == dims.pad) { out[i] = p; return; }
  let start = (i / dims.seq) * dims.seq;
  var n = 0u;
  for (var k = start; k <= i; k++) {
    if (ids[k] != dims.pad) { n += 1u; }
  }
  out[i] = p + n;
}`;
}

/** The CPU twin: Uint32Array [batch·seq] of positions for ids (any integer array) [batch, seq]. */
export function paddedPositionsCpu(ids, batch, seq, paddingIdx) {
  const out = new Uint32Array(batch * seq);
  for (let b = 0; b < batch; ++b) {
    let n = 0;
    for (let l = 0; l < seq; ++l) {
      const t = b * seq + l;
      if (ids[t] === paddingIdx) out[t] = paddingIdx;
      else out[t] = paddingIdx + ++n;
    }
  }
  return out;
}

/** args: { ids (i32 buffer [batch·seq]), out (u32 buffer [batch·seq]), batch, seq, paddingIdx ≥ 0 }. */
export function paddedPositions(ctx, encoder, { ids, out, batch, seq, paddingIdx }) {
  for (const [n, v] of [['batch', batch], ['seq', seq]])
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`webgpu: paddedPositions: ${n}: expected a positive integer, got ${v}`);
  if (!Number.isInteger(paddingIdx) || paddingIdx < 0)
    throw new RangeError(`webgpu: paddedPositions: paddingIdx: expected an integer ≥ 0, got ${paddingIdx}`);
  const tokens = batch * seq;
  const pipeline = ctx.pipeline('padded_positions', paddedPositionsWgsl);
  const g = grid(ctx, Math.ceil(tokens / THREADS));
  dispatch(ctx, encoder, pipeline, [ctx.uniforms([tokens, seq, { i: paddingIdx }, g[0]]), ids, out], g, 'padded_positions');
}
