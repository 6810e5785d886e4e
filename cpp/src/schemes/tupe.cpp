// Scheme "tupe": untied positional attention (Ke et al., TUPE) — content and position use separate
// projections and are summed in the logits:
//   logit(i, j) = (q_i · k_j + (p_i U_qʰ) · (p_j U_kʰ)) / sqrt(2·head_dim)
//   content_scale = 1/sqrt(2·head_dim); the position term carries the same 1/sqrt(2·head_dim).
// Shapes: positions P [table_rows, pos_dim] (row p for position p = 0 … seq − 1, absolute: no distance
//   convention); u_q, u_k [heads·head_dim, pos_dim] (y = U x), head h uses rows h·head_dim … (h+1)·head_dim − 1.
// Per head, begin_head computes Pq = P U_qʰᵀ / sqrt(2·head_dim) and Pk = P U_kʰᵀ ([seq, head_dim] each,
// packed GEMM) and packs Pkᵀ; add_logit_terms is one more packed GEMM Pq[i0:i1] Pkᵀ accumulated into
// the logits over the block's key columns [j0, j1). When j0 is not on a packed-panel boundary (sliding
// windows), the product runs from the panel boundary below j0 in chunks of kChunk columns through a
// [block_rows, kChunk] buffer and only columns [j0, j1) are added. RangeError naming table_rows when
// seq > table_rows. Term: "position".
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "kernels/gemm_f32.h"
#include "kernels/simd.h"
#include "kernels/vadd_f32.h"
#include "relpos/error.h"
#include "relpos/schemes.h"

namespace relpos {
namespace {

std::size_t round_up16(std::size_t n) { return (n + 15) & ~static_cast<std::size_t>(15); }

class TupeScheme final : public Scheme {
 public:
  explicit TupeScheme(const TupeParams& p) : p_(p) {}

  const char* name() const override { return "tupe"; }
  std::vector<std::string> term_names() const override { return {"position"}; }
  float content_scale(int head_dim) const override { return 1.0f / std::sqrt(2.0f * static_cast<float>(head_dim)); }

  void check(const AttentionDims& dims) const override {
    if (!p_.positions) fail_value("TUPE: positions is required ([table_rows, pos_dim] floats), got null");
    if (!p_.u_q) fail_value("TUPE: u_q is required ([heads·head_dim, pos_dim] floats), got null");
    if (!p_.u_k) fail_value("TUPE: u_k is required ([heads·head_dim, pos_dim] floats), got null");
    if (p_.pos_dim < 1) fail_range("TUPE: pos_dim must be ≥ 1, got " + std::to_string(p_.pos_dim));
    if (p_.table_rows < 1) fail_range("TUPE: table_rows must be ≥ 1, got " + std::to_string(p_.table_rows));
    if (dims.seq > p_.table_rows)
      fail_range("TUPE: seq " + std::to_string(dims.seq) + " exceeds table_rows " + std::to_string(p_.table_rows) +
                 " (one positions row per position)");
  }

  std::size_t scratch_floats(const AttentionDims& dims, int block_rows) const override {
    return layout(dims.seq, dims.head_dim).total + static_cast<std::size_t>(block_rows) * kChunk;
  }

  void begin_head(const HeadView& head, float* scratch) const override {
    const int seq = head.seq(), d = head.head_dim(), pd = p_.pos_dim;
    const Layout l = layout(seq, d);
    float* upack = scratch + l.upack;
    float* pq = scratch + l.pq;
    float* pk = scratch + l.pk;
    float* kpos = scratch + l.kpos;
    const std::size_t head_rows = static_cast<std::size_t>(head.head_index) * d * pd;
    kernels::pack_b_nk(pd, d, p_.u_q + head_rows, pd, upack);
    kernels::gemm_f32_packed(seq, d, pd, content_scale(d), p_.positions, pd, upack, pq, d, false);
    kernels::pack_b_nk(pd, d, p_.u_k + head_rows, pd, upack);
    kernels::gemm_f32_packed(seq, d, pd, 1.0f, p_.positions, pd, upack, pk, d, false);
    kernels::pack_b_nk(d, seq, pk, d, kpos);
  }

  void add_logit_terms(const HeadView& head, float* scratch, int i0, int i1, int j0, int j1, float* logits,
                       std::size_t ld, float* const* term_rows) const override {
    const int seq = head.seq(), d = head.head_dim(), rows = i1 - i0;
    if (j1 <= j0) return;
    const Layout l = layout(seq, d);
    const float* pq = scratch + l.pq + static_cast<std::size_t>(i0) * d;
    const float* kpos = scratch + l.kpos;
    const int cols = j1 - j0;
    float* term = term_rows ? term_rows[0] : nullptr;
    if (j0 % NR == 0) {  // packed panels start at column j0
      const float* panels = kpos + static_cast<std::size_t>(j0 / NR) * d * NR;
      if (!term) {
        kernels::gemm_f32_packed(rows, cols, d, 1.0f, pq, d, panels, logits, ld, true);
        return;
      }
      kernels::gemm_f32_packed(rows, cols, d, 1.0f, pq, d, panels, term, ld, false);
      for (int r = 0; r < rows; ++r)
        kernels::vadd_f32(cols, term + static_cast<std::size_t>(r) * ld, logits + static_cast<std::size_t>(r) * ld);
      return;
    }
    float* chunk = scratch + l.total;  // [rows, kChunk]
    for (int c = j0 - j0 % NR; c < j1; c += kChunk) {
      const int width = std::min(kChunk, j1 - c);
      kernels::gemm_f32_packed(rows, width, d, 1.0f, pq, d, kpos + static_cast<std::size_t>(c / NR) * d * NR, chunk,
                               kChunk, false);
      const int from = std::max(c, j0), n = c + width - from;
      for (int r = 0; r < rows; ++r) {
        const float* src = chunk + static_cast<std::size_t>(r) * kChunk + (from - c);
        float* dst = logits + static_cast<std::size_t>(r) * ld + (from - j0);
        kernels::vadd_f32(n, src, dst);
        if (term) std::memcpy(term + static_cast<std::size_t>(r) * ld + (from - j0), src, sizeof(float) * n);
      }
    }
  }

 private:
  static constexpr int NR = simd::gemm_nr;
  static constexpr int kChunk = 64;  // key columns per chunk of the unaligned path (a multiple of every gemm_nr)
  static_assert(kChunk % NR == 0, "chunks must start on packed-panel boundaries");
  struct Layout {
    std::size_t upack, pq, pk, kpos, total;
  };
  Layout layout(int seq, int d) const {
    Layout l{};
    const std::size_t s = static_cast<std::size_t>(seq);
    l.upack = 0;
    l.pq = round_up16(kernels::packed_b_floats(p_.pos_dim, d));
    l.pk = l.pq + round_up16(s * d);
    l.kpos = l.pk + round_up16(s * d);
    l.total = l.kpos + round_up16(kernels::packed_b_floats(d, seq));
    return l;
  }
  TupeParams p_;
};

}  // namespace

std::unique_ptr<Scheme> make_scheme(const TupeParams& p) { return std::make_unique<TupeScheme>(p); }

}  // namespace relpos
