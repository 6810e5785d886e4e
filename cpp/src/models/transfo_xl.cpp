// Transformer-XL (TransfoXLModel, modeling_transfo_xl.py) without memory: mem_len = 0, one segment,
// post-LN (pre_lnorm = false), attn_type 0, same_length = false, word embedding with div_val = 1.
//   embeddings  h = sqrt(d_model) · W_proj · emb[id]       (W_proj only when d_embed ≠ d_model)
//   layer       a  = layer_norm_attn(h + o_net · MHA_txl(qkv_net h))          (no biases)
//               h' = layer_norm_ff(a + CoreNet.3 · relu(CoreNet.0 · a + b0) + b3)
//   attention   causal, TransformerXLParams{d_model, clamp_len, u = r_w_bias, v = r_r_bias, W_kR = r_net}:
//               logit = ((q_i + u)·k_j + (q_i + v)·(W_kR R_{i−j})) / sqrt(d_head), R the [sin | cos]
//               encoding of i − j clamped to clamp_len. Biases per layer (untie_r) or shared.
// Shapes: qkv_net [3·heads·d_head, d_model] with output [q | k | v]; o_net [d_model, heads·d_head];
// r_net [heads·d_head, d_model]; r_w_bias / r_r_bias [heads, d_head].
// The key mask is applied too (HF takes none; with right padding the causal mask already hides it).
#include <cmath>

#include "models/layers/embedding_table.h"
#include "models/layers/layers.h"
#include "models/model_base.h"
#include "relpos/error.h"
#include "relpos/schemes.h"

namespace relpos::models {
namespace {

struct TxlLayer {
  Linear qkv, o;
  LayerNorm ln_attn, ln_ff;
  FeedForward ff;
  std::vector<float> r_net, r_w_bias, r_r_bias;  // owned: the scheme points into them
  std::unique_ptr<Scheme> scheme;
};

class TransfoXL final : public ModelBase {
 public:
  TransfoXL(const ModelConfig& c, const Weights& w) : ModelBase(c) {
    if (c.mem_len != 0) fail_value("transfo-xl: only mem_len = 0 is supported (HF attends to zero-initialised memory otherwise)");
    if (c.same_length) fail_value("transfo-xl: same_length = true is not supported");
    if (c.pre_lnorm) fail_value("transfo-xl: pre_lnorm = true is not supported");
    if (c.attn_type != 0) fail_value("transfo-xl: only attn_type 0 is supported");
    if (c.div_val != 1) fail_value("transfo-xl: only div_val = 1 (a single embedding table) is supported");
    const std::string p = detect_prefix(w, "word_emb.emb_layers.0.weight", {"transformer."});
    const int D = c.hidden_size, E = c.d_embed, heads = c.num_heads, dh = c.head_dim, inner = heads * dh;
    emb_ = EmbeddingTable::load(w, p + "word_emb.emb_layers.0.weight", c.vocab_size, E);
    if (E != D) emb_proj_ = Linear(E, D, load_tensor(w, p + "word_emb.emb_projs.0", {D, E}).data(), nullptr);
    std::vector<float> shared_w, shared_r;
    if (!c.untie_r) {
      shared_w = load_tensor(w, p + "r_w_bias", {heads, dh});
      shared_r = load_tensor(w, p + "r_r_bias", {heads, dh});
    }
    for (int i = 0; i < c.num_layers; ++i) {
      const std::string l = p + "layers." + std::to_string(i) + ".";
      TxlLayer layer;
      layer.qkv = Linear::load(w, l + "dec_attn.qkv_net", D, 3 * inner, false);
      layer.o = Linear::load(w, l + "dec_attn.o_net", inner, D, false);
      layer.ln_attn = LayerNorm::load(w, l + "dec_attn.layer_norm", D, c.norm_eps);
      layer.r_net = load_tensor(w, l + "dec_attn.r_net.weight", {inner, D});
      layer.r_w_bias = c.untie_r ? load_tensor(w, l + "dec_attn.r_w_bias", {heads, dh}) : shared_w;
      layer.r_r_bias = c.untie_r ? load_tensor(w, l + "dec_attn.r_r_bias", {heads, dh}) : shared_r;
      layer.ff.w1 = Linear::load(w, l + "pos_ff.CoreNet.0", D, c.intermediate_size, true);
      layer.ff.w2 = Linear::load(w, l + "pos_ff.CoreNet.3", c.intermediate_size, D, true);
      layer.ff.act = Activation::Relu;
      layer.ln_ff = LayerNorm::load(w, l + "pos_ff.layer_norm", D, c.norm_eps);
      TransformerXLParams params;
      params.d_model = D;
      params.clamp_len = c.clamp_len;
      params.u = layer.r_w_bias.data();
      params.v = layer.r_r_bias.data();
      params.w_kr = layer.r_net.data();
      layer.scheme = make_scheme(params);
      layers_.push_back(std::move(layer));
    }
  }

 private:
  void run(const Run& r) override {
    const int D = cfg_.hidden_size, E = cfg_.d_embed, rows = r.rows(), dh = cfg_.head_dim, inner = cfg_.num_heads * dh;
    const std::size_t n = static_cast<std::size_t>(rows) * D;
    float* h = grow(h_, n);
    float* a = grow(a_, n);
    float* qkv = grow(qkv_, 3 * static_cast<std::size_t>(rows) * inner);
    float* ctx = grow(ctx_, static_cast<std::size_t>(rows) * inner);
    if (E != D) {
      float* e = grow(e_, static_cast<std::size_t>(rows) * E);
      gather_rows(rows, r.ids, emb_, cfg_.vocab_size, E, e);
      emb_proj_.forward(rows, e, h);
    } else {
      gather_rows(rows, r.ids, emb_, cfg_.vocab_size, D, h);
    }
    const float scale = std::sqrt(static_cast<float>(D));
    for (std::size_t i = 0; i < n; ++i) h[i] *= scale;
    const std::size_t row3 = 3 * static_cast<std::size_t>(inner), hs = static_cast<std::size_t>(dh);
    for (const auto& layer : layers_) {
      r.record_hidden(h, D);
      layer.qkv.forward(rows, h, qkv);
      multi_head_attention(r.batch, r.seq, cfg_.num_heads, cfg_.num_heads, dh, {qkv, row3, hs},
                           {qkv + inner, row3, hs}, {qkv + 2 * inner, row3, hs}, r.key_mask, true, *layer.scheme,
                           r.attention_probs(cfg_.num_heads), ctx, attention_);
      layer.o.forward(rows, ctx, a);
      add_inplace(n, a, h);
      layer.ln_attn.forward(rows, a, a);
      float* ffs = grow(ff_, layer.ff.scratch_floats(rows));
      layer.ff.forward(rows, a, h, ffs);
      add_inplace(n, h, a);
      layer.ln_ff.forward(rows, h, h);
    }
    r.record_hidden(h, D);
    r.set_last_hidden(h, D);
  }

  EmbeddingTable emb_;
  Linear emb_proj_;
  std::vector<TxlLayer> layers_;
  std::vector<float> h_, a_, e_, qkv_, ctx_, ff_;
  AttentionScratch attention_;
};

}  // namespace

std::unique_ptr<Model> make_transfo_xl(const ModelConfig& c, const Weights& w) {
  return std::make_unique<TransfoXL>(c, w);
}

}  // namespace relpos::models
