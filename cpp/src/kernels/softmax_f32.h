// Softmax split into reusable row pieces (XNNPACK style):
//   m = rmax(x);  s = raddstoreexpminusmax(x, m, y);  vscale(y, 1/s)
#pragma once

#include <cstddef>

namespace relpos::kernels {

// max_i x[i]; -inf when n == 0 or every x[i] is -inf.
float rmax_f32(std::size_t n, const float* x);

// y[i] = exp(x[i] − max) for i < n; returns Σ y[i]. x == y is allowed. exp(−inf) = 0.
float raddstoreexpminusmax_f32(std::size_t n, const float* x, float max, float* y);

// x[i] *= scale for i < n.
void vscale_f32(std::size_t n, float* x, float scale);

}  // namespace relpos::kernels
