// Scheme "deberta": DeBERTa (v2/v3) disentangled attention, as Hugging Face transformers 4.34.1.
//   r(i, j) = bucket(i − j)       (distance = query − key; log buckets when position_buckets > 0,
//                                  see positions/deberta_buckets.cpp), span s = deberta_span(...)
//   idx(i, j) = clamp(r(i, j) + s, 0, 2s − 1)       (= clamp(−r(j, i) + s, ...): bucket is odd)
//   c2p(i, j) = q_i · Kr_h[idx(i, j)],   p2c(i, j) = k_j · Qr_h[idx(i, j)]
//   logit = (q·k + c2p + p2c) / sqrt(head_dim · (1 + #terms)); content_scale and both terms use that
//   scale. Terms: the enabled subset of {"c2p", "p2c"}, in that order.
// Shapes: pos_key, pos_query [heads, 2s, head_dim] (Kr/Qr already projected per head).
//
// Index map: with δ = j − i, idx is non-increasing in δ, so tables are held reversed
// (c' = 2s − 1 − idx, non-decreasing) and restricted to the rows |δ| ≤ seq − 1 reach (T rows);
// c'(δ) is compressed into runs (slices where buckets are linear, constants for log buckets and
// clamped tails), O(seq) runs, in scratch.
//   c2p: per head Kr' packed; per block Q_block·Kr'ᵀ over the rows the block touches, row gather.
//   p2c: per head X = Qr'·Kᵀ  [T, seq], per panel of 64 keys only the rows those keys reach
//        (index(j − seq + 1) … index(j)); per row a column gather: constant runs read contiguous X
//        rows, slice runs walk a diagonal.
// GPU description (relpos/scheme.h): kind "relative_vectors", ints idx(δ) at [δ + seq − 1], table Kr
// (c2p), table2 Qr (p2c), head stride 2s·head_dim, term_scale = content_scale.
#include <cmath>
#include <cstring>
#include <string>

#include "kernels/gemm_f32.h"
#include "kernels/relative_logits_gather.h"
#include "relpos/error.h"
#include "relpos/positions.h"
#include "relpos/schemes.h"
#include "schemes/relative_common.h"

namespace relpos {
namespace {

using detail::round16;
using detail::ScratchCursor;
using kernels::RelativeRun;

class DebertaScheme final : public Scheme {
 public:
  explicit DebertaScheme(const DebertaParams& p) : p_(p), span_(deberta_span(p.position_buckets, p.max_relative_positions)) {}
  const char* name() const override { return "deberta"; }
  std::vector<std::string> term_names() const override {
    std::vector<std::string> names;
    if (p_.c2p) names.push_back("c2p");
    if (p_.p2c) names.push_back("p2c");
    return names;
  }
  float content_scale(int head_dim) const override {
    return 1.0f / std::sqrt(static_cast<float>(head_dim) * static_cast<float>(1 + p_.c2p + p_.p2c));
  }

  void check(const AttentionDims&) const override {
    if (p_.position_buckets == 1)
      fail_range("deberta: position_buckets must be ≥ 2 (or ≤ 0 for no log buckets), got 1");
    if (span_ < 1)
      fail_range("deberta: max_relative_positions must be ≥ 1 when position_buckets ≤ 0, got " +
                 std::to_string(p_.max_relative_positions));
    if (p_.c2p && !p_.pos_key)
      fail_value("deberta: c2p needs pos_key (projected Kr, [heads, 2·span, head_dim] with span " +
                 std::to_string(span_) + ")");
    if (p_.p2c && !p_.pos_query)
      fail_value("deberta: p2c needs pos_query (projected Qr, [heads, 2·span, head_dim] with span " +
                 std::to_string(span_) + ")");
  }

