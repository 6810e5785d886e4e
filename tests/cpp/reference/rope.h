// Reference RoPE (schemes.h 12): q and k of position p rotated by angles p·θ^(−2i/rotary_dim),
// i < rotary_dim/2, on the first rotary_dim channels (rotary_dim 0 = head_dim); v untouched.
//   interleaved (RoFormer): pairs (2i, 2i + 1);   half (LLaMA rotate_half): pairs (i, i + rotary_dim/2)
//   (x, y) → (x cos − y sin, y cos + x sin)
#pragma once

#include "reference/attention.h"

namespace ref {

class Rope : public Scheme {
 public:
  Rope(bool interleaved, double theta, int rotary_dim) : interleaved_(interleaved), theta_(theta), rd_(rotary_dim) {}
  void rewrite(Head& h) const override {
    const int rd = rd_ == 0 ? h.dim : rd_;
    for (int p = 0; p < h.seq; ++p) {
      for (int i = 0; i < rd / 2; ++i) {
        const double angle = p * std::pow(theta_, -2.0 * i / rd);
        const double c = std::cos(angle), s = std::sin(angle);
        const int a = interleaved_ ? 2 * i : i, b = interleaved_ ? 2 * i + 1 : i + rd / 2;
        for (std::vector<double>* x : {&h.q, &h.k}) {
          double* row = x->data() + static_cast<std::size_t>(p) * h.dim;
          const double xa = row[a], xb = row[b];
          row[a] = xa * c - xb * s;
          row[b] = xb * c + xa * s;
        }
      }
    }
  }

 private:
  bool interleaved_;
  double theta_;
  int rd_;
};

}  // namespace ref
