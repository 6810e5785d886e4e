// x ← x · σ(x) (contract in vactivation_f32.h).
#include "kernels/vactivation_f32.h"

#include <cmath>

#include "kernels/vactivation_common.h"

namespace relpos::kernels {

void vsilu_f32(std::size_t n, float* x) {
#if defined(RELPOS_SCALAR)
  for (std::size_t i = 0; i < n; ++i) x[i] = x[i] / (1.0f + std::exp(-x[i]));
#else
  detail::map_inplace(n, x, [](const simd::vf& v) { return v * detail::logistic(v); });
#endif
}

}  // namespace relpos::kernels
