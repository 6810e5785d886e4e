// Reference sinusoidal absolute (schemes.h 2): e(p) = sinusoid(p), interleaved or concatenated,
// ω_i = base^(−2i/head_dim), added to q, k, v of position p.
#pragma once

#include <algorithm>

#include "reference/absolute.h"
#include "reference/sinusoid.h"

namespace ref {

class SinusoidalAbsolute : public AbsoluteBase {
 public:
  SinusoidalAbsolute(bool interleaved, double base) : interleaved_(interleaved), base_(base) {}
  std::vector<double> encoding(int p, int dim) const override { return sinusoid(p, dim, interleaved_, base_); }

 private:
  bool interleaved_;
  double base_;
};

}  // namespace ref
