// gemm_packed_parallel / gemm_qs8_parallel: the model layer's matrix products split over fixed output
// tiles. Tiles are 96 rows (a multiple of every gemm_mr: 4 on SIMD128, 6 natively) × 64 columns (a
// multiple of every gemm_nr, so a tile starts on a packed panel: fp32 panel p begins at p·K·NR floats,
// int8 panel p at kernels::packed_qs8_bytes(K, p·NR) bytes). Tile t covers row tile t / col_tiles and
// column tile t % col_tiles; parallel_for hands tiles out one at a time (grain 1). A group of products of
// the same A (gemm_packed_parallel_group: a layer's Q, K and V) puts every product's column tiles side by
// side, so one region covers them all: at a sentence's 11–47 rows each product alone is only 6 tiles
// (hidden 384), and one region instead of three saves two hand-offs per layer (issue #41).
#include "models/layers/parallel_rows.h"

#include <algorithm>

#include "kernels/gemm_f32.h"
#include "kernels/gemm_qs8.h"
#include "kernels/simd.h"

namespace relpos::models {
namespace {
constexpr int kRowTile = 96;
constexpr int kColTile = 64;
static_assert(kColTile % simd::gemm_nr == 0, "column tiles must start on packed panels");

struct Tile {
  int r0, c0, rows, cols;
};

// fn(g, tile) for every tile of the products C_g[M×N[g]], g < groups, in one parallel region (inline below
// parallel::kMinParallelWork: 2·M·ΣN·K). Tile t: row tile t / Σcol_tiles, then product g and its column tile.
template <class F>
void for_each_tile(int M, const int* N, int groups, int K, F&& fn) {
  if (M <= 0) return;
  const auto tiles_of = [](int n) { return (n + kColTile - 1) / kColTile; };
  int col_tiles = 0;
  double flops = 0;
  for (int g = 0; g < groups; ++g) {
    col_tiles += tiles_of(N[g]);
    flops += 2.0 * M * N[g] * K;
  }
  if (col_tiles == 0) return;
  const int row_tiles = (M + kRowTile - 1) / kRowTile;
  parallel::parallel_for(0, static_cast<parallel::Index>(row_tiles) * col_tiles, 1,
                         [&](parallel::Index t0, parallel::Index t1, int) {
                           for (parallel::Index t = t0; t < t1; ++t) {
                             const int r0 = static_cast<int>(t / col_tiles) * kRowTile;
                             int c = static_cast<int>(t % col_tiles), g = 0;
                             while (c >= tiles_of(N[g])) c -= tiles_of(N[g++]);
                             const int c0 = c * kColTile;
                             fn(g, Tile{r0, c0, std::min(kRowTile, M - r0), std::min(kColTile, N[g] - c0)});
                           }
                         },
                         flops);
}
}  // namespace

void gemm_packed_parallel_group(int M, int K, const float* A, std::size_t lda, const PackedGemm* products, int count) {
  constexpr int kMaxGroup = 4;
  if (count > kMaxGroup) {  // more than a layer's projections: in runs of kMaxGroup
    gemm_packed_parallel_group(M, K, A, lda, products, kMaxGroup);
    return gemm_packed_parallel_group(M, K, A, lda, products + kMaxGroup, count - kMaxGroup);
  }
  int N[kMaxGroup];
  for (int g = 0; g < count; ++g) N[g] = products[g].N;
  for_each_tile(M, N, count, K, [&](int g, const Tile& t) {
    const PackedGemm& p = products[g];
    float* c = p.C + static_cast<std::size_t>(t.r0) * p.ldc + t.c0;
    kernels::gemm_f32_packed(t.rows, t.cols, K, 1.0f, A + static_cast<std::size_t>(t.r0) * lda, lda,
                             p.packed_b + static_cast<std::size_t>(t.c0 / simd::gemm_nr) * K * simd::gemm_nr, c, p.ldc, false);
    if (!p.bias) return;
    for (int r = 0; r < t.rows; ++r)
      for (int j = 0; j < t.cols; ++j) c[static_cast<std::size_t>(r) * p.ldc + j] += p.bias[t.c0 + j];
  });
}

void gemm_packed_parallel(int M, int N, int K, const float* A, std::size_t lda, const float* packed_b, float* C,
                          std::size_t ldc, const float* bias) {
  const PackedGemm product{N, packed_b, C, ldc, bias};
  gemm_packed_parallel_group(M, K, A, lda, &product, 1);
}

void gemm_qs8_parallel(int M, int N, int K, const std::int16_t* Aq, std::size_t ldq, const float* a_scales,
                       const std::int8_t* packed_b, const float* b_scales, const float* bias, float* C, std::size_t ldc) {
  for_each_tile(M, &N, 1, K, [&](int, const Tile& t) {
    kernels::gemm_qs8_packed(t.rows, t.cols, K, Aq + static_cast<std::size_t>(t.r0) * ldq, ldq, a_scales + t.r0,
                             packed_b + kernels::packed_qs8_bytes(K, t.c0), b_scales + t.c0, bias ? bias + t.c0 : nullptr,
                             C + static_cast<std::size_t>(t.r0) * ldc + t.c0, ldc);
  });
}

}  // namespace relpos::models
