// JinaBERT v2 encoder (jina-embeddings-v2; the authors' remote code jinaai/jina-bert-implementation,
// modeling_bert.py JinaBertModel; llama.cpp's `jina-bert-v2`). config.json: model_type "bert" with
// position_embedding_type "alibi", or model_type "jina_bert_v2" (io/model_config.cpp).
//   embeddings  e = LayerNorm(word[id] + token_type[tt])                    no position table
//   layer       post-LN encoder layer (layers/post_ln_layer.cpp):
//                 a  = attention.output.LayerNorm(h + W_o · MHA_alibi(W_q h, W_k h, W_v h))
//                 h' = mlp.layernorm(a + mlp.wo · (act(u) ⊙ g)),  [u | g] = mlp.gated_layers · a  (no bias)
//               act = GELU (exact erf: nn.GELU()) for feed_forward_type "geglu", ReLU for "reglu".
//   attention   scores q·k/√d − m_h·|i − j| (AlibiParams{Bloom slopes, symmetric}): m_h = 2^(−8(h+1)/n) for a
//               power-of-two head count n, else the first n' = 2^⌊log2 n⌋ of those for n' and the odd powers
//               of 2^(−4/n') for the rest (JinaBertEncoder._get_alibi_head_slopes = llama.cpp's
//               ggml_soft_max_ext slopes with max bias 8). Bidirectional; padded keys masked.
//   pooler      pooled[b] = tanh(W_p · h[b, 0] + b_p) when pooler.dense is in the checkpoint
// Shapes: H = hidden_size, heads · head_dim = H, gated_layers [2I, H], wo [H, I] (I = intermediate_size).
// Sequence length: no limit (ALiBi has no table); the models were trained to max_position_embeddings
// (8192), which web/pipelines use as the default maxLength.
// Not supported (Error): feed_forward_type "original" (model_config.cpp), the jina-bert-v2-qk-post-norm variant
// (jina-embeddings-v2-base-code: mlp.up_gated_layer, per-layer layer_norm_1/2, q/k LayerNorm).
// llama.cpp computes GELU as the tanh approximation through an fp16 table: its outputs differ from this
// family's by ~1.5e-3 on the final hidden state (tests/cpp/jina_bert_v2_matches_llamacpp_test.cpp).
#include "models/jina_bert_v2.h"

#include <cstdio>

#include "models/layers/embedding_table.h"
#include "models/layers/layers.h"
#include "models/model_base.h"
#include "relpos/error.h"
#include "relpos/schemes.h"

namespace relpos::models {
namespace {

class JinaBertV2 final : public ModelBase {
 public:
  JinaBertV2(const ModelConfig& c, const Weights& w) : ModelBase(c) {
    const std::string p = detect_prefix(w, "embeddings.word_embeddings.weight", {"bert."});
    const int H = c.hidden_size, I = c.intermediate_size;
    if (I < 1) fail_range("jina_bert_v2: intermediate_size must be ≥ 1, got " + std::to_string(I));
    if (w.contains(p + "encoder.layer.0.mlp.up_gated_layer.weight"))
      fail_value("jina_bert_v2: this checkpoint is the jina-bert-v2-qk-post-norm variant (mlp.up_gated_layer, "
                 "layer_norm_1/2; jina-embeddings-v2-base-code), which relpos does not implement; supported: the "
                 "jina-bert-implementation layout (mlp.gated_layers, mlp.wo, mlp.layernorm)");
    word_ = EmbeddingTable::load(w, p + "embeddings.word_embeddings.weight", c.vocab_size, H);
    if (c.type_vocab_size > 0) token_type_ = load_tensor(w, p + "embeddings.token_type_embeddings.weight", {c.type_vocab_size, H});
    emb_ln_ = LayerNorm::load(w, p + "embeddings.LayerNorm", H, c.norm_eps);
    const Activation act = c.feed_forward_type == "reglu" ? Activation::Relu : Activation::Gelu;
    const PostLnNames names{"attention.self.query", "attention.self.key", "attention.self.value",
                            "attention.output.dense", "attention.output.LayerNorm", "", "", ""};
    for (int i = 0; i < c.num_layers; ++i) {
      const std::string lp = p + "encoder.layer." + std::to_string(i) + ".";
      PostLnLayer l = PostLnLayer::load_attention(w, lp, names, H, c.num_heads, c.norm_eps);
      l.ff.fused = true;
      l.ff.act = act;
      l.ff.w1 = Linear::load(w, lp + "mlp.gated_layers", H, 2 * I, false);
      l.ff.w2 = Linear::load(w, lp + "mlp.wo", I, H, true);
      l.ln_ff = LayerNorm::load(w, lp + "mlp.layernorm", H, c.norm_eps);
      layers_.push_back(std::move(l));
    }
    AlibiParams alibi;
    alibi.slopes = AlibiSlopes::Bloom;
    alibi.symmetric = true;
    scheme_ = make_scheme(alibi);
    has_pooler_ = w.contains(p + "pooler.dense.weight");
    if (has_pooler_) pooler_ = FirstTokenPooler::load(w, p + "pooler.dense", H);
  }

