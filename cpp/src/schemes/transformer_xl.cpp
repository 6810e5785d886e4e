// Scheme "transformer_xl": Dai et al. (2019) relative attention.
//   r = i − j (distance = query − key), clamped to [−clamp_len, clamp_len] when clamp_len > 0
//   R_r = Concatenated sinusoid of r (d_model entries, base 10000);  Rk_h(r) = W_kR[h] · R_r  (head_dim)
//   logit(i, j) = ((q_i + u_h)·k_j + (q_i + v_h)·Rk_h(r)) / sqrt(head_dim)
//   Terms (after the driver's q·k/sqrt(d) "content"):
//     "content_bias" = u_h·k_j / sqrt(d)        — a per-key bias, one vector add per row
//     "position"     = (q_i + v_h)·Rk_h(r) / sqrt(d)  — (b) + (d) of the paper
// Shapes: u, v [heads, head_dim]; w_kr [heads·head_dim, d_model] (y = W x).
//
// Per head: the distances |r| ≤ c = min(clamp_len, seq − 1) (c = seq − 1 without clamp) are held in
// δ order (row t ↔ δ = j − i = t − c, r = c − t; causal calls keep only δ ≤ 0, halving the work, and
// their term outputs above the diagonal are unspecified, as the entries are masked): Rk = R·W_kR[h]ᵀ by
// packed GEMM (R [T, d_model] generated once per call by begin_call and shared by the threads while ≤ 8 MiB, else 256 rows at a time per
// head), Rk packed for the per-block product, ub[j] = u_h·k_j/sqrt(d).
// Per block: (Q_block + v_h)·Rkᵀ over the distances the block touches, then each row adds its
// contiguous slice (clamped tails constant) and ub.
#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/gemm_f32.h"
#include "kernels/relative_logits_gather.h"
#include "relpos/error.h"
#include "relpos/schemes.h"
#include "schemes/relative_common.h"

namespace relpos {
namespace {

using detail::round16;
using detail::ScratchCursor;

class TransformerXLScheme final : public Scheme {
 public:
  explicit TransformerXLScheme(const TransformerXLParams& p) : p_(p) {}
  const char* name() const override { return "transformer_xl"; }
  std::vector<std::string> term_names() const override { return {"content_bias", "position"}; }

  void check(const AttentionDims&) const override {
    if (p_.d_model < 2 || p_.d_model % 2 != 0)
      fail_range("transformer_xl: d_model must be a positive even integer (sinusoid width), got " +
                 std::to_string(p_.d_model));
    if (!p_.u) fail_value("transformer_xl: u (r_w_bias, [heads, head_dim]) is missing");
    if (!p_.v) fail_value("transformer_xl: v (r_r_bias, [heads, head_dim]) is missing");
    if (!p_.w_kr) fail_value("transformer_xl: w_kr (r_net weight, [heads·head_dim, d_model]) is missing");
  }

  // The whole R [T, d_model] (row t: r = c − t), shared by every slice of the call, while it is at
  // most kWholeRFloats; beyond, none (each head generates R in chunks in its scratch).
  std::size_t shared_floats(const AttentionDims& dims, bool causal) const override {
    return whole_r(dims.seq) ? static_cast<std::size_t>(layout(dims.seq, causal).T) * p_.d_model : 0;
  }
  void begin_call(const AttentionDims& dims, bool causal, float* shared) const override {
    if (!whole_r(dims.seq)) return;
    const Layout l = layout(dims.seq, causal);
    detail::sinusoid_rows(l.c, -1, l.T, p_.d_model, 10000.0f, shared, p_.d_model);
  }

  std::size_t scratch_floats(const AttentionDims& dims, int block_rows) const override {
    const Layout l = layout(dims.seq, false);  // the larger, bidirectional table
    const int d = dims.head_dim, dm = p_.d_model;
    const std::size_t r_chunk = whole_r(dims.seq) ? 0 : static_cast<std::size_t>(kRowChunk) * dm;
    return round16(kernels::packed_b_floats(d, l.T)) + round16(dims.seq) + round16(r_chunk) +
           round16(kernels::packed_b_floats(dm, d)) + round16(static_cast<std::size_t>(l.T) * d) +
           round16(static_cast<std::size_t>(block_rows) * d) + round16(block_rows * l.ldp) + 64;
  }

