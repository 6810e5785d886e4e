// Parallel forms of the model layer's bulk loops, over fixed pieces (parallel/parallel_for.h), so a
// forward pass gives bitwise identical results for any thread count.
//   gemm_packed_parallel: C[M×N] = A·B (+ bias[N]) as tiles of kRowTile rows × kColTile columns, each
//   tile one kernels::gemm_f32_packed call (every dot product keeps its order); B packed with K rows.
//   for_each_span: fn(i0, i1) over [0, n) in spans of `grain` (element-wise loops).
#pragma once

#include <cstddef>

#include "parallel/parallel_for.h"

namespace relpos::models {

void gemm_packed_parallel(int M, int N, int K, const float* A, std::size_t lda, const float* packed_b, float* C,
                          std::size_t ldc, const float* bias);

template <class F>
void for_each_span(std::size_t n, std::size_t grain, F&& fn) {
  parallel::parallel_for(0, static_cast<parallel::Index>(n), static_cast<parallel::Index>(grain),
                         [&](parallel::Index b, parallel::Index e, int) {
                           fn(static_cast<std::size_t>(b), static_cast<std::size_t>(e));
                         });
}

// Element-wise loops: 16 Ki floats (64 KiB) per piece.
constexpr std::size_t kElementGrain = 16384;

}  // namespace relpos::models
