// vquantize_f32: q[i] = quantize_value(x[i], inv, qmax) for n floats (gemm_qs8.h) — round(x · inv) halves away from
// zero, clamped to [−qmax, qmax], NaN → 0 — a vector at a time: the int8 weight formats quantize every weight of a
// checkpoint with it (pack_qs8_nk, EmbeddingTable::quantize_rows). The same operations in the same order as the
// scalar form (a product, three selects, + copysign(0.5), truncation), so every result is the same.
#include "kernels/gemm_qs8.h"
#include "kernels/simd.h"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace relpos::kernels {

void vquantize_f32(std::size_t n, const float* x, float inv, int qmax, std::int32_t* q) {
  std::size_t i = 0;
#if !defined(RELPOS_SCALAR)
  constexpr std::size_t W = simd::width;
  const simd::vf vinv = simd::splat(inv), hi = simd::splat(static_cast<float>(qmax)), lo = simd::splat(-static_cast<float>(qmax));
  const simd::vf zero = simd::splat(0.0f), half = simd::splat(0.5f);
  for (; i + W <= n; i += W) {
    simd::vf v = simd::load(x + i) * vinv;
    v = xsimd::select(xsimd::isnan(v), zero, v);  // (not v != v: an ordered "not equal" is false for NaN on AVX)
    v = xsimd::select(v < lo, lo, v);
    v = xsimd::select(v > hi, hi, v);
    const simd::vf r = v + xsimd::copysign(half, v);  // within ±(qmax + 0.5): truncation is in range
#if defined(__wasm_simd128__)
    // i32x4.trunc_sat_f32x4_s: Emscripten's _mm_cvttps_epi32 (xsimd::to_int) is four scalar conversions with checks
    wasm_v128_store(q + i, wasm_i32x4_trunc_sat_f32x4(static_cast<v128_t>(static_cast<__m128>(r))));
#else
    xsimd::to_int(r).store_unaligned(q + i);
#endif
  }
#endif
  for (; i < n; ++i) q[i] = quantize_value(x[i], inv, qmax);
}

}  // namespace relpos::kernels
