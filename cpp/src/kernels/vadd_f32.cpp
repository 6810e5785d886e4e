// vadd_f32: y[i] += x[i]; vaddrelu_f32: y[i] = max(y[i] + b[i], 0) (wide: 2 vectors, narrow, tail).
#include "kernels/vadd_f32.h"

#include "kernels/simd.h"

namespace relpos::kernels {

void vadd_f32(std::size_t n, const float* x, float* y) {
  constexpr std::size_t W = simd::width;
  std::size_t i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    simd::store(y + i, simd::load(y + i) + simd::load(x + i));
    simd::store(y + i + W, simd::load(y + i + W) + simd::load(x + i + W));
  }
  for (; i + W <= n; i += W) simd::store(y + i, simd::load(y + i) + simd::load(x + i));
  for (; i < n; ++i) y[i] += x[i];
}

void vaddrelu_f32(std::size_t n, const float* b, float* y) {
  constexpr std::size_t W = simd::width;
  const simd::vf zero = simd::splat(0.0f);
  std::size_t i = 0;
  for (; i + W <= n; i += W) simd::store(y + i, simd::max(simd::load(y + i) + simd::load(b + i), zero));
  for (; i < n; ++i) {
    const float t = y[i] + b[i];
    y[i] = t > 0.0f ? t : 0.0f;
  }
}

}  // namespace relpos::kernels
