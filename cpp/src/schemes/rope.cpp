// Scheme "rope": rotary position embedding (Su et al., RoFormer; LLaMA).
//   q'_p = R(p) q_p,  k'_p = R(p) k_p,  v unchanged;  logit(i, j) = q'_i · k'_j · content_scale (default 1/sqrt(head_dim))
// R(p) rotates pairs of the first rotary_dim dimensions by p·ω_i, ω_i = theta^(−2i/rotary_dim), i < rotary_dim/2:
//   Interleaved (RoFormer): pairs (2i, 2i + 1);   Half (LLaMA rotate_half): pairs (i, i + rotary_dim/2).
// (x, y) ↦ (x·cos − y·sin, y·cos + x·sin). Dimensions ≥ rotary_dim pass through (partial rotary).
// Since R(i)ᵀR(j) = R(j − i), the logit depends on the distance d = j − i only through the rotation.
// Shapes: no tables; per head the [seq, rotary_dim/2] cos/sin tables are built in the scheme's scratch
// (kernels::sincos_positions_f32, float64-accurate angles) and applied by kernels::rope_rotate_*_f32.
// Positions are the row indices 0 … seq − 1.
#include <cmath>
#include <string>
#include <vector>

#include "kernels/rope_rotate_f32.h"
#include "kernels/sincos_positions.h"
#include "relpos/error.h"
#include "relpos/schemes.h"

namespace relpos {
namespace {

class RopeScheme final : public Scheme {
 public:
  explicit RopeScheme(const RopeParams& p) : p_(p) {}

  const char* name() const override { return "rope"; }

  void check(const AttentionDims& dims) const override {
    if (p_.rotary_dim < 0) fail_range("RoPE: rotary_dim must be ≥ 0 (0 = head_dim), got " + std::to_string(p_.rotary_dim));
    if (p_.rotary_dim > dims.head_dim)
      fail_range("RoPE: rotary_dim must be ≤ head_dim " + std::to_string(dims.head_dim) + ", got " +
                 std::to_string(p_.rotary_dim));
    const int rd = rotary_dim(dims.head_dim);
    if (rd % 2 != 0) {
      if (p_.rotary_dim == 0)
        fail_range("RoPE: head_dim must be even when rotary_dim is 0 (= head_dim), got " + std::to_string(dims.head_dim));
      fail_range("RoPE: rotary_dim must be even, got " + std::to_string(p_.rotary_dim));
    }
    if (!std::isfinite(p_.content_scale) || p_.content_scale < 0.0f)
      fail_range("RoPE: content_scale must be a finite number ≥ 0 (0 = 1/sqrt(head_dim)), got " + std::to_string(p_.content_scale));
    if (!std::isfinite(p_.theta) || p_.theta <= 0.0f)
      fail_range("RoPE: theta must be a positive finite number, got " + std::to_string(p_.theta));
  }

  bool rewrites_qkv() const override { return true; }

  float content_scale(int head_dim) const override {
    return p_.content_scale > 0.0f ? p_.content_scale : Scheme::content_scale(head_dim);
  }

  bool describe(const AttentionDims& dims, SchemeDescription& out) const override {
    check(dims);
    const int h = rotary_dim(dims.head_dim) / 2;
    const std::size_t n = static_cast<std::size_t>(dims.seq) * h;
    out.kind = "rope";
    out.floats.resize(2 * n);
    kernels::sincos_positions_f32(dims.seq, h, p_.theta, 2 * h, out.floats.data(), out.floats.data() + n, h, 1);
    out.numbers.emplace_back("interleaved", p_.layout == RopeLayout::Interleaved ? 1 : 0);
    out.numbers.emplace_back("rotary_dim", 2 * h);
    return true;
  }

  std::size_t scratch_floats(const AttentionDims& dims, int) const override {
    return static_cast<std::size_t>(dims.seq) * rotary_dim(dims.head_dim);  // cos and sin, rotary_dim/2 each
  }

  void rewrite_qkv_with_scratch(const HeadView& head, float* scratch, float* q, float* k, float*) const override {
    const int seq = head.seq(), d = head.head_dim();
    const int h = rotary_dim(d) / 2;
    if (h == 0) return;
    float* cos = scratch;
    float* sin = scratch + static_cast<std::size_t>(seq) * h;
    kernels::sincos_positions_f32(seq, h, p_.theta, 2 * h, cos, sin, h, 1);
    if (p_.layout == RopeLayout::Half) {
      kernels::rope_rotate_half_f32(seq, h, cos, sin, q, d);
      kernels::rope_rotate_half_f32(seq, h, cos, sin, k, d);
    } else {
      kernels::rope_rotate_interleaved_f32(seq, h, cos, sin, q, d);
      kernels::rope_rotate_interleaved_f32(seq, h, cos, sin, k, d);
    }
  }

  // For callers without a scratch buffer (the driver uses rewrite_qkv_with_scratch).
  void rewrite_qkv(const HeadView& head, float* q, float* k, float* v) const override {
    std::vector<float> scratch(scratch_floats(*head.dims, 1));
    rewrite_qkv_with_scratch(head, scratch.data(), q, k, v);
  }

 private:
  int rotary_dim(int head_dim) const { return p_.rotary_dim == 0 ? head_dim : p_.rotary_dim; }
  RopeParams p_;
};

}  // namespace

std::unique_ptr<Scheme> make_scheme(const RopeParams& p) { return std::make_unique<RopeScheme>(p); }

}  // namespace relpos