  // "relative_vectors": row idx of distance j − i; table Kr (c2p, with q_i), table2 Qr (p2c, with k_j).
  bool describe(const AttentionDims& dims, SchemeDescription& out) const override {
    check(dims);
    out.kind = "relative_vectors";
    for (int delta = 1 - dims.seq; delta < dims.seq; ++delta) out.ints.push_back(2 * span_ - 1 - reversed_index(delta));
    const std::size_t per_head = static_cast<std::size_t>(2 * span_) * dims.head_dim;
    if (p_.c2p) {
      out.table = p_.pos_key;
      out.table_floats = per_head * dims.heads;
    }
    if (p_.p2c) {
      out.table2 = p_.pos_query;
      out.table2_floats = per_head * dims.heads;
    }
    out.numbers = {{"table_head", static_cast<double>(per_head)},
                   {"table2_head", static_cast<double>(per_head)},
                   {"term_scale", content_scale(dims.head_dim)}};
    return true;
  }

  std::size_t scratch_floats(const AttentionDims& dims, int block_rows) const override {
    const Layout l = layout(dims.seq);
    const int d = dims.head_dim;
    std::size_t n = round16(static_cast<std::size_t>(l.max_runs) * 4 + 4) + round16(static_cast<std::size_t>(l.T) * d);
    if (p_.c2p) n += round16(kernels::packed_b_floats(d, l.T)) + round16(block_rows * l.ldp);
    if (p_.p2c) n += round16(kernels::packed_b_floats(d, dims.seq)) + round16(static_cast<std::size_t>(l.T) * dims.seq);
    return n + 64;
  }

  void begin_head(const HeadView& head, float* scratch) const override {
    const int seq = head.seq(), d = head.head_dim();
    const Layout l = layout(seq);
    Buffers b = carve(scratch, l, seq, d, 0);
    *b.n_runs = build_runs(seq, l.g_lo, b.runs);
    const std::size_t table = static_cast<std::size_t>(head.head_index) * 2 * span_;
    const float scale = content_scale(d);
    if (p_.c2p) {
      copy_reversed(p_.pos_key + table * d, l, d, b.staging);
      kernels::pack_b_nk(d, l.T, b.staging, d, b.packed_kr);
    }
    if (p_.p2c) {
      copy_reversed(p_.pos_query + table * d, l, d, b.staging);
      kernels::pack_b_nk(d, seq, head.k, d, b.packed_k);
      // X[c][j] only for the rows key j can read, c ∈ [index(j − (seq − 1)), index(j)], by key panels.
      for (int j0 = 0; j0 < seq; j0 += kKeyPanel) {
        const int j1 = std::min(seq, j0 + kKeyPanel);
        const int c_lo = kernels::run_index(b.runs, *b.n_runs, j0 - (seq - 1));
        const int c_hi = kernels::run_index(b.runs, *b.n_runs, j1 - 1);
        kernels::gemm_f32_packed(c_hi + 1 - c_lo, j1 - j0, d, scale, b.staging + static_cast<std::size_t>(c_lo) * d, d,
                                 b.packed_k + static_cast<std::size_t>(j0) * d, b.X + static_cast<std::size_t>(c_lo) * seq + j0,
                                 seq, false);
      }
    }
  }

  void add_logit_terms(const HeadView& head, float* scratch, int i0, int i1, int j0, int j1, float* logits,
                       std::size_t ld, float* const* term_rows) const override {
    const int seq = head.seq(), d = head.head_dim(), rows = i1 - i0;
    const Layout l = layout(seq);
    Buffers b = carve(scratch, l, seq, d, rows);
    const int n_runs = *b.n_runs;
    if (j1 <= j0) return;
    const int n = j1 - j0;  // keys from j0: row gathers see query index i − j0
    if (p_.c2p) {
      const int c_lo = kernels::run_index(b.runs, n_runs, j0 - (i1 - 1));
      const int c_hi = kernels::run_index(b.runs, n_runs, j1 - 1 - i0);
      const int base = detail::project_window(rows, head.q + static_cast<std::size_t>(i0) * d, d, d, content_scale(d),
                                              b.packed_kr, c_lo, c_hi, b.P, l.ldp);
      for (int r = 0; r < rows; ++r)
        kernels::relative_logits_gather_f32(i0 + r - j0, n, b.runs, n_runs, b.P + r * l.ldp, base, logits + r * ld,
                                            term_rows ? term_rows[0] + r * ld : nullptr);
    }
    if (p_.p2c) {
      float* term = term_rows ? term_rows[p_.c2p ? 1 : 0] : nullptr;
      for (int r = 0; r < rows; ++r)
        kernels::relative_logits_gather_columns_f32(i0 + r - j0, n, b.runs, n_runs, b.X + j0, seq, 0, logits + r * ld,
                                                    term ? term + r * ld : nullptr);
    }
  }

