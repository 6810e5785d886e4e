// Gemma3 text stack (Gemma3TextModel, modeling_gemma3.py at transformers 948bc0fa "[Gemma Embedding] Fix SWA",
// eager attention), bidirectional as EmbeddingGemma (use_bidirectional_attention true) or causal:
//   embeddings  h = embed_tokens[id] · float32(sqrt(hidden))      (folded into the table at load: the same products)
//   layer       h += post_attention_layernorm(o_proj · attn(input_layernorm(h)))          ("sandwich" norms)
//               h += post_feedforward_layernorm(down_proj · (gelu_tanh(gate_proj m) ⊙ up_proj m)),
//                    m = pre_feedforward_layernorm(h)
//   final       last_hidden_state = norm(h) = hidden_states[n]
//   norms       every RMSNorm (the five per layer, q_norm / k_norm, the final one) scales by (1 + w)
//   attention   QkNormAttention; scores · query_pre_attn_scalar^−½ (not head_dim^−½); RoPE rotate_half with
//               θ = rope_theta on full layers, rope_local_base_freq on sliding ones (layer_types[i]);
//               a padded key is never visible. attn_logit_softcapping is ignored, as the reference does.
//   window      config.json's sliding_window w as written (before the constructor's rule). Bidirectional:
//               the constructor sets w // 2 + 1 and the mask is |i − j| < that, so sliding layers see
//               |i − j| ≤ w // 2. Causal: j ≤ i and i − j < w (window w − 1 of the causal schedule).
//   positions   0 … L − 1 for every row.
// Shapes: embed_tokens [V, H], q_proj [heads·d, H], k_proj / v_proj [kv·d, H], o_proj [H, heads·d] (d =
// head_dim from config.json), gate / up [I, H], down [H, I], norms [H] / [d]; "model." prefix accepted.
#include <cmath>

#include "models/layers/embedding_table.h"
#include "models/layers/layers.h"
#include "models/layers/qk_norm_attention.h"
#include "models/model_base.h"
#include "relpos/error.h"
#include "relpos/schemes.h"

namespace relpos::models {
namespace {

struct Gemma3Layer {
  RmsNorm input_norm, post_attn_norm, pre_ff_norm, post_ff_norm;
  QkNormAttention attn;
  FeedForward mlp;
  bool sliding = false;
};

class Gemma3 final : public ModelBase {
 public:
  Gemma3(const ModelConfig& c, const Weights& w) : ModelBase(c) {
    const std::string p = detect_prefix(w, "embed_tokens.weight", {"model.", "language_model.model."});
    const int H = c.hidden_size, I = c.intermediate_size;
    const float eps = c.norm_eps;
    if (I < 1) fail_range("gemma3_text: intermediate_size must be ≥ 1, got " + std::to_string(I));
    embed_ = EmbeddingTable::load(w, p + "embed_tokens.weight", c.vocab_size, H);
    embed_.scale(static_cast<float>(std::sqrt(static_cast<double>(H))));
    const Activation act = parse_activation(c.hidden_act);
    for (int i = 0; i < c.num_layers; ++i) {
      const std::string b = p + "layers." + std::to_string(i) + ".";
      Gemma3Layer l;
      l.sliding = c.layer_sliding[i];
      l.input_norm = RmsNorm::load_unit_offset(w, b + "input_layernorm.weight", H, eps);
      l.attn = QkNormAttention::load(w, b + "self_attn.", H, c.num_heads, c.num_kv_heads, c.head_dim, eps,
                                     c.attention_bias, true);
      l.post_attn_norm = RmsNorm::load_unit_offset(w, b + "post_attention_layernorm.weight", H, eps);
      l.pre_ff_norm = RmsNorm::load_unit_offset(w, b + "pre_feedforward_layernorm.weight", H, eps);
      l.post_ff_norm = RmsNorm::load_unit_offset(w, b + "post_feedforward_layernorm.weight", H, eps);
      l.mlp.gated = true;
      l.mlp.act = act;
      l.mlp.gate = Linear::load(w, b + "mlp.gate_proj", H, I, false);
      l.mlp.w1 = Linear::load(w, b + "mlp.up_proj", H, I, false);
      l.mlp.w2 = Linear::load(w, b + "mlp.down_proj", I, H, false);
      layers_.push_back(std::move(l));
    }
    norm_ = RmsNorm::load_unit_offset(w, p + "norm.weight", H, eps);
    if (!(c.rope_theta > 0.0f) || !(c.local_rope_theta > 0.0f))
      fail_range("gemma3_text: rope_theta and rope_local_base_freq must be positive, got " + std::to_string(c.rope_theta) +
                 " and " + std::to_string(c.local_rope_theta));
    RopeParams rope;
    rope.layout = RopeLayout::Half;
    rope.content_scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(c.query_pre_attn_scalar)));
    rope.theta = c.rope_theta;
    global_rope_ = make_scheme(rope);
    rope.theta = c.local_rope_theta;
    local_rope_ = make_scheme(rope);
  }

 private:
  void run(const Run& r) override {
    const int H = cfg_.hidden_size, rows = r.rows();
    const std::size_t n = static_cast<std::size_t>(rows) * H;
    float* h = grow(h_, n);
    float* x = grow(x_, n);
    const bool causal = !cfg_.bidirectional;
    const int w = causal ? cfg_.sliding_window - 1 : cfg_.sliding_window / 2;
    const int window = w < r.seq - 1 ? w : -1;  // a window reaching every key is none
    gather_rows(rows, r.ids, embed_, cfg_.vocab_size, H, h);
    for (const Gemma3Layer& l : layers_) {
      r.record_hidden(h, H);
      l.input_norm.forward(rows, h, x);
      l.attn.forward(r.batch, r.seq, x, r.key_mask, causal, l.sliding ? window : -1,
                     l.sliding ? *local_rope_ : *global_rope_, r.attention_probs(cfg_.num_heads), x, attention_);
      l.post_attn_norm.forward(rows, x, x);
      add_inplace(n, h, x);
      l.pre_ff_norm.forward(rows, h, x);
      float* ffs = grow(ff_, l.mlp.scratch_floats(rows));
      l.mlp.forward(rows, x, x, ffs);
      l.post_ff_norm.forward(rows, x, x);
      add_inplace(n, h, x);
    }
    norm_.forward(rows, h, h);
    r.record_hidden(h, H);
    r.set_last_hidden(h, H);
  }

  EmbeddingTable embed_;
  std::vector<Gemma3Layer> layers_;
  RmsNorm norm_;
  std::unique_ptr<Scheme> global_rope_, local_rope_;
  std::vector<float> h_, x_, ff_;
  QkNormAttention::Scratch attention_;
};

}  // namespace

std::unique_ptr<Model> make_gemma3_text(const ModelConfig& c, const Weights& w) { return std::make_unique<Gemma3>(c, w); }

}  // namespace relpos::models
