// Reference BERT relative_key / relative_key_query (schemes.h 6): E row i − j + M − 1 of [2M − 1, head_dim],
//   logit = (q_i·k_j + q_i·E[i−j] (+ k_j·E[i−j] for key_query)) / sqrt(head_dim).
#pragma once

#include "reference/attention.h"

namespace ref {

class BertRelative : public Scheme {
 public:
  BertRelative(int max_positions, bool key_query, const float* table)
      : m_(max_positions), key_query_(key_query), table_(table) {}
  std::vector<std::string> term_names() const override {
    if (key_query_) return {"relative_key", "relative_query"};
    return {"relative_key"};
  }
  double term(std::size_t t, const Head& h, int i, int j) const override {
    const float* e = table_ + static_cast<std::size_t>(i - j + m_ - 1) * h.dim;
    const double* x = t == 0 ? h.qi(i) : h.kj(j);
    double s = 0;
    for (int c = 0; c < h.dim; ++c) s += x[c] * e[c];
    return s / std::sqrt(static_cast<double>(h.dim));
  }

 private:
  int m_;
  bool key_query_;
  const float* table_;
};

}  // namespace ref
