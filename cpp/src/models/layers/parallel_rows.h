// Parallel forms of the model layer's bulk loops, over fixed pieces (parallel/parallel_for.h), so a
// forward pass gives bitwise identical results for any thread count.
//   gemm_packed_parallel: C[M×N] = A·B (+ bias[N]) as tiles of kRowTile rows × kColTile columns, each
//   tile one kernels::gemm_f32_packed call (every dot product keeps its order); B packed with K rows.
//   gemm_packed_parallel_group: several such products of the same A (a layer's Q, K, V projections) in one
//   parallel region, every product's tiles as gemm_packed_parallel makes them (the same bits).
//   gemm_qs8_parallel: the same tiles for the 8-bit product (kernels::gemm_qs8_packed): C[M×N] =
//   a_scales[r] · b_scales[n] · (Aq · Bq)[r][n] + bias[n], Aq already quantized (every element's integer
//   sum is exact and its rescale the same whatever the tile, so tiles change nothing but who computes).
//   for_each_span: fn(i0, i1) over [0, n) in spans of `grain` (element-wise loops), inline when the
//   caller's work estimate is below parallel::kMinParallelWork.
#pragma once

#include <cstddef>
#include <cstdint>

#include "parallel/parallel_for.h"

namespace relpos::models {

void gemm_packed_parallel(int M, int N, int K, const float* A, std::size_t lda, const float* packed_b, float* C,
                          std::size_t ldc, const float* bias);

// One product of a group: C[M×N] (row stride ldc) = A·B (+ bias[N] when non-null), B packed with K rows.
struct PackedGemm {
  int N;
  const float* packed_b;
  float* C;
  std::size_t ldc;
  const float* bias;
};
void gemm_packed_parallel_group(int M, int K, const float* A, std::size_t lda, const PackedGemm* products, int count);

void gemm_qs8_parallel(int M, int N, int K, const std::int16_t* Aq, std::size_t ldq, const float* a_scales,
                       const std::int8_t* packed_b, const float* b_scales, const float* bias, float* C, std::size_t ldc);

// work: the whole loop's estimated flops (parallel_for.h: small loops run inline); < 0 unknown.
template <class F>
void for_each_span(std::size_t n, std::size_t grain, F&& fn, parallel::Work work = -1) {
  parallel::parallel_for(0, static_cast<parallel::Index>(n), static_cast<parallel::Index>(grain),
                         [&](parallel::Index b, parallel::Index e, int) {
                           fn(static_cast<std::size_t>(b), static_cast<std::size_t>(e));
                         },
                         work);
}

// Element-wise loops: 16 Ki floats (64 KiB) per piece.
constexpr std::size_t kElementGrain = 16384;

// What one element of a pass costs, in GEMM flops that take as long (the unit of parallel_for's `work`):
// bench/src/elementwise_cost.cpp, SIMD128 build under Node 20 (2026-11-24: packed GEMM 43 GFLOP/s;
// ns per element × that rate, rounded up). With them a 128-token GELU (~0.4 ms) or LayerNorm at width
// ≥ 384 (~0.11 ms) runs on the pool, while a residual add stays inline until ~1 M elements.
namespace work_per_element {
constexpr double kLayerNorm = 100;  // two passes in double + the affine map: 2.2 ns
constexpr double kRmsNorm = 45;     // 1.0 ns
constexpr double kGelu = 95;        // exact erf: 2.1 ns
constexpr double kGeluTanh = 70;    // 1.6 ns
constexpr double kSilu = 55;        // 1.3 ns
constexpr double kRelu = 5;         // 0.12 ns
constexpr double kAdd = 5;          // x += y, x *= y: 0.13 ns
constexpr double kCopy = 5;         // gathers and head copies
}  // namespace work_per_element

}  // namespace relpos::models
