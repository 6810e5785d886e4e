// Masked-LM heads (relpos/heads.h): logits = decoder(LayerNorm(act(dense(h)))) + bias.
//   bert, roformer, deberta-v2  cls.predictions.transform.dense [E, H], .LayerNorm [E] (eps = layer_norm_eps),
//                               act = hidden_act, cls.predictions.bias [V] (or .decoder.bias)
//   distilbert                  vocab_transform [H, H], vocab_layer_norm [H] (eps 1e-12), act = activation,
//                               vocab_projector.bias [V]
//   mpnet (MPNetLMHead)         lm_head.dense [H, H], lm_head.layer_norm [H] (eps = layer_norm_eps),
//                               act = exact gelu whatever hidden_act, lm_head.bias [V] (or .decoder.bias),
//                               untied decoder lm_head.decoder.weight
// E = the word-embedding width (embedding_size; = H for bert and distilbert). The decoder [V, E] is
// the model's word-embedding table (tied, Hugging Face's default), read in place through
// EmbeddingTable::project — no second copy, and under q8 the same int8 rows; a checkpoint saved with
// tie_word_embeddings false brings its own cls.predictions.decoder.weight / vocab_projector.weight.
// Only the rows asked for are transformed and projected: at the mask tokens of a fill-mask call the
// vocabulary product (V·E per token; 98 M multiply-adds for DeBERTa-v3-base) is done for them alone.
// Every step is a layer primitive (select_rows, Linear, activate, LayerNorm, EmbeddingTable::project), so
// a recorded plan (plan/plan.h) sees the head as well.
#include "models/heads/head_support.h"
#include "models/layers/embedding_table.h"
#include "models/layers/layers.h"
#include "models/model_base.h"
#include "relpos/error.h"

namespace relpos::models::heads {
namespace {

class MaskedLmHead final : public TaskHead {
 public:
  MaskedLmHead(Linear dense, Activation act, LayerNorm norm, EmbeddingTable own, const EmbeddingTable* tied,
               std::vector<float> bias)
      : dense_(std::move(dense)), act_(act), norm_(std::move(norm)), own_(std::move(own)), bias_(std::move(bias)) {
    decoder_ = tied ? tied : &own_;
    task_ = HeadTask::MaskedLM;
    outputs_ = decoder_->rows();
  }

  std::vector<float> logits(const ModelOutput& o, const std::vector<int>& positions) const override {
    // The rows to transform: every token in place, or the chosen positions gathered (select_rows).
    std::vector<float> gathered, t, out;  // grow(): buffers of a recorded plan
    int rows = 0, H = 0;
    const float* x = vocabulary_head_rows(o, positions, "fill-mask", gathered, &rows, &H);
    (void)H;
    const int E = dense_.out();
    grow(t, static_cast<std::size_t>(rows) * E);
    dense_.forward(rows, x, t.data());
    activate(act_, t.size(), t.data());
    norm_.forward(rows, t.data(), t.data());
    grow(out, static_cast<std::size_t>(rows) * outputs_);
    decoder_->project(rows, t.data(), out.data(), bias_.empty() ? nullptr : bias_.data());
    return out;
  }

