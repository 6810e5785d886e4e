// ModernBERT encoder (ModernBertModel, transformers v4.48.0 modeling_modernbert.py, eager attention).
//   embeddings  h = norm(tok_embeddings[id])                          (no absolute positions, no token types)
//   layer i     h += Wo · MHA_i(Wqkv · attn_norm(h))                 (layer 0: no attn_norm, x = h)
//               h += mlp.Wo · (act(u) ⊙ g),  [u | g] = mlp.Wi · mlp_norm(h)   (GeGLU; act = hidden_activation,
//               "gelu" = exact erf GELU in released models)
//   final       last_hidden_state = final_norm(h)
//   outputs     hidden_states[0] = embedding output; hidden_states[i] = h after layer i, BEFORE final_norm
//               (so hidden_states[n] ≠ last_hidden_state, unlike T5 / LLaMA), as in HF.
//   attention   Wqkv output [q | k | v], each head-major; RoPE rotate_half (RopeParams{Half}) on q and k with
//               θ = global_rope_theta on global layers (i % global_attn_every_n_layers == 0), local_rope_theta
//               on the others; scores q'·k'/sqrt(d); local layers see keys |i − j| ≤ local_attention / 2
//               only (floor: an odd local_attention acts as the even value below it; 0 = each token sees
//               itself; a window covering the whole sequence is passed as none). Padded keys masked everywhere.
//   norms       LayerNorm(norm_eps), bias iff norm_bias; Wqkv / attn.Wo biases iff attention_bias, mlp biases
//               iff mlp_bias. Positions 0 … L−1 per row; max_position_embeddings is not a limit (HF's eager
//               forward ignores it; RoPE has no table), so max_sequence() is 0.
// Shapes: tok_embeddings [V, H], Wqkv [3H, H], attn.Wo [H, H], mlp.Wi [2I, H], mlp.Wo [H, I]; weight names
// under "model." in task checkpoints.
// Memory per forward (reused across layers and calls; nothing L × L unless attentions are requested):
//   h, x [B·L, H], qkv [B·L, 3H] (also the attention output projection), the attention scratch (4 × B·L·H)
//   and an MLP block of at most kMlpRows rows × 3I, so a long document's MLP does not cost B·L × 3I (a GPU plan
//   takes all rows in one block).
#include <algorithm>

#include "models/layers/embedding_table.h"
#include "models/layers/layers.h"
#include "models/model_base.h"
#include "relpos/error.h"
#include "relpos/schemes.h"

namespace relpos::models {
namespace {

// Rows per MLP block: fixed (never by thread count), large enough for full GEMM tiles.
constexpr int kMlpRows = 256;

struct ModernBertLayer {
  bool has_attn_norm = false;  // layer 0 has none (Identity)
  LayerNorm attn_norm, mlp_norm;
  Linear wqkv, wo, wi, mlp_wo;
  bool global = true;
};

class ModernBert final : public ModelBase {
 public:
  ModernBert(const ModelConfig& c, const Weights& w) : ModelBase(c) {
    const std::string p = detect_prefix(w, "embeddings.tok_embeddings.weight", {"model."});
    const int H = c.hidden_size, I = c.intermediate_size;
    if (I < 1) fail_range("modernbert: intermediate_size must be ≥ 1, got " + std::to_string(I));
    if (c.head_dim % 2 != 0)
      fail_value("modernbert: RoPE needs an even head size, got " + std::to_string(c.head_dim) + " (hidden_size " +
                 std::to_string(H) + " / " + std::to_string(c.num_heads) + " heads)");
    act_ = parse_activation(c.hidden_act);
    embed_ = EmbeddingTable::load(w, p + "embeddings.tok_embeddings.weight", c.vocab_size, H);
    embed_norm_ = LayerNorm::load(w, p + "embeddings.norm", H, c.norm_eps, c.norm_bias);
    for (int i = 0; i < c.num_layers; ++i) {
      const std::string b = p + "layers." + std::to_string(i) + ".";
      ModernBertLayer l;
      l.global = i % c.global_attn_every_n_layers == 0;
      l.has_attn_norm = i != 0;
      if (l.has_attn_norm) l.attn_norm = LayerNorm::load(w, b + "attn_norm", H, c.norm_eps, c.norm_bias);
      l.wqkv = Linear::load(w, b + "attn.Wqkv", H, 3 * H, c.attention_bias);
      l.wo = Linear::load(w, b + "attn.Wo", H, H, c.attention_bias);
      l.mlp_norm = LayerNorm::load(w, b + "mlp_norm", H, c.norm_eps, c.norm_bias);
      l.wi = Linear::load(w, b + "mlp.Wi", H, 2 * I, c.mlp_bias);
      l.mlp_wo = Linear::load(w, b + "mlp.Wo", I, H, c.mlp_bias);
      layers_.push_back(std::move(l));
    }
    final_norm_ = LayerNorm::load(w, p + "final_norm", H, c.norm_eps, c.norm_bias);
    if (!(c.global_rope_theta > 0.0f) || !(c.local_rope_theta > 0.0f))
      fail_range("modernbert: global_rope_theta and local_rope_theta must be positive, got " +
                 std::to_string(c.global_rope_theta) + " and " + std::to_string(c.local_rope_theta));
    RopeParams rope;
    rope.layout = RopeLayout::Half;
    rope.rotary_dim = 0;
    rope.theta = c.global_rope_theta;
    global_rope_ = make_scheme(rope);
    rope.theta = c.local_rope_theta;
    local_rope_ = make_scheme(rope);
  }

