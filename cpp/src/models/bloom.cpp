// BLOOM decoder stack (BloomModel, modeling_bloom.py), run causally over the whole sequence.
//   embeddings  h = word_embeddings_layernorm(word[id])
//   block       n = input_layernorm(h);  h = res + dense · MHA_alibi(qkv(n))        (res = h, or n when
//               apply_residual_connection_post_layernorm);  n = post_attention_layernorm(h);
//               h = res + dense_4h_to_h · gelu_tanh(dense_h_to_4h n)
//   final       last = ln_f(h)   (hidden_states[n_layers] is taken after it, as in HF)
//   attention   causal, AlibiParams{Bloom}: logit = q·k/√d + m_h·(j − i); HF adds m_h·(key index), which
//               differs by a per-row constant that softmax ignores.
// Shapes: query_key_value [3H, H] whose output is laid out per head as [q_h | k_h | v_h] (head_dim each).
#include "models/layers/embedding_table.h"
#include "models/layers/layers.h"
#include "models/model_base.h"
#include "relpos/schemes.h"

namespace relpos::models {
namespace {

struct BloomBlock {
  LayerNorm ln_in, ln_post;
  Linear qkv, dense;
  FeedForward mlp;
};

class Bloom final : public ModelBase {
 public:
  Bloom(const ModelConfig& c, const Weights& w) : ModelBase(c) {
    const std::string p = detect_prefix(w, "word_embeddings.weight", {"transformer."});
    const int H = c.hidden_size;
    word_ = EmbeddingTable::load(w, p + "word_embeddings.weight", c.vocab_size, H);
    emb_ln_ = LayerNorm::load(w, p + "word_embeddings_layernorm", H, c.norm_eps);
    for (int i = 0; i < c.num_layers; ++i) {
      const std::string b = p + "h." + std::to_string(i) + ".";
      BloomBlock blk;
      blk.ln_in = LayerNorm::load(w, b + "input_layernorm", H, c.norm_eps);
      blk.qkv = Linear::load(w, b + "self_attention.query_key_value", H, 3 * H, true);
      blk.dense = Linear::load(w, b + "self_attention.dense", H, H, true);
      blk.ln_post = LayerNorm::load(w, b + "post_attention_layernorm", H, c.norm_eps);
      blk.mlp.w1 = Linear::load(w, b + "mlp.dense_h_to_4h", H, 4 * H, true);
      blk.mlp.w2 = Linear::load(w, b + "mlp.dense_4h_to_h", 4 * H, H, true);
      blk.mlp.act = Activation::GeluTanh;
      blocks_.push_back(std::move(blk));
    }
    ln_f_ = LayerNorm::load(w, p + "ln_f", H, c.norm_eps);
    AlibiParams alibi;
    alibi.slopes = AlibiSlopes::Bloom;
    scheme_ = make_scheme(alibi);
  }

 private:
  void run(const Run& r) override {
    const int H = cfg_.hidden_size, rows = r.rows(), d = cfg_.head_dim;
    const std::size_t n = static_cast<std::size_t>(rows) * H;
    float* h = grow(h_, n);
    float* x = grow(x_, n);
    float* qkv = grow(qkv_, 3 * n);
    float* ctx = grow(ctx_, n);
    float* a = grow(a_, n);
    gather_rows(rows, r.ids, word_, cfg_.vocab_size, H, h);
    emb_ln_.forward(rows, h, h);
    const bool post = cfg_.apply_residual_connection_post_layernorm;
    const std::size_t row3 = 3 * static_cast<std::size_t>(H), hs = 3 * static_cast<std::size_t>(d);
    for (const auto& b : blocks_) {
      r.record_hidden(h, H);
      b.ln_in.forward(rows, h, x);
      b.qkv.forward(rows, x, qkv);
      multi_head_attention(r.batch, r.seq, cfg_.num_heads, cfg_.num_heads, d, {qkv, row3, hs}, {qkv + d, row3, hs},
                           {qkv + 2 * d, row3, hs}, r.key_mask, true, *scheme_, r.attention_probs(cfg_.num_heads), ctx,
                           attention_);
      b.dense.forward(rows, ctx, a);
      add_inplace(n, a, post ? x : h);  // a = attention output + residual
      b.ln_post.forward(rows, a, x);
      float* ffs = grow(ff_, b.mlp.scratch_floats(rows));
      b.mlp.forward(rows, x, h, ffs);
      add_inplace(n, h, post ? x : a);
    }
    ln_f_.forward(rows, h, h);
    r.record_hidden(h, H);
    r.set_last_hidden(h, H);
  }

  EmbeddingTable word_;
  LayerNorm emb_ln_, ln_f_;
  std::vector<BloomBlock> blocks_;
  std::unique_ptr<Scheme> scheme_;
  std::vector<float> h_, x_, a_, qkv_, ctx_, ff_;
  AttentionScratch attention_;
};

}  // namespace

std::unique_ptr<Model> make_bloom(const ModelConfig& c, const Weights& w) { return std::make_unique<Bloom>(c, w); }

}  // namespace relpos::models
