// BERT encoder (BertModel, transformers 4.34 modeling_bert.py) with its three position schemes.
//   embeddings  e = LayerNorm(word[id] + token_type[tt] + pos[l])          (pos only when "absolute")
//   layer       post-LN encoder layer (layers/post_ln_layer.cpp), activation = hidden_act
//   attention   absolute: scheme none — positions are already in the embeddings;
//               relative_key / relative_key_query: BertRelativeParams with the layer's own
//               distance_embedding [2M − 1, head_dim] (row i − j + M − 1, M = max_position_embeddings),
//               terms added before the 1/sqrt(head_dim) scaling.
//   pooler      pooled[b] = tanh(W_p · h[b, 0] + b_p)
// Shapes: H = hidden_size, heads · head_dim = H; seq ≤ max_position_embeddings.
//
// The same description runs the families whose embeddings differ only in these two rules:
//   roberta, xlm-roberta, camembert (RobertaEmbeddings): pos = padded_position_ids(ids, padding_idx =
//               pad_token_id), so a row of n tokens reads rows pad + 1 … pad + n and a pad id (also one inside
//               the text, as Hugging Face does) reads row pad; seq ≤ max_position_embeddings − pad − 1.
//               Task checkpoints prefix the encoder with "roberta.".
//   electra     (ElectraEmbeddings): e = LayerNorm_E(word + token_type + pos) in embedding_size E, then
//               h = embeddings_project(e) ([H, E] + bias) when E ≠ H. Prefix "electra.".

#include <algorithm>

#include "models/layers/embedding_table.h"
#include "models/layers/layers.h"
#include "models/model_base.h"
#include "relpos/error.h"
#include "relpos/schemes.h"

namespace relpos::models {
namespace {

class Bert final : public ModelBase {
 public:
  Bert(const ModelConfig& c, const Weights& w) : ModelBase(c) {
    const std::string p = detect_prefix(w, "embeddings.word_embeddings.weight", {"bert.", "roberta.", "electra."});
    const int H = c.hidden_size;
    E_ = c.model_type == "electra" ? c.embedding_size : H;
    const std::string& type = c.position_embedding_type;
    if (type != "absolute" && type != "relative_key" && type != "relative_key_query")
      fail_value("bert: unsupported position_embedding_type '" + type +
                 "' (supported: absolute, relative_key, relative_key_query)");
    relative_ = type != "absolute";
    word_ = EmbeddingTable::load(w, p + "embeddings.word_embeddings.weight", c.vocab_size, E_);
    if (!relative_) position_ = EmbeddingTable::load(w, p + "embeddings.position_embeddings.weight", c.max_position_embeddings, E_);
    if (c.type_vocab_size > 0) token_type_ = load_tensor(w, p + "embeddings.token_type_embeddings.weight", {c.type_vocab_size, E_});
    emb_ln_ = LayerNorm::load(w, p + "embeddings.LayerNorm", E_, c.norm_eps);
    if (E_ != H) project_ = Linear::load(w, p + "embeddings_project", E_, H, true);
    const Activation act = parse_activation(c.hidden_act);
    const PostLnNames names{"attention.self.query", "attention.self.key", "attention.self.value",
                            "attention.output.dense", "attention.output.LayerNorm", "intermediate.dense",
                            "output.dense", "output.LayerNorm"};
    const int M = c.max_position_embeddings;
    for (int i = 0; i < c.num_layers; ++i) {
      const std::string lp = p + "encoder.layer." + std::to_string(i) + ".";
      layers_.push_back(PostLnLayer::load(w, lp, names, H, c.num_heads, c.intermediate_size, act, c.norm_eps));
      if (relative_) {
        distance_.push_back(load_tensor(w, lp + "attention.self.distance_embedding.weight", {2 * M - 1, c.head_dim}));
        BertRelativeParams params;
        params.max_positions = M;
        params.key_query = type == "relative_key_query";
        params.table = distance_.back().data();
        schemes_.push_back(make_scheme(params));
      }
    }
    if (!relative_) schemes_.push_back(make_scheme(NoneParams{}));
    if (w.contains(p + "pooler.dense.weight")) pooler_ = FirstTokenPooler::load(w, p + "pooler.dense", H);
    has_pooler_ = w.contains(p + "pooler.dense.weight");
  }

 private:
  int max_sequence() const override {
    if (cfg_.positions_from_ids && !relative_) return std::max(1, cfg_.max_position_embeddings - cfg_.pad_token_id - 1);
    return cfg_.max_position_embeddings;
  }
  const EmbeddingTable* word_embeddings() const override { return &word_; }

  void run(const Run& r) override {
    const int H = cfg_.hidden_size, rows = r.rows();
    float* h = grow(h_, static_cast<std::size_t>(rows) * H);
    {
    RELPOS_PROFILE_SCOPE(Embeddings);  // bench-only (profile/profile.h)
    float* e = E_ == H ? h : grow(e_, static_cast<std::size_t>(rows) * E_);
    gather_rows(rows, r.ids, word_, cfg_.vocab_size, E_, e);
    if (!token_type_.empty()) add_token_type_rows(rows, r.token_types, token_type_, E_, e);
    if (!relative_ && cfg_.positions_from_ids)
      add_padded_position_rows(r.batch, r.seq, r.ids, cfg_.pad_token_id, position_, e);
    else if (!relative_)
      add_position_rows(rows, r.seq, position_, e);
    emb_ln_.forward(rows, e, e);
    if (E_ != H) project_.forward(rows, e, h);
    }
    r.record_hidden(h, H);
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      RELPOS_PROFILE_LAYER(i);
      const Scheme& scheme = *schemes_[relative_ ? i : 0];
      layers_[i].forward(r.batch, r.seq, h, r.key_mask, scheme, r.attention_probs(cfg_.num_heads), scratch_);
      r.record_hidden(h, H);
    }
    RELPOS_PROFILE_LAYER(-1);
    r.set_last_hidden(h, H);
    if (has_pooler_) {
      RELPOS_PROFILE_SCOPE(Pooling);
      r.set_pooler_output(pooler_.forward(r.batch, r.seq, h, pool_in_), H);
    }
  }

  bool relative_ = false, has_pooler_ = false;
  int E_ = 0;  // embedding width (ELECTRA's embedding_size; H otherwise)
  EmbeddingTable word_, position_;
  Linear project_;  // ELECTRA embeddings_project when E ≠ H
  std::vector<float> token_type_;
  LayerNorm emb_ln_;
  std::vector<PostLnLayer> layers_;
  std::vector<std::vector<float>> distance_;  // per layer, owned: the schemes point into them
  std::vector<std::unique_ptr<Scheme>> schemes_;
  FirstTokenPooler pooler_;
  std::vector<float> h_, e_, pool_in_;
  PostLnScratch scratch_;
};

}  // namespace

std::unique_ptr<Model> make_bert(const ModelConfig& c, const Weights& w) { return std::make_unique<Bert>(c, w); }

}  // namespace relpos::models
