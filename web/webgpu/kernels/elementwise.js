// Element-wise kernels, f32 or f16 storage (dtype.js; arithmetic in f32), one invocation per element (256 per workgroup, 2-D grid past 65535 groups).
//
//   activate: y[i] = act(x[i])                          (y omitted: in place on x)
//   gated:    y[r, i] = act(g[r, i]) · u[r, i], i < F    (GeGLU: act = gelu; SwiGLU: act = silu)
//             pair layout: one buffer x [rows, 2F] holding both halves, `actHalf` (0 or 1) says which half
//             goes through act (ModernBERT's Wi output: act(first) · second → actHalf 0);
//             split layout: gate and up buffers, each [rows, F] (T5 v1.1 / LLaMA: act(Wg·x) ⊙ (W1·x));
//             y omitted: in place on gate.
//   add:      y[i] = a[i] + b[i]                        (residual adds; y omitted: a[i] += b[i] in place)
// In place binds the written buffer once, read-write: one invocation reads and writes element i, so no scratch
// buffer and no copy back (a and b, gate and up must be different buffers: WebGPU refuses a buffer bound twice
// when one binding writes).
// act ∈ none, relu, gelu (erf), gelu_tanh, silu — the formulas of activation_wgsl.js.
import { dispatch, grid } from '../device.js';
import { activationWgsl, ACTIVATIONS } from './activation_wgsl.js';
import { storage, requireDtype } from './dtype.js';

const THREADS = 256;

function header(n, S) {
  return `${S.enable}struct Dims { n: u32, f: u32, half: u32, gx: u32 }
@group(0) @binding(0) var<uniform> dims: Dims;
${n}
@compute @workgroup_size(${THREADS})
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.y * dims.gx * ${THREADS}u + gid.x;
  if (i >= dims.n) { return; }`;
}

export function elementwiseWgsl({ op, activation, inPlace, layout, dtype = 'f32' }) {
  const S = storage(dtype), E = S.E, ld = S.load, st = S.store;
  const act = activation ? activationWgsl(activation, 'f32', 's') : '';
  if (op === 'activate') {
    if (inPlace)
      return header(`@group(0) @binding(1) var<storage, read_write> x: array<${E}>;\n${act}`, S) + `\n  x[i] = ${st(`act_s(${ld('x[i]')})`)};\n}`;
    return header(`@group(0) @binding(1) var<storage, read> x: array<${E}>;
@group(0) @binding(2) var<storage, read_write> y: array<${E}>;\n${act}`, S) + `\n  y[i] = ${st(`act_s(${ld('x[i]')})`)};\n}`;
  }
  if (op === 'gated') {
    if (layout === 'pair')
      return header(`@group(0) @binding(1) var<storage, read> x: array<${E}>;
@group(0) @binding(2) var<storage, read_write> y: array<${E}>;\n${act}`, S) + `
  let r = i / dims.f;
  let c = i % dims.f;
  let base = r * 2u * dims.f + c;
  let g = ${ld('x[base + dims.half * dims.f]')};
  let u = ${ld('x[base + (1u - dims.half) * dims.f]')};
  y[i] = ${st('act_s(g) * u')};
}`;
    if (inPlace)
      return header(`@group(0) @binding(1) var<storage, read_write> gate: array<${E}>;
@group(0) @binding(2) var<storage, read> up: array<${E}>;\n${act}`, S) + `\n  gate[i] = ${st(`act_s(${ld('gate[i]')}) * ${ld('up[i]')}`)};\n}`;
    return header(`@group(0) @binding(1) var<storage, read> gate: array<${E}>;
@group(0) @binding(2) var<storage, read> up: array<${E}>;
@group(0) @binding(3) var<storage, read_write> y: array<${E}>;\n${act}`, S) + `\n  y[i] = ${st(`act_s(${ld('gate[i]')}) * ${ld('up[i]')}`)};\n}`;
  }
  if (op === 'add' && inPlace)
    return header(`@group(0) @binding(1) var<storage, read_write> a: array<${E}>;
@group(0) @binding(2) var<storage, read> b: array<${E}>;`, S) + `\n  a[i] = ${st(`${ld('a[i]')} + ${ld('b[i]')}`)};\n}`;
  if (op === 'add')
    return header(`@group(0) @binding(1) var<storage, read> a: array<${E}>;
@group(0) @binding(2) var<storage, read> b: array<${E}>;
@group(0) @binding(3) var<storage, read_write> y: array<${E}>;`, S) + `\n  y[i] = ${st(`${ld('a[i]')} + ${ld('b[i]')}`)};\n}`;
  throw new Error(`webgpu: elementwise: unknown op '${op}'`);
}

