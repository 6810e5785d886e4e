// AdamW (Loshchilov & Hutter) with linear warm-up + cosine decay and global gradient-norm clipping.
//   lr_t = lr·(t + 1)/warmup                                      for t < warmup
//        = lr·(min_ratio + (1 − min_ratio)·(1 + cos(π·u))/2),  u = (t − warmup)/max(1, total − warmup)  after
//   g ← g·min(1, clip/‖g‖₂)   (‖g‖₂ over every parameter, summed serially in double; clip ≤ 0 = off)
//   m ← β₁m + (1 − β₁)g;  v ← β₂v + (1 − β₂)g²;  m̂ = m/(1 − β₁^(t+1)), v̂ = v/(1 − β₂^(t+1))
//   θ ← θ − lr_t·(m̂/(√v̂ + ε) + wd·θ)   (decoupled decay, only on tensors whose layout entry says decay)
// Element-wise update in parallel_for chunks of fixed size: bitwise identical for any thread count.
#pragma once

#include <vector>

#include "model.h"

namespace relpos::train {

struct AdamWConfig {
  float lr = 3e-3f;
  float beta1 = 0.9f, beta2 = 0.98f, eps = 1e-8f;
  float weight_decay = 0.01f;
  float clip_norm = 1.0f;
  int warmup = 50;
  int total_steps = 1000;
  float min_lr_ratio = 0.1f;
};

float learning_rate(const AdamWConfig& c, int step);

class AdamW {
 public:
  AdamW(const AdamWConfig& c, const ParamLayout& layout);
  // One update of params with grads (grads are clipped in place). Returns ‖g‖₂ before clipping.
  double step(std::vector<float>& params, std::vector<float>& grads);
  int steps_done() const { return t_; }

 private:
  AdamWConfig c_;
  std::vector<float> m_, v_, decay_;
  int t_ = 0;
};

}  // namespace relpos::train
