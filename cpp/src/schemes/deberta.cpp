// Scheme "deberta": DeBERTa (v2/v3) disentangled attention, as Hugging Face transformers 4.34.1.
//   r(i, j) = bucket(i − j)       (distance = query − key; log buckets when position_buckets > 0,
//                                  see positions/deberta_buckets.cpp), span s = deberta_span(...)
//   idx(i, j) = clamp(r(i, j) + s, 0, 2s − 1)       (= clamp(−r(j, i) + s, ...): bucket is odd)
//   c2p(i, j) = q_i · Kr_h[idx(i, j)],   p2c(i, j) = k_j · Qr_h[idx(i, j)]
//   logit = (q·k + c2p + p2c) / sqrt(head_dim · (1 + #terms)); content_scale and both terms use that
//   scale. Terms: the enabled subset of {"c2p", "p2c"}, in that order.
// Shapes: pos_key, pos_query [heads, 2s, head_dim] (Kr/Qr already projected per head).
//
// Index maps: c2p reads Kr at idx as a function of δ = j − i, non-increasing, so Kr is held reversed
// (c' = 2s − 1 − idx, non-decreasing in δ); p2c reads Qr at idx as a function of δ' = i − j,
// non-decreasing, so Qr is read in its own order. Each map is restricted to the rows |δ| ≤ seq − 1
// reach (T, T2 rows), compressed into runs (slices where buckets are linear, constants for log
// buckets and clamped tails) and expanded per δ into shuffle quads (kernels/relative_runs.h), once
// per call in the shared state; the gathers read the quads (runs where a step of 4 jumps a row).
//   c2p: per head Kr' packed; per block Q_block·Kr'ᵀ over the rows the block touches, row gather
//        (runs ≥ 16 δ stream as slices / splats, the stretches between them are shuffled).
//   p2c: the same with queries and keys swapped: per head XT = K·Qrᵀ [seq, T2], per panel of 64 keys
//        only the rows those keys reach; per block and key panel, a shuffled row gather over the
//        block's queries per key (key-major, Z [64 keys, rows]) and a transposed add into the logits;
//        a panel whose every pair reads a clamped end adds that end's row over keys (E) to each row.
//        (Gathering X = Qr·Kᵀ per query instead reads a diagonal of X for linear buckets: 2× slower.)
// GPU description (relpos/scheme.h): kind "relative_vectors", ints idx(δ) at [δ + seq − 1], table Kr
// (c2p), table2 Qr (p2c), head stride 2s·head_dim, term_scale = content_scale.
#include <cmath>
#include <cstring>
#include <string>

#include "kernels/gemm_f32.h"
#include "kernels/relative_logits_gather.h"
#include "kernels/vtranspose_add_f32.h"
#include "relpos/error.h"
#include "relpos/positions.h"
#include "relpos/schemes.h"
#include "schemes/relative_common.h"

namespace relpos {
namespace {

using detail::round16;
using detail::ScratchCursor;
using kernels::RelativeQuads;
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

  // The call's index maps, the same for every head: c2p's runs over δ = j − i then p2c's over δ' = i − j,
  // each [header: count, quads built][runs][quads].
  std::size_t shared_floats(const AttentionDims& dims, bool) const override {
    return (p_.c2p ? map_floats(dims.seq) : 0) + (p_.p2c ? map_floats(dims.seq) : 0);
  }

  void begin_call(const AttentionDims& dims, bool, float* shared) const override {
    const int seq = dims.seq;
    const Layout l = layout(seq);
    float* at = shared;
    if (p_.c2p) {
      build_map(seq, l.g_lo, &DebertaScheme::reversed_index, at);
      at += map_floats(seq);
    }
    if (p_.p2c) build_map(seq, l.g2_lo, &DebertaScheme::forward_index, at);
  }

