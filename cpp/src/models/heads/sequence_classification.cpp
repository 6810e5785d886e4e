// Sequence-classification heads (relpos/heads.h): BERT, DeBERTa-v2, DistilBERT, RoFormer, MPNet.
// Each reads the first token's final hidden state (BERT: the model's pooler output), applies the
// family's dense + activation, then the classifier Linear; dropout is the identity.
// MPNet (MPNetClassificationHead) and the RoBERTa family (RobertaClassificationHead, no pooler):
// classifier.out_proj(tanh(classifier.dense(h[:, 0]))); ELECTRA (ElectraClassificationHead) the same with
// exact GELU (hard-coded in transformers, whatever hidden_act says).
// Written with the layer primitives (first_token_rows, Linear, activate): a recorded plan sees it too.
#include "models/heads/head_support.h"
#include "models/layers/layers.h"
#include "models/model_base.h"
#include "relpos/error.h"

namespace relpos::models::heads {
namespace {

// first token → [dense → act] → classifier. `dense` empty (in() == 0) = BERT (uses pooler_output).
class Head final : public TaskHead {
 public:
  Head(std::vector<std::string> labels, Linear dense, Activation act, Linear classifier, bool use_pooler)
      : dense_(std::move(dense)), act_(act), classifier_(std::move(classifier)), use_pooler_(use_pooler) {
    task_ = HeadTask::SequenceClassification;
    labels_ = std::move(labels);
    outputs_ = classifier_.out();
  }

  std::vector<float> logits(const ModelOutput& o, const std::vector<int>&) const override {
    std::vector<float> first, y, out;  // grow(): buffers of a recorded plan
    const float* x = nullptr;
    int batch = 0;
    if (use_pooler_) {
      if (o.pooler_output.shape.size() != 2)
        fail_value("sequence classifier: the model has no pooler output (bert pooler.dense weights missing)");
      x = o.pooler_output.data.data();
      batch = o.pooler_output.shape[0];
    } else {
      const Tensor& h = o.last_hidden_state;
      if (h.shape.size() != 3) fail_value("sequence classifier: the model output has no last_hidden_state");
      const int L = h.shape[1], H = h.shape[2];
      batch = h.shape[0];
      float* rows = grow(first, static_cast<std::size_t>(batch) * H);
      first_token_rows(batch, L, H, h.data.data(), rows);
      x = rows;
    }
    if (dense_.in() > 0) {
      float* t = grow(y, static_cast<std::size_t>(batch) * dense_.out());
      dense_.forward(batch, x, t);
      activate(act_, y.size(), t);
      x = t;
    }
    grow(out, static_cast<std::size_t>(batch) * classifier_.out());
    classifier_.forward(batch, x, out.data());
    return out;
  }

 private:
  Linear dense_;
  Activation act_;
  Linear classifier_;
  bool use_pooler_;
};

}  // namespace

std::unique_ptr<TaskHead> make_sequence_classifier(const HeadSource& s) {
  const auto& j = s.config_json;
  const auto& w = s.weights;
  const int H = s.config.hidden_size;
  const std::string& t = s.config.model_type;
  if (t == "modernbert") return make_modernbert_sequence_classifier(s);
  const bool roberta = t == "roberta" || t == "xlm-roberta" || t == "camembert";
  if (t == "roformer" || t == "mpnet" || roberta || t == "electra") {  // classifier.dense → act → classifier.out_proj
    const int n = rows_of(w, "classifier.out_proj.weight");
    const Activation act = t == "mpnet" || roberta ? Activation::Tanh
                           : t == "electra"        ? Activation::Gelu
                                                   : parse_activation(s.config.hidden_act);
    return std::make_unique<Head>(label_names(j, n, "classifier.out_proj.weight"), Linear::load(w, "classifier.dense", H, H, true),
                                  act, Linear::load(w, "classifier.out_proj", H, n, true), false);
  }
  const int n = rows_of(w, "classifier.weight");
  if (t == "bert") {
    if (!w.contains("bert.pooler.dense.weight") && !w.contains("pooler.dense.weight"))
      fail_value(w.file_name() + ": missing head tensor 'bert.pooler.dense.weight' (BertForSequenceClassification "
                 "classifies the pooler output)");
    return std::make_unique<Head>(label_names(j, n, "classifier.weight"), Linear(), Activation::Relu,
                                  Linear::load(w, "classifier", H, n, true), true);
  }
  if (t == "distilbert")
    return std::make_unique<Head>(label_names(j, n, "classifier.weight"), Linear::load(w, "pre_classifier", H, H, true),
                                  Activation::Relu, Linear::load(w, "classifier", H, n, true), false);
  if (t == "deberta-v2") {
    int P = H;
    if (j.contains("pooler_hidden_size") && !j["pooler_hidden_size"].is_null()) {
      if (!j["pooler_hidden_size"].is_number_integer() || j["pooler_hidden_size"].get<long long>() < 1 ||
          j["pooler_hidden_size"].get<long long>() > (1 << 20))
        fail_value("config.json: field 'pooler_hidden_size' must be a positive integer");
      P = j["pooler_hidden_size"].get<int>();
    }
    return std::make_unique<Head>(label_names(j, n, "classifier.weight"), Linear::load(w, "pooler.dense", H, P, true),
                                  parse_activation(string_field(j, "pooler_hidden_act", "gelu")),
                                  Linear::load(w, "classifier", P, n, true), false);
  }
  return nullptr;  // other families: no sequence-classification head in relpos
}

}  // namespace relpos::models::heads
