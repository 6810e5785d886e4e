// Reference Transformer-XL (schemes.h 8), per head h:
//   logit = ((q_i + u_h)·k_j + (q_i + v_h)·(W_h R_r)) / sqrt(head_dim),
//   r = i − j clamped to [−clamp_len, clamp_len] (no clamp when clamp_len ≤ 0),
//   R_r = concatenated sinusoid of r with d_model entries (base 10000),
//   W_h = rows h·head_dim … h·head_dim + head_dim − 1 of w_kr [heads·head_dim, d_model].
// Terms: "content_bias" = u_h·k_j / sqrt(d), "position" = (q_i + v_h)·W_h R_r / sqrt(d).
#pragma once

#include <algorithm>

#include "reference/attention.h"
#include "reference/sinusoid.h"

namespace ref {

class TransformerXL : public Scheme {
 public:
  TransformerXL(int d_model, int clamp_len, const float* u, const float* v, const float* w_kr)
      : d_model_(d_model), clamp_(clamp_len), u_(u), v_(v), w_(w_kr) {}
  std::vector<std::string> term_names() const override { return {"content_bias", "position"}; }
  double term(std::size_t t, const Head& h, int i, int j) const override {
    const double scale = 1.0 / std::sqrt(static_cast<double>(h.dim));
    const std::size_t hd = static_cast<std::size_t>(h.head) * h.dim;
    if (t == 0) {
      double s = 0;
      for (int c = 0; c < h.dim; ++c) s += double(u_[hd + c]) * h.kj(j)[c];
      return s * scale;
    }
    const double* wr = wr_.data() + static_cast<std::size_t>(i - j + h.seq - 1) * h.dim;
    double s = 0;
    for (int c = 0; c < h.dim; ++c) s += (h.qi(i)[c] + double(v_[hd + c])) * wr[c];
    return s * scale;
  }
  void begin_head(const Head& h) const override {  // W_h R_r for r = i − j = −(seq−1) … seq−1
    const std::size_t hd = static_cast<std::size_t>(h.head) * h.dim;
    wr_.assign(static_cast<std::size_t>(2 * h.seq - 1) * h.dim, 0.0);
    for (int r0 = 1 - h.seq; r0 < h.seq; ++r0) {
      int r = r0;
      if (clamp_ > 0) r = std::min(clamp_, std::max(-clamp_, r));
      const std::vector<double> R = sinusoid(r, d_model_, /*interleaved=*/false);
      for (int c = 0; c < h.dim; ++c) {
        const float* w = w_ + (hd + c) * d_model_;
        double acc = 0;
        for (int m = 0; m < d_model_; ++m) acc += double(w[m]) * R[m];
        wr_[static_cast<std::size_t>(r0 + h.seq - 1) * h.dim + c] = acc;
      }
    }
  }

 private:
  int d_model_, clamp_;
  const float *u_, *v_, *w_;
  mutable std::vector<double> wr_;  // W_h R_(i−j) of the current head, [2·seq − 1, head_dim]
};

}  // namespace ref
