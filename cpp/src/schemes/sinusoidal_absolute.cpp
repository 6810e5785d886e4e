// Scheme "sinusoidal_absolute": fixed sinusoidal absolute positions (Vaswani et al.).
//   q'_p = q_p + PE[p],  k'_p = k_p + PE[p],  v'_p = v_p + PE[p]   (as if PE were added to the
//   embeddings under identity projections);  logit(i, j) = q'_i · k'_j / sqrt(head_dim)
// PE[p] has head_dim entries, ω_i = base^(−2i/head_dim), i < head_dim/2:
//   Interleaved:  PE[p, 2i] = sin(p·ω_i), PE[p, 2i + 1] = cos(p·ω_i)     (Vaswani; DistilBERT)
//   Concatenated: PE[p, i] = sin(p·ω_i),  PE[p, head_dim/2 + i] = cos(p·ω_i)
// Positions are the row indices 0 … seq − 1 (absolute: no distance convention). head_dim must be even.
// Per head the [seq, head_dim] table is built in scratch (kernels::sincos_positions_f32) and added
// with kernels::vadd_f32.
#include <cmath>
#include <string>
#include <vector>

#include "kernels/sincos_positions.h"
#include "kernels/vadd_f32.h"
#include "relpos/error.h"
#include "relpos/schemes.h"

namespace relpos {
namespace {

class SinusoidalAbsoluteScheme final : public Scheme {
 public:
  explicit SinusoidalAbsoluteScheme(const SinusoidalAbsoluteParams& p) : p_(p) {}

  const char* name() const override { return "sinusoidal_absolute"; }

  void check(const AttentionDims& dims) const override {
    if (dims.head_dim % 2 != 0)
      fail_range("sinusoidal absolute positions: head_dim must be even (sin/cos pairs), got " +
                 std::to_string(dims.head_dim));
    if (!std::isfinite(p_.base) || p_.base <= 0.0f)
      fail_range("sinusoidal absolute positions: base must be a positive finite number, got " + std::to_string(p_.base));
  }

  bool rewrites_qkv() const override { return true; }

  std::size_t scratch_floats(const AttentionDims& dims, int) const override {
    return static_cast<std::size_t>(dims.seq) * dims.head_dim;
  }

  void rewrite_qkv_with_scratch(const HeadView& head, float* scratch, float* q, float* k, float* v) const override {
    const int seq = head.seq(), d = head.head_dim();
    if (p_.layout == SinusoidLayout::Interleaved)
      kernels::sincos_positions_f32(seq, d / 2, p_.base, d, scratch + 1, scratch, d, 2);
    else
      kernels::sincos_positions_f32(seq, d / 2, p_.base, d, scratch + d / 2, scratch, d, 1);
    const std::size_t n = static_cast<std::size_t>(seq) * d;
    kernels::vadd_f32(n, scratch, q);
    kernels::vadd_f32(n, scratch, k);
    kernels::vadd_f32(n, scratch, v);
  }

  void rewrite_qkv(const HeadView& head, float* q, float* k, float* v) const override {
    std::vector<float> scratch(scratch_floats(*head.dims, 1));
    rewrite_qkv_with_scratch(head, scratch.data(), q, k, v);
  }

 private:
  SinusoidalAbsoluteParams p_;
};

}  // namespace

std::unique_ptr<Scheme> make_scheme(const SinusoidalAbsoluteParams& p) {
  return std::make_unique<SinusoidalAbsoluteScheme>(p);
}

}  // namespace relpos
