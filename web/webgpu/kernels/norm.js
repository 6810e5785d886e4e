// LayerNorm and RMSNorm over the rows of [rows, dim], optionally of a residual sum; f32 or f16 storage
// (dtype.js: x, y, gamma, beta, residual, sum), f32 statistics.
//
//   s = x + residual (residual optional; `sum` optional: s is also written there, for pre-LN stacks)
//   residualNorm (rmsnorm only; Gemma3's sandwich norms: h += norm₁(f(h)); n = norm₂(h)): the residual is RMS-normed
//   first, with its own γ (the same eps), each value rounded to the storage type as an in-place norm stores it:
//   s = x + rms₁(residual) — one dispatch for the post-norm, the add and the next pre-norm, equal to them bit for bit
//   in place (y omitted): x = norm(s), x bound once, read-write — each element is read and written by the same
//   invocation, so no scratch buffer and no copy back (the plan executor's x = norm(x + y) and q/k norms)
//   sumInPlace (pre-LN stacks: h += f(h); n = norm(h)): x = s written back into x, y = norm(s); y may be the
//   residual's own binding (bound once, read-write: n = norm(h + r) into r's buffer)
//   layernorm: y = (s − μ) / sqrt(σ² + eps) · γ + β,  μ = mean(s), σ² = mean((s − μ)²) (biased), β optional
//   rmsnorm:   y = s / sqrt(mean(s²) + eps) · γ                (T5LayerNorm / LlamaRMSNorm: no mean removal)
// The CPU twin (cpp/src/models/layers/norms.cpp) sums in double; here sums are f32 over 256 threads (reduce.js:
// a workgroup tree, or subgroupAdd where the device has subgroups), two passes for LayerNorm (mean, then the
// centred squares), so eps = 1e-12 is not lost against σ².
// One workgroup (256 threads) per row; rows beyond 65535 wrap into workgroup_id.y.
import { dispatch, grid } from '../device.js';
import { storage, requireDtype } from './dtype.js';
import { reduceSum } from './reduce.js';

const THREADS = 256;

export function normWgsl({ kind, residual, sum, beta, dtype = 'f32', subgroups = false, inPlace = false, sumInPlace = false, outIsResidual = false, residualNorm = false }) {
  const S = storage(dtype), E = S.E;
  const R = reduceSum({ threads: THREADS, subgroups });
  const L = [];
  if (inPlace && (sum || sumInPlace)) throw new Error('webgpu: norm: in place (no y) does not write a sum');
  if ((sumInPlace || outIsResidual) && !residual) throw new Error('webgpu: norm: sumInPlace and an output into the residual need a residual');
  if (residualNorm && (kind !== 'rmsnorm' || !residual)) throw new Error('webgpu: norm: residualNorm is an RMSNorm of the residual');
  const how = `${inPlace ? ' in place' : ''}${sumInPlace ? ' sum in place' : ''}${outIsResidual ? ' into residual' : ''}${residualNorm ? ' residual normed' : ''}`;
  L.push(`${S.enable}${R.enable}// relpos ${kind} residual=${residual} sum=${sum} beta=${beta}${dtype === 'f32' ? '' : ` dtype=${dtype}`} subgroups=${subgroups}${how}`);
  L.push('struct Dims { rows: u32, dim: u32, eps: f32, gx: u32 }');
  let b = 0;
  L.push(`@group(0) @binding(${b++}) var<storage, ${inPlace || sumInPlace ? 'read_write' : 'read'}> x: array<${E}>;`);
  if (!inPlace && !outIsResidual) L.push(`@group(0) @binding(${b++}) var<storage, read_write> y: array<${E}>;`);
  L.push(`@group(0) @binding(${b++}) var<uniform> dims: Dims;`);
  L.push(`@group(0) @binding(${b++}) var<storage, read> gamma: array<${E}>;`);
  const out = inPlace ? 'x' : outIsResidual ? 'res' : 'y';
  if (beta) L.push(`@group(0) @binding(${b++}) var<storage, read> beta: array<${E}>;`);
  if (residual) L.push(`@group(0) @binding(${b++}) var<storage, ${outIsResidual ? 'read_write' : 'read'}> res: array<${E}>;`);
  if (sum) L.push(`@group(0) @binding(${b++}) var<storage, read_write> sum: array<${E}>;`);
  if (residualNorm) L.push(`@group(0) @binding(${b++}) var<storage, read> gres: array<${E}>;`);
  // the sum written back: into x (sumInPlace) or into sum
  const keep = sumInPlace ? `x[base + i] = ${S.store('s')};` : sum ? `sum[base + i] = ${S.store('s')};` : '';
  L.push(`${R.code}
${residualNorm ? 'var<private> invRes: f32;\n' : ''}fn value(at: u32) -> f32 { return ${S.load('x[at]')}${residual ? ` + ${residualNorm ? S.load(S.store(`${S.load('res[at]')} * invRes * ${S.load('gres[at % dims.dim]')}`)) : S.load('res[at]')}` : ''}; }
@compute @workgroup_size(${THREADS})
fn main(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>${R.params}) {
  let row = wg.y * dims.gx + wg.x;
  if (row >= dims.rows) { return; }
  let base = row * dims.dim;
  let n = f32(dims.dim);`);
  if (residualNorm)
    L.push(`  var sqRes = 0.0;
  for (var i = tid; i < dims.dim; i += ${THREADS}u) { let r = ${S.load('res[base + i]')}; sqRes += r * r; }
  invRes = inverseSqrt(${R.call('sqRes')} / n + dims.eps);`);
  if (kind === 'layernorm') {
    L.push(`  var acc = 0.0;
  for (var i = tid; i < dims.dim; i += ${THREADS}u) { acc += value(base + i); }
  let mean = ${R.call('acc')} / n;
  var sq = 0.0;
  for (var i = tid; i < dims.dim; i += ${THREADS}u) { let d = value(base + i) - mean; sq += d * d; }
  let inv = inverseSqrt(${R.call('sq')} / n + dims.eps);
  for (var i = tid; i < dims.dim; i += ${THREADS}u) {
    let s = value(base + i);
    ${keep}
    ${out}[base + i] = ${S.store(`(s - mean) * inv * ${S.load('gamma[i]')}${beta ? ` + ${S.load('beta[i]')}` : ''}`)};
  }`);
  } else {
    L.push(`  var sq = 0.0;
  for (var i = tid; i < dims.dim; i += ${THREADS}u) { let s = value(base + i); sq += s * s; }
  let inv = inverseSqrt(${R.call('sq')} / n + dims.eps);
  for (var i = tid; i < dims.dim; i += ${THREADS}u) {
    let s = value(base + i);
    ${keep}
    ${out}[base + i] = ${S.store(`s * inv * ${S.load('gamma[i]')}`)};
  }`);
  }
  L.push('}');
  return L.join('\n');
}