 private:
  const EmbeddingTable* word_embeddings() const override { return &word_; }

  void run(const Run& r) override {
    const int H = cfg_.hidden_size, rows = r.rows();
    float* h = grow(h_, static_cast<std::size_t>(rows) * H);
    gather_rows(rows, r.ids, word_, cfg_.vocab_size, H, h);
    if (!token_type_.empty()) add_token_type_rows(rows, r.token_types, token_type_, H, h);
    emb_ln_.forward(rows, h, h);
    r.record_hidden(h, H);
    for (const PostLnLayer& l : layers_) {
      l.forward(r.batch, r.seq, h, r.key_mask, *scheme_, r.attention_probs(cfg_.num_heads), scratch_);
      r.record_hidden(h, H);
    }
    r.set_last_hidden(h, H);
    if (has_pooler_) r.set_pooler_output(pooler_.forward(r.batch, r.seq, h, pool_in_), H);
  }

  bool has_pooler_ = false;
  EmbeddingTable word_;
  std::vector<float> token_type_;
  LayerNorm emb_ln_;
  std::vector<PostLnLayer> layers_;
  std::unique_ptr<Scheme> scheme_;
  FirstTokenPooler pooler_;
  std::vector<float> h_, pool_in_;
  PostLnScratch scratch_;
};

}  // namespace

std::string jina_bert_v2_config_json(const JinaBertV2GgufShape& s) {
  char eps[32];
  std::snprintf(eps, sizeof eps, "%.9g", s.norm_eps);
  return std::string("{\"model_type\": \"jina_bert_v2\", \"feed_forward_type\": \"geglu\", \"vocab_size\": ") +
         std::to_string(s.vocab_size) + ", \"hidden_size\": " + std::to_string(s.hidden_size) +
         ", \"num_hidden_layers\": " + std::to_string(s.num_layers) + ", \"num_attention_heads\": " +
         std::to_string(s.num_heads) + ", \"intermediate_size\": " + std::to_string(s.intermediate_size) +
         ", \"type_vocab_size\": " + std::to_string(s.type_vocab_size) + ", \"max_position_embeddings\": " +
         std::to_string(s.context_length) + ", \"layer_norm_eps\": " + eps + "}";
}

std::string jina_bert_v2_tensor_name(const std::string& g) {
  // plain tables, not std::map: this lands in the inference module, whose size is budgeted
  static const char* const top[][2] = {
      {"token_embd.weight", "embeddings.word_embeddings.weight"},
      {"token_types.weight", "embeddings.token_type_embeddings.weight"},
      {"token_embd_norm.weight", "embeddings.LayerNorm.weight"},
      {"token_embd_norm.bias", "embeddings.LayerNorm.bias"}};
  static const char* const block[][2] = {
      {"attn_q.weight", "attention.self.query.weight"},      {"attn_q.bias", "attention.self.query.bias"},
      {"attn_k.weight", "attention.self.key.weight"},        {"attn_k.bias", "attention.self.key.bias"},
      {"attn_v.weight", "attention.self.value.weight"},      {"attn_v.bias", "attention.self.value.bias"},
      {"attn_output.weight", "attention.output.dense.weight"}, {"attn_output.bias", "attention.output.dense.bias"},
      {"attn_output_norm.weight", "attention.output.LayerNorm.weight"},
      {"attn_output_norm.bias", "attention.output.LayerNorm.bias"},
      {"ffn_up.weight", "mlp.gated_layers.weight"},          {"ffn_down.weight", "mlp.wo.weight"},
      {"ffn_down.bias", "mlp.wo.bias"},                      {"layer_output_norm.weight", "mlp.layernorm.weight"},
      {"layer_output_norm.bias", "mlp.layernorm.bias"}};
  for (const auto& [from, to] : top)
    if (g == from) return to;
  // blk.<i>.<rest>
  if (g.rfind("blk.", 0) != 0) return "";
  const std::size_t dot = g.find('.', 4);
  if (dot == std::string::npos || dot == 4) return "";
  const std::string index = g.substr(4, dot - 4);
  for (char ch : index)
    if (ch < '0' || ch > '9') return "";
  const std::string rest = g.substr(dot + 1);
  for (const auto& [from, to] : block)
    if (rest == from) return "encoder.layer." + index + "." + to;
  return "";
}

std::unique_ptr<Model> make_jina_bert_v2(const ModelConfig& c, const Weights& w) {
  return std::make_unique<JinaBertV2>(c, w);
}

}  // namespace relpos::models
