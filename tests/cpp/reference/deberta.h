// Reference DeBERTa disentangled attention (schemes.h 11), following Hugging Face 4.34.1
// (make_log_bucket_position / build_relative_position / disentangled_attention_bias):
//   r(a, b) = bucket(a − b), log-bucketed when position_buckets > 0 (float32 arithmetic, as torch does);
//   span = position_buckets > 0 ? position_buckets : max_relative_positions;
//   c2p(i, j) = q_i · Kr_h[clamp(r(i, j) + span, 0, 2span − 1)]
//   p2c(i, j) = k_j · Qr_h[clamp(−r(j, i) + span, 0, 2span − 1)]
//   logit = (q·k + c2p + p2c) / sqrt(head_dim · (1 + number of enabled terms)).
#pragma once

#include <algorithm>
#include <cstdlib>

#include "reference/attention.h"

namespace ref {

inline int deberta_bucket(int relative_position, int bucket_size, int max_position) {
  if (bucket_size <= 0 || max_position <= 0) return relative_position;
  const int mid = bucket_size / 2;
  const int sign = relative_position > 0 ? 1 : (relative_position < 0 ? -1 : 0);
  const int abs_pos = (relative_position < mid && relative_position > -mid) ? mid - 1 : std::abs(relative_position);
  if (abs_pos <= mid) return relative_position;
  const float num = std::log(static_cast<float>(abs_pos) / static_cast<float>(mid));
  const float den = std::log(static_cast<float>(static_cast<double>(max_position - 1) / mid));
  const float log_pos = std::ceil(num / den * static_cast<float>(mid - 1)) + static_cast<float>(mid);
  return static_cast<int>(log_pos) * sign;
}

class Deberta : public Scheme {
 public:
  Deberta(bool c2p, bool p2c, int position_buckets, int max_relative_positions, const float* pos_key,
          const float* pos_query)
      : c2p_(c2p), p2c_(p2c), buckets_(position_buckets), max_rel_(max_relative_positions), kr_(pos_key),
        qr_(pos_query) {}
  int span() const { return buckets_ > 0 ? buckets_ : max_rel_; }
  double content_scale(int d) const override { return 1.0 / std::sqrt(static_cast<double>(d) * (1 + c2p_ + p2c_)); }
  std::vector<std::string> term_names() const override {
    std::vector<std::string> names;
    if (c2p_) names.push_back("c2p");
    if (p2c_) names.push_back("p2c");
    return names;
  }
  double term(std::size_t t, const Head& h, int i, int j) const override {
    const bool is_c2p = c2p_ && t == 0;
    const int s = span();
    const double scale = content_scale(h.dim);
    int row;
    const double* x;
    const float* table;
    if (is_c2p) {
      row = std::min(2 * s - 1, std::max(0, r(i, j) + s));
      x = h.qi(i);
      table = kr_;
    } else {
      row = std::min(2 * s - 1, std::max(0, -r(j, i) + s));
      x = h.kj(j);
      table = qr_;
    }
    const float* e = table + (static_cast<std::size_t>(h.head) * 2 * s + row) * h.dim;
    double acc = 0;
    for (int c = 0; c < h.dim; ++c) acc += x[c] * e[c];
    return acc * scale;
  }

 private:
  int r(int a, int b) const { return deberta_bucket(a - b, buckets_, max_rel_); }
  bool c2p_, p2c_;
  int buckets_, max_rel_;
  const float *kr_, *qr_;
};

}  // namespace ref
