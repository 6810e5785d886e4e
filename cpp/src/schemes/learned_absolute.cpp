// Scheme "learned_absolute": learned absolute position embeddings (BERT, GPT-2).
//   q'_p = q_p + T[p],  k'_p = k_p + T[p],  v'_p = v_p + T[p];  logit(i, j) = q'_i · k'_j / sqrt(head_dim)
// Shapes: table T [table_rows, head_dim], row p for position p = 0 … seq − 1 (absolute: no distance
// convention). RangeError naming table_rows when seq > table_rows. The first seq rows are contiguous,
// so each head is three kernels::vadd_f32 calls over seq·head_dim floats.
#include <string>

#include "kernels/vadd_f32.h"
#include "relpos/error.h"
#include "relpos/schemes.h"

namespace relpos {
namespace {

class LearnedAbsoluteScheme final : public Scheme {
 public:
  explicit LearnedAbsoluteScheme(const LearnedAbsoluteParams& p) : p_(p) {}

  const char* name() const override { return "learned_absolute"; }

  void check(const AttentionDims& dims) const override {
    if (!p_.table) fail_value("learned absolute positions: table is required ([table_rows, head_dim] floats), got null");
    if (p_.table_rows < 1)
      fail_range("learned absolute positions: table_rows must be ≥ 1, got " + std::to_string(p_.table_rows));
    if (dims.seq > p_.table_rows)
      fail_range("learned absolute positions: seq " + std::to_string(dims.seq) + " exceeds table_rows " +
                 std::to_string(p_.table_rows) + " (one table row per position)");
  }

  bool rewrites_qkv() const override { return true; }

  void rewrite_qkv(const HeadView& head, float* q, float* k, float* v) const override {
    const std::size_t n = static_cast<std::size_t>(head.seq()) * head.head_dim();
    kernels::vadd_f32(n, p_.table, q);
    kernels::vadd_f32(n, p_.table, k);
    kernels::vadd_f32(n, p_.table, v);
  }

 private:
  LearnedAbsoluteParams p_;
};

}  // namespace

std::unique_ptr<Scheme> make_scheme(const LearnedAbsoluteParams& p) { return std::make_unique<LearnedAbsoluteScheme>(p); }

}  // namespace relpos
