// Scheme "mlp_position": a learned MLP position encoder (d2l 11.6 style).
//   e(p) = W2 · relu(W1 · f(p) + b1) + b2        (head_dim entries)
//   q'_p = q_p + e(p),  k'_p = k_p + e(p),  v'_p = v_p + e(p);  logit(i, j) = q'_i · k'_j / sqrt(head_dim)
// f(p) = [p] when feature_dim == 1, else the Interleaved sinusoid of p with feature_dim entries
// (f[2i] = sin(p·ω_i), f[2i + 1] = cos(p·ω_i), ω_i = 10000^(−2i/feature_dim)); positions p = 0 … seq − 1.
// Shapes: w1 [hidden, feature_dim], b1 [hidden], w2 [head_dim, hidden], b2 [head_dim] (y = W x).
// Per head, in scratch: F [seq, feature_dim] → H = relu(F W1ᵀ + b1) [seq, hidden] → E = H W2ᵀ + b2
// [seq, head_dim] with the packed GEMM, then E is added to q, k and v (kernels::vadd_f32).
#include <string>
#include <vector>

#include "kernels/gemm_f32.h"
#include "kernels/sincos_positions.h"
#include "kernels/vadd_f32.h"
#include "relpos/error.h"
#include "relpos/schemes.h"

namespace relpos {
namespace {

std::size_t round_up16(std::size_t n) { return (n + 15) & ~static_cast<std::size_t>(15); }

class MlpPositionScheme final : public Scheme {
 public:
  explicit MlpPositionScheme(const MlpPositionParams& p) : p_(p) {}

  const char* name() const override { return "mlp_position"; }

  void check(const AttentionDims&) const override {
    if (p_.feature_dim < 1 || (p_.feature_dim > 1 && p_.feature_dim % 2 != 0))
      fail_range("MLP positions: feature_dim must be 1 or a positive even integer, got " +
                 std::to_string(p_.feature_dim));
    if (p_.hidden < 1) fail_range("MLP positions: hidden must be ≥ 1, got " + std::to_string(p_.hidden));
    if (!p_.w1) fail_value("MLP positions: w1 is required ([hidden, feature_dim] floats), got null");
    if (!p_.b1) fail_value("MLP positions: b1 is required ([hidden] floats), got null");
    if (!p_.w2) fail_value("MLP positions: w2 is required ([head_dim, hidden] floats), got null");
    if (!p_.b2) fail_value("MLP positions: b2 is required ([head_dim] floats), got null");
  }

  bool rewrites_qkv() const override { return true; }

  std::size_t scratch_floats(const AttentionDims& dims, int) const override {
    const Layout l = layout(dims.seq, dims.head_dim);
    return l.total;
  }

  void rewrite_qkv_with_scratch(const HeadView& head, float* scratch, float* q, float* k, float* v) const override {
    const int seq = head.seq(), d = head.head_dim(), fd = p_.feature_dim, hid = p_.hidden;
    const Layout l = layout(seq, d);
    float* F = scratch + l.f;
    float* w1p = scratch + l.w1;
    float* H = scratch + l.h;
    float* w2p = scratch + l.w2;
    float* E = scratch + l.e;
    if (fd == 1)
      for (int p = 0; p < seq; ++p) F[p] = static_cast<float>(p);
    else
      kernels::sincos_positions_f32(seq, fd / 2, 10000.0, fd, F + 1, F, fd, 2);
    kernels::pack_b_nk(fd, hid, p_.w1, fd, w1p);
    kernels::gemm_f32_packed(seq, hid, fd, 1.0f, F, fd, w1p, H, hid, false);
    for (int p = 0; p < seq; ++p) kernels::vaddrelu_f32(hid, p_.b1, H + static_cast<std::size_t>(p) * hid);
    kernels::pack_b_nk(hid, d, p_.w2, hid, w2p);
    kernels::gemm_f32_packed(seq, d, hid, 1.0f, H, hid, w2p, E, d, false);
    for (int p = 0; p < seq; ++p) kernels::vadd_f32(d, p_.b2, E + static_cast<std::size_t>(p) * d);
    const std::size_t n = static_cast<std::size_t>(seq) * d;
    kernels::vadd_f32(n, E, q);
    kernels::vadd_f32(n, E, k);
    kernels::vadd_f32(n, E, v);
  }

  void rewrite_qkv(const HeadView& head, float* q, float* k, float* v) const override {
    std::vector<float> scratch(scratch_floats(*head.dims, 1));
    rewrite_qkv_with_scratch(head, scratch.data(), q, k, v);
  }

 private:
  struct Layout {
    std::size_t f, w1, h, w2, e, total;
  };
  Layout layout(int seq, int d) const {
    Layout l{};
    const std::size_t s = static_cast<std::size_t>(seq);
    l.f = 0;
    l.w1 = l.f + round_up16(s * p_.feature_dim);
    l.h = l.w1 + round_up16(kernels::packed_b_floats(p_.feature_dim, p_.hidden));
    l.w2 = l.h + round_up16(s * p_.hidden);
    l.e = l.w2 + round_up16(kernels::packed_b_floats(p_.hidden, d));
    l.total = l.e + round_up16(s * d);
    return l;
  }
  MlpPositionParams p_;
};

}  // namespace

std::unique_ptr<Scheme> make_scheme(const MlpPositionParams& p) { return std::make_unique<MlpPositionScheme>(p); }

}  // namespace relpos
