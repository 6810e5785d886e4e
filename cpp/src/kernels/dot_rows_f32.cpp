// dot_rows_f32 (dot_rows_f32.h): groups of up to 4 vectors of x share each loaded vector of a w row.
#include "kernels/dot_rows_f32.h"

#include "kernels/simd.h"

namespace relpos::kernels {
namespace {

// y[i, j] for i < G (G ≤ 4) and every j: one accumulator vector per x row.
template <int G>
void dot_group(int n, int k, const float* x, std::size_t ldx, const float* w, std::size_t ldw, float* y,
               std::size_t ldy) {
  constexpr int W = static_cast<int>(simd::width);
  const int kv = k - k % W;
  for (int j = 0; j < n; ++j) {
    const float* wj = w + static_cast<std::size_t>(j) * ldw;
    simd::vf acc[G];
    for (int g = 0; g < G; ++g) acc[g] = simd::splat(0.0f);
    for (int c = 0; c < kv; c += W) {
      const simd::vf wv = simd::load(wj + c);
      for (int g = 0; g < G; ++g) acc[g] = simd::fma(simd::load(x + g * ldx + c), wv, acc[g]);
    }
    for (int g = 0; g < G; ++g) {
      float sum = simd::reduce_add(acc[g]);
      for (int c = kv; c < k; ++c) sum += x[g * ldx + c] * wj[c];
      y[g * ldy + j] = sum;
    }
  }
}

}  // namespace

void dot_rows_f32(int m, int n, int k, const float* x, std::size_t ldx, const float* w, std::size_t ldw, float* y,
                  std::size_t ldy) {
  int i = 0;
  for (; i + 4 <= m; i += 4) dot_group<4>(n, k, x + i * ldx, ldx, w, ldw, y + i * ldy, ldy);
  switch (m - i) {
    case 3: dot_group<3>(n, k, x + i * ldx, ldx, w, ldw, y + i * ldy, ldy); break;
    case 2: dot_group<2>(n, k, x + i * ldx, ldx, w, ldw, y + i * ldy, ldy); break;
    case 1: dot_group<1>(n, k, x + i * ldx, ldx, w, ldw, y + i * ldy, ldy); break;
    default: break;
  }
}

}  // namespace relpos::kernels
