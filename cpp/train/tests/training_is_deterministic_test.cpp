// The same seed gives a bitwise-identical loss curve and final parameters, on 1, 2 and 3 threads;
// a different seed gives a different curve.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "adamw.h"
#include "model.h"
#include "relpos/threads.h"
#include "tasks.h"

using namespace relpos::train;

namespace {
struct Run {
  std::vector<double> losses;
  std::vector<float> params;
};

Run train(PositionScheme s, bool pre_ln, std::uint64_t seed, int threads) {
  relpos::set_num_threads(threads);
  TaskSpec task;
  task.name = "shift-k";
  task.k = 2;
  ModelConfig c;
  c.vocab = task_vocab(task);
  c.classes = task_classes(task, 32);
  c.d_model = 16;
  c.heads = 2;
  c.layers = 2;
  c.pre_ln = pre_ln;
  c.scheme = s;
  c.max_len = 32;
  c.shaw_k = 3;
  Trainer tr(c, 40, 20);  // 40 × 20 rows: several row chunks (grain 32) and (b, h) chunks
  std::vector<float> params, grads;
  init_params(c, tr.layout(), seed, params);
  AdamWConfig oc;
  oc.total_steps = 6;
  oc.warmup = 2;
  AdamW opt(oc, tr.layout());
  Batch batch;
  Run r;
  for (int step = 0; step < 6; ++step) {
    make_batch(task, 40, 20, seed * 1000003ull + step, batch);
    r.losses.push_back(tr.forward(params, batch));
    tr.backward(params, batch, grads);
    opt.step(params, grads);
  }
  r.params = params;
  return r;
}

bool same_bits(const Run& a, const Run& b) {
  return a.losses.size() == b.losses.size() &&
         std::memcmp(a.losses.data(), b.losses.data(), a.losses.size() * sizeof(double)) == 0 &&
         a.params.size() == b.params.size() &&
         std::memcmp(a.params.data(), b.params.data(), a.params.size() * sizeof(float)) == 0;
}
}  // namespace

TEST_CASE("the same seed gives a bitwise identical loss curve and parameters on 1, 2 and 3 threads", "[train][determinism]") {
  const int restore = relpos::num_threads();
  for (PositionScheme s : {PositionScheme::None, PositionScheme::Sinusoidal, PositionScheme::Learned, PositionScheme::Alibi,
                           PositionScheme::T5, PositionScheme::Rope, PositionScheme::Shaw, PositionScheme::Deberta})
    for (bool pre : {true, false}) {
      INFO("scheme " << scheme_name(s) << (pre ? " pre-LN" : " post-LN"));
      const Run one = train(s, pre, 11, 1);
      CHECK(same_bits(one, train(s, pre, 11, 1)));
      CHECK(same_bits(one, train(s, pre, 11, 2)));
      CHECK(same_bits(one, train(s, pre, 11, 3)));
      CHECK_FALSE(same_bits(one, train(s, pre, 12, 1)));
    }
  relpos::set_num_threads(restore);
}
