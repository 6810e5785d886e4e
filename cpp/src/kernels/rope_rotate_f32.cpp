// rope_rotate_{half,interleaved}_f32: see rope_rotate_f32.h. Half is SIMD over i (both halves are
// contiguous); Interleaved is a scalar pair loop (O(seq·d), negligible next to the O(seq²·d) GEMMs).
#include "kernels/rope_rotate_f32.h"

#include "kernels/simd.h"

namespace relpos::kernels {

void rope_rotate_half_f32(int rows, int h, const float* cos, const float* sin, float* x, std::size_t ldx) {
  constexpr int W = static_cast<int>(simd::width);
  for (int p = 0; p < rows; ++p) {
    float* a = x + static_cast<std::size_t>(p) * ldx;
    float* b = a + h;
    const float* c = cos + static_cast<std::size_t>(p) * h;
    const float* s = sin + static_cast<std::size_t>(p) * h;
    int i = 0;
    for (; i + W <= h; i += W) {
      const simd::vf va = simd::load(a + i), vb = simd::load(b + i);
      const simd::vf vc = simd::load(c + i), vs = simd::load(s + i);
      simd::store(a + i, va * vc - vb * vs);
      simd::store(b + i, vb * vc + va * vs);
    }
    for (; i < h; ++i) {
      const float va = a[i], vb = b[i];
      a[i] = va * c[i] - vb * s[i];
      b[i] = vb * c[i] + va * s[i];
    }
  }
}

void rope_rotate_interleaved_f32(int rows, int h, const float* cos, const float* sin, float* x, std::size_t ldx) {
  for (int p = 0; p < rows; ++p) {
    float* row = x + static_cast<std::size_t>(p) * ldx;
    const float* c = cos + static_cast<std::size_t>(p) * h;
    const float* s = sin + static_cast<std::size_t>(p) * h;
    for (int i = 0; i < h; ++i) {
      const float x0 = row[2 * i], x1 = row[2 * i + 1];
      row[2 * i] = x0 * c[i] - x1 * s[i];
      row[2 * i + 1] = x1 * c[i] + x0 * s[i];
    }
  }
}

}  // namespace relpos::kernels
