// load_task_head / load_sequence_classifier (relpos/heads.h): which head a checkpoint has.
// config.json's architectures[0] names it (…ForSequenceClassification, …ForTokenClassification,
// …ForQuestionAnswering, …ForMaskedLM; its tensors are then required). Otherwise the tensors decide:
// qa_outputs → question answering; a masked-LM transform → masked LM; classifier weights → sequence
// classification when the family's pooling layer is there (bert pooler, deberta-v2 pooler.dense,
// distilbert pre_classifier, roformer classifier.out_proj), else token classification.
// mpnet and the RoBERTa family: lm_head.dense → masked LM; classifier.out_proj → sequence classification
// (electra too); classifier → token.
#include <optional>

#include "io/json_text.h"
#include "io/name_match.h"
#include "models/heads/head_support.h"
#include "models/layers/load_context.h"
#include "relpos/error.h"

namespace relpos {
namespace models::heads {
namespace {

using io::ends_with;
using nlohmann::json;

std::string architecture(const json& j) {
  if (!j.contains("architectures") || j["architectures"].is_null()) return "";
  const json& a = j["architectures"];
  if (!a.is_array() || (!a.empty() && !a[0].is_string()))
    fail_value("config.json: field 'architectures' must be an array of class names");
  return a.empty() ? "" : a[0].get<std::string>();
}

std::optional<HeadTask> named_task(const std::string& arch) {
  if (ends_with(arch, "ForSequenceClassification")) return HeadTask::SequenceClassification;
  if (ends_with(arch, "ForTokenClassification")) return HeadTask::TokenClassification;
  if (ends_with(arch, "ForQuestionAnswering")) return HeadTask::QuestionAnswering;
  if (ends_with(arch, "ForMaskedLM")) return HeadTask::MaskedLM;
  if (ends_with(arch, "ForCausalLM")) return HeadTask::CausalLM;
  return std::nullopt;
}

std::optional<HeadTask> task_from_tensors(const ModelConfig& c, const Weights& w) {
  if (w.contains("qa_outputs.weight")) return HeadTask::QuestionAnswering;
  if (w.contains("cls.predictions.transform.dense.weight") || w.contains("vocab_transform.weight")) return HeadTask::MaskedLM;
  const std::string& t = c.model_type;
  // ModernBERT: sequence and token classifiers hold the same tensors (head.*, classifier.*); without
  // architectures the pooled (sequence) head is assumed.
  if (t == "modernbert" && w.contains("head.dense.weight"))
    return w.contains("classifier.weight") ? HeadTask::SequenceClassification : HeadTask::MaskedLM;
  if (t == "roformer" && w.contains("classifier.out_proj.weight")) return HeadTask::SequenceClassification;
  const bool lm_head = t == "mpnet" || t == "roberta" || t == "xlm-roberta" || t == "camembert";
  if (lm_head && w.contains("lm_head.dense.weight")) return HeadTask::MaskedLM;  // MPNetLMHead / RobertaLMHead
  if ((lm_head || t == "electra") && w.contains("classifier.out_proj.weight")) return HeadTask::SequenceClassification;
  if (!w.contains("classifier.weight")) return std::nullopt;
  bool pooled = false;
  if (t == "bert") pooled = w.contains("bert.pooler.dense.weight") || w.contains("pooler.dense.weight");
  if (t == "deberta-v2") pooled = w.contains("pooler.dense.weight");
  if (t == "distilbert") pooled = w.contains("pre_classifier.weight");
  return pooled ? HeadTask::SequenceClassification : HeadTask::TokenClassification;
}

std::unique_ptr<TaskHead> load(const std::string& config_json_text, const ModelConfig& config, const Model* model,
                               const Weights& weights, const LoadOptions& options, bool sequence_only) {
  json j;
  try {
    j = io::parse_json(config_json_text);
  } catch (const json::exception& e) {
    fail_value(std::string("config.json is not valid JSON: ") + e.what());
  }
  if (!j.is_object()) fail_value("config.json must be a JSON object");
  const LoadContext context(weights, options);
  std::optional<HeadTask> task = named_task(architecture(j));
  if (!task && !architecture(j).empty() && ends_with(architecture(j), "ForMultipleChoice")) return nullptr;
  if (!task) task = task_from_tensors(config, context);
  if (!task || (sequence_only && *task != HeadTask::SequenceClassification)) return nullptr;
  const HeadSource source{j, config, context, model};
  std::unique_ptr<TaskHead> head;
  switch (*task) {
    case HeadTask::SequenceClassification: head = make_sequence_classifier(source); break;
    case HeadTask::TokenClassification: head = make_token_classifier(source); break;
    case HeadTask::QuestionAnswering: head = make_question_answering(source); break;
    case HeadTask::MaskedLM: head = make_masked_lm(source); break;
    case HeadTask::CausalLM: head = make_causal_lm(source); break;
  }
  if (head) head->set_weight_bytes(context.held_bytes());
  return head;
}

}  // namespace
}  // namespace models::heads

const char* head_task_name(HeadTask task) {
  switch (task) {
    case HeadTask::SequenceClassification: return "text-classification";
    case HeadTask::TokenClassification: return "token-classification";
    case HeadTask::QuestionAnswering: return "question-answering";
    case HeadTask::MaskedLM: return "fill-mask";
    case HeadTask::CausalLM: return "text-generation";
  }
  return "";
}

std::unique_ptr<TaskHead> load_task_head(const std::string& config_json_text, const Model& model, const Weights& weights,
                                         const LoadOptions& options) {
  return models::heads::load(config_json_text, model.config(), &model, weights, options, false);
}

std::unique_ptr<SequenceClassifier> load_sequence_classifier(const std::string& config_json_text,
                                                             const ModelConfig& config, const Weights& weights,
                                                             const LoadOptions& options) {
  return models::heads::load(config_json_text, config, nullptr, weights, options, true);
}

}  // namespace relpos
