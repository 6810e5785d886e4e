// Qwen3 decoder stack (Qwen3Model, modeling_qwen3.py at transformers 948bc0fa, eager attention), run over the
// whole sequence as Qwen3-Embedding and Qwen3-Reranker do:
//   embeddings  h = embed_tokens[id]                                   (no scale, no absolute positions)
//   layer       h += o_proj · attn(input_layernorm(h))                 (QkNormAttention: q_norm / k_norm × w)
//               h += down_proj · (silu(gate_proj m) ⊙ up_proj m),  m = post_attention_layernorm(h)
//   final       last_hidden_state = norm(h); hidden_states[n] is that final-norm output, as in HF
//   attention   causal; RoPE rotate_half (RopeParams{Half, rope_theta}) over head_dim (from config.json, not
//               H / heads); scores · head_dim^−½; grouped-query heads; a padded key is never visible. Layers
//               with layer_types "sliding_attention" also hide keys with i − j ≥ sliding_window (window
//               sliding_window − 1 of the causal banded schedule).
//   positions   0 … L − 1 for every row whatever the padding (HF builds them from cache_position when the
//               caller passes none, as sentence-transformers does); RoPE depends on i − j only, so left and
//               right padding give the same real-token outputs up to float noise.
//   norms       RMSNorm (rms_norm_eps) × w, statistics in double.
// Shapes: embed_tokens [V, H], q_proj [heads·d, H], k_proj / v_proj [kv·d, H], o_proj [H, heads·d], q_norm /
// k_norm [d], gate / up [I, H], down [H, I]; weights under "model." in Qwen3ForCausalLM checkpoints, whose LM head
// (heads/causal_lm.cpp) reads embed_tokens when tie_word_embeddings (Qwen3-0.6B) or lm_head.weight.
#include <algorithm>

#include "models/layers/embedding_table.h"
#include "models/layers/layers.h"
#include "models/layers/qk_norm_attention.h"
#include "models/model_base.h"
#include "relpos/error.h"
#include "relpos/schemes.h"

namespace relpos::models {
namespace {

struct Qwen3Layer {
  RmsNorm input_norm, post_norm;
  QkNormAttention attn;
  FeedForward mlp;
  bool sliding = false;
};

class Qwen3 final : public ModelBase {
 public:
  Qwen3(const ModelConfig& c, const Weights& w) : ModelBase(c) {
    const std::string p = detect_prefix(w, "embed_tokens.weight", {"model."});
    const int H = c.hidden_size, I = c.intermediate_size;
    if (I < 1) fail_range("qwen3: intermediate_size must be ≥ 1, got " + std::to_string(I));
    embed_ = EmbeddingTable::load(w, p + "embed_tokens.weight", c.vocab_size, H);
    const Activation act = parse_activation(c.hidden_act);
    for (int i = 0; i < c.num_layers; ++i) {
      const std::string b = p + "layers." + std::to_string(i) + ".";
      Qwen3Layer l;
      l.sliding = c.layer_sliding[i];
      l.input_norm = RmsNorm::load(w, b + "input_layernorm.weight", H, c.norm_eps);
      l.attn = QkNormAttention::load(w, b + "self_attn.", H, c.num_heads, c.num_kv_heads, c.head_dim, c.norm_eps,
                                     c.attention_bias, false);
      l.post_norm = RmsNorm::load(w, b + "post_attention_layernorm.weight", H, c.norm_eps);
      l.mlp.gated = true;
      l.mlp.act = act;
      l.mlp.gate = Linear::load(w, b + "mlp.gate_proj", H, I, false);
      l.mlp.w1 = Linear::load(w, b + "mlp.up_proj", H, I, false);
      l.mlp.w2 = Linear::load(w, b + "mlp.down_proj", I, H, false);
      layers_.push_back(std::move(l));
    }
    norm_ = RmsNorm::load(w, p + "norm.weight", H, c.norm_eps);
    if (!(c.rope_theta > 0.0f)) fail_range("qwen3: rope_theta must be positive, got " + std::to_string(c.rope_theta));
    RopeParams rope;
    rope.layout = RopeLayout::Half;
    rope.theta = c.rope_theta;
    scheme_ = make_scheme(rope);
  }

  const EmbeddingTable* word_embeddings() const override { return &embed_; }

 private:
  void run(const Run& r) override {
    const int H = cfg_.hidden_size, rows = r.rows();
    const std::size_t n = static_cast<std::size_t>(rows) * H;
    float* h = grow(h_, n);
    float* x = grow(x_, n);
    // causal sliding layers: i − j ≤ sliding_window − 1; a window reaching every key is none
    const int window = cfg_.sliding_window > 0 && cfg_.sliding_window - 1 < r.seq - 1 ? cfg_.sliding_window - 1 : -1;
    gather_rows(rows, r.ids, embed_, cfg_.vocab_size, H, h);
    for (const Qwen3Layer& l : layers_) {
      r.record_hidden(h, H);
      l.input_norm.forward(rows, h, x);
      l.attn.forward(r.batch, r.seq, x, r.key_mask, true, l.sliding ? window : -1, *scheme_,
                     r.attention_probs(cfg_.num_heads), x, attention_);
      add_inplace(n, h, x);
      l.post_norm.forward(rows, h, x);
      float* ffs = grow(ff_, l.mlp.scratch_floats(rows));
      l.mlp.forward(rows, x, x, ffs);
      add_inplace(n, h, x);
    }
    norm_.forward(rows, h, h);
    r.record_hidden(h, H);
    r.set_last_hidden(h, H);
  }

  EmbeddingTable embed_;
  std::vector<Qwen3Layer> layers_;
  RmsNorm norm_;
  std::unique_ptr<Scheme> scheme_;
  std::vector<float> h_, x_, ff_;
  QkNormAttention::Scratch attention_;
};

}  // namespace

std::unique_ptr<Model> make_qwen3(const ModelConfig& c, const Weights& w) { return std::make_unique<Qwen3>(c, w); }

}  // namespace relpos::models
