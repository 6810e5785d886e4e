// Shared pieces of the activation micro-kernels (vactivation_f32.h): the in-place map with a
// padded tail (every element goes through the same vector code) and the stable logistic.
#pragma once

#include <algorithm>
#include <cstddef>

#include "kernels/exp_f32.h"
#include "kernels/simd.h"

namespace relpos::kernels::detail {

// x[i] ← f(x[i]) for i < n, f: simd::vf → simd::vf; the last n mod width elements via a padded vector.
template <class F>
inline void map_inplace(std::size_t n, float* x, F f) {
  constexpr std::size_t W = simd::width;
  std::size_t i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    const simd::vf a = f(simd::load(x + i)), b = f(simd::load(x + i + W));
    simd::store(x + i, a);
    simd::store(x + i + W, b);
  }
  for (; i + W <= n; i += W) simd::store(x + i, f(simd::load(x + i)));
  if (i < n) {
    float tail[W] = {};
    std::copy(x + i, x + n, tail);
    simd::store(tail, f(simd::load(tail)));
    std::copy(tail, tail + (n - i), x + i);
  }
}

#if !defined(RELPOS_SCALAR)
// σ(s) = 1/(1 + e^−s) as (s ≥ 0 ? 1 : e)/(1 + e), e = exp(−|s|).
inline simd::vf logistic(const simd::vf& s) {
  const simd::vf e = exp_nonpositive(-xsimd::abs(s));
  const simd::vf one = simd::splat(1.0f);
  return xsimd::select(s >= simd::splat(0.0f), one, e) / (one + e);
}
#endif

}  // namespace relpos::kernels::detail