  std::size_t scratch_floats(const AttentionDims& dims, int block_rows) const override {
    const Layout l = layout(dims.seq);
    const int d = dims.head_dim;
    std::size_t n = 0;
    if (p_.c2p)
      n += round16(static_cast<std::size_t>(l.T) * d) + round16(kernels::packed_b_floats(d, l.T)) +
           round16(static_cast<std::size_t>(block_rows) * l.ldp);
    if (p_.p2c)
      n += round16(kernels::packed_b_floats(d, l.T2)) + round16(static_cast<std::size_t>(dims.seq) * l.ldx) +
           round16(panels(dims.seq)) + round16(2 * static_cast<std::size_t>(dims.seq)) +
           round16(static_cast<std::size_t>(kKeyPanel) * round16(block_rows));
    return n + 64;
  }

  void begin_head(const HeadView& head, float* scratch) const override {
    const int seq = head.seq(), d = head.head_dim();
    const Layout l = layout(seq);
    const Buffers b = carve(scratch, l, seq, d, 0);
    const std::size_t table = static_cast<std::size_t>(head.head_index) * 2 * span_;
    const float scale = content_scale(d);
    if (p_.c2p) {
      copy_reversed(p_.pos_key + table * d, l, d, b.staging);
      kernels::pack_b_nk(d, l.T, b.staging, d, b.packed_kr);
    }
    if (p_.p2c) {
      const Map m = map(head.shared, seq, p_.c2p ? 1 : 0);
      kernels::pack_b_nk(d, l.T2, p_.pos_query + (table + l.g2_lo) * d, d, b.packed_qr);
      // XT[j][c] = scale · k_j · Qr[c], per panel of keys only the rows its keys reach (δ' = i − j over all i).
      for (int p = 0; p * kKeyPanel < seq; ++p) {
        const int j0 = p * kKeyPanel, j1 = std::min(seq, j0 + kKeyPanel);
        const int c_lo = kernels::run_index(m.runs, m.n_runs, -(j1 - 1));
        const int c_hi = kernels::run_index(m.runs, m.n_runs, seq - 1 - j0);
        const int base = detail::project_window(j1 - j0, head.k + static_cast<std::size_t>(j0) * d, d, d, scale,
                                                b.packed_qr, c_lo, c_hi, b.XT + static_cast<std::size_t>(j0) * l.ldx, l.ldx);
        b.bases[p] = base;
        // the clamped ends as contiguous rows over keys, where this panel reaches them (add_logit_terms)
        for (int e = 0; e < 2; ++e) {
          const int c = e == 0 ? 0 : l.T2 - 1;
          for (int j = j0; j < j1; ++j)
            b.E[e * seq + j] = c >= c_lo && c <= c_hi ? b.XT[static_cast<std::size_t>(j) * l.ldx + (c - base)] : 0.0f;
        }
      }
    }
  }

