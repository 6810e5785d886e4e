// x ← x/2 · (1 + erf(x/√2)); erf by Abramowitz–Stegun 7.1.26 (contract in vactivation_f32.h).
// z = |x|/√2 is clamped to 6 first: from z ≈ 3.9 on, 1 − p·exp(−z²) rounds to 1 anyway (erfc(z) < 2^−25),
// so no result changes; unclamped, p·exp(−z²) was subnormal for z ∈ [9.2, 9.35] (|x| ≈ 13; issue #28).
// With exp_f32.h's cut-off, no other value here is subnormal for normal inputs.
#include "kernels/vactivation_f32.h"

#include <cmath>

#include "kernels/vactivation_common.h"

namespace relpos::kernels {

void vgelu_f32(std::size_t n, float* x) {
#if defined(RELPOS_SCALAR)
  for (std::size_t i = 0; i < n; ++i) x[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * 0.70710678118654752f));
#else
  detail::map_inplace(n, x, [](const simd::vf& v) {
    const simd::vf z0 = xsimd::abs(v) * simd::splat(0.70710678118654752f);
    const simd::vf z = xsimd::select(z0 > simd::splat(6.0f), simd::splat(6.0f), z0);  // NaN stays NaN
    const simd::vf one = simd::splat(1.0f);
    const simd::vf t = one / simd::fma(z, simd::splat(0.3275911f), one);
    simd::vf p = simd::fma(t, simd::splat(1.061405429f), simd::splat(-1.453152027f));
    p = simd::fma(p, t, simd::splat(1.421413741f));
    p = simd::fma(p, t, simd::splat(-0.284496736f));
    p = simd::fma(p, t, simd::splat(0.254829592f));
    p = p * t;
    const simd::vf erf_abs = one - p * exp_nonpositive(-(z * z));
    const simd::vf erf = xsimd::select(v < simd::splat(0.0f), -erf_abs, erf_abs);
    return simd::splat(0.5f) * v * (one + erf);
  });
#endif
}

}  // namespace relpos::kernels
