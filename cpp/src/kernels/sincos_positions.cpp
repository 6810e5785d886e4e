// sincos_positions_f32: see sincos_positions.h. Frequencies in chunks of 64 (stack state), positions
// inner so every output row of a chunk is written once.
#include "kernels/sincos_positions.h"

#include <algorithm>
#include <cmath>

namespace relpos::kernels {

void sincos_positions_f32(int length, int n, double base, int dim, float* cos_out, float* sin_out, std::size_t ld,
                          std::size_t stride) {
  constexpr int kChunk = 64;
  constexpr int kAnchor = 512;
  for (int f0 = 0; f0 < n; f0 += kChunk) {
    const int m = std::min(kChunk, n - f0);
    double omega[kChunk], c1[kChunk], s1[kChunk], c[kChunk], s[kChunk];
    for (int i = 0; i < m; ++i) {
      omega[i] = std::pow(base, -2.0 * (f0 + i) / dim);
      c1[i] = std::cos(omega[i]);
      s1[i] = std::sin(omega[i]);
    }
    for (int p = 0; p < length; ++p) {
      if (p % kAnchor == 0)
        for (int i = 0; i < m; ++i) {
          c[i] = std::cos(p * omega[i]);
          s[i] = std::sin(p * omega[i]);
        }
      float* co = cos_out + static_cast<std::size_t>(p) * ld + static_cast<std::size_t>(f0) * stride;
      float* so = sin_out + static_cast<std::size_t>(p) * ld + static_cast<std::size_t>(f0) * stride;
      for (int i = 0; i < m; ++i) {
        co[i * stride] = static_cast<float>(c[i]);
        so[i * stride] = static_cast<float>(s[i]);
      }
      for (int i = 0; i < m; ++i) {
        const double nc = c[i] * c1[i] - s[i] * s1[i];
        const double ns = s[i] * c1[i] + c[i] * s1[i];
        c[i] = nc;
        s[i] = ns;
      }
    }
  }
}

}  // namespace relpos::kernels
