// RoFormer encoder (RoFormerModel, modeling_roformer.py).
//   embeddings  e = LayerNorm(word[id] + token_type[tt])   — no absolute positions
//               (embedding_size ≠ hidden_size adds embeddings_project: e ← W e + b)
//   layer       post-LN encoder layer (layers/post_ln_layer.cpp), activation = hidden_act
//   attention   RopeParams{Interleaved, θ = 10000, rotary_dim = head_dim}: q and k of position p
//               rotated pairwise (2i, 2i+1) by p·10000^(−2i/head_dim) — HF's
//               apply_rotary_position_embeddings with encoder.embed_positions (rotary_value = false).
// Shapes: H = hidden_size, heads · head_dim = H; seq ≤ max_position_embeddings.
#include "models/layers/embedding_table.h"
#include "models/layers/layers.h"
#include "models/model_base.h"
#include "relpos/error.h"
#include "relpos/schemes.h"

namespace relpos::models {
namespace {

class RoFormer final : public ModelBase {
 public:
  RoFormer(const ModelConfig& c, const Weights& w) : ModelBase(c) {
    if (c.rotary_value) fail_value("roformer: rotary_value = true is not supported (values are not rotated)");
    const std::string p = detect_prefix(w, "embeddings.word_embeddings.weight", {"roformer."});
    const int H = c.hidden_size, E = c.embedding_size;
    word_ = EmbeddingTable::load(w, p + "embeddings.word_embeddings.weight", c.vocab_size, E);
    if (c.type_vocab_size > 0) token_type_ = load_tensor(w, p + "embeddings.token_type_embeddings.weight", {c.type_vocab_size, E});
    emb_ln_ = LayerNorm::load(w, p + "embeddings.LayerNorm", E, c.norm_eps);
    if (E != H) project_ = Linear::load(w, p + "embeddings_project", E, H, true);
    const PostLnNames names{"attention.self.query", "attention.self.key", "attention.self.value",
                            "attention.output.dense", "attention.output.LayerNorm", "intermediate.dense",
                            "output.dense", "output.LayerNorm"};
    const Activation act = parse_activation(c.hidden_act);
    for (int i = 0; i < c.num_layers; ++i)
      layers_.push_back(PostLnLayer::load(w, p + "encoder.layer." + std::to_string(i) + ".", names, H, c.num_heads,
                                          c.intermediate_size, act, c.norm_eps));
    RopeParams rope;
    rope.layout = RopeLayout::Interleaved;
    rope.theta = 10000.0f;
    rope.rotary_dim = 0;
    scheme_ = make_scheme(rope);
  }

 private:
  int max_sequence() const override { return cfg_.max_position_embeddings; }
  const EmbeddingTable* word_embeddings() const override { return &word_; }

  void run(const Run& r) override {
    const int H = cfg_.hidden_size, E = cfg_.embedding_size, rows = r.rows();
    float* e = grow(e_, static_cast<std::size_t>(rows) * E);
    gather_rows(rows, r.ids, word_, cfg_.vocab_size, E, e);
    if (!token_type_.empty()) add_token_type_rows(rows, r.token_types, token_type_, E, e);
    emb_ln_.forward(rows, e, e);
    float* h = e;
    if (E != H) {
      h = grow(h_, static_cast<std::size_t>(rows) * H);
      project_.forward(rows, e, h);
    }
    r.record_hidden(h, H);
    for (const auto& layer : layers_) {
      layer.forward(r.batch, r.seq, h, r.key_mask, *scheme_, r.attention_probs(cfg_.num_heads), scratch_);
      r.record_hidden(h, H);
    }
    r.set_last_hidden(h, H);
  }

  EmbeddingTable word_;
  std::vector<float> token_type_;
  LayerNorm emb_ln_;
  Linear project_;
  std::vector<PostLnLayer> layers_;
  std::unique_ptr<Scheme> scheme_;
  std::vector<float> e_, h_;
  PostLnScratch scratch_;
};

}  // namespace

std::unique_ptr<Model> make_roformer(const ModelConfig& c, const Weights& w) { return std::make_unique<RoFormer>(c, w); }

}  // namespace relpos::models
