// Sequence-classification heads (relpos/heads.h): BERT, DeBERTa-v2, DistilBERT, RoFormer.
// Each reads the first token's final hidden state (BERT: the model's pooler output), applies the
// family's dense + activation, then the classifier Linear; dropout is the identity.
#include <cstring>
#include <nlohmann/json.hpp>

#include "io/json_text.h"

#include "models/layers/layers.h"
#include "models/layers/load_context.h"
#include "relpos/error.h"
#include "relpos/heads.h"

namespace relpos {
namespace {

using nlohmann::json;
using models::Activation;
using models::Linear;

// id2label in id order; entries missing (or no id2label at all) are named LABEL_i like HF does.
std::vector<std::string> label_names(const json& config, int n) {
  std::vector<std::string> labels(n);
  for (int i = 0; i < n; ++i) labels[i] = "LABEL_" + std::to_string(i);
  if (!config.contains("id2label") || config["id2label"].is_null()) return labels;
  const json& map = config["id2label"];
  if (!map.is_object()) fail_value("config.json: field 'id2label' must be an object {\"0\": \"label\", …}");
  for (auto it = map.begin(); it != map.end(); ++it) {
    int id = -1;
    try {
      std::size_t used = 0;
      id = std::stoi(it.key(), &used);
      if (used != it.key().size()) id = -1;
    } catch (const std::exception&) {
      id = -1;
    }
    if (id < 0) fail_value("config.json: id2label key '" + it.key() + "' is not a label id");
    if (!it.value().is_string()) fail_value("config.json: id2label['" + it.key() + "'] must be a string");
    if (id < n) labels[id] = it.value().get<std::string>();
  }
  return labels;
}

std::string string_field(const json& config, const char* key, const std::string& fallback) {
  if (!config.contains(key) || config[key].is_null()) return fallback;
  if (!config[key].is_string()) fail_value(std::string("config.json: field '") + key + "' must be a string");
  return config[key].get<std::string>();
}

// Rows of the first token of every sequence: [B, H] out of [B, L, H].
std::vector<float> first_tokens(const Tensor& hidden) {
  if (hidden.shape.size() != 3) fail_value("sequence classifier: the model output has no last_hidden_state");
  const int B = hidden.shape[0], L = hidden.shape[1], H = hidden.shape[2];
  std::vector<float> out(static_cast<std::size_t>(B) * H);
  for (int b = 0; b < B; ++b)
    std::memcpy(out.data() + static_cast<std::size_t>(b) * H, hidden.data.data() + static_cast<std::size_t>(b) * L * H,
                sizeof(float) * H);
  return out;
}

// first token → [dense → act] → classifier. `dense` empty (in() == 0) = BERT (uses pooler_output).
class Head final : public SequenceClassifier {
 public:
  Head(std::vector<std::string> labels, Linear dense, Activation act, Linear classifier, bool use_pooler)
      : dense_(std::move(dense)), act_(act), classifier_(std::move(classifier)), use_pooler_(use_pooler) {
    labels_ = std::move(labels);
  }
  void set_weight_bytes(std::size_t bytes) { weight_bytes_ = bytes; }

  std::vector<float> logits(const ModelOutput& o) const override {
    std::vector<float> x;
    int batch = 0;
    if (use_pooler_) {
      if (o.pooler_output.shape.size() != 2)
        fail_value("sequence classifier: the model has no pooler output (bert pooler.dense weights missing)");
      x = o.pooler_output.data;
      batch = o.pooler_output.shape[0];
    } else {
      x = first_tokens(o.last_hidden_state);
      batch = o.last_hidden_state.shape[0];
    }
    if (dense_.in() > 0) {
      std::vector<float> y(static_cast<std::size_t>(batch) * dense_.out());
      dense_.forward(batch, x.data(), y.data());
      models::activate(act_, y.size(), y.data());
      x = std::move(y);
    }
    std::vector<float> out(static_cast<std::size_t>(batch) * classifier_.out());
    classifier_.forward(batch, x.data(), out.data());
    return out;
  }

 private:
  Linear dense_;
  Activation act_;
  Linear classifier_;
  bool use_pooler_;
};

// Rows of `name` [rows, cols] when present as a 2-D tensor (its shape is checked again on load).
int rows_of(const Weights& w, const std::string& name) {
  const auto& shape = w.info(name).shape;
  if (shape.size() != 2 || shape[0] < 1 || shape[0] > (1 << 20))
    fail_value(w.file_name() + ": tensor '" + name + "': expected a 2-D [num_labels, in] weight");
  return static_cast<int>(shape[0]);
}

}  // namespace

namespace {

std::unique_ptr<Head> load_head(const std::string& config_json_text, const ModelConfig& c, const Weights& w) {
  json j;
  try {
    j = io::parse_json(config_json_text);
  } catch (const json::exception& e) {
    fail_value(std::string("config.json is not valid JSON: ") + e.what());
  }
  if (!j.is_object()) fail_value("config.json must be a JSON object");
  const int H = c.hidden_size;
  const std::string& t = c.model_type;

  if (t == "roformer") {
    if (!w.contains("classifier.out_proj.weight")) return nullptr;
    const int n = rows_of(w, "classifier.out_proj.weight");
    return std::make_unique<Head>(label_names(j, n), Linear::load(w, "classifier.dense", H, H, true),
                                  models::parse_activation(c.hidden_act),
                                  Linear::load(w, "classifier.out_proj", H, n, true), false);
  }
  if (!w.contains("classifier.weight")) return nullptr;
  const int n = rows_of(w, "classifier.weight");
  if (t == "bert")
    return std::make_unique<Head>(label_names(j, n), Linear(), Activation::Relu,
                                  Linear::load(w, "classifier", H, n, true), true);
  if (t == "distilbert")
    return std::make_unique<Head>(label_names(j, n), Linear::load(w, "pre_classifier", H, H, true), Activation::Relu,
                                  Linear::load(w, "classifier", H, n, true), false);
  if (t == "deberta-v2") {
    int P = H;
    if (j.contains("pooler_hidden_size") && !j["pooler_hidden_size"].is_null()) {
      if (!j["pooler_hidden_size"].is_number_integer() || j["pooler_hidden_size"].get<long long>() < 1 ||
          j["pooler_hidden_size"].get<long long>() > (1 << 20))
        fail_value("config.json: field 'pooler_hidden_size' must be a positive integer");
      P = j["pooler_hidden_size"].get<int>();
    }
    return std::make_unique<Head>(label_names(j, n), Linear::load(w, "pooler.dense", H, P, true),
                                  models::parse_activation(string_field(j, "pooler_hidden_act", "gelu")),
                                  Linear::load(w, "classifier", P, n, true), false);
  }
  return nullptr;  // other families: no sequence-classification head in relpos
}

}  // namespace

std::unique_ptr<SequenceClassifier> load_sequence_classifier(const std::string& config_json_text,
                                                             const ModelConfig& config, const Weights& weights,
                                                             const LoadOptions& options) {
  const models::LoadContext context(weights, options);
  std::unique_ptr<Head> head = load_head(config_json_text, config, context);
  if (head) head->set_weight_bytes(context.held_bytes());
  return head;
}

}  // namespace relpos
