// Reference Huang et al. (schemes.h 7): S_rel(i, j) = q_i · E(j − i),
//   learned: E(d) = table[clip(d, −m, m) + m] ([2m + 1, head_dim]);
//   table == nullptr: E(d) = the concatenated sinusoid of d (head_dim entries, base 10000);
//   logit = (q·k + S_rel) / sqrt(head_dim).
#pragma once

#include <algorithm>

#include "reference/attention.h"
#include "reference/sinusoid.h"

namespace ref {

class HuangRelative : public Scheme {
 public:
  HuangRelative(int max_distance, const float* table) : m_(max_distance), table_(table) {}
  std::vector<std::string> term_names() const override { return {"relative"}; }
  void begin_head(const Head& h) const override {  // E(d) for d = −(seq−1) … seq−1
    e_.assign(static_cast<std::size_t>(2 * h.seq - 1) * h.dim, 0.0);
    for (int d = 1 - h.seq; d < h.seq; ++d) {
      double* e = e_.data() + static_cast<std::size_t>(d + h.seq - 1) * h.dim;
      if (table_) {
        const float* row = table_ + static_cast<std::size_t>(std::min(m_, std::max(-m_, d)) + m_) * h.dim;
        for (int c = 0; c < h.dim; ++c) e[c] = row[c];
      } else {
        const std::vector<double> s = sinusoid(d, h.dim, /*interleaved=*/false);
        for (int c = 0; c < h.dim; ++c) e[c] = s[c];
      }
    }
  }
  double term(std::size_t, const Head& h, int i, int j) const override {
    const double* e = e_.data() + static_cast<std::size_t>(j - i + h.seq - 1) * h.dim;
    return dot(h.qi(i), e, h.dim) / std::sqrt(static_cast<double>(h.dim));
  }

 private:
  int m_;
  const float* table_;
  mutable std::vector<double> e_;
};

}  // namespace ref
