// Scheme "alibi": attention with linear biases (Press et al.).
//   logit(i, j) = q_i · k_j / sqrt(head_dim) + m_h · (j − i)      (default, the causal form)
//   logit(i, j) = q_i · k_j / sqrt(head_dim) − m_h · |j − i|      (symmetric = true)
// Distance: d = j − i (key − query); in causal attention d ≤ 0, so the bias is −m_h·(i − j). BLOOM's
// slope·key_index and MPT's slope·(key_index − (L − 1)) differ from m_h·(j − i) by a per-row constant,
// which softmax ignores.
// Slopes m_h: relpos::alibi_slopes (BLOOM or MPT rule) or custom [heads]. Shapes: no tables otherwise.
// Per head, begin_head writes m_h·d (or −m_h·|d|) for d ∈ [−(seq−1), seq−1] into a 2·seq − 1 vector;
// rows add contiguous slices over the block's key columns (kernels::add_distance_bias_f32). Term: "bias".
#include <cmath>
#include <string>

#include "kernels/distance_bias_f32.h"
#include "positions/alibi_slopes.h"
#include "relpos/error.h"
#include "relpos/schemes.h"

namespace relpos {
namespace {

class AlibiScheme final : public Scheme {
 public:
  explicit AlibiScheme(const AlibiParams& p) : p_(p) {}

  const char* name() const override { return "alibi"; }
  std::vector<std::string> term_names() const override { return {"bias"}; }

  void check(const AttentionDims& dims) const override {
    if (p_.slopes == AlibiSlopes::Custom) {
      if (!p_.custom) fail_value("ALiBi: custom slopes are required ([heads] floats) when slopes == Custom, got null");
    } else {
      (void)alibi_slope(0, dims.heads, p_.slopes, p_.mpt_bias_max);  // validates the rule's params
    }
  }

  bool describe(const AttentionDims& dims, SchemeDescription& out) const override {
    check(dims);
    out.kind = "alibi";
    for (int h = 0; h < dims.heads; ++h)
      out.floats.push_back(p_.slopes == AlibiSlopes::Custom ? p_.custom[h] : alibi_slope(h, dims.heads, p_.slopes, p_.mpt_bias_max));
    out.numbers.emplace_back("symmetric", p_.symmetric ? 1 : 0);
    return true;
  }

  std::size_t scratch_floats(const AttentionDims& dims, int) const override {
    return 2 * static_cast<std::size_t>(dims.seq) - 1;
  }

  void begin_head(const HeadView& head, float* scratch) const override {
    const int seq = head.seq(), h = head.head_index;
    const float m = p_.slopes == AlibiSlopes::Custom ? p_.custom[h]
                                                     : alibi_slope(h, head.dims->heads, p_.slopes, p_.mpt_bias_max);
    for (int d = 1 - seq; d < seq; ++d)
      scratch[d + seq - 1] = p_.symmetric ? -m * static_cast<float>(std::abs(d)) : m * static_cast<float>(d);
  }

  void add_logit_terms(const HeadView& head, float* scratch, int i0, int i1, int j0, int j1, float* logits,
                       std::size_t ld, float* const* term_rows) const override {
    kernels::add_distance_bias_f32(head.seq(), i0, i1, j0, j1, scratch, logits, ld, term_rows ? term_rows[0] : nullptr);
  }

 private:
  AlibiParams p_;
};

}  // namespace

std::unique_ptr<Scheme> make_scheme(const AlibiParams& p) { return std::make_unique<AlibiScheme>(p); }

}  // namespace relpos
