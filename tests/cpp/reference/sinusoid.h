// Reference sinusoid (Vaswani et al.), in double: ω_i = base^(−2i/dim), i < dim/2.
//   interleaved:  PE[2i] = sin(p·ω_i), PE[2i+1] = cos(p·ω_i)
//   concatenated: PE[i]  = sin(p·ω_i), PE[dim/2 + i] = cos(p·ω_i)
#pragma once

#include <cmath>
#include <vector>

namespace ref {

inline std::vector<double> sinusoid(double position, int dim, bool interleaved, double base = 10000.0) {
  std::vector<double> pe(dim, 0.0);
  for (int i = 0; i < dim / 2; ++i) {
    const double omega = std::pow(base, -2.0 * i / dim);
    const double s = std::sin(position * omega), c = std::cos(position * omega);
    if (interleaved) {
      pe[2 * i] = s;
      pe[2 * i + 1] = c;
    } else {
      pe[i] = s;
      pe[dim / 2 + i] = c;
    }
  }
  return pe;
}

}  // namespace ref
