// dot_rows_f32: few vectors against many rows — y[i, j] = Σ_k x[i, k] · w[j, k].
//
// The shape of a tied output projection evaluated at a few positions (masked-LM logits at the mask
// tokens): x [m, k] with m small, w [n, k] row-major as the embedding table stores it (never packed
// or transposed), y [m, n]. Each row of w is read once per group of up to 4 vectors of x, so the
// kernel streams w at memory speed. Every y[i, j] is one dot product in a fixed order (vector lanes,
// then the lanes' sum, then the tail), independent of m, n and the caller's chunking.
#pragma once

#include <cstddef>

namespace relpos::kernels {

// y[i·ldy + j] = Σ_k x[i·ldx + k] · w[j·ldw + k] for i < m, j < n.
void dot_rows_f32(int m, int n, int k, const float* x, std::size_t ldx, const float* w, std::size_t ldw, float* y,
                  std::size_t ldy);

}  // namespace relpos::kernels