 private:
  Linear dense_;
  Activation act_;
  LayerNorm norm_;
  EmbeddingTable own_;
  const EmbeddingTable* decoder_ = nullptr;
  std::vector<float> bias_;
};

bool tied(const nlohmann::json& j) {
  if (!j.contains("tie_word_embeddings") || j["tie_word_embeddings"].is_null()) return true;
  if (!j["tie_word_embeddings"].is_boolean()) fail_value("config.json: field 'tie_word_embeddings' must be a boolean");
  return j["tie_word_embeddings"].get<bool>();
}

// The decoder [V, E] of a masked-LM head: the model's own word embeddings when tied (tie_word_embeddings,
// default true; Error when they are missing or the wrong shape), else the checkpoint's `untied` tensor.
struct Decoder {
  EmbeddingTable own;
  const EmbeddingTable* shared = nullptr;
};
Decoder load_decoder(const HeadSource& s, const std::string& untied, int V, int E) {
  Decoder d;
  if (tied(s.config_json)) {
    const auto* base = dynamic_cast<const ModelBase*>(s.model);
    d.shared = base ? base->word_embeddings() : nullptr;
    if (!d.shared) fail_value("fill-mask head: the model's word embeddings are not available to the tied decoder");
    if (d.shared->rows() != V || d.shared->dim() != E)
      fail_value("fill-mask head: the word embeddings are [" + std::to_string(d.shared->rows()) + ", " +
                 std::to_string(d.shared->dim()) + "], the decoder needs [" + std::to_string(V) + ", " + std::to_string(E) + "]");
  } else {
    if (!s.weights.contains(untied))
      fail_value(s.weights.file_name() + ": missing masked-LM head tensor '" + untied + "' (tie_word_embeddings is false)");
    d.own = EmbeddingTable::load(s.weights, untied, V, E);
  }
  return d;
}

// ModernBertForMaskedLM: decoder(head.norm(act(head.dense(h)))) + decoder.bias (bias iff decoder_bias), act =
// classifier_activation, dense bias iff classifier_bias, norm bias iff norm_bias; the decoder is tied to
// model.embeddings.tok_embeddings unless tie_word_embeddings is false (then decoder.weight [V, H]).
std::unique_ptr<TaskHead> make_modernbert_masked_lm(const HeadSource& s) {
  const ModelConfig& c = s.config;
  const Weights& w = s.weights;
  const int H = c.hidden_size, V = c.vocab_size;
  const std::string missing =
      first_missing(w, c.decoder_bias ? std::vector<std::string>{"head.dense.weight", "head.norm.weight", "decoder.bias"}
                                      : std::vector<std::string>{"head.dense.weight", "head.norm.weight"});
  if (!missing.empty()) fail_value(w.file_name() + ": missing masked-LM head tensor '" + missing + "'");
  Linear dense = Linear::load(w, "head.dense", H, H, c.classifier_bias);
  LayerNorm norm = LayerNorm::load(w, "head.norm", H, c.norm_eps, c.norm_bias);
  std::vector<float> b;
  if (c.decoder_bias) b = load_tensor(w, "decoder.bias", {V});
  Decoder d = load_decoder(s, "decoder.weight", V, H);
  return std::make_unique<MaskedLmHead>(std::move(dense), parse_activation(c.classifier_activation), std::move(norm),
                                        std::move(d.own), d.shared, std::move(b));
}

// MPNetForMaskedLM's lm_head (MPNetLMHead: dense → gelu → layer_norm → decoder + bias); RobertaForMaskedLM's
// RobertaLMHead (also XLM-RoBERTa, CamemBERT) is the same, tied to roberta.embeddings.word_embeddings.
std::unique_ptr<TaskHead> make_mpnet_masked_lm(const HeadSource& s) {
  const ModelConfig& c = s.config;
  const Weights& w = s.weights;
  const int H = c.hidden_size, V = c.vocab_size;
  const std::string bias = !w.contains("lm_head.bias") && w.contains("lm_head.decoder.bias") ? "lm_head.decoder.bias" : "lm_head.bias";
  const std::string missing = first_missing(w, {"lm_head.dense.weight", "lm_head.dense.bias", "lm_head.layer_norm.weight",
                                                "lm_head.layer_norm.bias", bias});
  if (!missing.empty()) fail_value(w.file_name() + ": missing masked-LM head tensor '" + missing + "'");
  Linear dense = Linear::load(w, "lm_head.dense", H, H, true);
  LayerNorm norm = LayerNorm::load(w, "lm_head.layer_norm", H, c.norm_eps);
  std::vector<float> b = load_tensor(w, bias, {V});
  Decoder d = load_decoder(s, "lm_head.decoder.weight", V, H);
  return std::make_unique<MaskedLmHead>(std::move(dense), Activation::Gelu, std::move(norm), std::move(d.own), d.shared,
                                        std::move(b));
}

}  // namespace

std::unique_ptr<TaskHead> make_masked_lm(const HeadSource& s) {
  const ModelConfig& c = s.config;
  const Weights& w = s.weights;
  const std::string& t = c.model_type;
  if (t == "modernbert") return make_modernbert_masked_lm(s);
  if (t == "mpnet" || t == "roberta" || t == "xlm-roberta" || t == "camembert") return make_mpnet_masked_lm(s);
  if (t != "bert" && t != "roformer" && t != "deberta-v2" && t != "distilbert") return nullptr;
  const bool distil = t == "distilbert";
  const int H = c.hidden_size, V = c.vocab_size;
  const int E = (t == "roformer" || t == "deberta-v2") && c.embedding_size > 0 ? c.embedding_size : H;
  const std::string dense = distil ? "vocab_transform" : "cls.predictions.transform.dense";
  const std::string norm = distil ? "vocab_layer_norm" : "cls.predictions.transform.LayerNorm";
  const std::string decoder = distil ? "vocab_projector" : "cls.predictions.decoder";
  std::string bias = distil ? "vocab_projector.bias" : "cls.predictions.bias";
  if (!distil && !w.contains(bias) && w.contains("cls.predictions.decoder.bias")) bias = "cls.predictions.decoder.bias";
  const std::string missing = first_missing(w, {dense + ".weight", dense + ".bias", norm + ".weight", norm + ".bias", bias});
  if (!missing.empty()) fail_value(w.file_name() + ": missing masked-LM head tensor '" + missing + "'");

  Linear transform = Linear::load(w, dense, H, E, true);
  LayerNorm layer_norm = LayerNorm::load(w, norm, E, distil ? 1e-12f : c.norm_eps);
  std::vector<float> b = load_tensor(w, bias, {V});
  Decoder d = load_decoder(s, decoder + ".weight", V, E);
  return std::make_unique<MaskedLmHead>(std::move(transform), parse_activation(c.hidden_act), std::move(layer_norm),
                                        std::move(d.own), d.shared, std::move(b));
}

}  // namespace relpos::models::heads
