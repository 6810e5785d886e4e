// Scheme "t5": T5's bucketed relative position bias (Raffel et al.; Hugging Face T5Attention), and
// MPNet's (MPNetEncoder.compute_position_bias), which scales the content term first.
//   T5:     logit(i, j) = q_i · k_j + B[bucket(j − i), h]                      (content_scale 1)
//   MPNet:  logit(i, j) = q_i · k_j / sqrt(head_dim) + B[bucket(j − i), h]     (scale_content)
// Shapes: bias_table [table_rows, heads] row-major, as HF stores relative_attention_bias.weight;
//   table_rows ≥ num_buckets (MPNet's table has relative_attention_num_buckets rows, of which only
//   the 32 buckets it always uses are read).
// Distance: d = j − i (key − query); bucket = relpos::t5_relative_bucket(d, bidirectional, num_buckets,
//   max_distance) — bidirectional uses half the buckets per direction, unidirectional only looks back.
// Once per attention call, begin_call gathers B[bucket(d), h] for every head h and every
// d ∈ [−(seq−1), seq−1] into the shared [heads, 2·seq − 1] table (read-only for every slice and thread);
// each logit row then adds a contiguous slice of its head's row over the block's key columns
// [j0, j1) (kernels::add_distance_bias_f32). Term: "bias".
#include <cmath>
#include <string>

#include "kernels/distance_bias_f32.h"
#include "relpos/error.h"
#include "relpos/positions.h"
#include "relpos/schemes.h"

namespace relpos {
namespace {

class T5Scheme final : public Scheme {
 public:
  explicit T5Scheme(const T5Params& p) : p_(p) {}

  const char* name() const override { return "t5"; }
  std::vector<std::string> term_names() const override { return {"bias"}; }
  float content_scale(int head_dim) const override {
    return p_.scale_content ? 1.0f / std::sqrt(static_cast<float>(head_dim)) : 1.0f;
  }

  void check(const AttentionDims&) const override {
    if (!p_.bias_table) fail_value("T5: bias_table is required ([num_buckets, heads] floats), got null");
    (void)t5_relative_bucket(0, p_.bidirectional, p_.num_buckets, p_.max_distance);  // validates the params
    if (p_.table_rows != 0 && p_.table_rows < p_.num_buckets)
      fail_value("T5: bias_table has " + std::to_string(p_.table_rows) + " rows, fewer than the " +
                 std::to_string(p_.num_buckets) + " buckets it is read with (table_rows must be ≥ num_buckets, or 0)");
  }

  bool describe(const AttentionDims& dims, SchemeDescription& out) const override {
    check(dims);
    out.kind = "bucket";
    for (int d = 1 - dims.seq; d < dims.seq; ++d)
      out.ints.push_back(t5_relative_bucket(d, p_.bidirectional, p_.num_buckets, p_.max_distance));
    out.table = p_.bias_table;
    out.table_floats = static_cast<std::size_t>(p_.table_rows ? p_.table_rows : p_.num_buckets) * dims.heads;
    return true;
  }

  std::size_t shared_floats(const AttentionDims& dims, bool) const override {
    return static_cast<std::size_t>(dims.heads) * (2 * static_cast<std::size_t>(dims.seq) - 1);
  }

  void begin_call(const AttentionDims& dims, bool, float* shared) const override {
    const int seq = dims.seq, heads = dims.heads;
    const std::size_t row = 2 * static_cast<std::size_t>(seq) - 1;
    for (int d = 1 - seq; d < seq; ++d) {
      const int bucket = t5_relative_bucket(d, p_.bidirectional, p_.num_buckets, p_.max_distance);
      const float* b = p_.bias_table + static_cast<std::size_t>(bucket) * heads;
      for (int h = 0; h < heads; ++h) shared[h * row + static_cast<std::size_t>(d + seq - 1)] = b[h];
    }
  }

  void add_logit_terms(const HeadView& head, float*, int i0, int i1, int j0, int j1, float* logits,
                       std::size_t ld, float* const* term_rows) const override {
    const std::size_t row = 2 * static_cast<std::size_t>(head.seq()) - 1;
    kernels::add_distance_bias_f32(head.seq(), i0, i1, j0, j1, head.shared + head.head_index * row, logits, ld,
                                   term_rows ? term_rows[0] : nullptr);
  }

 private:
  T5Params p_;
};

}  // namespace

std::unique_ptr<Scheme> make_scheme(const T5Params& p) { return std::make_unique<T5Scheme>(p); }

}  // namespace relpos
