// exp for softmax arguments (x ≤ 0, −inf, or NaN), written over simd::vf, with no subnormal float
// anywhere: not in the result, not in an intermediate (issue #28: Intel CPUs take a microcode assist
// for every operation that reads or produces a subnormal, and WebAssembly cannot flush them to zero).
//
//   x < cutoff → 0 (exactly);  otherwise, with x' = max(x, cutoff) computed first:
//   n = round(x'·log2e)           (magic-bias rounding: no float→int conversion, which Emscripten
//                                  lowers to a per-lane scalar loop for SSE-style cvtps)
//   s = 2^n                       (n's float bits shifted into the exponent field)
//   t = x' − n·ln2                (Cody–Waite: ln2 split into hi + lo)
//   exp(x) ≈ s · (1 + t·p(t)),    p degree-5 minimax on [−ln2/2, ln2/2].
// cutoff ≥ kExpCutoff = −87 keeps everything normal: n ≥ −126, 1 + t·p ∈ [0.7, 1.42], and at n = −126
// (x' ∈ [−87, −86.99]) t ≥ 0.33, so the result is ≥ 1.39·2^−126; clamping x first keeps the lanes that
// end up 0 from computing a tiny 2^n · (1 + t·p) on the way (x ∈ [−87.7, −87.3] or ≈ −265, −442, …).
// s·(1 + t·p) rounds exactly as the former (t·s)·p + s did wherever that stayed normal (s is a power of
// two): results on [−87, 0] did not change. exp(x) ≈ 1.65e−38 at −87; below it the result is 0 (the
// true value lies in [0, 1.65e−38), where std::exp would return subnormals from −87.34).
// Max relative error ≈ 2 ulp on [−87, 0]; exp(−inf) = 0; NaN stays NaN. The scalar build
// (RELPOS_SCALAR) uses std::exp with the same cutoff, so both builds flush the same arguments.
#pragma once

#include "kernels/simd.h"

namespace relpos::kernels {

// Smallest argument whose exp is computed; below it the result is exactly 0. e^−87 ≈ 1.65e−38 > FLT_MIN.
constexpr float kExpCutoff = -87.0f;

// exp(x) for x ≥ cutoff, 0 for x < cutoff (NaN propagates). Requires kExpCutoff ≤ cutoff ≤ 0.
inline simd::vf exp_nonpositive_above(const simd::vf& x, float cutoff) {
#if defined(RELPOS_SCALAR)
  return x < cutoff ? 0.0f : std::exp(x);
#else
  using vi = xsimd::batch<std::int32_t>;
  const simd::vf vcut = simd::splat(cutoff);
  const auto below = x < vcut;
  const simd::vf xc = xsimd::select(below, vcut, x);  // NaN < cutoff is false: NaN goes through
  const simd::vf magic = simd::splat(0x1.8000FEp23f);  // 1.5·2^23 + 127: rounds and adds the exponent bias
  simd::vf n = simd::fma(xc, simd::splat(0x1.715476p+0f), magic);
  const simd::vf s = xsimd::bitwise_cast<simd::vf>(xsimd::bitwise_cast<vi>(n) << 23);
  n = n - magic;
  simd::vf t = simd::fma(n, simd::splat(-0x1.62E400p-1f), xc);
  t = simd::fma(n, simd::splat(-0x1.7F7D1Cp-20f), t);
  simd::vf p = simd::fma(simd::splat(0x1.0F9F9Cp-7f), t, simd::splat(0x1.573A1Ap-5f));
  p = simd::fma(p, t, simd::splat(0x1.555A80p-3f));
  p = simd::fma(p, t, simd::splat(0x1.FFFDC6p-2f));
  p = simd::fma(p, t, simd::splat(0x1.FFFFF6p-1f));
  const simd::vf e = s * simd::fma(t, p, simd::splat(1.0f));
  return xsimd::select(below, simd::splat(0.0f), e);
#endif
}

// exp(x) for x ≥ kExpCutoff, 0 below.
inline simd::vf exp_nonpositive(const simd::vf& x) { return exp_nonpositive_above(x, kExpCutoff); }

}  // namespace relpos::kernels
