// DistilBERT encoder (DistilBertModel, modeling_distilbert.py).
//   embeddings  e = LayerNorm(word[id] + PE[l])   PE: embeddings.position_embeddings.weight, which with
//               sinusoidal_pos_embds is the Interleaved sinusoid PE[p, 2i] = sin(p / 10000^(2i/d)),
//               PE[p, 2i+1] = cos(…) (recomputed with relpos::sinusoid_table if the checkpoint omits it)
//   layer       post-LN: a = sa_layer_norm(h + out_lin · MHA(q_lin h, k_lin h, v_lin h));
//               h' = output_layer_norm(a + lin2 · act(lin1 a)), LayerNorm eps 1e-12
//   attention   scheme none (q/√d · k, positions live in the embeddings)
// Shapes: H = dim, heads = n_heads, FF hidden = hidden_dim; seq ≤ max_position_embeddings.
#include "models/layers/embedding_table.h"
#include "models/layers/layers.h"
#include "models/model_base.h"
#include "relpos/positions.h"
#include "relpos/schemes.h"

namespace relpos::models {
namespace {

class DistilBert final : public ModelBase {
 public:
  DistilBert(const ModelConfig& c, const Weights& w) : ModelBase(c) {
    const std::string p = detect_prefix(w, "embeddings.word_embeddings.weight", {"distilbert."});
    const int H = c.hidden_size, P = c.max_position_embeddings;
    word_ = EmbeddingTable::load(w, p + "embeddings.word_embeddings.weight", c.vocab_size, H);
    if (c.sinusoidal_pos_embds && !w.contains(p + "embeddings.position_embeddings.weight"))
      position_ = sinusoid_table(P, H, SinusoidLayout::Interleaved);
    else
      position_ = load_tensor(w, p + "embeddings.position_embeddings.weight", {P, H});
    emb_ln_ = LayerNorm::load(w, p + "embeddings.LayerNorm", H, c.norm_eps);
    const PostLnNames names{"attention.q_lin", "attention.k_lin", "attention.v_lin", "attention.out_lin",
                            "sa_layer_norm",   "ffn.lin1",        "ffn.lin2",        "output_layer_norm"};
    const Activation act = parse_activation(c.hidden_act);
    for (int i = 0; i < c.num_layers; ++i)
      layers_.push_back(PostLnLayer::load(w, p + "transformer.layer." + std::to_string(i) + ".", names, H, c.num_heads,
                                          c.intermediate_size, act, c.norm_eps));
    scheme_ = make_scheme(NoneParams{});
  }

 private:
  int max_sequence() const override { return cfg_.max_position_embeddings; }
  const EmbeddingTable* word_embeddings() const override { return &word_; }

  void run(const Run& r) override {
    const int H = cfg_.hidden_size, rows = r.rows();
    float* h = grow(h_, static_cast<std::size_t>(rows) * H);
    gather_rows(rows, r.ids, word_, cfg_.vocab_size, H, h);
    add_position_rows(rows, r.seq, position_, H, h);
    emb_ln_.forward(rows, h, h);
    r.record_hidden(h, H);
    for (const auto& layer : layers_) {
      layer.forward(r.batch, r.seq, h, r.key_mask, *scheme_, r.attention_probs(cfg_.num_heads), scratch_);
      r.record_hidden(h, H);
    }
    r.set_last_hidden(h, H);
  }

  EmbeddingTable word_;
  std::vector<float> position_;
  LayerNorm emb_ln_;
  std::vector<PostLnLayer> layers_;
  std::unique_ptr<Scheme> scheme_;
  std::vector<float> h_;
  PostLnScratch scratch_;
};

}  // namespace

std::unique_ptr<Model> make_distilbert(const ModelConfig& c, const Weights& w) {
  return std::make_unique<DistilBert>(c, w);
}

}  // namespace relpos::models
