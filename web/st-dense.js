// sentence-transformers' Dense module (sentence_transformers.models.Dense, v5.1.1), as EmbeddingGemma ships two of
// them between Pooling and Normalize:
//   {path}/config.json        { in_features, out_features, bias, activation_function }
//   {path}/model.safetensors  linear.weight [out, in] (F32 / F16 / BF16), linear.bias [out] when bias
//   forward                   y = act(W · x + b) on each pooled vector (act: the torch.nn class named in the config)
// Read by web/sentence-transformers.js; applied by pipeline('feature-extraction'). The weights are small (EmbeddingGemma:
// 768 × 3072 twice, 18.9 MB as float32) and the product runs once per text, so it stays in JavaScript (float64 sums).
// Errors name the file: a config that is not what the format says, a weight missing or of the wrong shape, a
// safetensors file that is not one. An activation relpos does not know is not an Error here: the recipe loads and
// the feature-extraction pipeline says why it cannot run it (sentence-transformers.js `unsupported`).
import { describe } from './validation.js';

/** torch.nn activation classes a Dense module may name → the function (Identity is the module's default). */
export const DENSE_ACTIVATIONS = Object.freeze({
  'torch.nn.modules.linear.Identity': (x) => x,
  'torch.nn.modules.activation.Tanh': Math.tanh,
  'torch.nn.modules.activation.ReLU': (x) => (x > 0 ? x : 0),
  'torch.nn.modules.activation.Sigmoid': (x) => 1 / (1 + Math.exp(-x)),
  'torch.nn.modules.activation.GELU': (x) => 0.5 * x * (1 + erf(x / Math.SQRT2)),
  'torch.nn.modules.activation.SiLU': (x) => x / (1 + Math.exp(-x)),
});

