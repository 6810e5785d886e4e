// A Session (session.h) reproduces lab_native's training loop bitwise — the loop as lab_native wrote it
// before it used the session, copied here as the reference — and its evaluation; its attention maps
// are probabilities (rows sum to 1) that respect the causal mask; bad configurations are relpos::Errors
// of the right kind.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <vector>

#include "adamw.h"
#include "model.h"
#include "relpos/error.h"
#include "session.h"
#include "tasks.h"

using namespace relpos::train;

namespace {
struct Reference {
  std::vector<double> losses;
  std::vector<float> params;
  std::vector<double> accuracy;  // at L, 2L
};

// lab_native's loop (before the session existed), verbatim in its seeds and schedule.
Reference native_loop(const SessionConfig& s) {
  TaskSpec task;
  task.name = s.task;
  task.k = s.k;
  task.symbols = s.symbols;
  const int L = s.train_length, B = s.batch, steps = s.steps, maxL = 4 * L;
  ModelConfig c;
  c.vocab = task_vocab(task);
  c.classes = task_classes(task, maxL);
  c.d_model = s.dim;
  c.heads = s.heads;
  c.layers = s.layers;
  c.pre_ln = s.pre_ln;
  c.causal = task_is_causal(task);
  c.scheme = parse_scheme(s.scheme);
  c.max_len = maxL;
  Trainer trainer(c, B, L);
  std::vector<float> params, grads;
  init_params(c, trainer.layout(), s.seed, params);
  AdamWConfig oc;
  oc.lr = static_cast<float>(s.lr);
  oc.total_steps = steps;
  oc.warmup = steps / 10 > 1 ? steps / 10 : 1;
  AdamW opt(oc, trainer.layout());
  Batch batch;
  Reference r;
  for (int t = 0; t < steps; ++t) {
    make_batch(task, B, L, s.seed * 1000003ull + t, batch);
    r.losses.push_back(trainer.forward(params, batch));
    trainer.backward(params, batch, grads);
    opt.step(params, grads);
  }
  r.params = params;
  Trainer eval(c, B, maxL);
  for (int m = 0; m < 2; ++m) {
    const int len = L << m;
    double sum = 0;
    for (int e = 0; e < 3; ++e) {
      make_batch(task, B, len, 0x5EED0000ull + s.seed * 1000 + len * 10 + e, batch);
      eval.forward(params, batch);
      sum += eval.accuracy(batch);
    }
    r.accuracy.push_back(sum / 3);
  }
  return r;
}

SessionConfig small(const char* task, const char* scheme) {
  SessionConfig s;
  s.task = task;
  s.scheme = scheme;
  s.k = 2;
  s.symbols = 5;
  s.train_length = 8;
  s.steps = 12;
  s.batch = 6;
  s.dim = 16;
  s.heads = 2;
  s.layers = 2;
  s.seed = 7;
  return s;
}
}  // namespace

TEST_CASE("a session reproduces lab_native's training loop and evaluation bitwise", "[train][session]") {
  for (const char* scheme : {"none", "sinusoidal", "learned", "alibi", "t5", "rope", "shaw", "deberta"}) {
    for (const char* task : {"shift-k", "reverse", "bracket-depth"}) {
      SECTION(std::string(scheme) + " on " + task) {
        const SessionConfig cfg = small(task, scheme);
        const Reference ref = native_loop(cfg);
        Session session(cfg);
        std::vector<double> losses = session.step(5);   // in two calls: steps continue where they stopped
        const std::vector<double> rest = session.step(100);
        losses.insert(losses.end(), rest.begin(), rest.end());
        REQUIRE(losses.size() == ref.losses.size());
        CHECK(std::memcmp(losses.data(), ref.losses.data(), losses.size() * sizeof(double)) == 0);
        REQUIRE(session.params().size() == ref.params.size());
        CHECK(std::memcmp(session.params().data(), ref.params.data(), ref.params.size() * sizeof(float)) == 0);
        CHECK(session.step(1).empty());  // all steps done
        for (int m = 0; m < 2; ++m) {
          const Evaluation e = session.evaluate(cfg.train_length << m, 3);
          CHECK(e.accuracy == ref.accuracy[m]);
          CHECK(e.sequences == 3 * cfg.batch);
          REQUIRE(static_cast<int>(e.per_position.size()) == e.length);
        }
      }
    }
  }
}

