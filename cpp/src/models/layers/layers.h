// Layers shared by every model family, written once. Row-major float32; "rows" = tokens (B·L).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "models/layers/linear_q8.h"
#include "profile/profile.h"  // RELPOS_PROFILE_SCOPE / _LAYER: bench-only timers, nothing unless RELPOS_PROFILE
#include "relpos/attention.h"
#include "relpos/weights.h"

namespace relpos {
class Scheme;
}

namespace relpos::models {

// ---- weights -----------------------------------------------------------------------------------
// Reads tensor `name` as float32 and checks its shape; Error names the file, tensor and both shapes.
std::vector<float> load_tensor(const Weights& weights, const std::string& name, const std::vector<std::int64_t>& shape);
// load_tensor's check alone (missing tensor or another shape → Error), without reading the values.
void check_tensor_shape(const Weights& weights, const std::string& name, const std::vector<std::int64_t>& shape);

// ---- Linear: y[rows, out] = x[rows, in] · Wᵀ + b,  W [out, in] as nn.Linear stores it ----------
// W is packed once (kernels::pack_b_nk) so every forward is one packed GEMM plus a bias pass; loaded
// under LoadOptions::dtype = Q8 (models/layers/load_context.h), W is held as int8 (QuantizedMatrix).
class Linear {
 public:
  Linear() = default;
  Linear(int in, int out, const float* weight, const float* bias);  // bias may be null
  // Loads `<prefix>.weight` [out, in] and, when with_bias, `<prefix>.bias` [out]; quantized when the
  // load's options ask for q8.
  static Linear load(const Weights& weights, const std::string& prefix, int in, int out, bool with_bias);
  void forward(int rows, const float* x, float* y) const;
  // ys[i] = x · layers[i]'s Wᵀ + b for `count` layers of the same `in` (a layer's Q, K and V): one parallel
  // region for all when their weights are float32 on the CPU (gemm_packed_parallel_group; the same bits as one
  // forward each, which is what q8, released weights and plan recording get).
  static void forward_group(int rows, const float* x, const Linear* const* layers, float* const* ys, int count);
  // W [out, in] as float32 (unpacked from the GEMM panels) and the bias ([out] or empty), for the
  // GPU plan (plan/plan.h); Error for int8 weights.
  std::vector<float> weight_f32() const;
  const std::vector<float>& bias() const { return bias_; }
  // The int8 weights when loaded as q8 (for the GPU plan's q8 layout), else null.
  const QuantizedMatrix* q8() const { return q8_.empty() ? nullptr : &q8_; }
  int in() const { return in_; }
  int out() const { return out_; }
  // Frees the weights' storage once a GPU executor holds its own copy (web/model.js after the upload): shape, bias
  // and q8-ness stay, so plans still record; a CPU forward or a request for the values is then an Error. Returns the
  // bytes freed.
  std::size_t release_weights();
  bool released() const { return released_; }
  // ≥ 0: loaded straight to the GPU (streamed_checkpoint.h, WeightSink) under this id; it was never held here.
  int gpu_buffer() const { return gpu_; }
  // While a plan is recorded: the float table a scheme names by `key` is this layer applied to x [rows, in], laid out
  // per head ([heads, rows, out / heads]), for the plan's executor to compute (plan::Recorder::derive); a no-op
  // otherwise. For a layer whose weights went to the GPU (DeBERTa's relative-embedding projections).
  void derive_per_head(const float* key, int rows, const float* x, int heads) const;

