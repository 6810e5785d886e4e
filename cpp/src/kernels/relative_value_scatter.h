// Value-side relative kernel: probabilities summed per relative-table row ("bucket sums"), so that
// Σ_j p_ij aV[index(j − i)] becomes one small GEMM  bucket_sums[rows, table] · aV[table, head_dim].
#pragma once

#include "kernels/relative_runs.h"

namespace relpos::kernels {

// for j in [0, n):  s[index(j − i) − index_base] += p[j].
// Shapes: p holds n floats; s holds every index the row touches (the caller zeroes it first).
// step-1 runs add contiguous slices (vector adds); step-0 runs add a vector-reduced sum to one entry.
void relative_value_scatter_f32(int i, int n, const RelativeRun* runs, int n_runs, const float* p, int index_base,
                                float* s);

}  // namespace relpos::kernels