 private:
  // Keys per p2c GEMM (a multiple of every gemm_nr, so panels of packed K start at j0·head_dim).
  static constexpr int kKeyPanel = 64;
  static_assert(kKeyPanel % simd::gemm_nr == 0, "key panels must start on packed-panel boundaries");

  struct Layout {
    int g_lo, T, max_runs;
    std::size_t ldp;
  };
  struct Buffers {
    RelativeRun* runs;
    int* n_runs;
    float* staging;
    float* packed_kr;
    float* P;
    float* packed_k;
    float* X;
  };

  // Reversed table row c' = 2s − 1 − clamp(s + bucket(i − j), 0, 2s − 1), δ = j − i.
  int reversed_index(int delta) const {
    const int idx = span_ + deberta_relative_position(-delta, p_.position_buckets, p_.max_relative_positions);
    return 2 * span_ - 1 - std::min(2 * span_ - 1, std::max(0, idx));
  }

  Layout layout(int seq) const {
    Layout l;
    l.g_lo = reversed_index(-(seq - 1));
    l.T = reversed_index(seq - 1) - l.g_lo + 1;
    l.max_runs = 2 * seq;
    l.ldp = round16(l.T + simd::gemm_nr);
    return l;
  }

  // Layout: [n_runs + runs][staging T·d][packed Kr' | P][packed K | X]. Runs are int32 records
  // stored in the float scratch (never read as floats).
  Buffers carve(float* scratch, const Layout& l, int seq, int d, int rows) const {
    ScratchCursor s(scratch);
    Buffers b{};
    float* run_area = s.take(static_cast<std::size_t>(l.max_runs) * 4 + 4);
    b.n_runs = reinterpret_cast<int*>(run_area);
    b.runs = reinterpret_cast<RelativeRun*>(run_area + 4);
    b.staging = s.take(static_cast<std::size_t>(l.T) * d);
    if (p_.p2c) {
      b.packed_k = s.take(kernels::packed_b_floats(d, seq));
      b.X = s.take(static_cast<std::size_t>(l.T) * seq);
    }
    if (p_.c2p) {
      b.packed_kr = s.take(kernels::packed_b_floats(d, l.T));
      b.P = s.take(static_cast<std::size_t>(rows) * l.ldp);
    }
    return b;
  }

  // Greedy compression of δ ↦ c'(δ) − g_lo, δ in [−(seq − 1), seq − 1], into step-0/step-1 runs.
  int build_runs(int seq, int g_lo, RelativeRun* runs) const {
    int n = 0;
    int delta = -(seq - 1);
    int cur = reversed_index(delta);
    while (delta <= seq - 1) {
      const int begin = delta, c0 = cur;
      int step = 0;
      int e = delta + 1;
      int next = e <= seq - 1 ? reversed_index(e) : 0;
      if (e <= seq - 1 && next == c0 + 1) step = 1;
      if (e <= seq - 1 && next != c0 && next != c0 + 1) {
        // jump of more than one row: a single-δ run
      } else {
        while (e <= seq - 1 && next == c0 + step * (e - begin)) {
          ++e;
          if (e <= seq - 1) next = reversed_index(e);
        }
      }
      runs[n++] = {begin, e, c0 - g_lo, step};
      delta = e;
      cur = next;
    }
    return n;
  }

  void copy_reversed(const float* table, const Layout& l, int d, float* staging) const {
    for (int t = 0; t < l.T; ++t)
      std::memcpy(staging + static_cast<std::size_t>(t) * d,
                  table + static_cast<std::size_t>(2 * span_ - 1 - (l.g_lo + t)) * d, sizeof(float) * d);
  }

  DebertaParams p_;
  int span_;
};

}  // namespace

std::unique_ptr<Scheme> make_scheme(const DebertaParams& p) { return std::make_unique<DebertaScheme>(p); }

}  // namespace relpos