  void begin_head(const HeadView& head, float* scratch) const override {
    const int d = head.head_dim(), seq = head.seq(), dm = p_.d_model, h = head.head_index;
    const Layout l = layout(seq, head.causal);
    ScratchCursor s(scratch);
    float* packed_rk = s.take(kernels::packed_b_floats(d, l.T));
    float* ub = s.take(seq);
    float* R = s.take(whole_r(seq) ? 0 : static_cast<std::size_t>(kRowChunk) * dm);
    float* packed_w = s.take(kernels::packed_b_floats(dm, d));
    float* rk = s.take(static_cast<std::size_t>(l.T) * d);
    // Rk = R·W_kR[h]ᵀ (row t: r = c − t). R depends only on (seq, causal): while it is small it is
    // generated once per call by begin_call and shared by every slice and thread; past kWholeRFloats
    // (seq 2048 at d_model 512) each head generates it kRowChunk rows at a time instead (+~10 % time,
    // but never the whole R: 32 MiB at seq 8192). Chunks start on multiples of sinusoid_rows'
    // anchor spacing, so both ways give the same values.
    kernels::pack_b_nk(dm, d, p_.w_kr + static_cast<std::size_t>(h) * d * dm, dm, packed_w);
    if (whole_r(seq)) {
      kernels::gemm_f32_packed(l.T, d, dm, 1.0f, head.shared, dm, packed_w, rk, d, false);
    } else {
      for (int t0 = 0; t0 < l.T; t0 += kRowChunk) {
        const int rows = std::min(kRowChunk, l.T - t0);
        detail::sinusoid_rows(l.c - t0, -1, rows, dm, 10000.0f, R, dm);
        kernels::gemm_f32_packed(rows, d, dm, 1.0f, R, dm, packed_w, rk + static_cast<std::size_t>(t0) * d, d, false);
      }
    }
    kernels::pack_b_nk(d, l.T, rk, d, packed_rk);
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    const float* u = p_.u + static_cast<std::size_t>(h) * d;
    for (int j = 0; j < seq; ++j) {
      const float* kj = head.k + static_cast<std::size_t>(j) * d;
      float acc = 0;
      for (int c = 0; c < d; ++c) acc += u[c] * kj[c];
      ub[j] = scale * acc;
    }
  }

  void add_logit_terms(const HeadView& head, float* scratch, int i0, int i1, int j0, int j1, float* logits,
                       std::size_t ld, float* const* term_rows) const override {
    const int seq = head.seq(), d = head.head_dim(), dm = p_.d_model, rows = i1 - i0;
    const Layout l = layout(seq, head.causal);
    ScratchCursor s(scratch);
    const float* packed_rk = s.take(kernels::packed_b_floats(d, l.T));
    const float* ub = s.take(seq);
    s.take(whole_r(seq) ? 0 : static_cast<std::size_t>(kRowChunk) * dm);
    s.take(kernels::packed_b_floats(dm, d));
    s.take(static_cast<std::size_t>(l.T) * d);
    float* qv = s.take(static_cast<std::size_t>(rows) * d);
    float* P = s.take(static_cast<std::size_t>(rows) * l.ldp);

    const float* v = p_.v + static_cast<std::size_t>(head.head_index) * d;
    const float* q = head.q + static_cast<std::size_t>(i0) * d;
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < d; ++c) qv[r * d + c] = q[r * d + c] + v[c];

    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    detail::add_query_relative_term(i0, i1, j0, j1, seq, -l.c, l.hi, qv, d, d, scale, packed_rk, P, l.ldp, logits, ld,
                                    term_rows ? term_rows[1] : nullptr);
    for (int r = 0; r < rows; ++r)
      kernels::vadd_bias_f32(j1 - j0, ub + j0, logits + r * ld, term_rows ? term_rows[0] + r * ld : nullptr);
  }

 private:
  static constexpr int kRowChunk = 256;  // sinusoid rows generated and projected at a time (multiple of 64)
  static constexpr std::size_t kWholeRFloats = std::size_t{1} << 21;  // 8 MiB: the largest R kept per call

  // True when the bidirectional table's R fits kWholeRFloats: then begin_call builds it once per call.
  bool whole_r(int seq) const {
    return static_cast<std::size_t>(layout(seq, false).T) * static_cast<std::size_t>(p_.d_model) <= kWholeRFloats;
  }

  struct Layout {
    int c, hi, T;
    std::size_t ldp;
  };
  Layout layout(int seq, bool causal) const {
    Layout l;
    l.c = p_.clamp_len > 0 ? std::min(p_.clamp_len, seq - 1) : seq - 1;
    l.hi = causal ? 0 : l.c;  // causal: keys j ≤ i only, so δ ≤ 0
    l.T = l.c + l.hi + 1;
    l.ldp = round16(l.T + simd::gemm_nr);
    return l;
  }

  TransformerXLParams p_;
};

}  // namespace

std::unique_ptr<Scheme> make_scheme(const TransformerXLParams& p) { return std::make_unique<TransformerXLScheme>(p); }

}  // namespace relpos
