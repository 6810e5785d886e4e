// Reference MLP position encoder (schemes.h 4): e(p) = W2 · relu(W1 · f(p) + b1) + b2 added to q, k, v;
// f(p) = [p] when feature_dim == 1, else the interleaved sinusoid of p with feature_dim entries (base 10000).
#pragma once

#include <algorithm>

#include "reference/absolute.h"
#include "reference/sinusoid.h"

namespace ref {

class MlpPosition : public AbsoluteBase {
 public:
  MlpPosition(int feature_dim, int hidden, const float* w1, const float* b1, const float* w2, const float* b2)
      : feature_dim_(feature_dim), hidden_(hidden), w1_(w1), b1_(b1), w2_(w2), b2_(b2) {}
  std::vector<double> encoding(int p, int dim) const override {
    std::vector<double> f = feature_dim_ == 1 ? std::vector<double>{double(p)} : sinusoid(p, feature_dim_, true);
    std::vector<double> hid(hidden_);
    for (int a = 0; a < hidden_; ++a) {
      double s = b1_[a];
      for (int m = 0; m < feature_dim_; ++m) s += double(w1_[a * feature_dim_ + m]) * f[m];
      hid[a] = std::max(0.0, s);
    }
    std::vector<double> e(dim);
    for (int c = 0; c < dim; ++c) {
      double s = b2_[c];
      for (int a = 0; a < hidden_; ++a) s += double(w2_[c * hidden_ + a]) * hid[a];
      e[c] = s;
    }
    return e;
  }

 private:
  int feature_dim_, hidden_;
  const float *w1_, *b1_, *w2_, *b2_;
};

}  // namespace ref
