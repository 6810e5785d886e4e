// relpos training core: a tiny encoder with a per-position classification head, forward and
// backward, over the inference library's SIMD layer (kernels/simd.h, gemm_f32, softmax pieces) and
// thread layer (parallel_for: chunks fixed by (begin, end, grain), so every result — losses, gradients,
// parameters — is bitwise identical for any thread count).
//
// Model (B sequences of length L, N = B·L rows, d = model width, H heads of dh = d/H, F = 4d):
//   x⁰_p = E[t_p] (+ PE[p] for sinusoidal / learned absolute positions)
//   post-LN layer:  a = LN₁(x + Attn(x));          x' = LN₂(a + MLP(a))
//   pre-LN layer:   a = x + Attn(LN₁(x));          x' = a + MLP(LN₂(a));  after the last layer LN_f
//   Attn(x) = concat_h(softmax(S_h)·V_h (+ Shaw values)) · Woᵀ + bo,  Q = x·Wqᵀ + bq (same K, V)
//   S_h(i, j) = (q_i·k_j)/√dh + position term (below); masked (−inf) when causal and j > i
//   MLP(x) = GELU(x·W1ᵀ + b1)·W2ᵀ + b2,  GELU(u) = u/2·(1 + erf(u/√2))
//   logits = x_final·Whᵀ + bh  [N, C];  loss = mean over labelled rows (label ≥ 0) of −log softmax(logits)[label]
// Position schemes (distance convention d = j − i, key − query, as cpp/src/schemes):
//   none                   no position information
//   sinusoidal             PE[p, 2i] = sin(p·ω_i), PE[p, 2i+1] = cos(p·ω_i), ω_i = 10000^(−2i/d), added to x⁰
//   learned                PE = trained table [max_len, d] added to x⁰ (rows never seen in training keep their init)
//   alibi                  S += m_h·(j − i) when causal, −m_h·|j − i| when bidirectional; m_h = 2^(−8(h+1)/H), fixed
//   t5                     S += T_l[bucket(j − i), h], T_l [num_buckets, H] per layer (relpos::t5_relative_bucket,
//                          bidirectional = !causal); no extra scaling of the bias
//   rope                   q_p, k_p rotated by R(p) (interleaved pairs (2i, 2i+1), θ = 10000) before the dot product
//   shaw                   c = clip(j − i, −k, k) + k;  S += q_i·aK_l[c]/√dh;  out_i += Σ_j p_ij aV_l[c]
//                          (aV only when shaw_values); aK_l, aV_l [2k+1, dh] per layer, shared by heads
//   deberta                DeBERTa-v3 disentangled attention (c2p + p2c, shared projections, log buckets):
//                          c = clamp(bucket(i − j) + s, 0, 2s − 1), bucket = relpos::deberta_relative_position
//                          (r = query − key, position_buckets = s, max_relative_positions = deberta_max_rel);
//                          Kr = R_l·Wkᵀ + bk, Qr = R_l·Wqᵀ + bq (R_l [2s, d] per layer, head h = columns h·dh…);
//                          S(i, j) = (q_i·k_j + q_i·Kr_h[c] + k_j·Qr_h[c]) / √(3·dh)  (HF's scale_factor 3).
//                          Unlike HF, R_l is not LayerNorm'd (norm_rel_ebd) — a plain learned table.
// Parameters live in one flat float vector (offsets in ParamLayout) so the optimiser is one loop.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace relpos::train {

enum class PositionScheme { None, Sinusoidal, Learned, Alibi, T5, Rope, Shaw, Deberta };

const char* scheme_name(PositionScheme s);
// Parses "none", "sinusoidal", "learned", "alibi", "t5", "rope", "shaw"; throws std::invalid_argument.
PositionScheme parse_scheme(const std::string& name);  // also "deberta"

struct ModelConfig {
  int vocab = 8;         // input tokens
  int classes = 8;       // output classes of the per-position head
  int d_model = 64;
  int heads = 4;
  int layers = 2;
  int ff_mult = 4;       // F = ff_mult · d_model
  bool pre_ln = true;
  bool causal = true;
  PositionScheme scheme = PositionScheme::None;
  int max_len = 256;     // longest sequence (learned table rows; RoPE tables)
  int shaw_k = 8;        // Shaw clipping distance
  bool shaw_values = true;
  int t5_buckets = 32;
  int t5_max_distance = 128;
  int deberta_buckets = 16;   // position_buckets = span s (table rows 2s)
  int deberta_max_rel = 64;   // max_relative_positions
};

// Offsets (in floats) of each tensor in the flat parameter vector; −1 when absent.
struct LayerOffsets {
  long ln1_g, ln1_b, wq, bq, wk, bk, wv, bv, wo, bo, ln2_g, ln2_b, w1, b1, w2, b2;
  long t5_table, shaw_k_table, shaw_v_table, deberta_rel;
};
struct ParamLayout {
  long embed = -1, pos_table = -1, lnf_g = -1, lnf_b = -1, head_w = -1, head_b = -1;
  std::vector<LayerOffsets> layers;
  long total = 0;
  // Named tensors (name, offset, size) in layout order, for gradient checks and reports.
  struct Tensor { std::string name; long offset; long size; bool decay; };
  std::vector<Tensor> tensors;
};

