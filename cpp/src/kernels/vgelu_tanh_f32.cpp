// x ← x/2 · (1 + tanh(u)) = x · σ(2u), u = √(2/π)(x + 0.044715x³) (contract in vactivation_f32.h).
#include "kernels/vactivation_f32.h"

#include <cmath>

#include "kernels/vactivation_common.h"

namespace relpos::kernels {

void vgelu_tanh_f32(std::size_t n, float* x) {
#if defined(RELPOS_SCALAR)
  for (std::size_t i = 0; i < n; ++i) {
    const float v = x[i];
    x[i] = 0.5f * v * (1.0f + std::tanh(0.79788456080286536f * (v + 0.044715f * v * v * v)));
  }
#else
  detail::map_inplace(n, x, [](const simd::vf& v) {
    const simd::vf two_u = simd::splat(2.0f * 0.79788456080286536f) * simd::fma(simd::splat(0.044715f) * v, v * v, v);
    return v * detail::logistic(two_u);
  });
#endif
}

}  // namespace relpos::kernels
