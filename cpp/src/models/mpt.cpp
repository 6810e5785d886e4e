// MPT decoder stack (MptModel, modeling_mpt.py), run causally over the whole sequence.
//   embeddings  h = wte[id]
//   block       h += out_proj · MHA_alibi(Wqkv · norm_1(h));  h += down_proj · gelu(up_proj · norm_2(h))
//               (norms are LayerNorms without bias when no_bias; gelu is exact, erf)
//   final       last = norm_f(h)   (hidden_states[n_layers] is taken after it, as in HF)
//   attention   causal, AlibiParams{Mpt, bias max 8 as in HF 4.34.1}: logit = q·k/√d + m_h·(j − i); HF adds
//               m_h·(key index − (L − 1)), a per-row constant away.
// Shapes: Wqkv [3H, H] with output [q | k | v], each split into heads of head_dim = H / n_heads;
// up_proj [4H, H] (transformers 4.34 hard-codes 4·d_model and ignores expansion_ratio).
#include "models/layers/embedding_table.h"
#include "models/layers/layers.h"
#include "models/model_base.h"
#include "relpos/error.h"
#include "relpos/schemes.h"

namespace relpos::models {
namespace {

struct MptBlock {
  LayerNorm norm_1, norm_2;
  Linear wqkv, out_proj;
  FeedForward ffn;
};

class Mpt final : public ModelBase {
 public:
  Mpt(const ModelConfig& c, const Weights& w) : ModelBase(c) {
    if (!c.alibi) fail_value("mpt: only ALiBi models are supported (attn_config.alibi = false)");
    if (c.qk_ln || c.has_clip_qkv || c.has_softmax_scale)
      fail_value("mpt: attn_config qk_ln, clip_qkv and softmax_scale are not supported");
    const std::string p = detect_prefix(w, "wte.weight", {"transformer."});
    const int H = c.hidden_size, F = c.intermediate_size;
    const bool bias = !c.no_bias;
    wte_ = EmbeddingTable::load(w, p + "wte.weight", c.vocab_size, H);
    for (int i = 0; i < c.num_layers; ++i) {
      const std::string b = p + "blocks." + std::to_string(i) + ".";
      MptBlock blk;
      blk.norm_1 = LayerNorm::load(w, b + "norm_1", H, c.norm_eps, bias);
      blk.wqkv = Linear::load(w, b + "attn.Wqkv", H, 3 * H, bias);
      blk.out_proj = Linear::load(w, b + "attn.out_proj", H, H, bias);
      blk.norm_2 = LayerNorm::load(w, b + "norm_2", H, c.norm_eps, bias);
      blk.ffn.w1 = Linear::load(w, b + "ffn.up_proj", H, F, bias);
      blk.ffn.w2 = Linear::load(w, b + "ffn.down_proj", F, H, bias);
      blk.ffn.act = Activation::Gelu;
      blocks_.push_back(std::move(blk));
    }
    norm_f_ = LayerNorm::load(w, p + "norm_f", H, c.norm_eps, bias);
    AlibiParams alibi;
    alibi.slopes = AlibiSlopes::Mpt;
    // Transformers 4.34.1 builds the slopes with alibi_bias_max = 8 whatever attn_config says (MptModel
    // never passes the config value to build_mpt_alibi_tensor); relpos matches the reference.
    alibi.mpt_bias_max = 8.0f;
    scheme_ = make_scheme(alibi);
  }

 private:
  int max_sequence() const override { return cfg_.max_position_embeddings; }

  void run(const Run& r) override {
    const int H = cfg_.hidden_size, rows = r.rows(), d = cfg_.head_dim;
    const std::size_t n = static_cast<std::size_t>(rows) * H;
    float* h = grow(h_, n);
    float* x = grow(x_, n);
    float* qkv = grow(qkv_, 3 * n);
    float* ctx = grow(ctx_, n);
    gather_rows(rows, r.ids, wte_, cfg_.vocab_size, H, h);
    const std::size_t row3 = 3 * static_cast<std::size_t>(H), hs = static_cast<std::size_t>(d);
    for (const auto& b : blocks_) {
      r.record_hidden(h, H);
      b.norm_1.forward(rows, h, x);
      b.wqkv.forward(rows, x, qkv);
      multi_head_attention(r.batch, r.seq, cfg_.num_heads, cfg_.num_heads, d, {qkv, row3, hs}, {qkv + H, row3, hs},
                           {qkv + 2 * H, row3, hs}, r.key_mask, true, *scheme_, r.attention_probs(cfg_.num_heads), ctx,
                           attention_);
      b.out_proj.forward(rows, ctx, x);
      add_inplace(n, h, x);
      b.norm_2.forward(rows, h, x);
      float* ffs = grow(ff_, b.ffn.scratch_floats(rows));
      b.ffn.forward(rows, x, x, ffs);
      add_inplace(n, h, x);
    }
    norm_f_.forward(rows, h, h);
    r.record_hidden(h, H);
    r.set_last_hidden(h, H);
  }

  EmbeddingTable wte_;
  std::vector<MptBlock> blocks_;
  LayerNorm norm_f_;
  std::unique_ptr<Scheme> scheme_;
  std::vector<float> h_, x_, qkv_, ctx_, ff_;
  AttentionScratch attention_;
};

}  // namespace

std::unique_ptr<Model> make_mpt(const ModelConfig& c, const Weights& w) { return std::make_unique<Mpt>(c, w); }

}  // namespace relpos::models
