// Scheme "bert_relative": Hugging Face BERT position_embedding_type relative_key / relative_key_query.
//   E(i, j) = table[i − j + M − 1]            (distance = query − key; table [2M − 1, head_dim], all heads)
//   relative_key:        logit = (q_i·k_j + q_i·E(i, j)) / sqrt(head_dim)
//   relative_key_query:  logit = (q_i·k_j + q_i·E(i, j) + k_j·E(i, j)) / sqrt(head_dim)
//   Terms: {"relative_key"} = q_i·E/sqrt(d), plus {"relative_query"} = k_j·E/sqrt(d) for key_query.
//   RangeError when seq > M (the table has no row for the distance).
//
// Per head the 2·seq − 1 rows that |i − j| ≤ seq − 1 can reach are copied in δ order (δ = j − i, so
// reversed: staging[t] = table[M + seq − 2 − t], t = δ + seq − 1) and packed. Per block:
//   q-side: Q_block·Eᵀ over the distances the block touches, then each row adds its contiguous slice;
//   k-side: k_j·E(δ) needs a different table row per (i, j) along a diagonal, so it is a direct
//           register-blocked dot (kernels::relative_key_dot_f32): O(rows · (j1 − j0) · head_dim) per block.
// Both cover only the block's key columns [j0, j1) (relpos/scheme.h).
// GPU description: kind "relative_vectors", ints row i − j + M − 1 at [j − i + seq − 1], table E for
// q_i (and table2 = E for k_j with key_query), head stride 0, term_scale 1/sqrt(head_dim).
#include <cmath>
#include <cstring>
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

class BertRelativeScheme final : public Scheme {
 public:
  explicit BertRelativeScheme(const BertRelativeParams& p) : p_(p) {}
  const char* name() const override { return "bert_relative"; }
  std::vector<std::string> term_names() const override {
    if (p_.key_query) return {"relative_key", "relative_query"};
    return {"relative_key"};
  }

  void check(const AttentionDims& dims) const override {
    if (p_.max_positions < 1)
      fail_range("bert_relative: max_positions (M) must be ≥ 1, got " + std::to_string(p_.max_positions));
    if (!p_.table) fail_value("bert_relative: table is missing (expected [2M − 1, head_dim] floats)");
    if (dims.seq > p_.max_positions)
      fail_range("bert_relative: seq " + std::to_string(dims.seq) + " exceeds max_positions (M) " +
                 std::to_string(p_.max_positions) + " of the distance table");
  }

  // "relative_vectors": row i − j + M − 1 of the one table (head stride 0), with q_i (and with k_j).
  bool describe(const AttentionDims& dims, SchemeDescription& out) const override {
    check(dims);
    out.kind = "relative_vectors";
    for (int delta = 1 - dims.seq; delta < dims.seq; ++delta) out.ints.push_back(p_.max_positions - 1 - delta);
    const std::size_t floats = static_cast<std::size_t>(2 * p_.max_positions - 1) * dims.head_dim;
    out.table = p_.table;
    out.table_floats = floats;
    if (p_.key_query) {
      out.table2 = p_.table;
      out.table2_floats = floats;
    }
    out.numbers = {{"table_head", 0.0}, {"table2_head", 0.0}, {"term_scale", 1.0f / std::sqrt(static_cast<float>(dims.head_dim))}};
    return true;
  }

  std::size_t scratch_floats(const AttentionDims& dims, int block_rows) const override {
    const Layout l = layout(dims.seq);
    return round16(kernels::packed_b_floats(dims.head_dim, l.T)) + round16(static_cast<std::size_t>(l.T) * dims.head_dim) +
           round16(block_rows * l.ldp) + 64;
  }

  void begin_head(const HeadView& head, float* scratch) const override {
    const int d = head.head_dim(), seq = head.seq();
    const Layout l = layout(seq);
    ScratchCursor s(scratch);
    float* packed = s.take(kernels::packed_b_floats(d, l.T));
    float* staging = s.take(static_cast<std::size_t>(l.T) * d);
    const int M = p_.max_positions;
    for (int t = 0; t < l.T; ++t)
      std::memcpy(staging + static_cast<std::size_t>(t) * d, p_.table + static_cast<std::size_t>(M + seq - 2 - t) * d,
                  sizeof(float) * d);
    kernels::pack_b_nk(d, l.T, staging, d, packed);
  }

  void add_logit_terms(const HeadView& head, float* scratch, int i0, int i1, int j0, int j1, float* logits,
                       std::size_t ld, float* const* term_rows) const override {
    const int seq = head.seq(), d = head.head_dim(), rows = i1 - i0;
    const Layout l = layout(seq);
    ScratchCursor s(scratch);
    const float* packed = s.take(kernels::packed_b_floats(d, l.T));
    const float* staging = s.take(static_cast<std::size_t>(l.T) * d);
    float* P = s.take(static_cast<std::size_t>(rows) * l.ldp);
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    detail::add_query_relative_term(i0, i1, j0, j1, seq, -(seq - 1), seq - 1, head.q + static_cast<std::size_t>(i0) * d, d, d,
                                    scale, packed, P, l.ldp, logits, ld, term_rows ? term_rows[0] : nullptr);
    if (p_.key_query && j1 > j0)  // keys from j0: query index i0 − j0, K from row j0
      kernels::relative_key_dot_f32(rows, i0 - j0, j1 - j0, d, scale, head.k + static_cast<std::size_t>(j0) * d, d,
                                    staging, d, seq - 1, logits, ld, term_rows ? term_rows[1] : nullptr);
  }

 private:
  struct Layout {
    int T;
    std::size_t ldp;
  };
  static Layout layout(int seq) {
    Layout l;
    l.T = 2 * seq - 1;
    l.ldp = round16(l.T + simd::gemm_nr);
    return l;
  }

  BertRelativeParams p_;
};

}  // namespace

std::unique_ptr<Scheme> make_scheme(const BertRelativeParams& p) { return std::make_unique<BertRelativeScheme>(p); }

}  // namespace relpos
