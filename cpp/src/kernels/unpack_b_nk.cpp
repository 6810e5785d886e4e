// unpack_b_nk: packed K × N panels → Bt [N][K] (see unpack_b_nk.h).
#include "kernels/unpack_b_nk.h"

#include <cstddef>

#include "kernels/simd.h"

namespace relpos::kernels {

void unpack_b_nk(int K, int N, const float* packed, float* Bt) {
  constexpr int NR = simd::gemm_nr;
  for (int n = 0; n < N; ++n) {
    const float* panel = packed + static_cast<std::size_t>(n / NR) * K * NR + n % NR;
    float* row = Bt + static_cast<std::size_t>(n) * K;
    for (int k = 0; k < K; ++k) row[k] = panel[static_cast<std::size_t>(k) * NR];
  }
}

}  // namespace relpos::kernels
