// NomicBERT encoder (NomicBertModel of the model authors' remote code modeling_hf_nomic_bert.py,
// nomic-embed-text v1 / v1.5; config keys in io/model_config.cpp).
//   embeddings  h = emb_ln(word[id] + token_type[tt] (+ position[l] when rotary_emb_fraction = 0))
//   block       post-LN (prenorm = false):
//                 h = norm1(h + out_proj · MHA(Wqkv h))
//                 h = norm2(h + fc2 · (fc11 h ⊙ act(fc12 h)))     gated: swiglu (act = SiLU), geglu (GELU)
//                 h = norm2(h + fc2 · gelu(fc1 h))               plain: gelu, gelu_new, gelu_fast,
//                                                                gelu_pytorch_tanh (all exact erf GELU:
//                                                                the code passes F.gelu for every one)
//               no final norm, no pooler (NomicBertModel.from_pretrained: add_pooling_layer = False).
//   attention   softmax(q·kᵀ / sqrt(d) + mask), bidirectional. Wqkv [3H, H] output rows [0, H) = q,
//               [H, 2H) = k, [2H, 3H) = v, each head-major. Rotary on q and k: RopeParams{Half
//               (rotary_emb_interleaved = false, pairs (j, j + r/2)) | Interleaved (pairs (2j, 2j+1)),
//               θ = rotary_emb_base, rotary_dim r = head_dim · rotary_emb_fraction}: the first r channels
//               of each head rotate by p · θ^(−2j/r), p = 0 … L−1; the rest pass through.
//               rotary_emb_fraction = 0: no rotary, learned absolute positions (scheme none).
//   biases      Wqkv and out_proj: qkv_proj_bias; fc11, fc12 / fc1: mlp_fc1_bias; fc2: mlp_fc2_bias.
// Shapes: H = n_embd, heads · d = H; MLP width I' from the weights (the code rounds n_inner up to a
// multiple of 256 for gated MLPs). Weight names as NomicBertModel saves them; "bert." (NomicBertFor…
// checkpoints) and "model." prefixes are detected.
// Sequence length: with rotary there is no table and no limit (the remote code grows its cos/sin
// cache to any length; past max_trained_positions the model was never trained, but it computes the
// same formula); with learned positions seq ≤ n_positions.
// Refused (relpos::Error naming the field): rotary_scaling_factor (dynamic NTK: the remote code
// rescales θ when the *padded* batch length exceeds max_trained_positions and keeps the new
// frequencies for every later call, so a sequence's output would depend on its padding and on the
// calls before it), prenorm = true (its encoder returns the last MLP output without the residual),
// activation_function "glu" (sigmoid gate), a rotary dim that is not an even whole number ≤ head_dim.
#include <cmath>
#include <string>

#include "models/layers/embedding_table.h"
#include "models/layers/layers.h"
#include "models/model_base.h"
#include "relpos/error.h"
#include "relpos/schemes.h"

