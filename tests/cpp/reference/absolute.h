// Common part of the reference absolute schemes (schemes.h 2–4): a per-position vector e(p) with
// head_dim entries is added to q, k and v of position p, the same for every batch row and head.
#pragma once

#include <algorithm>

#include "reference/attention.h"

namespace ref {

class AbsoluteBase : public Scheme {
 public:
  virtual std::vector<double> encoding(int position, int dim) const = 0;
  void rewrite(Head& h) const override {
    for (int p = 0; p < h.seq; ++p) {
      const std::vector<double> e = encoding(p, h.dim);
      for (int c = 0; c < h.dim; ++c) {
        const std::size_t at = static_cast<std::size_t>(p) * h.dim + c;
        h.q[at] += e[c];
        h.k[at] += e[c];
        h.v[at] += e[c];
      }
    }
  }
};

}  // namespace ref