TEST_CASE("per-position accuracy is NaN exactly where shift-k never labels (positions < k)", "[train][session]") {
  SessionConfig cfg = small("shift-k", "shaw");
  cfg.k = 3;
  Session session(cfg);
  session.step(4);
  const Evaluation e = session.evaluate(20, 2);
  for (int i = 0; i < 20; ++i) CHECK(std::isnan(e.per_position[i]) == (i < 3));
  CHECK(e.per_sequence >= 0);
  CHECK(e.per_sequence <= e.accuracy + 1e-12);
}

TEST_CASE("attention maps are rows of probabilities that respect the causal mask", "[train][session]") {
  for (const char* task : {"shift-k", "reverse"}) {
    for (const char* scheme : {"rope", "shaw", "alibi", "learned"}) {
      SessionConfig cfg = small(task, scheme);
      Session session(cfg);
      session.step(cfg.steps);
      const int L = 4 * cfg.train_length;  // maxLength: beyond the trained length
      const AttentionSample a = session.attention(L, 11);
      REQUIRE(a.maps.size() == static_cast<std::size_t>(cfg.layers) * cfg.heads * L * L);
      REQUIRE(a.tokens.size() == static_cast<std::size_t>(L));
      REQUIRE(a.predictions.size() == static_cast<std::size_t>(L));
      const bool causal = session.model_config().causal;
      CHECK(causal == (std::string(task) == "shift-k"));
      for (int m = 0; m < cfg.layers * cfg.heads; ++m)
        for (int i = 0; i < L; ++i) {
          const float* row = a.maps.data() + (static_cast<std::size_t>(m) * L + i) * L;
          double sum = 0;
          for (int j = 0; j < L; ++j) {
            sum += row[j];
            if (causal && j > i) CHECK(row[j] == 0.0f);
          }
          CHECK(std::abs(sum - 1.0) < 1e-5);
        }
    }
  }
}

TEST_CASE("bad session configurations are relpos::Errors naming the option", "[train][session]") {
  auto kind_of = [](SessionConfig c) {
    try {
      Session s(c);
    } catch (const relpos::Error& e) {
      return std::make_pair(e.kind(), std::string(e.what()));
    }
    return std::make_pair(relpos::ErrorKind::Type, std::string("no error"));
  };
  SessionConfig c = small("shift-k", "rope");
  c.task = "copy";
  auto r = kind_of(c);
  CHECK(r.first == relpos::ErrorKind::Value);
  CHECK_THAT(r.second, Catch::Contains("task") && Catch::Contains("bracket-depth"));
  c = small("shift-k", "rotary");
  r = kind_of(c);
  CHECK(r.first == relpos::ErrorKind::Value);
  CHECK_THAT(r.second, Catch::Contains("scheme") && Catch::Contains("deberta"));
  c = small("shift-k", "rope");
  c.dim = 18;
  c.heads = 4;
  r = kind_of(c);
  CHECK(r.first == relpos::ErrorKind::Range);
  CHECK_THAT(r.second, Catch::Contains("model.dim"));
  c.dim = 6;
  c.heads = 2;  // head size 3: odd
  r = kind_of(c);
  CHECK(r.first == relpos::ErrorKind::Range);
  CHECK_THAT(r.second, Catch::Contains("rope"));
  c = small("shift-k", "learned");
  c.max_length = 4;
  r = kind_of(c);
  CHECK(r.first == relpos::ErrorKind::Range);
  CHECK_THAT(r.second, Catch::Contains("maxLength"));
  Session ok(small("shift-k", "learned"));
  CHECK_THROWS_AS(ok.evaluate(33, 1), relpos::Error);
  CHECK_THROWS_AS(ok.attention(0, 1), relpos::Error);
}
