// Heads that score every token (relpos/heads.h): token classification (`classifier`, [labels, H])
// and extractive question answering (`qa_outputs`, [2, H]: start and end logits), the same Linear
// over last_hidden_state in bert, deberta-v2, distilbert, roformer, mpnet, the RoBERTa family and electra; dropout is the identity.
#include "models/heads/head_support.h"
#include "models/layers/layers.h"
#include "models/model_base.h"
#include "relpos/error.h"

namespace relpos::models::heads {
namespace {

bool has_token_heads(const std::string& type) {
  if (type == "mpnet") return true;  // MPNetForTokenClassification (classifier), MPNetForQuestionAnswering (qa_outputs)
  if (type == "roberta" || type == "xlm-roberta" || type == "camembert" || type == "electra") return true;
  return type == "bert" || type == "deberta-v2" || type == "distilbert" || type == "roformer";
}

class PerTokenHead final : public TaskHead {
 public:
  PerTokenHead(HeadTask task, std::vector<std::string> labels, Linear linear) : linear_(std::move(linear)) {
    task_ = task;
    labels_ = std::move(labels);
    outputs_ = linear_.out();
  }
  // [B, L, outputs] = linear(last_hidden_state) at every token.
  std::vector<float> logits(const ModelOutput& o, const std::vector<int>&) const override {
    const Tensor& h = o.last_hidden_state;
    if (h.shape.size() != 3) fail_value(std::string(head_task_name(task_)) + " head: the model output has no last_hidden_state");
    const int rows = h.shape[0] * h.shape[1];
    std::vector<float> out;
    grow(out, static_cast<std::size_t>(rows) * linear_.out());  // a buffer of a recorded plan
    linear_.forward(rows, h.data.data(), out.data());
    return out;
  }

 private:
  Linear linear_;
};

}  // namespace

std::unique_ptr<TaskHead> make_token_classifier(const HeadSource& s) {
  if (s.config.model_type == "modernbert") return make_modernbert_token_classifier(s);
  if (!has_token_heads(s.config.model_type)) return nullptr;
  const int n = rows_of(s.weights, "classifier.weight");
  return std::make_unique<PerTokenHead>(HeadTask::TokenClassification, label_names(s.config_json, n, "classifier.weight"),
                                        Linear::load(s.weights, "classifier", s.config.hidden_size, n, true));
}

std::unique_ptr<TaskHead> make_question_answering(const HeadSource& s) {
  if (!has_token_heads(s.config.model_type)) return nullptr;
  if (!s.weights.contains("qa_outputs.weight"))
    fail_value(s.weights.file_name() + ": missing head tensor 'qa_outputs.weight' (question answering: [2, hidden])");
  return std::make_unique<PerTokenHead>(HeadTask::QuestionAnswering, std::vector<std::string>{},
                                        Linear::load(s.weights, "qa_outputs", s.config.hidden_size, 2, true));
}

}  // namespace relpos::models::heads