function checkAct(activation, where) {
  if (!ACTIVATIONS.includes(activation)) throw new Error(`webgpu: ${where}: activation '${activation}' (expected ${ACTIVATIONS.join(', ')})`);
}
function checkCount(n, where, name = 'n') {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`webgpu: ${where}: ${name}: expected a positive integer, got ${n}`);
}

function launch(ctx, encoder, key, opts, n, f, half, buffers, dtype = 'f32') {
  requireDtype(ctx, dtype, opts.op);
  if (dtype !== 'f32') key += `:${dtype}`;
  const pipeline = ctx.pipeline(key, () => elementwiseWgsl({ ...opts, dtype }));
  const g = grid(ctx, Math.ceil(n / THREADS));
  dispatch(ctx, encoder, pipeline, [ctx.uniforms([n, f, half, g[0]]), ...buffers], g, key);
}

/** y = act(x) over n elements; without y, in place on x. args: { x, y?, n, activation, dtype = 'f32' }. */
export function activate(ctx, encoder, { x, y, n, activation, dtype }) {
  checkAct(activation, 'activate');
  checkCount(n, 'activate');
  const inPlace = !y;
  launch(ctx, encoder, `activate:${activation}:${inPlace}`, { op: 'activate', activation, inPlace }, n, 0, 0, inPlace ? [x] : [x, y], dtype);
}

/**
 * Gated linear unit. Pair layout: { x, y, rows, width: F, activation, actHalf = 0 }; split layout:
 * { gate, up, y?, rows, width: F, activation } (no y: gate = act(gate) · up in place). y is [rows, F]. Either takes
 * dtype = 'f32'.
 */
export function gated(ctx, encoder, args) {
  const { y, rows, width, activation } = args;
  checkAct(activation, 'gated');
  checkCount(rows, 'gated', 'rows');
  checkCount(width, 'gated', 'width');
  const n = rows * width;
  if (args.x) {
    const half = args.actHalf ?? 0;
    if (half !== 0 && half !== 1) throw new RangeError(`webgpu: gated: actHalf: expected 0 or 1, got ${half}`);
    launch(ctx, encoder, `gated:pair:${activation}`, { op: 'gated', activation, layout: 'pair' }, n, width, half, [args.x, y], args.dtype);
  } else {
    if (!args.gate || !args.up) throw new Error('webgpu: gated: expected either x ([rows, 2·width]) or gate and up ([rows, width] each)');
    const inPlace = !y;
    launch(ctx, encoder, `gated:split:${activation}${inPlace ? ':inplace' : ''}`, { op: 'gated', activation, layout: 'split', inPlace }, n, width, 0, inPlace ? [args.gate, args.up] : [args.gate, args.up, y], args.dtype);
  }
}

/** y = a + b over n elements (dtype = 'f32'); without y, a += b in place. */
export function add(ctx, encoder, { a, b, y, n, dtype }) {
  checkCount(n, 'add');
  const inPlace = !y;
  launch(ctx, encoder, inPlace ? 'add:inplace' : 'add', { op: 'add', inPlace }, n, 0, 0, inPlace ? [a, b] : [a, b, y], dtype);
}