/**
 * Records y = norm(x [+ residual]) into `encoder`. args: { kind: 'layernorm' | 'rmsnorm', x, y, gamma,
 * beta?, residual?, sum?, sumInPlace?, rows, dim, eps, dtype = 'f32' }; without y, x = norm(x [+ residual]) in place
 * (no sum). sumInPlace: x = x + residual as well (x bound read-write); y may then be the residual itself (the same
 * binding: the output replaces the residual). residualNorm: a γ buffer [dim]: the residual RMS-normed with it first
 * (rmsnorm; header). The early return of rows ≥ `rows` is uniform per workgroup
 * (the reduction's barriers and subgroup operations need it). Subgroups when ctx.subgroups.
 */
export function norm(ctx, encoder, args) {
  const kind = args.kind ?? 'layernorm';
  if (kind !== 'layernorm' && kind !== 'rmsnorm') throw new Error(`webgpu: norm: kind '${kind}' (expected 'layernorm' or 'rmsnorm')`);
  const { x, y, gamma, rows, dim } = args;
  const eps = args.eps ?? 1e-12;
  if (!Number.isInteger(rows) || rows < 1 || !Number.isInteger(dim) || dim < 1)
    throw new RangeError(`webgpu: norm: rows and dim: expected positive integers, got ${rows}, ${dim}`);
  if (!(eps >= 0)) throw new RangeError(`webgpu: norm: eps: expected a number ≥ 0, got ${eps}`);
  if (kind === 'rmsnorm' && args.beta) throw new Error('webgpu: norm: rmsnorm has no beta');
  const dtype = args.dtype ?? 'f32';
  requireDtype(ctx, dtype, 'norm');
  const inPlace = !y, sumInPlace = !!args.sumInPlace, outIsResidual = !!y && y === args.residual;
  if (inPlace && (args.sum || sumInPlace)) throw new Error('webgpu: norm: a sum needs y (in place writes x only)');
  if (sumInPlace && (!args.residual || args.sum)) throw new Error('webgpu: norm: sumInPlace needs a residual (and no separate sum)');
  if (outIsResidual && !sumInPlace) throw new Error('webgpu: norm: y is the residual only with sumInPlace');
  const residualNorm = !!args.residualNorm;
  if (residualNorm && (kind !== 'rmsnorm' || !args.residual)) throw new Error('webgpu: norm: residualNorm (the residual\'s RMSNorm γ) needs kind \'rmsnorm\' and a residual');
  const opts = { kind, residual: !!args.residual, sum: !!args.sum, beta: !!args.beta, dtype, subgroups: !!ctx.subgroups, inPlace, sumInPlace, outIsResidual, residualNorm };
  const key = `norm:${kind}:${opts.residual}:${opts.sum}:${opts.beta}${dtype === 'f32' ? '' : `:${dtype}`}${opts.subgroups ? ':sg' : ''}${inPlace ? ':inplace' : ''}${sumInPlace ? ':suminplace' : ''}${outIsResidual ? ':intores' : ''}${residualNorm ? ':resnorm' : ''}`;
  const pipeline = ctx.pipeline(key, () => normWgsl(opts));
  const g = grid(ctx, rows);
  const buffers = [x, ...(inPlace || outIsResidual ? [] : [y]), ctx.uniforms([rows, dim, { f: eps }, g[0]]), gamma];
  if (args.beta) buffers.push(args.beta);
  if (args.residual) buffers.push(args.residual);
  if (args.sum) buffers.push(args.sum);
  if (residualNorm) buffers.push(args.residualNorm);
  dispatch(ctx, encoder, pipeline, buffers, g, key);
}
