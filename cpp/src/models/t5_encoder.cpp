// T5 encoder stack (T5EncoderModel, modeling_t5.py). Pre-norm with RMS norms, no biases anywhere.
//   embeddings  h = shared[id]                                   (no scaling, no positions)
//   block       h += W_o · MHA_t5(W_q n, W_k n, W_v n),  n = rms_attn(h)
//               h += FF(rms_ff(h)),  FF = wo · relu(wi x)  or  wo · (gelu_new(wi_0 x) ⊙ wi_1 x)  (gated-gelu)
//   final       last = final_layer_norm(h)   (hidden_states[n_layers] is taken after it, as in HF)
//   attention   T5Params{num_buckets, max_distance, bidirectional}: logit = q·k + B[bucket(j − i), h]
//               with no 1/sqrt(d); B = layer 0's relative_attention_bias [num_buckets, heads], loaded
//               once and shared by every layer (HF computes it in layer 0 and passes it on).
// Shapes: H = d_model, inner = heads · d_kv (may differ from H), FF hidden = d_ff.
#include "models/layers/embedding_table.h"
#include "models/layers/layers.h"
#include "models/model_base.h"
#include "relpos/schemes.h"

namespace relpos::models {
namespace {

struct T5Block {
  RmsNorm attn_norm, ff_norm;
  Linear q, k, v, o;
  FeedForward ff;
};

class T5Encoder final : public ModelBase {
 public:
  T5Encoder(const ModelConfig& c, const Weights& w) : ModelBase(c) {
    const int H = c.hidden_size, inner = c.num_heads * c.head_dim, F = c.intermediate_size;
    const std::string embed = w.contains("encoder.embed_tokens.weight") ? "encoder.embed_tokens.weight" : "shared.weight";
    embed_ = EmbeddingTable::load(w, embed, c.vocab_size, H);
    const Activation act = parse_activation(c.dense_act_fn);
    for (int i = 0; i < c.num_layers; ++i) {
      const std::string p = "encoder.block." + std::to_string(i) + ".layer.";
      T5Block b;
      b.attn_norm = RmsNorm::load(w, p + "0.layer_norm.weight", H, c.norm_eps);
      b.q = Linear::load(w, p + "0.SelfAttention.q", H, inner, false);
      b.k = Linear::load(w, p + "0.SelfAttention.k", H, inner, false);
      b.v = Linear::load(w, p + "0.SelfAttention.v", H, inner, false);
      b.o = Linear::load(w, p + "0.SelfAttention.o", inner, H, false);
      b.ff_norm = RmsNorm::load(w, p + "1.layer_norm.weight", H, c.norm_eps);
      b.ff.act = act;
      b.ff.gated = c.is_gated_act;
      if (c.is_gated_act) {
        b.ff.gate = Linear::load(w, p + "1.DenseReluDense.wi_0", H, F, false);
        b.ff.w1 = Linear::load(w, p + "1.DenseReluDense.wi_1", H, F, false);
      } else {
        b.ff.w1 = Linear::load(w, p + "1.DenseReluDense.wi", H, F, false);
      }
      b.ff.w2 = Linear::load(w, p + "1.DenseReluDense.wo", F, H, false);
      blocks_.push_back(std::move(b));
    }
    final_norm_ = RmsNorm::load(w, "encoder.final_layer_norm.weight", H, c.norm_eps);
    bias_ = load_tensor(w, "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
                        {c.relative_attention_num_buckets, c.num_heads});
    T5Params params;
    params.num_buckets = c.relative_attention_num_buckets;
    params.max_distance = c.relative_attention_max_distance;
    params.bidirectional = true;
    params.bias_table = bias_.data();
    scheme_ = make_scheme(params);
  }

 private:
  void run(const Run& r) override {
    const int H = cfg_.hidden_size, inner = cfg_.num_heads * cfg_.head_dim, rows = r.rows();
    const std::size_t n = static_cast<std::size_t>(rows) * H, ni = static_cast<std::size_t>(rows) * inner;
    float* h = grow(h_, n);
    float* x = grow(x_, n);
    float* q = grow(q_, ni);
    float* k = grow(k_, ni);
    float* v = grow(v_, ni);
    float* ctx = grow(ctx_, ni);
    {
    RELPOS_PROFILE_SCOPE(Embeddings);  // bench-only (profile/profile.h)
    gather_rows(rows, r.ids, embed_, cfg_.vocab_size, H, h);
    }
    const std::size_t hd = static_cast<std::size_t>(cfg_.head_dim);
    for (const auto& b : blocks_) {
      RELPOS_PROFILE_LAYER(&b - blocks_.data());
      r.record_hidden(h, H);
      b.attn_norm.forward(rows, h, x);
      b.q.forward(rows, x, q);
      b.k.forward(rows, x, k);
      b.v.forward(rows, x, v);
      multi_head_attention(r.batch, r.seq, cfg_.num_heads, cfg_.num_heads, cfg_.head_dim,
                           {q, static_cast<std::size_t>(inner), hd}, {k, static_cast<std::size_t>(inner), hd},
                           {v, static_cast<std::size_t>(inner), hd}, r.key_mask, false, *scheme_,
                           r.attention_probs(cfg_.num_heads), ctx, attention_);
      b.o.forward(rows, ctx, x);
      add_inplace(n, h, x);
      b.ff_norm.forward(rows, h, x);
      float* ffs = grow(ff_, b.ff.scratch_floats(rows));
      b.ff.forward(rows, x, x, ffs);
      add_inplace(n, h, x);
    }
    RELPOS_PROFILE_LAYER(-1);
    final_norm_.forward(rows, h, h);
    r.record_hidden(h, H);
    r.set_last_hidden(h, H);
  }

  EmbeddingTable embed_;
  std::vector<float> bias_;
  std::vector<T5Block> blocks_;
  RmsNorm final_norm_;
  std::unique_ptr<Scheme> scheme_;
  std::vector<float> h_, x_, q_, k_, v_, ctx_, ff_;
  AttentionScratch attention_;
};

}  // namespace

std::unique_ptr<Model> make_t5_encoder(const ModelConfig& c, const Weights& w) {
  return std::make_unique<T5Encoder>(c, w);
}

}  // namespace relpos::models
