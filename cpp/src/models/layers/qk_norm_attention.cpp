// QkNormAttention (qk_norm_attention.h): projections, per-head RMS norms, multi_head_attention, o_proj.
#include "models/layers/qk_norm_attention.h"

#include "models/model_base.h"

namespace relpos::models {

QkNormAttention QkNormAttention::load(const Weights& w, const std::string& p, int hidden, int heads, int kv_heads,
                                      int head_dim, float eps, bool bias, bool unit_offset_norms) {
  QkNormAttention a;
  a.heads = heads;
  a.kv_heads = kv_heads;
  a.head_dim = head_dim;
  const int qw = heads * head_dim, kvw = kv_heads * head_dim;
  a.q = Linear::load(w, p + "q_proj", hidden, qw, bias);
  a.k = Linear::load(w, p + "k_proj", hidden, kvw, bias);
  a.v = Linear::load(w, p + "v_proj", hidden, kvw, bias);
  a.o = Linear::load(w, p + "o_proj", qw, hidden, bias);
  const auto norm = unit_offset_norms ? &RmsNorm::load_unit_offset : &RmsNorm::load;
  a.q_norm = norm(w, p + "q_norm.weight", head_dim, eps);
  a.k_norm = norm(w, p + "k_norm.weight", head_dim, eps);
  return a;
}

void QkNormAttention::forward(int batch, int seq, const float* x, const std::uint8_t* key_mask, bool causal, int window,
                              const Scheme& scheme, float* probs, float* out, Scratch& s) const {
  const int rows = batch * seq, d = head_dim;
  const std::size_t qw = static_cast<std::size_t>(heads) * d, kvw = static_cast<std::size_t>(kv_heads) * d;
  float* q = grow(s.q, rows * qw);
  float* k = grow(s.k, rows * kvw);
  float* v = grow(s.v, rows * kvw);
  float* ctx = grow(s.ctx, rows * qw);
  this->q.forward(rows, x, q);
  this->k.forward(rows, x, k);
  this->v.forward(rows, x, v);
  q_norm.forward(rows * heads, q, q);
  k_norm.forward(rows * kv_heads, k, k);
  const std::size_t hs = static_cast<std::size_t>(d);
  multi_head_attention(batch, seq, heads, kv_heads, d, {q, qw, hs}, {k, kvw, hs}, {v, kvw, hs}, key_mask, causal, scheme,
                       probs, ctx, s.attention, window);
  o.forward(rows, ctx, out);
}

}  // namespace relpos::models
