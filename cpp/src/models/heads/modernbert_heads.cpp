// ModernBERT classification heads (relpos/heads.h; transformers v4.48.0 modeling_modernbert.py, dropout = identity).
//   prediction head  t = norm(act(dense(x))): head.dense [H, H] (bias iff classifier_bias),
//                    act = classifier_activation, head.norm LayerNorm(norm_eps, bias iff norm_bias)
//   sequence         x_b = h[b, 0] (classifier_pooling "cls") or Σ_l m[b,l]·h[b,l] / Σ_l m[b,l] ("mean", m = the
//                    forward's attention mask, all 1 when none was given);  logits_b = classifier(t(x_b))
//   token            logits[b, l] = classifier(t(h[b, l]))
// classifier [labels, H] with bias. h = last_hidden_state (after final_norm). The masked-LM head is in masked_lm.cpp.
// Pooling and every step go through the layer primitives (first_token_rows / mean_rows, Linear, …): a recorded
// plan sees the head too.
#include "models/heads/head_support.h"
#include "models/layers/layers.h"
#include "models/model_base.h"
#include "relpos/error.h"

namespace relpos::models::heads {
namespace {

class ModernBertClassifier final : public TaskHead {
 public:
  ModernBertClassifier(HeadTask task, std::vector<std::string> labels, bool mean, Linear dense, Activation act,
                       LayerNorm norm, Linear classifier)
      : mean_(mean), dense_(std::move(dense)), act_(act), norm_(std::move(norm)), classifier_(std::move(classifier)) {
    task_ = task;
    labels_ = std::move(labels);
    outputs_ = classifier_.out();
  }

  std::vector<float> logits(const ModelOutput& o, const std::vector<int>&) const override {
    const Tensor& h = o.last_hidden_state;
    if (h.shape.size() != 3) fail_value(std::string(head_task_name(task_)) + " head: the model output has no last_hidden_state");
    const int B = h.shape[0], L = h.shape[1], H = h.shape[2];
    if (H != dense_.in())
      fail_value(std::string(head_task_name(task_)) + " head: hidden size " + std::to_string(H) + ", the head expects " +
                 std::to_string(dense_.in()));
    std::vector<float> pooled, t, out;  // grow(): buffers of a recorded plan
    const float* x = h.data.data();
    int rows = B * L;
    if (task_ == HeadTask::SequenceClassification) {
      rows = B;
      float* p = grow(pooled, static_cast<std::size_t>(B) * H);
      const bool masked = !o.token_mask.empty();
      if (masked && o.token_mask.size() != static_cast<std::size_t>(B) * L)
        fail_value("text-classification head: the output's token mask does not match last_hidden_state");
      if (mean_) {
        for (int b = 0; b < B && masked; ++b) {
          int count = 0;
          for (int l = 0; l < L; ++l) count += o.token_mask[static_cast<std::size_t>(b) * L + l] != 0;
          if (count == 0)
            fail_value("text-classification head: sequence " + std::to_string(b) +
                       " has no real token to mean-pool (classifier_pooling \"mean\"; its attention mask is all 0)");
        }
        mean_rows(B, L, H, h.data.data(), masked ? o.token_mask.data() : nullptr, p);
      } else {
        first_token_rows(B, L, H, h.data.data(), p);
      }
      x = p;
    }
    grow(t, static_cast<std::size_t>(rows) * H);
    dense_.forward(rows, x, t.data());
    activate(act_, t.size(), t.data());
    norm_.forward(rows, t.data(), t.data());
    grow(out, static_cast<std::size_t>(rows) * classifier_.out());
    classifier_.forward(rows, t.data(), out.data());
    return out;
  }

 private:
  bool mean_;
  Linear dense_;
  Activation act_;
  LayerNorm norm_;
  Linear classifier_;
};

std::unique_ptr<TaskHead> make(const HeadSource& s, HeadTask task) {
  const ModelConfig& c = s.config;
  const Weights& w = s.weights;
  const int H = c.hidden_size;
  const std::string missing = first_missing(w, {"head.dense.weight", "head.norm.weight", "classifier.weight"});
  if (!missing.empty())
    fail_value(w.file_name() + ": missing ModernBERT " + head_task_name(task) + " head tensor '" + missing + "'");
  const int n = rows_of(w, "classifier.weight");
  return std::make_unique<ModernBertClassifier>(
      task, label_names(s.config_json, n, "classifier.weight"), c.classifier_pooling == "mean",
      Linear::load(w, "head.dense", H, H, c.classifier_bias), parse_activation(c.classifier_activation),
      LayerNorm::load(w, "head.norm", H, c.norm_eps, c.norm_bias), Linear::load(w, "classifier", H, n, true));
}

}  // namespace

std::unique_ptr<TaskHead> make_modernbert_sequence_classifier(const HeadSource& s) {
  return make(s, HeadTask::SequenceClassification);
}

std::unique_ptr<TaskHead> make_modernbert_token_classifier(const HeadSource& s) {
  return make(s, HeadTask::TokenClassification);
}

}  // namespace relpos::models::heads
