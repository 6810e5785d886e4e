// Adds a bias that depends only on the distance d = j − i (key − query) to a block of logit rows.
//
//   by_distance[d + seq − 1] = bias(d),   d ∈ [−(seq − 1), seq − 1]   (2·seq − 1 floats, per head)
//   logits[(i − i0)·ld + j] += by_distance[j − i + seq − 1]   for i ∈ [i0, i1), j < (causal ? i + 1 : seq)
//
// Row i reads the contiguous slice by_distance[seq − 1 − i … 2·seq − 2 − i], so the inner loop is a
// plain SIMD add. When term_rows is non-null, term_rows[(i − i0)·ld + j] = bias(j − i) for every
// j < seq (masked columns included). No allocation.
#pragma once

#include <cstddef>

namespace relpos::kernels {

void add_distance_bias_f32(int seq, int i0, int i1, bool causal, const float* by_distance, float* logits,
                           std::size_t ld, float* term_rows);

}  // namespace relpos::kernels
