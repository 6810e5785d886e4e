// vscale_f32: x[i] *= scale (wide: 2 vectors, narrow, tail).
#include "kernels/simd.h"
#include "kernels/softmax_f32.h"

namespace relpos::kernels {

void vscale_f32(std::size_t n, float* x, float scale) {
  constexpr std::size_t W = simd::width;
  const simd::vf s = simd::splat(scale);
  std::size_t i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    simd::store(x + i, simd::load(x + i) * s);
    simd::store(x + i + W, simd::load(x + i + W) * s);
  }
  for (; i + W <= n; i += W) simd::store(x + i, simd::load(x + i) * s);
  for (; i < n; ++i) x[i] *= scale;
}

}  // namespace relpos::kernels
