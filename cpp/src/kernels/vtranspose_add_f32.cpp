// vtranspose_add_f32 (contract in vtranspose_add_f32.h): 4 × 4 blocks transposed in registers —
// two rounds of interleaves (float pairs, then 64-bit pairs) — and added to four rows of y.
#include "kernels/vtranspose_add_f32.h"

#include "kernels/simd.h"

namespace relpos::kernels {
namespace {

template <bool kTerm>
inline void scalar_block(int r0, int r1, int c0, int c1, const float* x, std::size_t ldx, float* y, std::size_t ldy,
                         float* term) {
  for (int r = r0; r < r1; ++r)
    for (int c = c0; c < c1; ++c) {
      const float v = x[static_cast<std::size_t>(c) * ldx + r];
      y[static_cast<std::size_t>(r) * ldy + c] += v;
      if (kTerm) term[static_cast<std::size_t>(r) * ldy + c] = v;
    }
}

template <bool kTerm>
void transpose_add(int rows, int cols, const float* x, std::size_t ldx, float* y, std::size_t ldy, float* term) {
  int r = 0;
#ifndef RELPOS_SCALAR
  if constexpr (simd::width == 4) {
    using vd = xsimd::batch<double>;
    const auto lo64 = [](const simd::vf& a, const simd::vf& b) {
      return xsimd::bitwise_cast<simd::vf>(xsimd::zip_lo(xsimd::bitwise_cast<vd>(a), xsimd::bitwise_cast<vd>(b)));
    };
    const auto hi64 = [](const simd::vf& a, const simd::vf& b) {
      return xsimd::bitwise_cast<simd::vf>(xsimd::zip_hi(xsimd::bitwise_cast<vd>(a), xsimd::bitwise_cast<vd>(b)));
    };
    for (; r + 4 <= rows; r += 4) {
      float* y0 = y + static_cast<std::size_t>(r) * ldy;
      float* t0 = kTerm ? term + static_cast<std::size_t>(r) * ldy : nullptr;
      int c = 0;
      for (; c + 4 <= cols; c += 4) {
        const float* xc = x + static_cast<std::size_t>(c) * ldx + r;  // columns c..c+3 of rows r..r+3
        const simd::vf a = simd::load(xc), b = simd::load(xc + ldx), e = simd::load(xc + 2 * ldx),
                       f = simd::load(xc + 3 * ldx);
        const simd::vf ab_lo = xsimd::zip_lo(a, b), ab_hi = xsimd::zip_hi(a, b);  // a0 b0 a1 b1 | a2 b2 a3 b3
        const simd::vf ef_lo = xsimd::zip_lo(e, f), ef_hi = xsimd::zip_hi(e, f);
        const simd::vf out[4] = {lo64(ab_lo, ef_lo), hi64(ab_lo, ef_lo), lo64(ab_hi, ef_hi), hi64(ab_hi, ef_hi)};
        for (int k = 0; k < 4; ++k) {
          float* yk = y0 + static_cast<std::size_t>(k) * ldy + c;
          simd::store(yk, simd::load(yk) + out[k]);
          if (kTerm) simd::store(t0 + static_cast<std::size_t>(k) * ldy + c, out[k]);
        }
      }
      scalar_block<kTerm>(r, r + 4, c, cols, x, ldx, y, ldy, term);
    }
  }
#endif
  scalar_block<kTerm>(r, rows, 0, cols, x, ldx, y, ldy, term);
}

}  // namespace

void vtranspose_add_f32(int rows, int cols, const float* x, std::size_t ldx, float* y, std::size_t ldy, float* term) {
  if (term)
    transpose_add<true>(rows, cols, x, ldx, y, ldy, term);
  else
    transpose_add<false>(rows, cols, x, ldx, y, ldy, nullptr);
}

}  // namespace relpos::kernels