 private:
  bool released_ = false;
  int gpu_ = -1;
  int in_ = 0, out_ = 0;
  std::vector<float> packed_;
  std::vector<float> bias_;
  QuantizedMatrix q8_;  // non-empty: the weights are int8 and packed_ is empty
};

// ---- norms -------------------------------------------------------------------------------------
// LayerNorm over the last dim: y = (x − mean) / sqrt(var + eps) · gamma + beta  (var biased;
// beta empty = no bias, as MPT). x == y allowed. Statistics accumulate in double.
struct LayerNorm {
  std::vector<float> gamma, beta;
  float eps = 1e-5f;
  static LayerNorm load(const Weights& weights, const std::string& prefix, int dim, float eps, bool with_bias = true);
  void forward(int rows, const float* x, float* y) const;
};

// RMS norm (T5LayerNorm, LlamaRMSNorm): y = x / sqrt(mean(x²) + eps) · weight. x == y allowed.
// load_unit_offset (Gemma3RMSNorm): the checkpoint stores w and the gain is (1 + w), added once in float32
// at load as Gemma computes it. Rows may be heads: forward(rows · heads, …) with dim = head_dim normalises
// each head of a [rows, heads · head_dim] tensor (Qwen3's and Gemma3's q_norm / k_norm).
struct RmsNorm {
  std::vector<float> weight;
  float eps = 1e-6f;
  static RmsNorm load(const Weights& weights, const std::string& name, int dim, float eps);
  static RmsNorm load_unit_offset(const Weights& weights, const std::string& name, int dim, float eps);
  void forward(int rows, const float* x, float* y) const;
};

// ---- activations (in place over n floats) -----------------------------------------------------
//   relu(x) = max(x, 0);  gelu(x) = x/2 · (1 + erf(x/√2));  silu(x) = x · sigmoid(x);
//   gelu_new / gelu_pytorch_tanh / bloom gelu: x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³)));
//   tanh (std::tanh; BERT's pooler, not a hidden_act parse_activation accepts).
enum class Activation { Relu, Gelu, GeluTanh, Silu, Tanh };
Activation parse_activation(const std::string& hf_name);  // Error for an unsupported name
void activate(Activation act, std::size_t n, float* x);
// GLU over pairs of halves: y[r, j] = act(a[r, j]) · a[r, I + j] for r < rows, j < I; a [rows, 2I] is
// scratch (the CPU overwrites its first half with act of it). ModernBERT's GeGLU.
void glu_pairs(Activation act, int rows, int I, float* a, float* y);

// ---- feed-forward -----------------------------------------------------------------------------
// Plain:  y = W2 · act(W1 x + b1) + b2;   gated: y = W2 · (act(Wg x) ⊙ (Wu x))  (T5 gated-gelu, LLaMA);
// fused:  [u | g] = W1 x + b1 (W1 [2I, in]),  y = W2 · (act(u) ⊙ g) + b2  (glu_pairs; JinaBERT v2's gated_layers).
struct FeedForward {
  Linear w1, gate, w2;  // gate unused unless gated; when gated, w1 is the "up"/linear half
  bool gated = false;
  bool fused = false;  // w1 holds both halves, [act half | linear half]
  Activation act = Activation::Relu;
  // x [rows, in] → y [rows, out]; scratch needs 2 · rows · hidden floats.
  void forward(int rows, const float* x, float* y, float* scratch) const;
  std::size_t scratch_floats(int rows) const;
};

// ---- multi-head attention over token-major projections -------------------------------------------
// View of per-token projections: element (b, l, h, e) at data[(b·L + l)·row_stride + h·head_stride + e].
struct HeadsView {
  const float* data = nullptr;
  std::size_t row_stride = 0;
  std::size_t head_stride = 0;
};

// Grow-only scratch for attention: head-major copies of q/k/v/context and relpos's Workspace.
struct AttentionScratch {
  std::vector<float> q, k, v, ctx;
  Workspace workspace;
};

// Gathers q/k/v into [B, heads, L, d] (k/v head h read from kv head h / (heads / kv_heads)), runs
// relpos::attention with `scheme`, and writes the context token-major into ctx [B·L, heads·d].
// probs: [B, heads, L, L] or null. window ≥ 0: query i attends keys |i − j| ≤ window only (AttentionInputs).
void multi_head_attention(int batch, int seq, int heads, int kv_heads, int head_dim, const HeadsView& q,
                          const HeadsView& k, const HeadsView& v, const std::uint8_t* key_mask, bool causal,
                          const Scheme& scheme, float* probs, float* ctx, AttentionScratch& scratch, int window = -1);

// ---- post-LN encoder layer (BERT, RoFormer, DeBERTa-v2, DistilBERT, JinaBERT v2) ------------------
//   a = LN_attn(h + W_o · MHA_scheme(W_q h, W_k h, W_v h));   h' = LN_ff(a + FF(a))
// The CPU runs FF over blocks of at most kPostLnFfRows rows (its scratch is rows × 2·FF width, large for long
// documents); a recorded plan takes every row at once. Rows are independent, so blocks change no value.
// Shapes: h [B·L, H], heads · head_dim = H, FF hidden = intermediate.
struct PostLnNames {
  std::string q, k, v, o, ln_attn, ff_in, ff_out, ln_ff;  // relative to the layer prefix
};
struct PostLnScratch {
  std::vector<float> q, k, v, ctx, a, ff;
  AttentionScratch attention;
};
struct PostLnLayer {
  Linear q, k, v, o;
  LayerNorm ln_attn, ln_ff;
  FeedForward ff;
  int heads = 0, head_dim = 0;
  static PostLnLayer load(const Weights& weights, const std::string& prefix, const PostLnNames& names, int hidden,
                          int heads, int intermediate, Activation act, float eps);
  // The attention half alone (q, k, v, o with biases, ln_attn, heads): a family with another feed-forward
  // (JinaBERT v2's fused GLU) sets ff and ln_ff itself.
  static PostLnLayer load_attention(const Weights& weights, const std::string& prefix, const PostLnNames& names,
                                    int hidden, int heads, float eps);
  void forward(int batch, int seq, float* h, const std::uint8_t* key_mask, const Scheme& scheme, float* probs,
               PostLnScratch& s) const;
};

// ---- first-token pooler (BERT, MPNet): pooled[b] = tanh(W · h[b, 0] + bias) ---------------------
struct FirstTokenPooler {
  Linear dense;  // [H, H] with bias
  static FirstTokenPooler load(const Weights& weights, const std::string& prefix, int hidden);
  // h [batch·seq, H] → [batch, H] in scratch (grown, reused across calls); returns its start.
  const float* forward(int batch, int seq, const float* h, std::vector<float>& scratch) const;
};

// ---- helpers -------------------------------------------------------------------------------------
// x[i] += y[i] for i < n.
void add_inplace(std::size_t n, float* x, const float* y);
// out[b, :] = x[b·seq, :] for b < batch: the first token's row of each sequence (x [batch·seq, width]).
void first_token_rows(int batch, int seq, int width, const float* x, float* out);
// x[r, :] = 0 for r < rows where key_mask[r] == 0 (DeBERTa's embeddings · attention mask).
void zero_masked_rows(int rows, int width, const std::uint8_t* key_mask, float* x);
// out[i, :] = x[rows[i], :] for i < count, x [limit, width]: a masked-LM head's rows at the asked
// positions; RangeError when rows[i] is outside [0, limit). A plan reads rows from its "positions" input.
void select_rows(int count, const std::int32_t* rows, int limit, int width, const float* x, float* out);
// Mean over each sequence's real tokens: out[b, c] = Σ_l m[b, l]·x[b·seq + l, c] / Σ_l m[b, l], summed in
// double in l order (m = mask ≠ 0, all 1 when mask is null); Error when a sequence has no real token.
void mean_rows(int batch, int seq, int width, const float* x, const std::uint8_t* mask, float* out);
// x[i] *= y[i] for i < n (a gated feed-forward's product).
void multiply_inplace(std::size_t n, float* x, const float* y);
// out[r, :] = table[ids[r], :] for r < rows; RangeError if an id is outside [0, vocab).
void gather_rows(int rows, const std::int32_t* ids, const std::vector<float>& table, int vocab, int dim, float* out);

}  // namespace relpos::models