// erf for the exact GELU: its Taylor series below 2.5, the continued fraction of erfc above (float64, |err| < 1e-14).
function erf(x) {
  const t = Math.abs(x);
  if (t > 6) return Math.sign(x);
  // series for small |x|, continued fraction via erfc otherwise
  if (t < 2.5) {
    let sum = x, term = x;
    const x2 = x * x;
    for (let n = 1; n < 200; ++n) {
      term *= -x2 / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    return (2 / Math.sqrt(Math.PI)) * sum;
  }
  // erfc(t) = exp(−t²)/√π · 1/(t + 1/2/(t + 1/(t + 3/2/(t + …))))
  let f = t;
  for (let n = 60; n >= 1; --n) f = t + n / 2 / f;
  const erfc = Math.exp(-t * t) / Math.sqrt(Math.PI) / f;
  return Math.sign(x) * (1 - erfc);
}

const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A Dense config.json → { inFeatures, outFeatures, bias, activation }; Error naming `file` otherwise. */
export function parseDenseConfig(value, file) {
  if (!isPlainObject(value)) throw new Error(`${file}: expected a JSON object (the Dense module's config), got ${describe(value)}`);
  const dims = {};
  for (const key of ['in_features', 'out_features']) {
    const d = value[key];
    if (!Number.isInteger(d) || d < 1) throw new Error(`${file}: ${key}: expected a positive integer, got ${describe(d)}`);
    dims[key] = d;
  }
  const bias = value.bias ?? true;
  if (typeof bias !== 'boolean') throw new Error(`${file}: bias: expected true or false, got ${describe(bias)}`);
  const activation = value.activation_function ?? 'torch.nn.modules.linear.Identity';
  if (typeof activation !== 'string') throw new Error(`${file}: activation_function: expected a torch.nn class name such as 'torch.nn.modules.activation.Tanh', got ${describe(activation)}`);
  return { inFeatures: dims.in_features, outFeatures: dims.out_features, bias, activation };
}

const DTYPES = { F32: 4, F16: 2, BF16: 2 };
const BITS = new Uint32Array(1);
const FLOAT = new Float32Array(BITS.buffer);

function half(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/** A safetensors file's bytes → Map name → { shape, data: Float32Array }; Error naming `file` when it is not one. */
export function readSafetensors(bytes, file) {
  const bad = (what) => new Error(`${file}: not a safetensors file: ${what}`);
  if (bytes.length < 8) throw bad(`${bytes.length} bytes, fewer than the 8-byte header length`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Number(view.getBigUint64(0, true));
  if (n > bytes.length - 8) throw bad(`the header length ${n} runs past the end of the file (${bytes.length} bytes)`);
  let header;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  } catch (e) {
    throw bad(`the header is not JSON (${e.message})`);
  }
  if (!isPlainObject(header)) throw bad('the header is not a JSON object');
  const data = 8 + n;
  const out = new Map();
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    if (!isPlainObject(t) || !Array.isArray(t.shape) || !Array.isArray(t.data_offsets) || t.data_offsets.length !== 2)
      throw bad(`tensor '${name}' has no dtype / shape / data_offsets`);
    const size = DTYPES[t.dtype];
    if (!size) throw new Error(`${file}: tensor '${name}' has dtype ${describe(t.dtype)} (expected F32, F16 or BF16)`);
    if (!t.shape.every((d) => Number.isInteger(d) && d >= 0)) throw bad(`tensor '${name}' has shape ${JSON.stringify(t.shape)}`);
    const count = t.shape.reduce((a, b) => a * b, 1);
    const [begin, end] = t.data_offsets;
    if (!Number.isInteger(begin) || !Number.isInteger(end) || begin < 0 || end !== begin + count * size || data + end > bytes.length)
      throw bad(`tensor '${name}' data_offsets ${JSON.stringify(t.data_offsets)} do not hold ${count} ${t.dtype} values inside the file`);
    const values = new Float32Array(count);
    const at = bytes.byteOffset + data + begin;
    const dv = new DataView(bytes.buffer, at, count * size);
    for (let i = 0; i < count; ++i) {
      if (t.dtype === 'F32') values[i] = dv.getFloat32(4 * i, true);
      else if (t.dtype === 'F16') values[i] = half(dv.getUint16(2 * i, true));
      else {
        BITS[0] = dv.getUint16(2 * i, true) << 16; // bf16: the high half of a float32
        values[i] = FLOAT[0];
      }
    }
    out.set(name, { shape: t.shape, data: values });
  }
  return out;
}

/**
 * One Dense module from its config and its weights file's bytes → { inFeatures, outFeatures, activation, weight, bias }
 * (weight [out, in] row-major, bias [out] or null); Errors name the file and the tensor.
 */
export function loadDense(config, weightBytes, file) {
  const tensors = readSafetensors(weightBytes, file);
  const get = (name, shape) => {
    const t = tensors.get(name);
    if (!t) throw new Error(`${file}: missing tensor '${name}' (the Dense module's ${name === 'linear.weight' ? 'weights' : 'bias'}, shape [${shape.join(', ')}])`);
    if (t.shape.length !== shape.length || t.shape.some((d, i) => d !== shape[i]))
      throw new Error(`${file}: tensor '${name}' has shape [${t.shape.join(', ')}], expected [${shape.join(', ')}] from the module's config.json`);
    return t.data;
  };
  const weight = get('linear.weight', [config.outFeatures, config.inFeatures]);
  const bias = config.bias ? get('linear.bias', [config.outFeatures]) : null;
  return Object.freeze({ ...config, weight, bias });
}

/** y = act(W · x + b) for one vector x (Float32Array of inFeatures) → Float32Array of outFeatures (float64 sums). */
export function applyDense(dense, x) {
  const act = DENSE_ACTIVATIONS[dense.activation];
  if (!act) throw new Error(`Dense: activation_function '${dense.activation}' is not supported by relpos`);
  const { inFeatures: n, outFeatures: m, weight, bias } = dense;
  if (x.length !== n) throw new RangeError(`Dense: expected a vector of ${n} features, got ${x.length}`);
  const y = new Float32Array(m);
  for (let o = 0; o < m; ++o) {
    let s = bias ? bias[o] : 0;
    const row = o * n;
    for (let i = 0; i < n; ++i) s += weight[row + i] * x[i];
    y[o] = act(s);
  }
  return y;
}
