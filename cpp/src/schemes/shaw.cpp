// Scheme "shaw": Shaw, Uszkoreit & Vaswani (2018), relative position representations.
//   d(i, j) = clip(j − i, −k, k)                      (distance = key − query)
//   logit(i, j) = (q_i·k_j + q_i·aK[d + k]) / sqrt(head_dim)
//   out_i = Σ_j p_ij v_j + Σ_j p_ij aV[d + k]          (value term only when value_table != nullptr)
// Shapes: key_table, value_table [2k + 1, head_dim], shared by every head. Terms: {"relative_key"}.
//
// Only rows d + k with |d| ≤ kk = min(k, seq − 1) can be read: the "effective table" is those
// T = 2kk + 1 rows, already in δ order (index(δ) = clamp(δ, −kk, kk) + kk).
// Keys:   per head, pack the effective aK (pack_b_nk); per block, Q_block·aKᵀ over the rows the block
//         touches ([rows, ≤ T]), then per row a run gather (slice + two constant tails).
// Both terms cover only the block's key columns [j0, j1) (relpos/scheme.h).
// Values: per block, bucket sums S[r][c] = Σ_{j : index = c} p_ij over the touched window (runs:
//         slices add one probability per bucket, tails add a vector sum), then out += S·aV[window]
//         with the window of aV packed per block (pack_b_kn).
#include <cmath>
#include <cstring>
#include <string>

#include "kernels/gemm_f32.h"
#include "kernels/relative_logits_gather.h"
#include "kernels/relative_value_scatter.h"
#include "relpos/error.h"
#include "relpos/schemes.h"
#include "schemes/relative_common.h"

namespace relpos {
namespace {

using detail::round16;
using detail::ScratchCursor;

class ShawScheme final : public Scheme {
 public:
  explicit ShawScheme(const ShawParams& p) : p_(p) {}
  const char* name() const override { return "shaw"; }
  std::vector<std::string> term_names() const override { return {"relative_key"}; }
  bool has_value_term() const override { return p_.value_table != nullptr; }

  void check(const AttentionDims&) const override {
    if (p_.max_distance < 1)
      fail_range("shaw: max_distance (k) must be ≥ 1, got " + std::to_string(p_.max_distance));
    if (!p_.key_table) fail_value("shaw: key_table is missing (expected [2k+1, head_dim] floats)");
  }

  std::size_t scratch_floats(const AttentionDims& dims, int block_rows) const override {
    const Layout l = layout(dims.seq, dims.head_dim);
    std::size_t n = round16(kernels::packed_b_floats(dims.head_dim, l.T)) + round16(block_rows * l.ldp);
    if (p_.value_table) n += round16(block_rows * l.lds) + round16(kernels::packed_b_floats(l.T, dims.head_dim));
    return n + 64;
  }

  void begin_head(const HeadView& head, float* scratch) const override {
    const int d = head.head_dim();
    const Layout l = layout(head.seq(), d);
    ScratchCursor s(scratch);
    kernels::pack_b_nk(d, l.T, p_.key_table + static_cast<std::size_t>(l.row0) * d, d,
                       s.take(kernels::packed_b_floats(d, l.T)));
  }

  void add_logit_terms(const HeadView& head, float* scratch, int i0, int i1, int j0, int j1, float* logits,
                       std::size_t ld, float* const* term_rows) const override {
    const int seq = head.seq(), d = head.head_dim();
    const Layout l = layout(seq, d);
    ScratchCursor s(scratch);
    const float* packed = s.take(kernels::packed_b_floats(d, l.T));
    float* P = s.take(static_cast<std::size_t>(i1 - i0) * l.ldp);
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    detail::add_query_relative_term(i0, i1, j0, j1, seq, -l.kk, l.kk, head.q + static_cast<std::size_t>(i0) * d, d, d, scale,
                                    packed, P, l.ldp, logits, ld, term_rows ? term_rows[0] : nullptr);
  }

  void add_value_term(const HeadView& head, float* scratch, int i0, int i1, int j0, int j1, const float* probs,
                      std::size_t ld, float* out) const override {
    if (j1 <= j0) return;
    const int seq = head.seq(), d = head.head_dim(), rows = i1 - i0;
    const Layout l = layout(seq, d);
    ScratchCursor s(scratch);
    s.take(kernels::packed_b_floats(d, l.T));
    s.take(static_cast<std::size_t>(rows) * l.ldp);
    float* S = s.take(static_cast<std::size_t>(rows) * l.lds);
    float* packed_v = s.take(kernels::packed_b_floats(l.T, d));
    kernels::RelativeRun runs[3];
    detail::clamp_runs(-l.kk, l.kk, seq, runs);
    const int c_lo = kernels::run_index(runs, 3, j0 - (i1 - 1)), c_hi = kernels::run_index(runs, 3, j1 - 1 - i0);
    const int width = c_hi + 1 - c_lo;
    for (int r = 0; r < rows; ++r) {
      float* srow = S + r * l.lds;
      std::memset(srow, 0, sizeof(float) * width);
      kernels::relative_value_scatter_f32(i0 + r - j0, j1 - j0, runs, 3, probs + r * ld, c_lo, srow);
    }
    kernels::pack_b_kn(width, d, p_.value_table + static_cast<std::size_t>(l.row0 + c_lo) * d, d, packed_v);
    kernels::gemm_f32_packed(rows, d, width, 1.0f, S, l.lds, packed_v, out, d, true);
  }

 private:
  struct Layout {
    int kk, T, row0;
    std::size_t ldp, lds;
  };
  Layout layout(int seq, int /*d*/) const {
    Layout l;
    l.kk = std::min(p_.max_distance, seq - 1);
    l.T = 2 * l.kk + 1;
    l.row0 = p_.max_distance - l.kk;
    l.ldp = round16(l.T + simd::gemm_nr);
    l.lds = round16(l.T);
    return l;
  }

  ShawParams p_;
};

}  // namespace

std::unique_ptr<Scheme> make_scheme(const ShawParams& p) { return std::make_unique<ShawScheme>(p); }

}  // namespace relpos
