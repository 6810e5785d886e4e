// Session: one training run (contract and seed conventions in session.h).
#include "session.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "relpos/error.h"

namespace relpos::train {
namespace {

void check_range(int value, int lo, int hi, const char* name) {
  if (value < lo || value > hi)
    fail_range(std::string(name) + ": expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
               std::to_string(value));
}

TaskSpec task_of(const SessionConfig& c) {
  TaskSpec t;
  t.name = c.task;
  t.k = c.k;
  t.symbols = c.symbols;
  return t;
}

ModelConfig model_of(const SessionConfig& c) {
  const TaskSpec t = task_of(c);
  ModelConfig m;
  m.vocab = task_vocab(t);
  m.classes = task_classes(t, c.max_length);
  m.d_model = c.dim;
  m.heads = c.heads;
  m.layers = c.layers;
  m.pre_ln = c.pre_ln;
  m.causal = task_is_causal(t) && !c.bidirectional;
  m.scheme = parse_scheme(c.scheme);
  m.max_len = c.max_length;
  return m;
}

AdamWConfig optimiser_of(const SessionConfig& c) {
  AdamWConfig oc;
  oc.lr = static_cast<float>(c.lr);
  oc.total_steps = c.steps;
  oc.warmup = c.steps / 10 > 1 ? c.steps / 10 : 1;
  return oc;
}

const char* const kTasks = "'shift-k', 'reverse', 'count-so-far', 'bracket-depth'";
const char* const kSchemes = "'none', 'sinusoidal', 'learned', 'alibi', 't5', 'rope', 'shaw', 'deberta'";

}  // namespace

SessionConfig resolve_session_config(SessionConfig c) {
  if (c.task != "shift-k" && c.task != "reverse" && c.task != "count-so-far" && c.task != "bracket-depth")
    fail_value("task: expected one of " + std::string(kTasks) + ", got \"" + c.task + "\"");
  PositionScheme scheme;
  try {
    scheme = parse_scheme(c.scheme);
  } catch (const std::invalid_argument&) {
    fail_value("scheme: expected one of " + std::string(kSchemes) + ", got \"" + c.scheme + "\"");
  }
  check_range(c.train_length, 1, kLabMaxLength, "trainLength");
  if (c.max_length == 0) c.max_length = c.train_length * 4 > kLabMaxLength ? kLabMaxLength : 4 * c.train_length;
  check_range(c.max_length, 1, kLabMaxLength, "maxLength");
  if (c.max_length < c.train_length)
    fail_range("trainLength: " + std::to_string(c.train_length) + " exceeds maxLength " + std::to_string(c.max_length));
  check_range(c.steps, 1, kLabMaxSteps, "steps");
  check_range(c.batch, 1, kLabMaxBatch, "batch");
  check_range(c.dim, 1, kLabMaxDim, "model.dim");
  check_range(c.layers, 1, kLabMaxLayers, "model.layers");
  check_range(c.heads, 1, c.dim, "model.heads");
  if (c.dim % c.heads != 0)
    fail_range("model.dim: " + std::to_string(c.dim) + " is not divisible by model.heads " + std::to_string(c.heads));
  const int dh = c.dim / c.heads;
  if (scheme == PositionScheme::Rope && dh % 2 != 0)
    fail_range("model.dim: rope needs an even head size, got model.dim / model.heads = " + std::to_string(dh));
  if (scheme == PositionScheme::Sinusoidal && c.dim % 2 != 0)
    fail_range("model.dim: sinusoidal needs an even model.dim, got " + std::to_string(c.dim));
  if (c.task == "shift-k" || c.task == "reverse") check_range(c.symbols, 2, kLabMaxSymbols, "symbols");
  if (c.task == "shift-k") check_range(c.k, 1, c.train_length - 1 < 1 ? 1 : c.train_length - 1, "k");
  if (c.task == "shift-k" && c.train_length <= c.k)
    fail_range("trainLength: shift-k with k = " + std::to_string(c.k) + " needs trainLength > k, got " + std::to_string(c.train_length));
  if (!(c.lr > 0) || !std::isfinite(c.lr)) fail_range("lr: expected a positive finite number, got " + std::to_string(c.lr));
  if (scheme == PositionScheme::Deberta) {
    const int rows = 2 * ModelConfig().deberta_buckets;
    if (static_cast<long>(c.batch) * c.train_length < rows)
      fail_range("batch: deberta needs batch · trainLength ≥ " + std::to_string(rows) + " (its relative table rows), got " +
                 std::to_string(c.batch) + " · " + std::to_string(c.train_length));
  }
  return c;
}

Session::Session(const SessionConfig& cfg)
    : cfg_(resolve_session_config(cfg)),
      task_(task_of(cfg_)),
      model_(model_of(cfg_)),
      trainer_(model_, cfg_.batch, cfg_.train_length),
      opt_config_(optimiser_of(cfg_)),
      opt_(opt_config_, trainer_.layout()) {
  init_params(model_, trainer_.layout(), cfg_.seed, params_);
}

double Session::learning_rate(int t) const { return relpos::train::learning_rate(opt_config_, t); }

double Session::flops_per_step() const { return 3.0 * trainer_.forward_flops(cfg_.batch, cfg_.train_length); }

std::vector<double> Session::step(int n) {
  std::vector<double> losses;
  const int todo = std::max(0, std::min(n, cfg_.steps - steps_done()));
  losses.reserve(todo);
  for (int i = 0; i < todo; ++i) {
    const int s = steps_done();
    make_batch(task_, cfg_.batch, cfg_.train_length, cfg_.seed * 1000003ull + static_cast<std::uint64_t>(s), batch_);
    losses.push_back(trainer_.forward(params_, batch_));
    trainer_.backward(params_, batch_, grads_);
    opt_.step(params_, grads_);
  }
  return losses;
}

Trainer& Session::eval_trainer() {
  if (!eval_) eval_ = std::make_unique<Trainer>(model_, cfg_.batch, cfg_.max_length);
  return *eval_;
}

void Session::check_length(int length, const char* what) const {
  if (length < 1 || length > cfg_.max_length)
    fail_range(std::string(what) + ": length " + std::to_string(length) + " is outside [1, maxLength = " +
               std::to_string(cfg_.max_length) + "]");
}

void tally_predictions(int B, int L, const std::int32_t* labels, const std::int32_t* predictions,
                       PredictionTally& tally) {
  if (tally.right.size() < static_cast<std::size_t>(L)) {
    tally.right.resize(L, 0);
    tally.seen.resize(L, 0);
  }
  for (int b = 0; b < B; ++b) {
    bool all = true;
    for (int i = 0; i < L; ++i) {
      const std::size_t at = static_cast<std::size_t>(b) * L + i;
      if (labels[at] < 0) continue;
      const bool ok = predictions[at] == labels[at];
      ++tally.seen[i];
      tally.right[i] += ok;
      all = all && ok;
    }
    ++tally.sequences;
    tally.sequences_right += all;
  }
}

Evaluation Session::evaluate(int length, int batches) {
  check_length(length, "evaluate");
  check_range(batches, 1, 1 << 20, "batches");
  Trainer& eval = eval_trainer();
  const int B = cfg_.batch, L = length;
  Evaluation r;
  r.length = L;
  r.sequences = B * batches;
  PredictionTally tally;
  std::vector<std::int32_t> pred;
  double sum = 0;
  for (int e = 0; e < batches; ++e) {
    make_batch(task_, B, L, 0x5EED0000ull + cfg_.seed * 1000 + static_cast<std::uint64_t>(L) * 10 + e, batch_);
    eval.forward(params_, batch_);
    sum += eval.accuracy(batch_);
    eval.predictions(pred);
    tally_predictions(B, L, batch_.labels.data(), pred.data(), tally);
  }
  r.accuracy = sum / batches;
  r.per_sequence = static_cast<double>(tally.sequences_right) / tally.sequences;
  r.per_position.resize(L);
  for (int i = 0; i < L; ++i)
    r.per_position[i] = tally.seen[i] ? static_cast<double>(tally.right[i]) / tally.seen[i]
                                      : std::numeric_limits<double>::quiet_NaN();
  return r;
}

AttentionSample Session::attention(int length, std::uint64_t sample_seed) {
  check_length(length, "attention");
  Trainer& eval = eval_trainer();
  const int L = length, H = model_.heads;
  make_batch(task_, 1, L, sample_seed, batch_);
  eval.forward(params_, batch_);
  AttentionSample r;
  r.length = L;
  r.layers = model_.layers;
  r.heads = H;
  r.tokens = batch_.tokens;
  r.labels = batch_.labels;
  eval.predictions(r.predictions);
  const std::size_t per_layer = static_cast<std::size_t>(H) * L * L;  // [1, H, L, L]
  r.maps.resize(per_layer * model_.layers);
  for (int l = 0; l < model_.layers; ++l) {
    const float* p = eval.attention_probs(l);
    std::copy(p, p + per_layer, r.maps.begin() + per_layer * l);
  }
  return r;
}

}  // namespace relpos::train
