// The storage element type of relpos's WGSL generators: every kernel that reads or writes activations or
// weights takes `dtype` ('f32' default, or 'f16') and emits the same program for either, differing only in
// the storage arrays' element type and a conversion at each load and store. Arithmetic, shared memory and
// accumulators stay f32 in both (GEMM sums, attention's softmax, norms' statistics). 'f16' programs start
// with `enable f16;` and need a device created with the 'shader-f16' feature (ctx.shaderF16); in f32 the
// helpers return their argument unchanged, so the f32 WGSL is exactly what it was before dtypes existed.
//
//   E       storage scalar: 'f32' | 'f16';  V: 'vec4<f32>' | 'vec4<f16>'
//   load(x) an f32 expression from a storage scalar (loadV: a vec4<f32> from a storage vec4)
//   store(x) a storage scalar from an f32 expression (storeV: vec4)
//   bytes   bytes per element (4 | 2)

export const DTYPES = Object.freeze(['f32', 'f16']);

export function checkDtype(dtype, where) {
  if (!DTYPES.includes(dtype)) throw new Error(`webgpu: ${where}: dtype '${dtype}' (expected 'f32' or 'f16')`);
  return dtype;
}

/** WGSL helpers for one storage type (see the header). */
export function storage(dtype = 'f32') {
  checkDtype(dtype, 'storage');
  const f16 = dtype === 'f16';
  return {
    dtype,
    E: dtype,
    V: `vec4<${dtype}>`,
    bytes: f16 ? 2 : 4,
    enable: f16 ? 'enable f16;\n' : '',
    load: (x) => (f16 ? `f32(${x})` : x),
    loadV: (x) => (f16 ? `vec4<f32>(${x})` : x),
    store: (x) => (f16 ? `f16(${x})` : x),
    storeV: (x) => (f16 ? `vec4<f16>(${x})` : x),
  };
}

/** Throws unless `ctx` can run `dtype` kernels (f16 needs the 'shader-f16' feature on the device). */
export function requireDtype(ctx, dtype, where) {
  checkDtype(dtype, where);
  if (dtype === 'f16' && !ctx.shaderF16)
    throw new Error(`webgpu: ${where}: dtype 'f16' needs the 'shader-f16' feature, which this device does not have (adapter features: ${ctx.features.join(', ') || 'none'})`);
}

/** IEEE binary16 bits of a float32 array (round to nearest even; overflow → ±Infinity), for f16 uploads. */
export function toHalf(src) {
  const out = new Uint16Array(src.length);
  const f = new Float32Array(1), u = new Uint32Array(f.buffer);
  for (let i = 0; i < src.length; ++i) {
    f[0] = src[i];
    const x = u[0];
    const sign = (x >>> 16) & 0x8000;
    const exp = (x >>> 23) & 0xff, mant = x & 0x7fffff;
    let h;
    if (exp === 0xff) h = sign | 0x7c00 | (mant ? 0x200 : 0); // Inf / NaN
    else {
      const e = exp - 127 + 15;
      if (e >= 0x1f) h = sign | 0x7c00; // overflow → Inf
      else if (e <= 0) {
        if (e < -10) h = sign; // underflow → ±0
        else {
          const m = mant | 0x800000, shift = 14 - e;
          let v = m >>> shift;
          const rest = m & ((1 << shift) - 1), half = 1 << (shift - 1);
          if (rest > half || (rest === half && (v & 1))) ++v;
          h = sign | v;
        }
      } else {
        let v = (e << 10) | (mant >>> 13);
        const rest = mant & 0x1fff;
        if (rest > 0x1000 || (rest === 0x1000 && (v & 1))) ++v; // may carry into the exponent: still right
        h = sign | v;
      }
    }
    out[i] = h;
  }
  return out;
}

/** float32 values of IEEE binary16 bits (a Uint16Array), for f16 read-backs. */
export function fromHalf(src) {
  const out = new Float32Array(src.length);
  for (let i = 0; i < src.length; ++i) {
    const h = src[i], sign = h & 0x8000 ? -1 : 1, e = (h >>> 10) & 0x1f, m = h & 0x3ff;
    out[i] = e === 0 ? sign * m * 2 ** -24 : e === 0x1f ? (m ? NaN : sign * Infinity) : sign * (1 + m / 1024) * 2 ** (e - 15);
  }
  return out;
}
