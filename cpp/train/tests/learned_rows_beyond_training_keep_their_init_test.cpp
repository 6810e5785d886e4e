// Train short, test long: a learned absolute table sized for the longest evaluation length keeps the
// rows training never reached bitwise at their init (zero gradient, no weight decay on position
// tables), while the trained rows move; the same parameters then evaluate at 4L.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "adamw.h"
#include "model.h"
#include "tasks.h"

using namespace relpos::train;

TEST_CASE("rows of the learned position table beyond the training length keep their init", "[train][lengths]") {
  TaskSpec task{"shift-k", 2, 6};
  const int L = 8, maxL = 32;
  ModelConfig c;
  c.vocab = task_vocab(task);
  c.classes = task_classes(task, maxL);
  c.d_model = 16;
  c.heads = 2;
  c.layers = 1;
  c.scheme = PositionScheme::Learned;
  c.max_len = maxL;
  Trainer tr(c, 4, L);
  std::vector<float> params, grads;
  init_params(c, tr.layout(), 5, params);
  const std::vector<float> init = params;
  AdamWConfig oc;
  oc.total_steps = 5;
  oc.warmup = 1;
  oc.weight_decay = 0.1f;
  AdamW opt(oc, tr.layout());
  Batch batch;
  for (int s = 0; s < 5; ++s) {
    make_batch(task, 4, L, 100 + s, batch);
    tr.forward(params, batch);
    tr.backward(params, batch, grads);
    opt.step(params, grads);
  }
  const long off = tr.layout().pos_table, d = c.d_model;
  CHECK(std::memcmp(params.data() + off + L * d, init.data() + off + L * d, (maxL - L) * d * sizeof(float)) == 0);
  CHECK(std::memcmp(params.data() + off, init.data() + off, L * d * sizeof(float)) != 0);
  Trainer eval(c, 4, 4 * L);
  make_batch(task, 4, 4 * L, 7, batch);
  const double loss = eval.forward(params, batch);
  CHECK(std::isfinite(loss));
  CHECK(loss > 0);
}

TEST_CASE("a trainer refuses batches longer than its workspace or its configured max_len", "[train][lengths]") {
  ModelConfig c;
  c.vocab = 4;
  c.classes = 4;
  c.d_model = 8;
  c.heads = 2;
  c.layers = 1;
  c.max_len = 16;
  CHECK_THROWS_AS(Trainer(c, 2, 17), std::invalid_argument);
  Trainer tr(c, 2, 8);
  std::vector<float> params;
  init_params(c, tr.layout(), 1, params);
  Batch b;
  b.batch = 2;
  b.len = 9;
  b.tokens.assign(18, 0);
  b.labels.assign(18, 0);
  CHECK_THROWS_AS(tr.forward(params, b), std::invalid_argument);
}
