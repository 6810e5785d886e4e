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

std::unique_ptr<Model> make_jina_bert_v2(const ModelConfig& c, const Weights& w) {
  return std::make_unique<JinaBertV2>(c, w);
}

}  // namespace relpos::models
