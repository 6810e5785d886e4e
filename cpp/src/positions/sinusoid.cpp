// Sinusoid tables (Vaswani et al.): ω_i = base^(−2i/dim), i < dim/2; angles computed in double so
// large positions keep float32 accuracy.
//   Interleaved:  PE[p, 2i] = sin(p·ω_i), PE[p, 2i+1] = cos(p·ω_i)
//   Concatenated: PE[p, i]  = sin(p·ω_i), PE[p, dim/2 + i] = cos(p·ω_i)
#include <cmath>
#include <string>

#include "relpos/error.h"
#include "relpos/positions.h"

namespace relpos {

void sinusoid_row(float position, int dim, SinusoidLayout layout, float base, float* out) {
  const int half = dim / 2;
  for (int i = 0; i < half; ++i) {
    const double omega = std::pow(static_cast<double>(base), -2.0 * i / dim);
    const double angle = static_cast<double>(position) * omega;
    const float s = static_cast<float>(std::sin(angle)), c = static_cast<float>(std::cos(angle));
    if (layout == SinusoidLayout::Interleaved) {
      out[2 * i] = s;
      out[2 * i + 1] = c;
    } else {
      out[i] = s;
      out[half + i] = c;
    }
  }
}

std::vector<float> sinusoid_table(int length, int dim, SinusoidLayout layout, float base, float first_position) {
  if (length < 0) fail_range("sinusoid_table: length must be ≥ 0, got " + std::to_string(length));
  if (dim < 2 || dim % 2 != 0) fail_range("sinusoid_table: dim must be a positive even integer, got " + std::to_string(dim));
  std::vector<float> table(static_cast<std::size_t>(length) * dim);
  for (int p = 0; p < length; ++p)
    sinusoid_row(first_position + static_cast<float>(p), dim, layout, base, table.data() + static_cast<std::size_t>(p) * dim);
  return table;
}

}  // namespace relpos
