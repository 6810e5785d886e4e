// vquantize_f32: q[i] = quantize_value(x[i], inv, qmax) for n floats (gemm_qs8.h) — round(x · inv) halves away from
// zero, clamped to [−qmax, qmax], NaN → 0 — a vector at a time: the int8 weight formats quantize every weight of a
// checkpoint with it (pack_qs8_nk, EmbeddingTable::quantize_rows). The same operations in the same order as the
// scalar form (a product, three selects, + copysign(0.5), truncation), so every result is the same.
// vquantize_f32_s16: the same values stored as int16 (qmax ≤ 32767) — the activations of a q8 linear layer
// (quantize_rows_qs8), every row of every call. On SIMD128 both are written in wasm intrinsics: xsimd's selects,
// isnan and copysign go through Emscripten's SSE emulation (bench/src/q8_linear_pieces.cpp, Node 20, AMD EPYC:
// quantize_rows_qs8 2.0 ns an element with them and the scalar loop it had, 0.8 with these).
#include <algorithm>

#include "kernels/gemm_qs8.h"
#include "kernels/simd.h"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace relpos::kernels {

#if defined(__wasm_simd128__) && !defined(RELPOS_SCALAR)
namespace {
// quantize_value on four lanes: f32x4.pmax / pmin are exactly the scalar form's selects (v < lo ? lo : v,
// v > hi ? hi : v), NaN → 0 by a select on v != v, ±0.5 by the sign bit. The truncation of r = v ± 0.5
// (|r| ≤ 32767.5) is f32x4.trunc, an exact integer t with |t| ≤ 32767 < 2^22: t + 1.5·2^23 holds it in its low
// mantissa bits, read as an integer less the constant's bits (i32x4.trunc_sat's range checks cost more).
inline v128_t quantize4(v128_t x, v128_t vinv, v128_t lo, v128_t hi) {
  v128_t v = wasm_f32x4_mul(x, vinv);
  v = wasm_v128_andnot(v, wasm_f32x4_ne(v, v));
  v = wasm_f32x4_pmin(wasm_f32x4_pmax(v, lo), hi);
  const v128_t half = wasm_v128_or(wasm_f32x4_splat(0.5f), wasm_v128_and(v, wasm_i32x4_splat(INT32_MIN)));
  const v128_t t = wasm_f32x4_trunc(wasm_f32x4_add(v, half));
  return wasm_i32x4_sub(wasm_f32x4_add(t, wasm_f32x4_splat(12582912.0f)), wasm_i32x4_splat(0x4B400000));
}
}  // namespace
#endif

void vquantize_f32(std::size_t n, const float* x, float inv, int qmax, std::int32_t* q) {
  std::size_t i = 0;
#if defined(__wasm_simd128__) && !defined(RELPOS_SCALAR)
  const v128_t vinv = wasm_f32x4_splat(inv), hi = wasm_f32x4_splat(static_cast<float>(qmax)),
               lo = wasm_f32x4_splat(-static_cast<float>(qmax));
  for (; i + 4 <= n; i += 4) wasm_v128_store(q + i, quantize4(wasm_v128_load(x + i), vinv, lo, hi));
#elif !defined(RELPOS_SCALAR)
  constexpr std::size_t W = simd::width;
  const simd::vf vinv = simd::splat(inv), hi = simd::splat(static_cast<float>(qmax)), lo = simd::splat(-static_cast<float>(qmax));
  const simd::vf zero = simd::splat(0.0f), half = simd::splat(0.5f);
  for (; i + W <= n; i += W) {
    simd::vf v = simd::load(x + i) * vinv;
    v = xsimd::select(xsimd::isnan(v), zero, v);  // (not v != v: an ordered "not equal" is false for NaN on AVX)
    v = xsimd::select(v < lo, lo, v);
    v = xsimd::select(v > hi, hi, v);
    const simd::vf r = v + xsimd::copysign(half, v);  // within ±(qmax + 0.5): truncation is in range
    xsimd::to_int(r).store_unaligned(q + i);
  }
#endif
  for (; i < n; ++i) q[i] = quantize_value(x[i], inv, qmax);
}

void vquantize_f32_s16(std::size_t n, const float* x, float inv, int qmax, std::int16_t* q) {
  std::size_t i = 0;
#if defined(__wasm_simd128__) && !defined(RELPOS_SCALAR)
  const v128_t vinv = wasm_f32x4_splat(inv), hi = wasm_f32x4_splat(static_cast<float>(qmax)),
               lo = wasm_f32x4_splat(-static_cast<float>(qmax));
  for (; i + 8 <= n; i += 8) {  // |values| ≤ qmax ≤ 32767: the saturating narrow changes none
    const v128_t a = quantize4(wasm_v128_load(x + i), vinv, lo, hi), b = quantize4(wasm_v128_load(x + i + 4), vinv, lo, hi);
    wasm_v128_store(q + i, wasm_i16x8_narrow_i32x4(a, b));
  }
#elif !defined(RELPOS_SCALAR)
  constexpr std::size_t kChunk = 256;  // through int32 on the stack, then narrowed
  alignas(64) std::int32_t wide[kChunk];
  for (; i < n; i += kChunk) {
    const std::size_t c = std::min(kChunk, n - i);
    vquantize_f32(c, x + i, inv, qmax, wide);
    for (std::size_t j = 0; j < c; ++j) q[i + j] = static_cast<std::int16_t>(wide[j]);
  }
#endif
  for (; i < n; ++i) q[i] = static_cast<std::int16_t>(quantize_value(x[i], inv, qmax));
}

}  // namespace relpos::kernels
