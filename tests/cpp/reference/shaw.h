// Reference Shaw et al. (schemes.h 5): d = clip(j − i, −k, k), table row d + k, shared across heads.
//   logit += q_i · aK[d] / sqrt(head_dim);   out_i += Σ_j p_ij aV[d]   (aV optional)
#pragma once

#include <algorithm>

#include "reference/attention.h"

namespace ref {

inline int shaw_row(int i, int j, int k) { return std::min(k, std::max(-k, j - i)) + k; }

class Shaw : public Scheme {
 public:
  Shaw(int max_distance, const float* key_table, const float* value_table)
      : k_(max_distance), key_(key_table), value_(value_table) {}
  std::vector<std::string> term_names() const override { return {"relative_key"}; }
  double term(std::size_t, const Head& h, int i, int j) const override {
    const float* a = key_ + static_cast<std::size_t>(shaw_row(i, j, k_)) * h.dim;
    double s = 0;
    for (int c = 0; c < h.dim; ++c) s += h.qi(i)[c] * a[c];
    return s / std::sqrt(static_cast<double>(h.dim));
  }
  void add_value(const Head& h, int i, int j, double p, double* out) const override {
    if (!value_) return;
    const float* a = value_ + static_cast<std::size_t>(shaw_row(i, j, k_)) * h.dim;
    for (int c = 0; c < h.dim; ++c) out[c] += p * a[c];
  }

 private:
  int k_;
  const float* key_;
  const float* value_;
};

}  // namespace ref
