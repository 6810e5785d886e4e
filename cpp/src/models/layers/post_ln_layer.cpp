// Post-LN transformer encoder layer (BERT family):
//   a  = LayerNorm_attn(h + W_o · MHA_scheme(W_q h + b_q, W_k h + b_k, W_v h + b_v) + b_o)
//   h' = LayerNorm_ff(a + W_2 · act(W_1 a + b_1) + b_2)
// h [B·L, H] is updated in place; probs [B, heads, L, L] optional.
#include <algorithm>

#include "models/layers/layers.h"
#include "models/model_base.h"
#include "plan/plan.h"

namespace relpos::models {

namespace {
constexpr int kPostLnFfRows = 256;  // fixed (never by thread count), large enough for full GEMM tiles
}  // namespace

PostLnLayer PostLnLayer::load_attention(const Weights& w, const std::string& p, const PostLnNames& n, int hidden,
                                        int heads, float eps) {
  PostLnLayer l;
  l.q = Linear::load(w, p + n.q, hidden, hidden, true);
  l.k = Linear::load(w, p + n.k, hidden, hidden, true);
  l.v = Linear::load(w, p + n.v, hidden, hidden, true);
  l.o = Linear::load(w, p + n.o, hidden, hidden, true);
  l.ln_attn = LayerNorm::load(w, p + n.ln_attn, hidden, eps);
  l.heads = heads;
  l.head_dim = hidden / heads;
  return l;
}

PostLnLayer PostLnLayer::load(const Weights& w, const std::string& p, const PostLnNames& n, int hidden, int heads,
                              int intermediate, Activation act, float eps) {
  PostLnLayer l = load_attention(w, p, n, hidden, heads, eps);
  l.ff.w1 = Linear::load(w, p + n.ff_in, hidden, intermediate, true);
  l.ff.w2 = Linear::load(w, p + n.ff_out, intermediate, hidden, true);
  l.ff.act = act;
  l.ln_ff = LayerNorm::load(w, p + n.ln_ff, hidden, eps);
  return l;
}

void PostLnLayer::forward(int batch, int seq, float* h, const std::uint8_t* key_mask, const Scheme& scheme, float* probs,
                          PostLnScratch& s) const {
  const int rows = batch * seq, hidden = q.out();
  const std::size_t n = static_cast<std::size_t>(rows) * hidden;
  float* qb = grow(s.q, n);
  float* kb = grow(s.k, n);
  float* vb = grow(s.v, n);
  float* ctx = grow(s.ctx, n);
  float* a = grow(s.a, n);
  const int block = plan::active() ? rows : std::min(rows, kPostLnFfRows);
  float* ffs = grow(s.ff, ff.scratch_floats(block));
  const Linear* qkv[] = {&q, &k, &v};
  float* const qkv_out[] = {qb, kb, vb};
  Linear::forward_group(rows, h, qkv, qkv_out, 3);
  const std::size_t hs = static_cast<std::size_t>(head_dim);
  multi_head_attention(batch, seq, heads, heads, head_dim, {qb, static_cast<std::size_t>(hidden), hs},
                       {kb, static_cast<std::size_t>(hidden), hs}, {vb, static_cast<std::size_t>(hidden), hs}, key_mask,
                       false, scheme, probs, ctx, s.attention);
  o.forward(rows, ctx, a);
  add_inplace(n, a, h);
  ln_attn.forward(rows, a, a);
  for (int r0 = 0; r0 < rows; r0 += block) {
    const std::size_t at = static_cast<std::size_t>(r0) * hidden;
    ff.forward(std::min(block, rows - r0), a + at, h + at, ffs);
  }
  add_inplace(n, h, a);
  ln_ff.forward(rows, h, h);
}

}  // namespace relpos::models
