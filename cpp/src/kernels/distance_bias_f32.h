// Adds a bias that depends only on the distance d = j − i (key − query) to a block of logit rows,
// over a range of key columns.
//
//   by_distance[d + seq − 1] = bias(d),   d ∈ [−(seq − 1), seq − 1]   (2·seq − 1 floats, per head)
//   logits[(i − i0)·ld + (j − j0)] += by_distance[j − i + seq − 1]   for i ∈ [i0, i1), j ∈ [j0, j1)
//
// Row i reads the contiguous slice by_distance[seq − 1 − i + j0 … seq − 2 − i + j1], so the inner loop
// is a plain SIMD add. When term_rows is non-null, term_rows[(i − i0)·ld + (j − j0)] = bias(j − i) for
// the same entries. Contract: 0 ≤ j0 ≤ j1 ≤ seq, 0 ≤ i0 ≤ i1 ≤ seq. No allocation.
#pragma once

#include <cstddef>

namespace relpos::kernels {

void add_distance_bias_f32(int seq, int i0, int i1, int j0, int j1, const float* by_distance, float* logits,
                           std::size_t ld, float* term_rows);

}  // namespace relpos::kernels