  const EmbeddingTable* word_embeddings() const override { return &embed_; }

 private:
  void run(const Run& r) override {
    const int H = cfg_.hidden_size, I = cfg_.intermediate_size, d = cfg_.head_dim, heads = cfg_.num_heads;
    const int rows = r.rows();
    const std::size_t n = static_cast<std::size_t>(rows) * H;
    float* h = grow(h_, n);
    float* x = grow(x_, n);
    float* qkv = grow(qkv_, 3 * n);
    // A recorded plan (the GPU) takes every row in one block: there, memory is not what binds but dispatches
    // and occupancy are — 256-row blocks made 5 small dispatches per 256 tokens (an 8192-token forward of a
    // ModernBERT-base shape took 1.40 s on an H200, most of it launch-bound MLP blocks).
    const int block = r.planning() ? rows : std::min(rows, kMlpRows);
    float* wi_out = grow(wi_out_, static_cast<std::size_t>(block) * 2 * I);
    float* gated = grow(gated_, static_cast<std::size_t>(block) * I);
    // local_attention / 2 (floor); a window reaching every key of the row is no window at all.
    const int half = cfg_.local_attention / 2;
    const int local_window = half >= r.seq - 1 ? -1 : half;
    const std::size_t stride = static_cast<std::size_t>(3 * H), hs = static_cast<std::size_t>(d);

    gather_rows(rows, r.ids, embed_, cfg_.vocab_size, H, h);
    embed_norm_.forward(rows, h, h);
    for (const ModernBertLayer& l : layers_) {
      r.record_hidden(h, H);
      // attention: x = attn_norm(h) (layer 0: h itself) → qkv → context (into x) → Wo (into qkv) → residual
      const float* in = h;
      if (l.has_attn_norm) {
        l.attn_norm.forward(rows, h, x);
        in = x;
      }
      l.wqkv.forward(rows, in, qkv);
      multi_head_attention(r.batch, r.seq, heads, heads, d, {qkv, stride, hs}, {qkv + H, stride, hs},
                           {qkv + 2 * H, stride, hs}, r.key_mask, false, l.global ? *global_rope_ : *local_rope_,
                           r.attention_probs(heads), x, attention_, l.global ? -1 : local_window);
      l.wo.forward(rows, x, qkv);
      add_inplace(n, h, qkv);
      // GeGLU MLP in blocks of kMlpRows rows: x = mlp_norm(h), [u | g] = Wi x, h += Wo (act(u) ⊙ g)
      for (int r0 = 0; r0 < rows; r0 += block) {
        const int m = std::min(block, rows - r0);
        const std::size_t at = static_cast<std::size_t>(r0) * H;
        l.mlp_norm.forward(m, h + at, x + at);
        l.wi.forward(m, x + at, wi_out);
        glu_pairs(act_, m, I, wi_out, gated);
        l.mlp_wo.forward(m, gated, x + at);
        add_inplace(static_cast<std::size_t>(m) * H, h + at, x + at);
      }
    }
    r.record_hidden(h, H);  // before final_norm (HF's last hidden_states entry)
    final_norm_.forward(rows, h, x);
    r.set_last_hidden(x, H);
  }

  Activation act_ = Activation::Gelu;
  EmbeddingTable embed_;
  LayerNorm embed_norm_, final_norm_;
  std::vector<ModernBertLayer> layers_;
  std::unique_ptr<Scheme> global_rope_, local_rope_;
  std::vector<float> h_, x_, qkv_, wi_out_, gated_;
  AttentionScratch attention_;
};

}  // namespace

std::unique_ptr<Model> make_modernbert(const ModelConfig& c, const Weights& w) { return std::make_unique<ModernBert>(c, w); }

}  // namespace relpos::models
