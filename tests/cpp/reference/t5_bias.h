// Reference T5 relative bias (schemes.h 9): logit = q_i·k_j + bias[bucket(j − i), head], no scaling;
// with scale_content (MPNet) logit = q_i·k_j / sqrt(head_dim) + bias[bucket(j − i), head].
// bucket() follows Hugging Face T5Attention._relative_position_bucket (4.34.1), including its
// float32 arithmetic for the logarithmic buckets (torch computes log(n / max_exact) in float32).
#pragma once

#include <algorithm>
#include <cstdlib>

#include "reference/attention.h"

namespace ref {

inline int t5_bucket(int relative_position, bool bidirectional, int num_buckets, int max_distance) {
  int bucket = 0;
  int n = relative_position;
  if (bidirectional) {
    num_buckets /= 2;
    if (n > 0) bucket += num_buckets;
    n = std::abs(n);
  } else {
    n = -std::min(n, 0);
  }
  const int max_exact = num_buckets / 2;
  if (n < max_exact) return bucket + n;
  const float ratio = static_cast<float>(n) / static_cast<float>(max_exact);
  const float denom = static_cast<float>(std::log(static_cast<double>(max_distance) / max_exact));
  const float scaled = std::log(ratio) / denom * static_cast<float>(num_buckets - max_exact);
  const int large = std::min(max_exact + static_cast<int>(scaled), num_buckets - 1);
  return bucket + large;
}

class T5Bias : public Scheme {
 public:
  T5Bias(int num_buckets, int max_distance, bool bidirectional, const float* bias, int heads, bool scale_content = false)
      : nb_(num_buckets), md_(max_distance), bi_(bidirectional), scale_(scale_content), bias_(bias), heads_(heads) {}
  double content_scale(int head_dim) const override { return scale_ ? Scheme::content_scale(head_dim) : 1.0; }
  std::vector<std::string> term_names() const override { return {"bias"}; }
  double term(std::size_t, const Head& h, int i, int j) const override {
    return bias_[static_cast<std::size_t>(t5_bucket(j - i, bi_, nb_, md_)) * heads_ + h.head];
  }

 private:
  int nb_, md_;
  bool bi_, scale_;
  const float* bias_;
  int heads_;
};

}  // namespace ref
