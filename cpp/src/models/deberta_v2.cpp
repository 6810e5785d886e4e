// DeBERTa-v2 / v3 encoder (DebertaV2Model, modeling_deberta_v2.py).
//   embeddings  e = LayerNorm(embed_proj(word[id] (+ pos[l] if position_biased_input) (+ token_type[tt])))
//               · mask[b, l]                       (embed_proj only when embedding_size ≠ hidden_size)
//   relative    R = rel_embeddings[0 : 2·span]  (LayerNorm'd by encoder.LayerNorm when norm_rel_ebd has
//               "layer_norm"), span = position_buckets > 0 ? position_buckets : max_relative_positions
//               (< 1 → max_position_embeddings). Per layer, once at load:
//               Kr = key_proj(R) (share_att_key) or pos_key_proj(R)   → [heads, 2·span, head_dim]
//               Qr = query_proj(R) or pos_query_proj(R)                → [heads, 2·span, head_dim]
//               On a WebGPU fp32/fp16 load (the projections' weights went straight to the GPU) the plan describes
//               Kr and Qr as derived from R and the projection (plan.h Recorder::derive) and the executor computes
//               them on the GPU; the CPU forward of such a model is an Error.
//   layer       post-LN encoder layer (layers/post_ln_layer.cpp) whose attention is DebertaParams:
//               logit = (q·k + c2p + p2c) / sqrt(head_dim · (1 + #terms)),
//               c2p = q_i·Kr[clamp(r(i,j) + span)], p2c = k_j·Qr[clamp(−r(j,i) + span)], r = bucket(i − j).
// The encoder's conv layer (conv_kernel_size > 0) is not supported.
#include <cstring>
#include <memory>

#include "models/layers/embedding_table.h"
#include "models/layers/layers.h"
#include "models/layers/load_context.h"
#include "models/model_base.h"
#include "relpos/error.h"
#include "relpos/schemes.h"

namespace relpos::models {
namespace {

class DebertaV2 final : public ModelBase {
 public:
  DebertaV2(const ModelConfig& c, const Weights& w) : ModelBase(c) {
    const std::string p = detect_prefix(w, "embeddings.word_embeddings.weight", {"deberta."});
    const int H = c.hidden_size, E = c.embedding_size, heads = c.num_heads, d = c.head_dim;
    if (w.contains(p + "encoder.conv.conv.weight")) fail_value("deberta-v2: the convolution layer (conv_kernel_size > 0) is not supported");
    word_ = EmbeddingTable::load(w, p + "embeddings.word_embeddings.weight", c.vocab_size, E);
    if (c.position_biased_input)
      position_ = load_tensor(w, p + "embeddings.position_embeddings.weight", {c.max_position_embeddings, E});
    if (c.type_vocab_size > 0) token_type_ = load_tensor(w, p + "embeddings.token_type_embeddings.weight", {c.type_vocab_size, E});
    if (E != H) embed_proj_ = Linear::load(w, p + "embeddings.embed_proj", E, H, false);
    emb_ln_ = LayerNorm::load(w, p + "embeddings.LayerNorm", H, c.norm_eps);

    const PostLnNames names{"attention.self.query_proj", "attention.self.key_proj", "attention.self.value_proj",
                            "attention.output.dense",    "attention.output.LayerNorm", "intermediate.dense",
                            "output.dense",              "output.LayerNorm"};
    const Activation act = parse_activation(c.hidden_act);
    for (int i = 0; i < c.num_layers; ++i)
      layers_.push_back(PostLnLayer::load(w, p + "encoder.layer." + std::to_string(i) + ".", names, H, heads,
                                          c.intermediate_size, act, c.norm_eps));

    if (!c.relative_attention) {
      schemes_.push_back(make_scheme(NoneParams{}));
      return;
    }
    bool c2p = false, p2c = false;
    for (const auto& t : c.pos_att_type) (t == "c2p" ? c2p : p2c) = true;
    const int span = c.position_buckets > 0 ? c.position_buckets : c.max_relative_positions;
    const int rows = 2 * span;
    auto rel = load_tensor(w, p + "encoder.rel_embeddings.weight", {rows, H});
    if (c.norm_rel_ebd.find("layer_norm") != std::string::npos)
      LayerNorm::load(w, p + "encoder.LayerNorm", H, c.norm_eps).forward(rows, rel.data(), rel.data());

    // Kr or Qr through `proj`, laid out per head into `out` ([heads, 2·span, head_dim]); or, when proj's weights went
    // straight to the GPU (a WebGPU fp32/fp16 load, streamed_checkpoint.h), left to the plan's executor: `key` then
    // stands for the table (run() derives it from R and proj), and nothing is projected or held here.
    std::vector<float> tokens;
    auto table = [&](const Linear& proj, std::vector<float>& out, const float* key) -> const float* {
      if (proj.gpu_buffer() >= 0) {
        derived_.push_back({key, &proj});
        return key;
      }
      tokens.resize(static_cast<std::size_t>(rows) * H);
      proj.forward(rows, rel.data(), tokens.data());
      out.resize(tokens.size());
      for (int h = 0; h < heads; ++h)
        for (int r = 0; r < rows; ++r)
          std::memcpy(out.data() + (static_cast<std::size_t>(h) * rows + r) * d,
                      tokens.data() + static_cast<std::size_t>(r) * H + static_cast<std::size_t>(h) * d, sizeof(float) * d);
      return out.data();
    };
    // share_att_key false: pos_key_proj / pos_query_proj, kept only when the table is derived from them
    auto own_table = [&](const std::string& name, std::vector<float>& out, const float* key) -> const float* {
      Linear proj = Linear::load(w, name, H, H, true);
      if (proj.gpu_buffer() < 0) return table(proj, out, key);
      pos_proj_.push_back(std::make_unique<Linear>(std::move(proj)));
      return table(*pos_proj_.back(), out, key);
    };
    keys_.assign(2 * static_cast<std::size_t>(c.num_layers), 0.0f);  // the derived tables' keys: never read
    pos_key_.resize(c.num_layers);
    pos_query_.resize(c.num_layers);
    for (int i = 0; i < c.num_layers; ++i) {
      const std::string lp = p + "encoder.layer." + std::to_string(i) + ".attention.self.";
      DebertaParams params;
      params.c2p = c2p;
      params.p2c = p2c;
      params.position_buckets = c.position_buckets;
      params.max_relative_positions = c.max_relative_positions;
      const float* kkey = &keys_[2 * i];
      const float* qkey = &keys_[2 * i + 1];
      if (c2p) params.pos_key = c.share_att_key ? table(layers_[i].k, pos_key_[i], kkey) : own_table(lp + "pos_key_proj", pos_key_[i], kkey);
      if (p2c) params.pos_query = c.share_att_key ? table(layers_[i].q, pos_query_[i], qkey) : own_table(lp + "pos_query_proj", pos_query_[i], qkey);
      schemes_.push_back(make_scheme(params));
    }
    // Held: the projected tables (float32 in every dtype), or R once for the tables derived on the GPU.
    std::size_t held = 0;
    for (const auto& t : pos_key_) held += t.size() * sizeof(float);
    for (const auto& t : pos_query_) held += t.size() * sizeof(float);
    const std::size_t read = rel.size();
    if (!derived_.empty()) {
      held += read * sizeof(float);
      rel_rows_ = rows;
      rel_ = std::move(rel);
    }
    replace_held(w, read, held);
  }

