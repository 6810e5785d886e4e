// Every position scheme relpos offers, as a parameter struct and a factory.
// Tables are non-owning row-major float32 pointers that must outlive the attention call.
// Each scheme's formula, shapes and sign convention open its file in cpp/src/schemes/.
//
// Logit terms reported with AttentionOutputs::terms, after "content" (scaled q·k):
//   Shaw "relative_key" · BERT relative "relative_key" (+ "relative_query" for key_query) ·
//   Huang "relative" · Transformer-XL "content_bias" (u·k), "position" · T5 "bias" · TUPE "position" ·
//   DeBERTa "c2p", "p2c" (the enabled ones) · ALiBi "bias" · none and the q/k/v-rewriting schemes
//   (absolute, MLP, RoPE): none. Values at masked (i, j) are unspecified.
#pragma once

#include <memory>

#include "relpos/scheme.h"

namespace relpos {

// 1. none — plain attention; identical tokens get identical outputs.
struct NoneParams {};

// 2. absolute sinusoidal (Vaswani et al.). PE[p] has head_dim entries, added to q, k and v of
//    position p (as if added to the embeddings under identity projections).
enum class SinusoidLayout {
  Interleaved,   // PE[p, 2i] = sin(p·ω_i), PE[p, 2i+1] = cos(p·ω_i)      (Vaswani; DistilBERT)
  Concatenated,  // PE[p, i] = sin(p·ω_i), PE[p, d/2 + i] = cos(p·ω_i)    (tensor2tensor; Transformer-XL)
};
struct SinusoidalAbsoluteParams {
  SinusoidLayout layout = SinusoidLayout::Interleaved;
  float base = 10000.0f;  // ω_i = base^(−2i/d)
};

// 3. learned absolute (BERT): table[p] added to q, k, v of position p. RangeError past table_rows.
struct LearnedAbsoluteParams {
  const float* table = nullptr;  // [table_rows, head_dim]
  int table_rows = 0;
};

// 4. learned MLP position encoder (d2l 11.6): e(p) = W2 · relu(W1 · f(p) + b1) + b2, added to q, k, v.
//    f(p) = [p] when feature_dim == 1, else the interleaved sinusoid of p with feature_dim entries.
struct MlpPositionParams {
  int feature_dim = 1;
  int hidden = 0;
  const float* w1 = nullptr;  // [hidden, feature_dim]
  const float* b1 = nullptr;  // [hidden]
  const float* w2 = nullptr;  // [head_dim, hidden]
  const float* b2 = nullptr;  // [head_dim]
};

// 5. Shaw et al. relative representations, d = clip(j − i, −k, k), row d + k of the tables.
//    logit += q_i · aK[d] / sqrt(head_dim);  out_i += Σ_j p_ij aV[d]. Shared across heads.
struct ShawParams {
  int max_distance = 0;             // k ≥ 1
  const float* key_table = nullptr;    // [2k+1, head_dim]
  const float* value_table = nullptr;  // [2k+1, head_dim] or nullptr (keys only)
};

// 6. BERT relative_key / relative_key_query: row i − j + M − 1 of a [2M − 1, head_dim] table;
//    logit = (q_i·k_j + q_i·E[i−j] (+ k_j·E[i−j] for key_query)) / sqrt(head_dim). seq ≤ M.
struct BertRelativeParams {
  int max_positions = 0;  // M
  bool key_query = false;
  const float* table = nullptr;  // [2M − 1, head_dim]
};

// 7. Huang et al. memory-efficient relative attention: S_rel = skew(Q Eᵀ), E row (j − i) + L − 1
//    for the L = seq in use; logit = (q·k + S_rel) / sqrt(head_dim). E learned (table with
//    max_distance m: distances clipped to ±m, [2m + 1, head_dim]) or, when table == nullptr,
//    the Concatenated sinusoid of the distance (unbounded).
struct HuangRelativeParams {
  int max_distance = 0;
  const float* table = nullptr;
};

// 8. Transformer-XL: logit = ((q_i + u)·k_j + (q_i + v)·(W_kR R_{i−j})) / sqrt(head_dim),
//    R_r the Concatenated sinusoid (d_model entries) of r = i − j clamped to [−clamp_len, clamp_len]
//    (no clamp when clamp_len ≤ 0). Used causal in the paper; bidirectional is allowed.
struct TransformerXLParams {
  int d_model = 0;
  int clamp_len = 0;
  const float* u = nullptr;     // [heads, head_dim]  (r_w_bias)
  const float* v = nullptr;     // [heads, head_dim]  (r_r_bias)
  const float* w_kr = nullptr;  // [heads · head_dim, d_model]  (r_net weight, y = W x)
};

// 9. T5 relative bias: logit = q_i·k_j + bias[bucket(j − i), head]; no 1/sqrt(d) scaling.
//    MPNet: scale_content → logit = q_i·k_j / sqrt(head_dim) + bias[bucket(j − i), head].
struct T5Params {
  int num_buckets = 32;
  int max_distance = 128;
  bool bidirectional = true;
  const float* bias_table = nullptr;  // [table_rows, heads] (as HF stores relative_attention_bias)
  int table_rows = 0;                 // rows of bias_table (≥ num_buckets); 0 = num_buckets
  bool scale_content = false;         // true: q·k scaled by 1/sqrt(head_dim) before the bias (MPNet)
};

// 10. separate content/position projections (TUPE): logit = (q_i·k_j + (p_i U_q)·(p_j U_k)) / sqrt(2·head_dim).
struct TupeParams {
  const float* positions = nullptr;  // [table_rows, pos_dim] absolute position embeddings
  int table_rows = 0;
  int pos_dim = 0;
  const float* u_q = nullptr;  // [heads · head_dim, pos_dim]  (y = U x)
  const float* u_k = nullptr;  // [heads · head_dim, pos_dim]
};

// 11. DeBERTa disentangled attention. r(i, j) = bucket(i − j) (log buckets when position_buckets > 0),
//     span = position_buckets > 0 ? position_buckets : max_relative_positions;
//     c2p = q_i · Kr[clamp(r(i,j) + span, 0, 2span−1)],  p2c = k_j · Qr[clamp(−r(j,i) + span, 0, 2span−1)];
//     logit = (q·k + c2p + p2c) / sqrt(head_dim · (1 + #terms)).
struct DebertaParams {
  bool c2p = true;
  bool p2c = true;
  int position_buckets = 256;       // ≤ 0: no log bucketing
  int max_relative_positions = 512;
  const float* pos_key = nullptr;    // [heads, 2·span, head_dim]  projected Kr (needed for c2p)
  const float* pos_query = nullptr;  // [heads, 2·span, head_dim]  projected Qr (needed for p2c)
};

// 12. RoPE: rotate (q, k) of position p by angles p·θ^(−2i/rotary_dim).
enum class RopeLayout { Interleaved /* pairs (2i, 2i+1): RoFormer */, Half /* (i, i + d/2): LLaMA */ };
struct RopeParams {
  RopeLayout layout = RopeLayout::Half;
  float theta = 10000.0f;
  int rotary_dim = 0;  // 0 = head_dim; must be even and ≤ head_dim
  float content_scale = 0.0f;  // logit scale of q'·k'; 0 = 1/sqrt(head_dim) (Gemma3: query_pre_attn_scalar^−½)
};

// 13. ALiBi: logit = q·k / sqrt(d) + m_h · (j − i)   (symmetric: − m_h · |i − j|).
enum class AlibiSlopes { Bloom, Mpt, Custom };
struct AlibiParams {
  AlibiSlopes slopes = AlibiSlopes::Bloom;
  float mpt_bias_max = 8.0f;
  const float* custom = nullptr;  // [heads] when slopes == Custom
  bool symmetric = false;
};

std::unique_ptr<Scheme> make_scheme(const NoneParams&);
std::unique_ptr<Scheme> make_scheme(const SinusoidalAbsoluteParams&);
std::unique_ptr<Scheme> make_scheme(const LearnedAbsoluteParams&);
std::unique_ptr<Scheme> make_scheme(const MlpPositionParams&);
std::unique_ptr<Scheme> make_scheme(const ShawParams&);
std::unique_ptr<Scheme> make_scheme(const BertRelativeParams&);
std::unique_ptr<Scheme> make_scheme(const HuangRelativeParams&);
std::unique_ptr<Scheme> make_scheme(const TransformerXLParams&);
std::unique_ptr<Scheme> make_scheme(const T5Params&);
std::unique_ptr<Scheme> make_scheme(const TupeParams&);
std::unique_ptr<Scheme> make_scheme(const DebertaParams&);
std::unique_ptr<Scheme> make_scheme(const RopeParams&);
std::unique_ptr<Scheme> make_scheme(const AlibiParams&);

}  // namespace relpos