  void add_logit_terms(const HeadView& head, float* scratch, int i0, int i1, int j0, int j1, float* logits,
                       std::size_t ld, float* const* term_rows) const override {
    const int seq = head.seq(), d = head.head_dim(), rows = i1 - i0;
    if (j1 <= j0) return;
    const Layout l = layout(seq);
    const Buffers b = carve(scratch, l, seq, d, rows);
    const int n = j1 - j0;  // keys from j0: row gathers see query index i − j0
    if (p_.c2p) {
      const Map m = map(head.shared, seq, 0);
      const int c_lo = kernels::run_index(m.runs, m.n_runs, j0 - (i1 - 1));
      const int c_hi = kernels::run_index(m.runs, m.n_runs, j1 - 1 - i0);
      const int base = detail::project_window(rows, head.q + static_cast<std::size_t>(i0) * d, d, d, content_scale(d),
                                              b.packed_kr, c_lo, c_hi, b.P, l.ldp);
      for (int r = 0; r < rows; ++r) {
        float* term = term_rows ? term_rows[0] + r * ld : nullptr;
        const float* x = b.P + r * l.ldp;
        if (m.has_quads)
          kernels::relative_logits_gather_quads_f32(i0 + r - j0, n, m.quads, x, base, logits + r * ld, term);
        else
          kernels::relative_logits_gather_f32(i0 + r - j0, n, m.runs, m.n_runs, x, base, logits + r * ld, term);
      }
    }
    if (p_.p2c) {
      const Map m = map(head.shared, seq, p_.c2p ? 1 : 0);
      float* term = term_rows ? term_rows[p_.c2p ? 1 : 0] : nullptr;
      const std::size_t ldz = round16(rows);
      // Per key panel: Z[j − ja][r] = XT[j][idx(i0 + r − j)] (queries along Z's rows), then added transposed —
      // or, where every (query, key) of the panel reads one clamped end, that end's row over keys to every row.
      for (int p = j0 / kKeyPanel; p * kKeyPanel < j1; ++p) {
        const int ja = std::max(j0, p * kKeyPanel), jb = std::min(j1, (p + 1) * kKeyPanel);
        const int end = clamped_end(m, i0 - (jb - 1), i1 - 1 - ja);
        if (end >= 0) {
          const float* e = b.E + static_cast<std::size_t>(end) * seq + ja;
          for (int r = 0; r < rows; ++r)
            kernels::vadd_bias_f32(jb - ja, e, logits + r * ld + (ja - j0), term ? term + r * ld + (ja - j0) : nullptr);
          continue;
        }
        for (int j = ja; j < jb; ++j) {
          const float* xt = b.XT + static_cast<std::size_t>(j) * l.ldx;
          float* z = b.Z + (j - ja) * ldz;
          if (m.has_quads)
            kernels::relative_rows_gather_quads_f32(j - i0, rows, m.quads, xt, b.bases[p], z);
          else
            kernels::relative_rows_gather_f32(j - i0, rows, m.runs, m.n_runs, xt, b.bases[p], z);
        }
        kernels::vtranspose_add_f32(rows, jb - ja, b.Z, ldz, logits + (ja - j0), ld, term ? term + (ja - j0) : nullptr);
      }
    }
  }

 private:
  // Keys per p2c GEMM (a multiple of every gemm_nr, so panels of packed K start at j0·head_dim).
  static constexpr int kKeyPanel = 64;
  static_assert(kKeyPanel % simd::gemm_nr == 0, "key panels must start on packed-panel boundaries");

  struct Layout {
    int g_lo, T;    // c2p: the reversed Kr rows held, from g_lo
    int g2_lo, T2;  // p2c: the Qr rows held, from g2_lo
    std::size_t ldp, ldx;
  };
  // One index map in the shared state: runs, and (has_quads) the same expanded per δ.
  struct Map {
    const RelativeRun* runs;
    int n_runs;
    bool has_quads;
    RelativeQuads quads;
  };
  struct Buffers {
    float* staging;    // c2p: Kr' rows
    float* packed_kr;  // c2p
    float* packed_qr;  // p2c
    float* XT;         // p2c: [seq, ldx]
    int* bases;        // p2c, per key panel: the Qr row held in XT's column 0
    float* E;          // p2c: [2, seq], XT's columns of the first and the last Qr row held (the clamped ends)
    float* P;          // c2p, per block: [rows, ldp]
    float* Z;          // p2c, per block: [64 keys, round16(rows)]
  };

  // Reversed table row c' = 2s − 1 − clamp(s + bucket(i − j), 0, 2s − 1), δ = j − i (c2p).
  int reversed_index(int delta) const { return 2 * span_ - 1 - forward_index(-delta); }
  // Table row idx = clamp(s + bucket(δ'), 0, 2s − 1), δ' = i − j (p2c).
  int forward_index(int delta) const {
    const int idx = span_ + deberta_relative_position(delta, p_.position_buckets, p_.max_relative_positions);
    return std::min(2 * span_ - 1, std::max(0, idx));
  }