 private:
  int max_sequence() const override { return cfg_.position_biased_input ? cfg_.max_position_embeddings : 0; }
  const EmbeddingTable* word_embeddings() const override { return &word_; }

  void run(const Run& r) override {
    if (!derived_.empty() && !r.planning())
      fail_value("forward: this model's relative-embedding projections live on the GPU (device 'webgpu'), as its weights do: run it there");
    for (const Derived& t : derived_) t.proj->derive_per_head(t.key, rel_rows_, rel_.data(), cfg_.num_heads);
    const int H = cfg_.hidden_size, E = cfg_.embedding_size, rows = r.rows();
    float* e = grow(e_, static_cast<std::size_t>(rows) * E);
    float* h = e;
    {
    RELPOS_PROFILE_SCOPE(Embeddings);  // bench-only (profile/profile.h)
    gather_rows(rows, r.ids, word_, cfg_.vocab_size, E, e);
    if (!position_.empty()) add_position_rows(rows, r.seq, position_, E, e);
    if (!token_type_.empty()) add_token_type_rows(rows, r.token_types, token_type_, E, e);
    if (E != H) {
      h = grow(h_, static_cast<std::size_t>(rows) * H);
      embed_proj_.forward(rows, e, h);
    }
    emb_ln_.forward(rows, h, h);
    if (r.key_mask) zero_masked_rows(rows, H, r.key_mask, h);  // HF multiplies the embeddings by the attention mask
    }
    r.record_hidden(h, H);
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      RELPOS_PROFILE_LAYER(i);
      const Scheme& scheme = *schemes_[schemes_.size() == 1 ? 0 : i];
      layers_[i].forward(r.batch, r.seq, h, r.key_mask, scheme, r.attention_probs(cfg_.num_heads), scratch_);
      r.record_hidden(h, H);
    }
    RELPOS_PROFILE_LAYER(-1);
    r.set_last_hidden(h, H);
  }

  EmbeddingTable word_;
  std::vector<float> position_, token_type_;
  Linear embed_proj_;
  LayerNorm emb_ln_;
  std::vector<PostLnLayer> layers_;
  std::vector<std::vector<float>> pos_key_, pos_query_;  // per layer, owned: the schemes point into them
  // GPU loads: the tables the plan's executor derives (key: the scheme's table pointer, into keys_) from R (rel_) and
  // a projection (a layer's, or one of pos_proj_)
  struct Derived {
    const float* key;
    const Linear* proj;
  };
  std::vector<Derived> derived_;
  std::vector<float> keys_, rel_;
  int rel_rows_ = 0;
  std::vector<std::unique_ptr<Linear>> pos_proj_;
  std::vector<std::unique_ptr<Scheme>> schemes_;
  std::vector<float> e_, h_;
  PostLnScratch scratch_;
};

}  // namespace

std::unique_ptr<Model> make_deberta_v2(const ModelConfig& c, const Weights& w) {
  return std::make_unique<DebertaV2>(c, w);
}

}  // namespace relpos::models
