// AdamW: the schedule (warm-up, cosine to min_ratio·lr), clipping and the decoupled update match a
// float64 transcription of the formulas in adamw.h; decay touches only tensors marked decay.
#include <catch2/catch.hpp>

#include <cmath>

#include "adamw.h"

using namespace relpos::train;

TEST_CASE("learning rate warms up linearly then follows a cosine to min_ratio times lr", "[train][adamw]") {
  AdamWConfig c;
  c.lr = 1.0f;
  c.warmup = 4;
  c.total_steps = 14;
  c.min_lr_ratio = 0.1f;
  CHECK(learning_rate(c, 0) == Approx(0.25));
  CHECK(learning_rate(c, 3) == Approx(1.0));
  CHECK(learning_rate(c, 4) == Approx(1.0));
  CHECK(learning_rate(c, 9) == Approx(0.1 + 0.9 * 0.5));
  CHECK(learning_rate(c, 14) == Approx(0.1));
  CHECK(learning_rate(c, 40) == Approx(0.1));
}

TEST_CASE("AdamW steps match the float64 formulas with clipping and decay on decay tensors only", "[train][adamw]") {
  ParamLayout layout;
  layout.tensors = {{"w", 0, 2, true}, {"b", 2, 1, false}};
  layout.total = 3;
  AdamWConfig c;
  c.lr = 0.1f;
  c.warmup = 1;
  c.total_steps = 3;
  c.weight_decay = 0.5f;
  c.clip_norm = 1.0f;
  AdamW opt(c, layout);
  std::vector<float> p = {1.0f, -2.0f, 0.5f};
  std::vector<double> ref(p.begin(), p.end()), m(3, 0), v(3, 0);
  const std::vector<std::vector<float>> gs = {{3.0f, 4.0f, 0.0f}, {0.1f, -0.2f, 0.3f}, {0.0f, 0.5f, -0.5f}};
  for (int t = 0; t < 3; ++t) {
    std::vector<float> g = gs[t];
    double n = 0;
    for (float x : g) n += double(x) * x;
    n = std::sqrt(n);
    const double clip = n > 1.0 ? 1.0 / n : 1.0;
    CHECK(opt.step(p, g) == Approx(n));
    const double lr = learning_rate(c, t);
    for (int i = 0; i < 3; ++i) {
      const double gi = gs[t][i] * clip;
      m[i] = 0.9 * m[i] + 0.1 * gi;
      v[i] = 0.98 * v[i] + 0.02 * gi * gi;
      const double mh = m[i] / (1 - std::pow(0.9, t + 1)), vh = v[i] / (1 - std::pow(0.98, t + 1));
      ref[i] -= lr * (mh / (std::sqrt(vh) + 1e-8) + (i < 2 ? 0.5 : 0.0) * ref[i]);
      CHECK(p[i] == Approx(ref[i]).epsilon(1e-5));
    }
  }
}
