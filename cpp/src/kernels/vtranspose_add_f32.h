// Transposed accumulate: a [cols, rows] tile added into a [rows, cols] one (terms computed key-major,
// added to query-major logits).
#pragma once

#include <cstddef>

namespace relpos::kernels {

// y[r·ldy + c] += x[c·ldx + r] for r < rows, c < cols; when term is non-null also
// term[r·ldy + c] = x[c·ldx + r]. x must not overlap y or term. 4 × 4 register transposes where the
// vector is 4 floats wide (SIMD128, SSE), scalar otherwise and at the edges.
void vtranspose_add_f32(int rows, int cols, const float* x, std::size_t ldx, float* y, std::size_t ldy, float* term);

}  // namespace relpos::kernels
