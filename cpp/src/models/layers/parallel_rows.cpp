// gemm_packed_parallel: the model layer's matrix products split over fixed output tiles.
// Tiles are 96 rows (a multiple of every gemm_mr: 4 on SIMD128, 6 natively) × 64 columns (a multiple
// of every gemm_nr, so a tile starts on a packed panel: panel p begins at p·K·NR floats).
#include "models/layers/parallel_rows.h"

#include <algorithm>

#include "kernels/gemm_f32.h"
#include "kernels/simd.h"

namespace relpos::models {
namespace {
constexpr int kRowTile = 96;
constexpr int kColTile = 64;
static_assert(kColTile % simd::gemm_nr == 0, "column tiles must start on packed panels");
}  // namespace

void gemm_packed_parallel(int M, int N, int K, const float* A, std::size_t lda, const float* packed_b, float* C,
                          std::size_t ldc, const float* bias) {
  if (M <= 0 || N <= 0) return;
  const int row_tiles = (M + kRowTile - 1) / kRowTile, col_tiles = (N + kColTile - 1) / kColTile;
  parallel::parallel_for(0, static_cast<parallel::Index>(row_tiles) * col_tiles, 1,
                         [&](parallel::Index t0, parallel::Index t1, int) {
                           for (parallel::Index t = t0; t < t1; ++t) {
                             const int r0 = static_cast<int>(t / col_tiles) * kRowTile;
                             const int c0 = static_cast<int>(t % col_tiles) * kColTile;
                             const int rows = std::min(kRowTile, M - r0), cols = std::min(kColTile, N - c0);
                             float* c = C + static_cast<std::size_t>(r0) * ldc + c0;
                             kernels::gemm_f32_packed(rows, cols, K, 1.0f, A + static_cast<std::size_t>(r0) * lda, lda,
                                                      packed_b + static_cast<std::size_t>(c0 / simd::gemm_nr) * K * simd::gemm_nr,
                                                      c, ldc, false);
                             if (!bias) continue;
                             for (int r = 0; r < rows; ++r)
                               for (int j = 0; j < cols; ++j) c[static_cast<std::size_t>(r) * ldc + j] += bias[c0 + j];
                           }
                         });
}

}  // namespace relpos::models