  static int panels(int seq) { return (seq + kKeyPanel - 1) / kKeyPanel; }
  // 0 or 1 when every δ in [lo, hi] reads the map's first or last row through its first or last run (a
  // constant: the clamped end), −1 otherwise.
  static int clamped_end(const Map& m, int lo, int hi) {
    const int r = kernels::first_run_after(m.runs, m.n_runs, lo);
    if (m.runs[r].step != 0 || m.runs[r].delta_end <= hi) return -1;
    return r == 0 ? 0 : r == m.n_runs - 1 ? 1 : -1;
  }
  // Runs are at most one per δ; quads cover δ in [−(seq − 1), seq + 2] (every four-wide step of a gather).
  static int max_runs(int seq) { return 2 * seq; }
  static int quads_count(int seq) { return 2 * seq + 2; }
  static std::size_t runs_floats(int seq) { return round16(4 + static_cast<std::size_t>(max_runs(seq)) * 4); }
  static std::size_t map_floats(int seq) {
    return runs_floats(seq) + round16(kernels::relative_quads_floats(quads_count(seq), max_runs(seq)));
  }
  // Map k (0 the first the call holds) of the shared state: [n_runs, quads built][runs][quads].
  static Map map(const float* shared, int seq, int k) {
    const float* at = shared + k * map_floats(seq);
    const auto* header = reinterpret_cast<const int*>(at);
    Map m;
    m.runs = reinterpret_cast<const RelativeRun*>(at + 4);
    m.n_runs = header[0];
    m.has_quads = header[1] != 0;
    m.quads = kernels::relative_quads_at(at + runs_floats(seq), m.runs, m.n_runs, -(seq - 1), quads_count(seq));
    return m;
  }
  // Writes one map (runs of index − g_lo, then its quads) at `at`; ints stored in the float state.
  void build_map(int seq, int g_lo, int (DebertaScheme::*index)(int) const, float* at) const {
    auto* header = reinterpret_cast<int*>(at);
    auto* runs = reinterpret_cast<RelativeRun*>(at + 4);
    header[0] = build_runs(seq, g_lo, index, runs);
    header[1] = kernels::build_relative_quads(runs, header[0], -(seq - 1), quads_count(seq), at + runs_floats(seq));
  }

  Layout layout(int seq) const {
    Layout l;
    l.g_lo = reversed_index(-(seq - 1));
    l.T = reversed_index(seq - 1) - l.g_lo + 1;
    l.g2_lo = forward_index(-(seq - 1));
    l.T2 = forward_index(seq - 1) - l.g2_lo + 1;
    l.ldp = round16(l.T + simd::gemm_nr);
    l.ldx = round16(l.T2 + simd::gemm_nr);
    return l;
  }

  // Layout: c2p [staging T·d][packed Kr'], p2c [packed Qr][XT][bases], then the per-block [P][Z] (sized by the
  // block's rows: last, so the head's buffers sit at the same offsets for every block).
  Buffers carve(float* scratch, const Layout& l, int seq, int d, int rows) const {
    ScratchCursor s(scratch);
    Buffers b{};
    if (p_.c2p) {
      b.staging = s.take(static_cast<std::size_t>(l.T) * d);
      b.packed_kr = s.take(kernels::packed_b_floats(d, l.T));
    }
    if (p_.p2c) {
      b.packed_qr = s.take(kernels::packed_b_floats(d, l.T2));
      b.XT = s.take(static_cast<std::size_t>(seq) * l.ldx);
      b.bases = reinterpret_cast<int*>(s.take(panels(seq)));
      b.E = s.take(2 * static_cast<std::size_t>(seq));
    }
    if (p_.c2p) b.P = s.take(static_cast<std::size_t>(rows) * l.ldp);
    if (p_.p2c) b.Z = s.take(static_cast<std::size_t>(kKeyPanel) * round16(rows));
    return b;
  }

  // Greedy compression of δ ↦ index(δ) − g_lo, δ in [−(seq − 1), seq − 1], into step-0/step-1 runs
  // (index non-decreasing in δ).
  int build_runs(int seq, int g_lo, int (DebertaScheme::*index)(int) const, RelativeRun* runs) const {
    int n = 0;
    int delta = -(seq - 1);
    int cur = (this->*index)(delta);
    while (delta <= seq - 1) {
      const int begin = delta, c0 = cur;
      int step = 0;
      int e = delta + 1;
      int next = e <= seq - 1 ? (this->*index)(e) : 0;
      if (e <= seq - 1 && next == c0 + 1) step = 1;
      if (e <= seq - 1 && next != c0 && next != c0 + 1) {
        // jump of more than one row: a single-δ run
      } else {
        while (e <= seq - 1 && next == c0 + step * (e - begin)) {
          ++e;
          if (e <= seq - 1) next = (this->*index)(e);
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
