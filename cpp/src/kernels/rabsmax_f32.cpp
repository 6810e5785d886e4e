// rabsmax_f32: m = max_i |x[i]| over n floats, from 0, NaN ignored (gemm_qs8.h) — the row and group scales of the
// int8 weight formats (pack_qs8_nk, EmbeddingTable::quantize_rows). Lanes keep std::max(m, |x|) (max_keep: a NaN
// leaves m), so the result is the scalar loop's whatever the width and order: max is exact, and no NaN enters.
#include <algorithm>

#include "kernels/gemm_qs8.h"
#include "kernels/simd.h"

namespace relpos::kernels {

float rabsmax_f32(std::size_t n, const float* x) {
  constexpr std::size_t W = simd::width;
  std::size_t i = 0;
  float m = 0.0f;
  if (n >= W) {
    simd::vf m0 = simd::splat(0.0f), m1 = m0;
    for (; i + 2 * W <= n; i += 2 * W) {
      m0 = simd::max_keep(m0, simd::abs(simd::load(x + i)));
      m1 = simd::max_keep(m1, simd::abs(simd::load(x + i + W)));
    }
    for (; i + W <= n; i += W) m0 = simd::max_keep(m0, simd::abs(simd::load(x + i)));
    m = simd::reduce_max(simd::max_keep(m0, m1));
  }
  for (; i < n; ++i) m = std::max(m, std::fabs(x[i]));
  return m;
}

}  // namespace relpos::kernels