ParamLayout make_layout(const ModelConfig& c);

// Deterministic init from a seed: matrices, embeddings, position tables (learned, T5, Shaw, DeBERTa)
// N(0, 0.02²) (Box–Muller normals from
// a splitmix64 stream, drawn in layout order), biases 0, LayerNorm gains 1, T5 and Shaw tables N(0, 0.02²).
void init_params(const ModelConfig& c, const ParamLayout& layout, std::uint64_t seed, std::vector<float>& params);

// A batch: tokens [B, L] and labels [B, L] (label −1 = no loss at that position).
struct Batch {
  int batch = 0, len = 0;
  std::vector<std::int32_t> tokens, labels;
};

// Forward + backward workspace for one (B ≤ max_batch, L ≤ max_len_ws) shape. All activations and
// scratch are allocated by the constructor; forward/backward allocate nothing.
class Trainer {
 public:
  Trainer(const ModelConfig& c, int max_batch, int max_len_ws);

  const ModelConfig& config() const { return c_; }
  const ParamLayout& layout() const { return layout_; }

  // Forward pass; returns the mean cross-entropy over labelled rows (0 when none) and keeps the
  // activations for backward. params: [layout().total].
  double forward(const std::vector<float>& params, const Batch& batch);
  // Backward of the last forward: grads ([layout().total]) is overwritten with dloss/dparams.
  void backward(const std::vector<float>& params, const Batch& batch, std::vector<float>& grads);
  // Predicted class per position of the last forward ([B·L]) and accuracy over labelled rows.
  double accuracy(const Batch& batch) const;
  // Argmax class of every row of the last forward into out ([B·L], resized).
  void predictions(std::vector<std::int32_t>& out) const;
  // Attention probabilities of layer `layer` kept by the last forward (B, L of that forward):
  // [B, H, L, L] packed at the last forward's L (row = query i, column = key j, 0 where masked).
  // Only the first B·H·L·L floats are meaningful (the buffer is sized for the workspace).
  const float* attention_probs(int layer) const { return acts_.at(layer).probs.data(); }
  int last_batch() const { return lastB_; }
  int last_len() const { return lastL_; }

  // Multiply–add FLOPs (2 per multiply–add) of one forward pass at (B, L): the linear layers, Q·Kᵀ,
  // P·V and the Shaw terms; element-wise work (LayerNorm, GELU, softmax) is not counted.
  double forward_flops(int B, int L) const;
  // Bytes this trainer's workspace holds.
  std::size_t workspace_bytes() const;

 private:
  ModelConfig c_;
  ParamLayout layout_;
  int maxB_, maxL_;
  int d_, H_, dh_, F_;
  // Activations (rows N = B·L).
  std::vector<float> x0_;                                  // embedding output [N, d]
  struct LayerActs {
    std::vector<float> in, ln1, ln1_mean, ln1_rstd, q, k, v, probs, ctx, attn_out, res1, ln2, ln2_mean, ln2_rstd, h1, h1g, mlp_out, out;
    std::vector<float> kr, qr;  // DeBERTa projected relative tables [2s, d]
  };
  std::vector<LayerActs> acts_;
  std::vector<float> final_, lnf_mean_, lnf_rstd_, logits_, probs_out_;
  // Backward scratch.
  std::vector<float> dx_, dtmp_, dq_, dk_, dv_, dctx_, dh1_, dlogits_, dmid_;
  std::vector<float> packed_, transposed_;
  std::vector<float> table_partials_;                       // per (b, h) partial grads of T5 / Shaw tables
  std::vector<float> row_scratch_;                          // per thread: [maxL] dP row
  std::vector<float> rope_cos_, rope_sin_, sinusoid_;        // [maxL, dh/2], [maxL, dh/2], [maxL, d]
  std::vector<std::int32_t> t5_bucket_;                    // bucket of distance δ at [δ + maxL − 1]
  std::vector<std::int32_t> deb_index_;                    // DeBERTa c of distance δ = j − i at [δ + maxL − 1]
  std::vector<float> deb_dkr_, deb_dqr_;                   // [2s, d] gradients of Kr, Qr
  int rel_rows_ = 0;                                       // relative rows per head in scratch (Shaw 2k+1, DeBERTa 2s)
  std::vector<float> alibi_slope_;
  int lastB_ = 0, lastL_ = 0;

  void linear_forward(int N, int in, int out, const float* x, const float* W, const float* b, float* y);
  void linear_backward(int N, int in, int out, const float* x, const float* W, const float* dy, float* dx,
                       bool accumulate_dx, float* dW, float* db);
  void attention_forward(const float* params, const LayerOffsets& o, LayerActs& a, int B, int L);
  void attention_backward(const float* params, const LayerOffsets& o, LayerActs& a, int B, int L, float* grads);
};

}  // namespace relpos::train
