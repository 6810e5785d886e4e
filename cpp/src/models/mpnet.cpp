// MPNet encoder (MPNetModel, transformers 4.34 modeling_mpnet.py).
//   positions   pos[b, l] = 1 + #{ l' ≤ l : id[b, l'] ≠ 1 } for a real token, 1 for a pad token
//               (padded_position_ids with padding_idx 1, hard-coded in MPNetEmbeddings; the attention
//               mask is not consulted). A row of n tokens reads rows 2 … n + 1 of the position table,
//               so seq ≤ max_position_embeddings − 2 (max_sequence()).
//   embeddings  e = LayerNorm(word[id] + position[pos])                      (no token types)
//   bias        one T5-style table B = encoder.relative_attention_bias [rows, heads], shared by every
//               layer: T5Params{num_buckets 32, max_distance 128, bidirectional, scale_content},
//               bucket(j − i) always with MPNetEncoder.relative_position_bucket's defaults 32 / 128;
//               config.relative_attention_num_buckets only sets `rows` (≥ 32, as HF needs).
//   layer       post-LN encoder layer (layers/post_ln_layer.cpp), activation = hidden_act, with
//               logit(i, j) = q_i·k_j / sqrt(head_dim) + B[bucket(j − i), h] + mask
//   pooler      pooled[b] = tanh(W_p · h[b, 0] + b_p)        (when pooler.dense is in the checkpoint)
// Shapes: H = hidden_size, heads · head_dim = H. Task checkpoints prefix the model's tensors with "mpnet.".

#include "models/layers/embedding_table.h"
#include "models/layers/layers.h"
#include "models/model_base.h"
#include "relpos/error.h"
#include "relpos/positions.h"
#include "relpos/schemes.h"

namespace relpos::models {
namespace {

constexpr int kPaddingIdx = 1;       // MPNetEmbeddings.padding_idx (not read from config.json)
constexpr int kBuckets = 32;         // MPNetEncoder.relative_position_bucket defaults, whatever the config says
constexpr int kMaxDistance = 128;

class Mpnet final : public ModelBase {
 public:
  Mpnet(const ModelConfig& c, const Weights& w) : ModelBase(c) {
    const std::string p = detect_prefix(w, "embeddings.word_embeddings.weight", {"mpnet."});
    const int H = c.hidden_size;
    if (c.max_position_embeddings < kPaddingIdx + 2)
      fail_value("mpnet: max_position_embeddings is " + std::to_string(c.max_position_embeddings) +
                 ", expected ≥ 3 (positions of real tokens start at padding_idx + 1 = 2)");
    if (c.relative_attention_num_buckets < kBuckets)
      fail_value("mpnet: relative_attention_num_buckets is " + std::to_string(c.relative_attention_num_buckets) +
                 ", expected ≥ 32: MPNet always buckets relative positions into 32 buckets (max_distance 128) and "
                 "reads rows 0 … 31 of encoder.relative_attention_bias (Transformers fails below 32)");
    word_ = EmbeddingTable::load(w, p + "embeddings.word_embeddings.weight", c.vocab_size, H);
    position_ = EmbeddingTable::load(w, p + "embeddings.position_embeddings.weight", c.max_position_embeddings, H);
    emb_ln_ = LayerNorm::load(w, p + "embeddings.LayerNorm", H, c.norm_eps);
    const Activation act = parse_activation(c.hidden_act);
    const PostLnNames names{"attention.attn.q", "attention.attn.k", "attention.attn.v", "attention.attn.o",
                            "attention.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm"};
    for (int i = 0; i < c.num_layers; ++i)
      layers_.push_back(PostLnLayer::load(w, p + "encoder.layer." + std::to_string(i) + ".", names, H, c.num_heads,
                                          c.intermediate_size, act, c.norm_eps));
    bias_ = load_tensor(w, p + "encoder.relative_attention_bias.weight", {c.relative_attention_num_buckets, c.num_heads});
    T5Params params;
    params.num_buckets = kBuckets;
    params.max_distance = kMaxDistance;
    params.bidirectional = true;
    params.bias_table = bias_.data();
    params.table_rows = c.relative_attention_num_buckets;
    params.scale_content = true;
    scheme_ = make_scheme(params);
    has_pooler_ = w.contains(p + "pooler.dense.weight");
    if (has_pooler_) pooler_ = FirstTokenPooler::load(w, p + "pooler.dense", H);
  }

 private:
  int max_sequence() const override { return cfg_.max_position_embeddings - 2; }
  const EmbeddingTable* word_embeddings() const override { return &word_; }

  void run(const Run& r) override {
    const int H = cfg_.hidden_size, rows = r.rows();
    float* h = grow(h_, static_cast<std::size_t>(rows) * H);
    {
    RELPOS_PROFILE_SCOPE(Embeddings);  // bench-only (profile/profile.h)
    gather_rows(rows, r.ids, word_, cfg_.vocab_size, H, h);
    add_padded_position_rows(r.batch, r.seq, r.ids, kPaddingIdx, position_, h);  // pos ≤ seq + 1
    emb_ln_.forward(rows, h, h);
    }
    r.record_hidden(h, H);
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      RELPOS_PROFILE_LAYER(i);
      layers_[i].forward(r.batch, r.seq, h, r.key_mask, *scheme_, r.attention_probs(cfg_.num_heads), scratch_);
      r.record_hidden(h, H);
    }
    RELPOS_PROFILE_LAYER(-1);
    r.set_last_hidden(h, H);
    if (has_pooler_) {
      RELPOS_PROFILE_SCOPE(Pooling);
      r.set_pooler_output(pooler_.forward(r.batch, r.seq, h, pool_in_), H);
    }
  }

  bool has_pooler_ = false;
  EmbeddingTable word_, position_;
  LayerNorm emb_ln_;
  std::vector<PostLnLayer> layers_;
  std::vector<float> bias_;  // [rows, heads], owned: the scheme points into it
  std::unique_ptr<Scheme> scheme_;
  FirstTokenPooler pooler_;
  std::vector<float> h_, pool_in_;
  PostLnScratch scratch_;
};

}  // namespace

std::unique_ptr<Model> make_mpnet(const ModelConfig& c, const Weights& w) { return std::make_unique<Mpnet>(c, w); }

}  // namespace relpos::models
