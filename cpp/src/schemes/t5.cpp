// Scheme "t5": T5's bucketed relative position bias (Raffel et al.; Hugging Face T5Attention).
//   logit(i, j) = q_i · k_j + B[bucket(j − i), h]          (content_scale 1: no 1/sqrt(head_dim))
// Shapes: bias_table [num_buckets, heads] row-major, as HF stores relative_attention_bias.weight.
// Distance: d = j − i (key − query); bucket = relpos::t5_relative_bucket(d, bidirectional, num_buckets,
//   max_distance) — bidirectional uses half the buckets per direction, unidirectional only looks back.
// Per head, begin_head gathers B[bucket(d), h] for every d ∈ [−(seq−1), seq−1] into a 2·seq − 1 vector;
// each logit row then adds a contiguous slice of it over the block's key columns
// (kernels::add_distance_bias_f32). Term: "bias".
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
  float content_scale(int) const override { return 1.0f; }

  void check(const AttentionDims&) const override {
    if (!p_.bias_table) fail_value("T5: bias_table is required ([num_buckets, heads] floats), got null");
    (void)t5_relative_bucket(0, p_.bidirectional, p_.num_buckets, p_.max_distance);  // validates the params
  }

  std::size_t scratch_floats(const AttentionDims& dims, int) const override {
    return 2 * static_cast<std::size_t>(dims.seq) - 1;
  }

  void begin_head(const HeadView& head, float* scratch) const override {
    const int seq = head.seq(), heads = head.dims->heads, h = head.head_index;
    for (int d = 1 - seq; d < seq; ++d) {
      const int bucket = t5_relative_bucket(d, p_.bidirectional, p_.num_buckets, p_.max_distance);
      scratch[d + seq - 1] = p_.bias_table[static_cast<std::size_t>(bucket) * heads + h];
    }
  }

  void add_logit_terms(const HeadView& head, float* scratch, int i0, int i1, int j0, int j1, float* logits,
                       std::size_t ld, float* const* term_rows) const override {
    kernels::add_distance_bias_f32(head.seq(), i0, i1, j0, j1, scratch, logits, ld, term_rows ? term_rows[0] : nullptr);
  }

 private:
  T5Params p_;
};

}  // namespace

std::unique_ptr<Scheme> make_scheme(const T5Params& p) { return std::make_unique<T5Scheme>(p); }

}  // namespace relpos
