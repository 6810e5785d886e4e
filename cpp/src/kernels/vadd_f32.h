// Element-wise vector pieces used by the position schemes (written once over simd::vf).
#pragma once

#include <cstddef>

namespace relpos::kernels {

// y[i] += x[i] for i < n. x and y must not overlap unless x == y.
void vadd_f32(std::size_t n, const float* x, float* y);

// y[i] = max(y[i] + b[i], 0) for i < n (bias then ReLU, in place).
void vaddrelu_f32(std::size_t n, const float* b, float* y);

}  // namespace relpos::kernels
