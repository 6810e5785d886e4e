// Reference TUPE (schemes.h 10): logit = (q_i·k_j + (U_q,h p_i)·(U_k,h p_j)) / sqrt(2·head_dim),
// U_q,h = rows h·head_dim … of u_q [heads·head_dim, pos_dim] (y = U x), p_i = positions[i].
#pragma once

#include "reference/attention.h"

namespace ref {

class Tupe : public Scheme {
 public:
  Tupe(const float* positions, int pos_dim, const float* u_q, const float* u_k)
      : pos_(positions), pos_dim_(pos_dim), uq_(u_q), uk_(u_k) {}
  double content_scale(int d) const override { return 1.0 / std::sqrt(2.0 * d); }
  std::vector<std::string> term_names() const override { return {"position"}; }
  void begin_head(const Head& h) const override {
    pq_.assign(static_cast<std::size_t>(h.seq) * h.dim, 0.0);
    pk_ = pq_;
    for (int p = 0; p < h.seq; ++p)
      for (int c = 0; c < h.dim; ++c) {
        pq_[static_cast<std::size_t>(p) * h.dim + c] = project(uq_, h, c, p);
        pk_[static_cast<std::size_t>(p) * h.dim + c] = project(uk_, h, c, p);
      }
  }
  double term(std::size_t, const Head& h, int i, int j) const override {
    const double s = dot(pq_.data() + static_cast<std::size_t>(i) * h.dim, pk_.data() + static_cast<std::size_t>(j) * h.dim, h.dim);
    return s / std::sqrt(2.0 * h.dim);
  }

 private:
  double project(const float* u, const Head& h, int c, int p) const {
    const float* row = u + (static_cast<std::size_t>(h.head) * h.dim + c) * pos_dim_;
    const float* x = pos_ + static_cast<std::size_t>(p) * pos_dim_;
    double s = 0;
    for (int m = 0; m < pos_dim_; ++m) s += double(row[m]) * x[m];
    return s;
  }
  const float* pos_;
  int pos_dim_;
  const float *uq_, *uk_;
  mutable std::vector<double> pq_, pk_;  // U_q p_i, U_k p_j of the current head, [seq, head_dim]
};

}  // namespace ref
