// add_distance_bias_f32: see distance_bias_f32.h. Templated on whether the term is recorded so the
// fast path has no branch per row.
#include "kernels/distance_bias_f32.h"

#include <cstring>

#include "kernels/vadd_f32.h"

namespace relpos::kernels {
namespace {

template <bool kRecord>
void add_rows(int seq, int i0, int i1, int j0, int j1, const float* by_distance, float* logits, std::size_t ld,
              float* term_rows) {
  const std::size_t n = static_cast<std::size_t>(j1 - j0);
  for (int i = i0; i < i1; ++i) {
    const std::size_t r = static_cast<std::size_t>(i - i0);
    const float* slice = by_distance + (seq - 1 - i + j0);
    if constexpr (kRecord) std::memcpy(term_rows + r * ld, slice, sizeof(float) * n);
    vadd_f32(n, slice, logits + r * ld);
  }
}

}  // namespace

void add_distance_bias_f32(int seq, int i0, int i1, int j0, int j1, const float* by_distance, float* logits,
                           std::size_t ld, float* term_rows) {
  if (j1 <= j0) return;
  if (term_rows)
    add_rows<true>(seq, i0, i1, j0, j1, by_distance, logits, ld, term_rows);
  else
    add_rows<false>(seq, i0, i1, j0, j1, by_distance, logits, ld, nullptr);
}

}  // namespace relpos::kernels
