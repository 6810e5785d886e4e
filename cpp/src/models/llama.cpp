// LLaMA decoder stack (LlamaModel, modeling_llama.py), run causally over the whole sequence.
//   embeddings  h = embed_tokens[id]
//   block       h += o_proj · MHA_rope(q_proj n, k_proj n, v_proj n),  n = input_layernorm(h)  (RMS)
//               h += down_proj · (silu(gate_proj m) ⊙ up_proj m),     m = post_attention_layernorm(h)
//   final       last = norm(h)   (hidden_states[n_layers] is taken after it, as in HF)
//   attention   causal, RopeParams{Half, rope_theta}: q, k of position p rotated on pairs (i, i + d/2)
//               (rotate_half) by p·θ^(−2i/d); grouped-query heads when num_key_value_heads < heads.
// Shapes: q_proj [H, H], k_proj/v_proj [kv_heads·d, H], gate/up [I, H], down [H, I].
#include "models/layers/embedding_table.h"
#include "models/layers/layers.h"
#include "models/model_base.h"
#include "relpos/error.h"
#include "relpos/schemes.h"

namespace relpos::models {
namespace {

struct LlamaBlock {
  RmsNorm input_norm, post_norm;
  Linear q, k, v, o;
  FeedForward mlp;
};

class Llama final : public ModelBase {
 public:
  Llama(const ModelConfig& c, const Weights& w) : ModelBase(c) {
    if (c.has_rope_scaling) fail_value("llama: rope_scaling is not supported");
    const std::string p = detect_prefix(w, "embed_tokens.weight", {"model."});
    const int H = c.hidden_size, I = c.intermediate_size, kv = c.num_kv_heads * c.head_dim;
    const bool bias = c.attention_bias;
    embed_ = EmbeddingTable::load(w, p + "embed_tokens.weight", c.vocab_size, H);
    const Activation act = parse_activation(c.hidden_act);
    for (int i = 0; i < c.num_layers; ++i) {
      const std::string b = p + "layers." + std::to_string(i) + ".";
      LlamaBlock blk;
      blk.input_norm = RmsNorm::load(w, b + "input_layernorm.weight", H, c.norm_eps);
      blk.q = Linear::load(w, b + "self_attn.q_proj", H, H, bias);
      blk.k = Linear::load(w, b + "self_attn.k_proj", H, kv, bias);
      blk.v = Linear::load(w, b + "self_attn.v_proj", H, kv, bias);
      blk.o = Linear::load(w, b + "self_attn.o_proj", H, H, bias);
      blk.post_norm = RmsNorm::load(w, b + "post_attention_layernorm.weight", H, c.norm_eps);
      blk.mlp.gated = true;
      blk.mlp.act = act;
      blk.mlp.gate = Linear::load(w, b + "mlp.gate_proj", H, I, false);
      blk.mlp.w1 = Linear::load(w, b + "mlp.up_proj", H, I, false);
      blk.mlp.w2 = Linear::load(w, b + "mlp.down_proj", I, H, false);
      blocks_.push_back(std::move(blk));
    }
    norm_ = RmsNorm::load(w, p + "norm.weight", H, c.norm_eps);
    RopeParams rope;
    rope.layout = RopeLayout::Half;
    rope.theta = c.rope_theta;
    rope.rotary_dim = 0;
    scheme_ = make_scheme(rope);
  }

 private:
  void run(const Run& r) override {
    const int H = cfg_.hidden_size, rows = r.rows(), d = cfg_.head_dim, kvw = cfg_.num_kv_heads * d;
    const std::size_t n = static_cast<std::size_t>(rows) * H, nkv = static_cast<std::size_t>(rows) * kvw;
    float* h = grow(h_, n);
    float* x = grow(x_, n);
    float* q = grow(q_, n);
    float* k = grow(k_, nkv);
    float* v = grow(v_, nkv);
    float* ctx = grow(ctx_, n);
    gather_rows(rows, r.ids, embed_, cfg_.vocab_size, H, h);
    const std::size_t hs = static_cast<std::size_t>(d);
    for (const auto& b : blocks_) {
      r.record_hidden(h, H);
      b.input_norm.forward(rows, h, x);
      b.q.forward(rows, x, q);
      b.k.forward(rows, x, k);
      b.v.forward(rows, x, v);
      multi_head_attention(r.batch, r.seq, cfg_.num_heads, cfg_.num_kv_heads, d, {q, static_cast<std::size_t>(H), hs},
                           {k, static_cast<std::size_t>(kvw), hs}, {v, static_cast<std::size_t>(kvw), hs}, r.key_mask,
                           true, *scheme_, r.attention_probs(cfg_.num_heads), ctx, attention_);
      b.o.forward(rows, ctx, x);
      add_inplace(n, h, x);
      b.post_norm.forward(rows, h, x);
      float* ffs = grow(ff_, b.mlp.scratch_floats(rows));
      b.mlp.forward(rows, x, x, ffs);
      add_inplace(n, h, x);
    }
    norm_.forward(rows, h, h);
    r.record_hidden(h, H);
    r.set_last_hidden(h, H);
  }

  EmbeddingTable embed_;
  std::vector<LlamaBlock> blocks_;
  RmsNorm norm_;
  std::unique_ptr<Scheme> scheme_;
  std::vector<float> h_, x_, q_, k_, v_, ctx_, ff_;
  AttentionScratch attention_;
};

}  // namespace

std::unique_ptr<Model> make_llama(const ModelConfig& c, const Weights& w) { return std::make_unique<Llama>(c, w); }

}  // namespace relpos::models