namespace relpos::models {
namespace {

struct NomicBlock {
  Linear qkv, out;
  LayerNorm norm1, norm2;
  FeedForward mlp;
};

// Rows of a [rows, cols] weight, checked to have `cols` columns.
int rows_of(const Weights& w, const std::string& name, int cols) {
  if (!w.contains(name)) fail_value(w.file_name() + ": missing tensor '" + name + "'");
  const auto& shape = w.info(name).shape;
  if (shape.size() != 2 || shape[1] != cols || shape[0] < 1 || shape[0] > (1LL << 24))
    fail_value(w.file_name() + ": tensor '" + name + "' must be [intermediate, " + std::to_string(cols) + "]");
  return static_cast<int>(shape[0]);
}

class NomicBert final : public ModelBase {
 public:
  NomicBert(const ModelConfig& c, const Weights& w) : ModelBase(c) {
    const int H = c.hidden_size, d = c.head_dim;
    if (c.prenorm)
      fail_value("nomic_bert: prenorm = true is not supported (only post-LN NomicBERT, as nomic-embed-text "
                 "v1/v1.5 ship it, is implemented)");
    // rotary_emb_dim = head_dim · rotary_emb_fraction, a float in the remote code; > 0 turns rotary on.
    const double rd = static_cast<double>(d) * c.rotary_emb_fraction;
    rotary_ = rd > 0.0;
    if (rotary_) {
      if (rd != std::floor(rd) || static_cast<long long>(rd) % 2 != 0 || rd > d)
        fail_value("nomic_bert: head_dim " + std::to_string(d) + " × rotary_emb_fraction " +
                   std::to_string(c.rotary_emb_fraction) + " must be an even whole number ≤ head_dim (the rotary dim)");
      if (c.has_rotary_scaling_factor)
        fail_value("nomic_bert: rotary_scaling_factor (dynamic NTK) is not supported: the remote code rescales the "
                   "rotary base when the padded batch length exceeds max_trained_positions and keeps the new "
                   "frequencies for later calls, so results would depend on padding and call history; remove the "
                   "field (it is null in nomic-embed-text v1/v1.5)");
    }
    const std::string& act = c.hidden_act;
    const bool gated = act == "swiglu" || act == "geglu";
    if (act == "glu") fail_value("nomic_bert: activation_function 'glu' (sigmoid-gated MLP) is not supported");
    if (!gated && act != "gelu" && act != "gelu_new" && act != "gelu_fast" && act != "gelu_pytorch_tanh")
      fail_value("nomic_bert: unsupported activation_function '" + act +
                 "' (supported: swiglu, geglu, gelu, gelu_new, gelu_fast, gelu_pytorch_tanh)");

    const std::string p = detect_prefix(w, "embeddings.word_embeddings.weight", {"bert.", "model."});
    word_ = EmbeddingTable::load(w, p + "embeddings.word_embeddings.weight", c.vocab_size, H);
    if (c.type_vocab_size > 0) token_type_ = load_tensor(w, p + "embeddings.token_type_embeddings.weight", {c.type_vocab_size, H});
    if (!rotary_ && c.max_position_embeddings > 0)
      position_ = EmbeddingTable::load(w, p + "embeddings.position_embeddings.weight", c.max_position_embeddings, H);
    emb_ln_ = LayerNorm::load(w, p + "emb_ln", H, c.norm_eps);
    for (int i = 0; i < c.num_layers; ++i) {
      const std::string b = p + "encoder.layers." + std::to_string(i) + ".";
      NomicBlock blk;
      blk.qkv = Linear::load(w, b + "attn.Wqkv", H, 3 * H, c.qkv_proj_bias);
      blk.out = Linear::load(w, b + "attn.out_proj", H, H, c.qkv_proj_bias);
      blk.norm1 = LayerNorm::load(w, b + "norm1", H, c.norm_eps);
      blk.norm2 = LayerNorm::load(w, b + "norm2", H, c.norm_eps);
      blk.mlp.gated = gated;
      blk.mlp.act = act == "swiglu" ? Activation::Silu : Activation::Gelu;
      if (gated) {
        const int I = rows_of(w, b + "mlp.fc11.weight", H);
        blk.mlp.w1 = Linear::load(w, b + "mlp.fc11", H, I, c.mlp_fc1_bias);   // value ("up")
        blk.mlp.gate = Linear::load(w, b + "mlp.fc12", H, I, c.mlp_fc1_bias); // through the activation
        blk.mlp.w2 = Linear::load(w, b + "mlp.fc2", I, H, c.mlp_fc2_bias);
      } else {
        const int I = rows_of(w, b + "mlp.fc1.weight", H);
        blk.mlp.w1 = Linear::load(w, b + "mlp.fc1", H, I, c.mlp_fc1_bias);
        blk.mlp.w2 = Linear::load(w, b + "mlp.fc2", I, H, c.mlp_fc2_bias);
      }
      blocks_.push_back(std::move(blk));
    }
    if (rotary_) {
      RopeParams rope;
      rope.layout = c.rotary_emb_interleaved ? RopeLayout::Interleaved : RopeLayout::Half;
      rope.theta = c.rotary_emb_base;
      rope.rotary_dim = static_cast<int>(rd);
      if (!std::isfinite(rope.theta) || rope.theta <= 0.0f)
        fail_value("nomic_bert: rotary_emb_base must be a positive number, got " + std::to_string(c.rotary_emb_base));
      scheme_ = make_scheme(rope);
    } else {
      scheme_ = make_scheme(NoneParams{});
    }
  }

 private:
  int max_sequence() const override { return rotary_ ? 0 : cfg_.max_position_embeddings; }
  const EmbeddingTable* word_embeddings() const override { return &word_; }

  void run(const Run& r) override {
    const int H = cfg_.hidden_size, rows = r.rows(), d = cfg_.head_dim;
    const std::size_t n = static_cast<std::size_t>(rows) * H;
    float* h = grow(h_, n);
    float* x = grow(x_, n);
    float* qkv = grow(qkv_, 3 * n);
    float* ctx = grow(ctx_, n);
    gather_rows(rows, r.ids, word_, word_.rows(), H, h);
    if (!token_type_.empty()) add_token_type_rows(rows, r.token_types, token_type_, H, h);
    if (position_.rows() > 0) add_position_rows(rows, r.seq, position_, h);
    emb_ln_.forward(rows, h, h);
    r.record_hidden(h, H);
    const std::size_t H3 = static_cast<std::size_t>(3) * H, hs = static_cast<std::size_t>(d);
    for (const auto& b : blocks_) {
      b.qkv.forward(rows, h, qkv);
      multi_head_attention(r.batch, r.seq, cfg_.num_heads, cfg_.num_heads, d, {qkv, H3, hs}, {qkv + H, H3, hs},
                           {qkv + 2 * H, H3, hs}, r.key_mask, false, *scheme_, r.attention_probs(cfg_.num_heads), ctx,
                           attention_);
      b.out.forward(rows, ctx, x);
      add_inplace(n, h, x);
      b.norm1.forward(rows, h, h);
      float* ffs = grow(ff_, b.mlp.scratch_floats(rows));
      b.mlp.forward(rows, h, x, ffs);
      add_inplace(n, h, x);
      b.norm2.forward(rows, h, h);
      r.record_hidden(h, H);
    }
    r.set_last_hidden(h, H);
  }

  bool rotary_ = false;
  EmbeddingTable word_, position_;
  std::vector<float> token_type_;
  LayerNorm emb_ln_;
  std::vector<NomicBlock> blocks_;
  std::unique_ptr<Scheme> scheme_;
  std::vector<float> h_, x_, qkv_, ctx_, ff_;
  AttentionScratch attention_;
};

}  // namespace

std::unique_ptr<Model> make_nomic_bert(const ModelConfig& c, const Weights& w) { return std::make_unique<NomicBert>(c, w); }

}  // namespace relpos::models
