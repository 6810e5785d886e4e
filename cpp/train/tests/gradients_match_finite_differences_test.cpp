// Every parameter tensor's gradient, for every position scheme, pre- and post-LN, causal and
// bidirectional, agrees with central finite differences of the loss.
// Check per tensor T with gradient g_T (analytic): for a direction u (a) u = g_T/‖g_T‖ and (b) a
// seeded Gaussian direction normalised to ‖u‖ = 1, compare g_T·u with (loss(θ + εu) − loss(θ − εu))/2ε
// (loss in float, accumulated in double; ε = 3e-3 along a unit vector). Tolerance:
// |fd − g·u| ≤ 3e-3·‖g_T‖ + 6e-5 — float rounding of the loss contributes ≈ 1e-7/ε ≈ 3e-5; a missing or
// wrong term is an O(‖g_T‖) error. Weights are scaled up from the default init (std 0.3) so that
// attention is far from uniform and every path carries signal.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "model.h"
#include "rng.h"
#include "tasks.h"

using namespace relpos::train;

namespace {

struct Case {
  PositionScheme scheme;
  bool pre_ln;
  bool causal;
};

void check_case(const Case& k) {
  ModelConfig c;
  c.vocab = 5;
  c.classes = 4;
  c.d_model = 8;
  c.heads = 2;
  c.layers = 2;
  c.ff_mult = 2;
  c.pre_ln = k.pre_ln;
  c.causal = k.causal;
  c.scheme = k.scheme;
  c.max_len = 7;
  c.shaw_k = 2;
  c.t5_buckets = 6;
  c.t5_max_distance = 8;
  c.deberta_buckets = 4;
  c.deberta_max_rel = 8;
  const int B = 2, L = 7;
  Trainer tr(c, B, L);
  std::vector<float> params;
  init_params(c, tr.layout(), 42, params);
  Rng rng(7);
  for (const auto& t : tr.layout().tensors)  // larger, varied weights: std 0.3 everywhere, gains 1 ± 0.3
    for (long i = 0; i < t.size; ++i) params[t.offset + i] += 0.3f * static_cast<float>(rng.normal());
  Batch batch;
  batch.batch = B;
  batch.len = L;
  for (int i = 0; i < B * L; ++i) {
    batch.tokens.push_back(rng.below(c.vocab));
    batch.labels.push_back(i % 5 == 3 ? -1 : rng.below(c.classes));
  }
  tr.forward(params, batch);
  std::vector<float> grads;
  tr.backward(params, batch, grads);
  const float eps = 3e-3f;
  for (const auto& t : tr.layout().tensors) {
    double gn = 0;
    for (long i = 0; i < t.size; ++i) gn += static_cast<double>(grads[t.offset + i]) * grads[t.offset + i];
    gn = std::sqrt(gn);
    for (int dir = 0; dir < 2; ++dir) {
      std::vector<double> u(t.size);
      double un = 0;
      for (long i = 0; i < t.size; ++i) {
        u[i] = dir == 0 ? grads[t.offset + i] : rng.normal();
        un += u[i] * u[i];
      }
      un = std::sqrt(un);
      if (un == 0) continue;  // an all-zero gradient along the gradient direction: checked by dir 1
      double analytic = 0;
      for (long i = 0; i < t.size; ++i) {
        u[i] /= un;
        analytic += grads[t.offset + i] * u[i];
      }
      std::vector<float> plus = params, minus = params;
      for (long i = 0; i < t.size; ++i) {
        plus[t.offset + i] += static_cast<float>(eps * u[i]);
        minus[t.offset + i] -= static_cast<float>(eps * u[i]);
      }
      const double fd = (tr.forward(plus, batch) - tr.forward(minus, batch)) / (2.0 * eps);
      INFO("scheme " << scheme_name(k.scheme) << (k.pre_ln ? " pre-LN" : " post-LN") << (k.causal ? " causal" : " bidirectional")
                     << " tensor " << t.name << " direction " << (dir ? "random" : "gradient") << " analytic " << analytic
                     << " finite difference " << fd << " |g| " << gn);
      CHECK(std::abs(fd - analytic) <= 3e-3 * gn + 6e-5);
    }
  }
}

}  // namespace

TEST_CASE("gradients of every tensor match central finite differences for every scheme and layout", "[train][gradients]") {
  for (PositionScheme s : {PositionScheme::None, PositionScheme::Sinusoidal, PositionScheme::Learned, PositionScheme::Alibi,
                           PositionScheme::T5, PositionScheme::Rope, PositionScheme::Shaw, PositionScheme::Deberta})
    for (bool pre : {true, false})
      for (bool causal : {true, false}) check_case({s, pre, causal});
}

TEST_CASE("Shaw gradients are checked with and without the value table", "[train][gradients]") {
  // shaw_values = false removes aV; the key-table path alone must still match.
  ModelConfig c;
  c.vocab = 4;
  c.classes = 3;
  c.d_model = 8;
  c.heads = 2;
  c.layers = 1;
  c.scheme = PositionScheme::Shaw;
  c.shaw_values = false;
  c.shaw_k = 1;
  c.max_len = 6;
  Trainer tr(c, 1, 6);
  REQUIRE(tr.layout().layers[0].shaw_v_table == -1);
  REQUIRE(tr.layout().layers[0].shaw_k_table >= 0);
  std::vector<float> params, grads;
  init_params(c, tr.layout(), 3, params);
  Rng rng(9);
  for (float& p : params) p += 0.3f * static_cast<float>(rng.normal());
  Batch b;
  b.batch = 1;
  b.len = 6;
  b.tokens = {0, 1, 2, 3, 1, 0};
  b.labels = {0, 1, 2, 0, 1, 2};
  tr.forward(params, b);
  tr.backward(params, b, grads);
  const long off = tr.layout().layers[0].shaw_k_table;
  const long n = 3 * 4;
  double worst = 0, gmax = 0;
  for (long i = 0; i < n; ++i) {  // element-wise central differences on the key table
    std::vector<float> plus = params, minus = params;
    plus[off + i] += 1e-2f;
    minus[off + i] -= 1e-2f;
    const double fd = (tr.forward(plus, b) - tr.forward(minus, b)) / 2e-2;
    worst = std::max(worst, std::abs(fd - grads[off + i]));
    gmax = std::max(gmax, static_cast<double>(std::abs(grads[off + i])));
  }
  INFO("worst " << worst << " max |g| " << gmax);
  CHECK(gmax > 1e-4);
  CHECK(worst <= 5e-3 * gmax + 2e-5);
}
