#include "adamw.h"

#include <cmath>

#include "kernels/simd.h"
#include "parallel/parallel_for.h"

namespace relpos::train {

float learning_rate(const AdamWConfig& c, int step) {
  if (step < c.warmup) return c.lr * static_cast<float>(step + 1) / static_cast<float>(c.warmup);
  const int span = c.total_steps - c.warmup > 1 ? c.total_steps - c.warmup : 1;
  double u = static_cast<double>(step - c.warmup) / span;
  if (u > 1) u = 1;
  return static_cast<float>(c.lr * (c.min_lr_ratio + (1.0 - c.min_lr_ratio) * 0.5 * (1.0 + std::cos(3.141592653589793 * u))));
}

AdamW::AdamW(const AdamWConfig& c, const ParamLayout& layout)
    : c_(c), m_(layout.total, 0.0f), v_(layout.total, 0.0f), decay_(layout.total, 0.0f) {
  for (const auto& t : layout.tensors)
    if (t.decay)
      for (long i = 0; i < t.size; ++i) decay_[t.offset + i] = 1.0f;
}

double AdamW::step(std::vector<float>& params, std::vector<float>& grads) {
  double sq = 0;
  for (float g : grads) sq += static_cast<double>(g) * g;
  const double norm = std::sqrt(sq);
  const float clip = c_.clip_norm > 0 && norm > c_.clip_norm ? static_cast<float>(c_.clip_norm / norm) : 1.0f;
  const float lr = learning_rate(c_, t_);
  const float bc1 = 1.0f - static_cast<float>(std::pow(c_.beta1, t_ + 1));
  const float bc2 = 1.0f - static_cast<float>(std::pow(c_.beta2, t_ + 1));
  const float b1 = c_.beta1, b2 = c_.beta2, eps = c_.eps, wd = c_.weight_decay;
  // Distinct arrays behind restrict pointers: the element loop vectorises (WASM SIMD128 too; through
  // m_/v_ members it stayed scalar). Same operations per element, so the same bits.
  float* __restrict p = params.data();
  float* __restrict g = grads.data();
  float* __restrict m = m_.data();
  float* __restrict v = v_.data();
  const float* __restrict dec = decay_.data();
  relpos::parallel::parallel_for(0, static_cast<long>(params.size()), 4096, [=](long b, long e, int) {
    long i = b;
#if defined(__EMSCRIPTEN__) && !defined(RELPOS_SCALAR)
    // WASM SIMD: the loop below, 4 lanes at a time, op for op (SIMD128 has no FMA to contract into, so
    // the lanes round exactly as the scalar code does). Natively the compiler's own vectorisation stays.
    {
      using namespace relpos::simd;
      const vf vclip = splat(clip), vb1 = splat(b1), vb2 = splat(b2), v1b1 = splat(1.0f - b1), v1b2 = splat(1.0f - b2);
      const vf vbc1 = splat(bc1), vbc2 = splat(bc2), veps = splat(eps), vlr = splat(lr), vwd = splat(wd);
      for (; i + static_cast<long>(width) <= e; i += static_cast<long>(width)) {
        const vf gi = load(g + i) * vclip;
        store(g + i, gi);
        const vf mi = vb1 * load(m + i) + v1b1 * gi;
        const vf vi = vb2 * load(v + i) + v1b2 * gi * gi;
        store(m + i, mi);
        store(v + i, vi);
        const vf mh = mi / vbc1, vh = vi / vbc2;
        const vf pi = load(p + i);
        store(p + i, pi - vlr * (mh / (xsimd::sqrt(vh) + veps) + vwd * load(dec + i) * pi));
      }
    }
#endif
    for (; i < e; ++i) {
      const float gi = g[i] * clip;
      g[i] = gi;
      m[i] = b1 * m[i] + (1.0f - b1) * gi;
      v[i] = b2 * v[i] + (1.0f - b2) * gi * gi;
      const float mh = m[i] / bc1, vh = v[i] / bc2;
      p[i] -= lr * (mh / (std::sqrt(vh) + eps) + wd * dec[i] * p[i]);
    }
  });
  ++t_;
  return norm;
}

}  // namespace relpos::train
