// Pooling of last hidden states — the GPU twin of web/pipelines/feature-extraction.js pool():
//
//   mean:       out[b, c] = Σ_l mask[b, l]≠0 · x[b, l, c] / n_b,  n_b = #{l : mask[b, l] ≠ 0}  (0 when n_b = 0)
//   cls:        out[b, c] = x[b, 0, c]
//   last_token: out[b, c] = x[b, t_b, c],  t_b = max{l : mask[b, l] ≠ 0}  (left or right padding; 0 when none)
//   normalize:  out[b, ·] /= max(‖out[b, ·]‖₂, 1e-12)
// x: [batch, seqLen, hidden] (dtype); mask: u32 [batch, seqLen]; out: [batch, hidden] (outDtype, default dtype:
// an f16 model's pooled rows can come out as f32, converted on the GPU). Sums and the norm in f32.
// One workgroup of 256 threads per batch row; threads stride over hidden; the norm's sum is reduce.js's (a tree,
// or subgroupAdd where the device has subgroups).
import { dispatch } from '../device.js';
import { storage, requireDtype, checkDtype } from './dtype.js';
import { reduceSum } from './reduce.js';

const THREADS = 256;
export const POOLING_MODES = Object.freeze(['mean', 'cls', 'last_token']);

export function poolingWgsl({ mode, normalize, dtype = 'f32', outDtype = dtype, subgroups = false }) {
  const S = storage(dtype), O = storage(outDtype);
  const R = normalize ? reduceSum({ threads: THREADS, subgroups }) : { enable: '', params: '', code: '' };
  const masked = mode !== 'cls';
  const row = mode === 'mean' ? '' : mode === 'cls' ? 'let t = 0u;' : `var t = 0u;
  var found = false;
  for (var l = 0u; l < dims.seq; l++) { if (mask[b * dims.seq + l] != 0u) { t = l; found = true; } }`;
  const value = mode === 'mean' ? `var acc = 0.0;
    for (var l = 0u; l < dims.seq; l++) {
      if (mask[b * dims.seq + l] != 0u) { acc += ${S.load('x[(b * dims.seq + l) * dims.hidden + c]')}; }
    }
    let v = acc * inv;` : `let v = ${mode === 'last_token' ? 'select(0.0, ' : ''}${S.load('x[(b * dims.seq + t) * dims.hidden + c]')}${mode === 'last_token' ? ', found)' : ''};`;
  return `${S.enable || O.enable}${R.enable}// relpos pooling ${mode} normalize=${normalize}${R.enable ? ' subgroups' : ''}
struct Dims { batch: u32, seq: u32, hidden: u32, pad: u32 }
@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read> x: array<${S.E}>;
@group(0) @binding(2) var<storage, read_write> out: array<${O.E}>;
${masked ? '@group(0) @binding(3) var<storage, read> mask: array<u32>;' : ''}
${R.code}
@compute @workgroup_size(${THREADS})
fn main(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>${R.params}) {
  let b = wg.x;
  var ss = 0.0;
  ${mode === 'mean' ? `var n = 0u;
  for (var l = 0u; l < dims.seq; l++) { if (mask[b * dims.seq + l] != 0u) { n += 1u; } }
  let inv = select(0.0, 1.0 / f32(n), n > 0u);` : row}
  for (var c = tid; c < dims.hidden; c += ${THREADS}u) {
    ${value}
    out[b * dims.hidden + c] = ${O.store('v')};
    ss += v * v;
  }
  ${normalize ? `let scale = 1.0 / max(sqrt(${R.call('ss')}), 1e-12);
  for (var c = tid; c < dims.hidden; c += ${THREADS}u) { out[b * dims.hidden + c] = ${O.store(`${O.load('out[b * dims.hidden + c]')} * scale`)}; }` : ''}
}`;
}

/**
 * args: { x, out, mask (u32 buffer, for 'mean' and 'last_token'), batch, seqLen, hidden, mode: 'mean' | 'cls' |
 * 'last_token', normalize = false, dtype = 'f32' (x), outDtype = dtype (out) }. normalize's sum uses subgroups when ctx.subgroups.
 */
export function pooling(ctx, encoder, args) {
  const mode = args.mode ?? 'mean';
  if (!POOLING_MODES.includes(mode)) throw new Error(`webgpu: pooling: mode '${mode}' (expected 'mean', 'cls' or 'last_token')`);
  const normalize = !!args.normalize;
  const { batch, seqLen, hidden } = args;
  for (const [n, v] of [['batch', batch], ['seqLen', seqLen], ['hidden', hidden]])
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`webgpu: pooling: ${n}: expected a positive integer, got ${v}`);
  if (mode !== 'cls' && !args.mask) throw new Error(`webgpu: pooling: '${mode}' needs mask (u32 [batch, seqLen])`);
  const dtype = args.dtype ?? 'f32', outDtype = checkDtype(args.outDtype ?? dtype, 'pooling');
  requireDtype(ctx, dtype, 'pooling');
  requireDtype(ctx, outDtype, 'pooling');
  const subgroups = normalize && !!ctx.subgroups; // only the norm reduces across threads
  const key = `pooling:${mode}:${normalize}${dtype === 'f32' ? '' : `:${dtype}`}${outDtype === dtype ? '' : `>${outDtype}`}${subgroups ? ':sg' : ''}`;
  const pipeline = ctx.pipeline(key, () => poolingWgsl({ mode, normalize, dtype, outDtype, subgroups }));
  const buffers = [ctx.uniforms([batch, seqLen, hidden, 0]), args.x, args.out];
  if (mode !== 'cls') buffers.push(args.mask);
  dispatch(ctx, encoder, pipeline, buffers, [batch, 1, 1], key);
}
