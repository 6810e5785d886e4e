// Grouped-query self-attention with per-head q/k RMS norms (Qwen3Attention, Gemma3Attention), written once:
//   q = q_norm(q_proj x) per head,  k = k_norm(k_proj x) per head,  v = v_proj x
//   ctx = attention_scheme(q, k, v) (RoPE in the scheme; query head h reads kv head h / (heads / kv_heads))
//   out = o_proj ctx
// q_norm / k_norm: one [head_dim] weight shared by every head (Qwen3: × w; Gemma3: × (1 + w)).
// Shapes: q_proj [heads·d, H], k_proj / v_proj [kv_heads·d, H], o_proj [H, heads·d] (d = config head_dim,
// not H / heads); biases iff attention_bias. Weight names under `prefix` ("model.layers.N.self_attn.").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/layers/layers.h"

namespace relpos::models {

struct QkNormAttention {
  Linear q, k, v, o;
  RmsNorm q_norm, k_norm;
  int heads = 0, kv_heads = 0, head_dim = 0;

  struct Scratch {
    std::vector<float> q, k, v, ctx;
    AttentionScratch attention;
  };

  static QkNormAttention load(const Weights& weights, const std::string& prefix, int hidden, int heads, int kv_heads,
                              int head_dim, float eps, bool bias, bool unit_offset_norms);
  // x [B·L, H] → out [B·L, H]; window ≥ 0: keys |i − j| ≤ window only (with causal: i − window ≤ j ≤ i).
  void forward(int batch, int seq, const float* x, const std::uint8_t* key_mask, bool causal, int window,
               const Scheme& scheme, float* probs, float* out, Scratch& s) const;
};

}  // namespace relpos::models
