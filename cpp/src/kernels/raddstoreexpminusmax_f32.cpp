// raddstoreexpminusmax_f32: y[i] = exp(x[i] − max), 0 where x[i] − max < kSoftmaxCutoff; returns Σ y[i]
// (wide: 2 vectors, narrow, tail). Vector lanes use exp_nonpositive_above (x − max ≤ 0, cut off inside
// the exp: no extra select); the tail uses std::exp behind the same cut-off.
#include <cmath>

#include "kernels/exp_f32.h"
#include "kernels/simd.h"
#include "kernels/softmax_f32.h"

namespace relpos::kernels {

float raddstoreexpminusmax_f32(std::size_t n, const float* x, float max, float* y) {
  constexpr std::size_t W = simd::width;
  const simd::vf vmax = simd::splat(max);
  simd::vf s0 = simd::splat(0.0f), s1 = s0;
  std::size_t i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    const simd::vf e0 = exp_nonpositive_above(simd::load(x + i) - vmax, kSoftmaxCutoff);
    const simd::vf e1 = exp_nonpositive_above(simd::load(x + i + W) - vmax, kSoftmaxCutoff);
    simd::store(y + i, e0);
    simd::store(y + i + W, e1);
    s0 = s0 + e0;
    s1 = s1 + e1;
  }
  for (; i + W <= n; i += W) {
    const simd::vf e = exp_nonpositive_above(simd::load(x + i) - vmax, kSoftmaxCutoff);
    simd::store(y + i, e);
    s0 = s0 + e;
  }
  float sum = simd::reduce_add(s0 + s1);
  for (; i < n; ++i) {
    const float d = x[i] - max;
    y[i] = d < kSoftmaxCutoff ? 0.0f : std::exp(d);
    sum += y[i];
  }
  return sum;
}

}  // namespace relpos::kernels
