// Softmax split into reusable row pieces (XNNPACK style):
//   m = rmax(x);  s = raddstoreexpminusmax(x, m, y);  vscale(y, 1/s)
//
// Cut-off (issue #28): raddstoreexpminusmax writes exactly 0 where x − max < kSoftmaxCutoff (−40),
// so no probability and no product p·v downstream is ever subnormal. Why −40:
//   - dropped mass: each dropped term is < e^−40 ≈ 4.2e−18 of the largest (which is 1), so the sum loses
//     < n·4.2e−18 relative to its value (≥ 1): < 3e−13 even at n = 2^16 keys, far below float epsilon
//     (6e−8): the sum, every kept probability and every output are the ones the exact softmax rounds to
//     (up to the kernels' own ulps); a dropped probability is off by < 4.2e−18 absolute;
//   - headroom: every kept probability is ≥ e^−40 / n ≥ 6e−23 at n = 2^16, so p·v is normal for any
//     |v| ≥ 2e−16; with the bare exp cut-off (≈ −87, FLT_MIN) the P·V GEMM took subnormal products for
//     every p below ≈ 1e−37/|v| — rows spanning more than ~80 ran up to 5× slower on Intel (issue #28).
#pragma once

#include <cstddef>

namespace relpos::kernels {

// Arguments x − max below this give probability 0 (see above).
constexpr float kSoftmaxCutoff = -40.0f;

// max_i x[i]; -inf when n == 0 or every x[i] is -inf.
float rmax_f32(std::size_t n, const float* x);

// y[i] = exp(x[i] − max) for i < n, 0 where x[i] − max < kSoftmaxCutoff; returns Σ y[i].
// x == y is allowed. exp(−inf) = 0; NaN propagates. No y[i] is subnormal.
float raddstoreexpminusmax_f32(std::size_t n, const float* x, float max, float* y);

// x[i] *= scale for i < n.
void vscale_f32(std::size_t n, float* x, float scale);

}  // namespace relpos::kernels
