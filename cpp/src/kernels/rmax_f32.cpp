// rmax_f32: m = max_i x[i] over n floats (wide: 4 vectors, narrow: 1 vector, tail: scalar).
#include <limits>

#include "kernels/simd.h"
#include "kernels/softmax_f32.h"

namespace relpos::kernels {

float rmax_f32(std::size_t n, const float* x) {
  constexpr std::size_t W = simd::width;
  const float neg_inf = -std::numeric_limits<float>::infinity();
  std::size_t i = 0;
  float m = neg_inf;
  if (n >= W) {
    simd::vf m0 = simd::splat(neg_inf), m1 = m0, m2 = m0, m3 = m0;
    for (; i + 4 * W <= n; i += 4 * W) {
      m0 = simd::max(m0, simd::load(x + i));
      m1 = simd::max(m1, simd::load(x + i + W));
      m2 = simd::max(m2, simd::load(x + i + 2 * W));
      m3 = simd::max(m3, simd::load(x + i + 3 * W));
    }
    for (; i + W <= n; i += W) m0 = simd::max(m0, simd::load(x + i));
    m = simd::reduce_max(simd::max(simd::max(m0, m1), simd::max(m2, m3)));
  }
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

}  // namespace relpos::kernels
