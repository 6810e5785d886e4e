// exp for softmax arguments (x ≤ 0, −inf, or NaN), written over simd::vf.
//
//   n = round(x·log2e)            (magic-bias rounding: no float→int conversion, which Emscripten
//                                  lowers to a per-lane scalar loop for SSE-style cvtps)
//   s = 2^n                       (n's float bits shifted into the exponent field)
//   t = x − n·ln2                 (Cody–Waite: ln2 split into hi + lo)
//   exp(x) ≈ s + s·t·p(t),  p degree-5 minimax on [−ln2/2, ln2/2];  0 below ln(FLT_MIN).
// Max relative error ≈ 2 ulp on x ∈ [−87.3, 0]; exp(−inf) = 0; NaN stays NaN. The scalar build
// (RELPOS_SCALAR) uses std::exp.
#pragma once

#include "kernels/simd.h"

namespace relpos::kernels {

inline simd::vf exp_nonpositive(const simd::vf& x) {
#if defined(RELPOS_SCALAR)
  return std::exp(x);
#else
  using vi = xsimd::batch<std::int32_t>;
  const simd::vf magic = simd::splat(0x1.8000FEp23f);  // 1.5·2^23 + 127: rounds and adds the exponent bias
  simd::vf n = simd::fma(x, simd::splat(0x1.715476p+0f), magic);
  const simd::vf s = xsimd::bitwise_cast<simd::vf>(xsimd::bitwise_cast<vi>(n) << 23);
  n = n - magic;
  simd::vf t = simd::fma(n, simd::splat(-0x1.62E400p-1f), x);
  t = simd::fma(n, simd::splat(-0x1.7F7D1Cp-20f), t);
  simd::vf p = simd::fma(simd::splat(0x1.0F9F9Cp-7f), t, simd::splat(0x1.573A1Ap-5f));
  p = simd::fma(p, t, simd::splat(0x1.555A80p-3f));
  p = simd::fma(p, t, simd::splat(0x1.FFFDC6p-2f));
  p = simd::fma(p, t, simd::splat(0x1.FFFFF6p-1f));
  t = t * s;
  const simd::vf e = simd::fma(t, p, s);
  return xsimd::select(x < simd::splat(-0x1.5D589Ep6f), simd::splat(0.0f), e);
#endif
}

}  // namespace relpos::kernels
