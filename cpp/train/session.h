// A training run of the length-generalisation lab (issue #18): one model on one task, trained step by
// step, then evaluated at any length up to max_length and asked for its attention maps. It is what
// relpos_lab_native runs per scheme and what the lab WebAssembly module (cpp/train/bindings/lab.cpp)
// binds as LabSession.
//
// Seed conventions (lab_native's, kept bitwise):
//   parameters        init_params(seed)
//   training batch t  make_batch(task, batch, train_length, seed·1000003 + t)
//   evaluation i at L make_batch(task, batch, L, 0x5EED0000 + seed·1000 + L·10 + i)
//   attention sample  make_batch(task, 1, L, sample_seed)
// Optimiser: AdamW(lr, total_steps = steps, warmup = max(1, steps / 10)), other settings AdamWConfig's.
// Training runs on a Trainer sized (batch, train_length); evaluation and attention on a second one
// sized (batch, max_length), created on first use.
//
// Bad configurations throw relpos::Error (Range: sizes; Value: unknown task / scheme), each message
// naming the option as the JS API spells it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "adamw.h"
#include "model.h"
#include "tasks.h"

namespace relpos::train {

struct SessionConfig {
  std::string task = "shift-k";
  int k = 3;             // shift-k's shift
  int symbols = 8;       // shift-k / reverse alphabet
  std::string scheme = "none";
  int train_length = 16;
  int steps = 300;
  int batch = 32;
  int dim = 64, layers = 2, heads = 4;
  double lr = 3e-3;
  std::uint64_t seed = 1;
  int max_length = 0;    // longest evaluation length (learned table rows); 0 = 4 · train_length
  bool pre_ln = true;
  bool bidirectional = false;  // force a bidirectional mask on a causal task
};

// Limits the lab accepts (the JS API checks the same ones first).
constexpr int kLabMaxLength = 4096;
constexpr int kLabMaxBatch = 4096;
constexpr int kLabMaxDim = 4096;
constexpr int kLabMaxLayers = 64;
constexpr int kLabMaxSymbols = 4096;
constexpr int kLabMaxSteps = 10000000;

// Checks cfg (throws relpos::Error) and returns it with max_length resolved.
SessionConfig resolve_session_config(SessionConfig cfg);

struct Evaluation {
  int length = 0;
  int sequences = 0;
  double accuracy = 0;                // mean over batches of the labelled-row accuracy (lab_native's acc@L)
  double per_sequence = 0;            // fraction of sequences whose every labelled position is right
  std::vector<double> per_position;   // [length] accuracy over labelled rows at each position, NaN if none
};

// Running per-position and per-sequence counts of predictions against labels (label < 0: unlabelled).
// Session::evaluate adds every batch to one; a sequence is right when every labelled position is.
struct PredictionTally {
  std::vector<long> right, seen;  // [length]: right / labelled predictions at each position
  long sequences = 0, sequences_right = 0;
};
// Adds B sequences of length L (labels and predictions [B·L], row-major) to `tally` (sized to L first).
void tally_predictions(int B, int L, const std::int32_t* labels, const std::int32_t* predictions,
                       PredictionTally& tally);

struct AttentionSample {
  int length = 0, layers = 0, heads = 0;
  std::vector<std::int32_t> tokens, labels, predictions;  // [length]
  std::vector<float> maps;  // [layers][heads][length][length], row = query i, column = key j
};

class Session {
 public:
  explicit Session(const SessionConfig& cfg);

  const SessionConfig& config() const { return cfg_; }
  const ModelConfig& model_config() const { return model_; }
  int steps_done() const { return opt_.steps_done(); }
  // Learning rate of training step t (0-based) under this run's schedule.
  double learning_rate(int t) const;
  // 3 × forward multiply–add FLOPs of one training step (lab_native's count).
  double flops_per_step() const;

  // Runs min(n, steps − steps_done()) more training steps; returns their losses.
  std::vector<double> step(int n);
  // Accuracy of the current parameters on `batches` fresh batches of `length` (1 ≤ length ≤ max_length).
  Evaluation evaluate(int length, int batches);
  // One sequence of `length` from sample_seed: tokens, labels, predictions, every layer's and head's
  // attention probabilities.
  AttentionSample attention(int length, std::uint64_t sample_seed);

  const std::vector<float>& params() const { return params_; }

 private:
  SessionConfig cfg_;
  TaskSpec task_;
  ModelConfig model_;
  Trainer trainer_;
  std::vector<float> params_, grads_;
  AdamWConfig opt_config_;
  AdamW opt_;
  Batch batch_;
  std::unique_ptr<Trainer> eval_;

  Trainer& eval_trainer();
  void check_length(int length, const char* what) const;
};

}  // namespace relpos::train
