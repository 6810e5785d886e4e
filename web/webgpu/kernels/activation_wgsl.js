// WGSL element-wise activations shared by the GEMM epilogue and the activation kernels, written for a
// type T (f32 or vec4<f32>): the same formulas as the CPU kernels (cpp/src/models/layers/activations.cpp):
//   relu(x)      = max(x, 0)
//   gelu(x)      = x/2 · (1 + erf(x/√2)), erf by Abramowitz–Stegun 7.1.26 (|error| ≤ 1.5e-7), like vgelu_f32
//   gelu_tanh(x) = x/2 · (1 + tanh(√(2/π) · (x + 0.044715·x³)))   (HF gelu_new / gelu_pytorch_tanh)
//   silu(x)      = x / (1 + e^(−x))
//   tanh(x)      = (1 − e^(−2|x|)) / (1 + e^(−2|x|)) with x's sign   (BERT's pooler; std::tanh on the CPU)
// Every exp() argument is ≤ 0 (tanh and silu are written through e^(−|u|)), so nothing overflows; results
// that would be subnormal are flushed to 0 by the GPU, which is the CPU path's contract too.

export const ACTIVATIONS = Object.freeze(['none', 'relu', 'gelu', 'gelu_tanh', 'silu', 'tanh']);

/** Maps Hugging Face hidden_act names onto ACTIVATIONS (the CPU's parse_activation table). */
export function activationName(name) {
  if (ACTIVATIONS.includes(name)) return name;
  if (name === 'gelu_new' || name === 'gelu_pytorch_tanh' || name === 'gelu_fast') return 'gelu_tanh';
  if (name === 'swish') return 'silu';
  throw new Error(`webgpu: unsupported activation '${name}' (supported: ${ACTIVATIONS.join(', ')}, gelu_new, gelu_pytorch_tanh, gelu_fast, swish)`);
}

/** WGSL source of `fn <name>_<suffix>(x: T) -> T` for one activation ('' for 'none'). */
export function activationWgsl(act, T, suffix) {
  const name = `act_${suffix}`;
  switch (act) {
    case 'none':
      return `fn ${name}(x: ${T}) -> ${T} { return x; }\n`;
    case 'relu':
      return `fn ${name}(x: ${T}) -> ${T} { return max(x, ${T}(0.0)); }\n`;
    case 'gelu':
      return `fn ${name}(x: ${T}) -> ${T} {
  let z = abs(x) * 0.70710678118654752;
  let t = ${T}(1.0) / fma(z, ${T}(0.3275911), ${T}(1.0));
  var p = fma(t, ${T}(1.061405429), ${T}(-1.453152027));
  p = fma(p, t, ${T}(1.421413741));
  p = fma(p, t, ${T}(-0.284496736));
  p = fma(p, t, ${T}(0.254829592));
  p = p * t;
  let e = ${T}(1.0) - p * exp(-(z * z));
  let erf = select(e, -e, x < ${T}(0.0));
  return 0.5 * x * (${T}(1.0) + erf);
}
`;
    case 'gelu_tanh':
      return `fn ${name}(x: ${T}) -> ${T} {
  let u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
  let e = exp(-2.0 * abs(u));
  let t = (${T}(1.0) - e) / (${T}(1.0) + e);
  return 0.5 * x * (${T}(1.0) + select(t, -t, u < ${T}(0.0)));
}
`;
    case 'tanh':
      return `fn ${name}(x: ${T}) -> ${T} {
  let e = exp(-2.0 * abs(x));
  let t = (${T}(1.0) - e) / (${T}(1.0) + e);
  return select(t, -t, x < ${T}(0.0));
}
`;
    case 'silu':
      return `fn ${name}(x: ${T}) -> ${T} {
  let e = exp(-abs(x));
  return select(x, x * e, x < ${T}(0.0)) / (${T}(1.0) + e);
}
`;
    default:
      throw new Error(`webgpu: unknown activation '${act}' (expected ${ACTIVATIONS.join(', ')})`);
  }
}
