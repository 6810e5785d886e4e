// Scheme "huang_relative": Huang et al. (2018, Music Transformer) memory-efficient relative attention.
//   S_rel(i, j) = q_i · E(j − i)                         (distance = key − query)
//   learned:  E(δ) = table[clip(δ, −m, m) + m], table [2m + 1, head_dim] shared by every head
//   table == nullptr:  E(δ) = Concatenated sinusoid of δ (head_dim entries, base 10000, unbounded)
//   logit(i, j) = (q_i·k_j + S_rel(i, j)) / sqrt(head_dim).      Terms: {"relative"}.
//
// The "skewing" trick: Q·Eᵀ over the distance-ordered table (row t ↔ δ = t − (L − 1)) gives, for
// query row i, the contiguous slice starting at row L − 1 − i — so S_rel for row i is a shifted
// slice of its Q·Eᵀ row, never a [seq, seq, head_dim] tensor. The effective table holds only the
// distances |δ| ≤ seq − 1 (learned: clipped to m, so 2·min(m, seq − 1) + 1 rows). Per head it is
// packed once (the sinusoid generated into scratch first); per block, Q_block·Eᵀ is computed only
// for the distances the block touches ([rows, ≤ seq + rows − 1]) and each row gathers its slice
// (clipped tails are constants).
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

class HuangRelativeScheme final : public Scheme {
 public:
  explicit HuangRelativeScheme(const HuangRelativeParams& p) : p_(p) {}
  const char* name() const override { return "huang_relative"; }
  std::vector<std::string> term_names() const override { return {"relative"}; }

  void check(const AttentionDims& dims) const override {
    if (p_.table) {
      if (p_.max_distance < 1)
        fail_range("huang_relative: max_distance (m) must be ≥ 1 with a learned table, got " +
                   std::to_string(p_.max_distance));
    } else if (dims.head_dim % 2 != 0) {
      fail_range("huang_relative: the sinusoid table (table == nullptr) needs an even head_dim, got " +
                 std::to_string(dims.head_dim));
    }
  }

  std::size_t scratch_floats(const AttentionDims& dims, int block_rows) const override {
    const Layout l = layout(dims.seq);
    std::size_t n = round16(kernels::packed_b_floats(dims.head_dim, l.T)) + round16(block_rows * l.ldp);
    if (!p_.table) n += round16(static_cast<std::size_t>(l.T) * dims.head_dim);
    return n + 64;
  }

  void begin_head(const HeadView& head, float* scratch) const override {
    const int d = head.head_dim(), seq = head.seq();
    const Layout l = layout(seq);
    ScratchCursor s(scratch);
    float* packed = s.take(kernels::packed_b_floats(d, l.T));
    if (p_.table) {
      kernels::pack_b_nk(d, l.T, p_.table + static_cast<std::size_t>(p_.max_distance - l.kk) * d, d, packed);
    } else {
      float* staging = s.take(static_cast<std::size_t>(l.T) * d);  // E(δ), δ = −kk … kk
      detail::sinusoid_rows(-l.kk, 1, l.T, d, 10000.0f, staging, d);
      kernels::pack_b_nk(d, l.T, staging, d, packed);
    }
  }

  void add_logit_terms(const HeadView& head, float* scratch, int i0, int i1, int j0, int j1, float* logits,
                       std::size_t ld, float* const* term_rows) const override {
    const int seq = head.seq(), d = head.head_dim();
    const Layout l = layout(seq);
    ScratchCursor s(scratch);
    const float* packed = s.take(kernels::packed_b_floats(d, l.T));
    if (!p_.table) s.take(static_cast<std::size_t>(l.T) * d);  // sinusoid staging (begin_head only)
    float* P = s.take(static_cast<std::size_t>(i1 - i0) * l.ldp);
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    detail::add_query_relative_term(i0, i1, j0, j1, seq, -l.kk, l.kk, head.q + static_cast<std::size_t>(i0) * d, d, d, scale,
                                    packed, P, l.ldp, logits, ld, term_rows ? term_rows[0] : nullptr);
  }

 private:
  struct Layout {
    int kk, T;
    std::size_t ldp;
  };
  Layout layout(int seq) const {
    Layout l;
    l.kk = p_.table ? std::min(p_.max_distance, seq - 1) : seq - 1;
    l.T = 2 * l.kk + 1;
    l.ldp = round16(l.T + simd::gemm_nr);
    return l;
  }
  HuangRelativeParams p_;
};

}  // namespace

std::unique_ptr<Scheme> make_scheme(const HuangRelativeParams& p) { return std::make_unique<HuangRelativeScheme>(p); }

}  // namespace relpos
