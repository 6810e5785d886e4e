// GELU forward / backward arrays (contract in gelu.h).
#include "gelu.h"

#include <algorithm>

#include "kernels/exp_f32.h"
#include "kernels/simd.h"

namespace relpos::train {

#if !defined(RELPOS_SCALAR)
namespace {
using relpos::simd::vf;

// erf(|u|/√2) by A–S 7.1.26 and e = exp(−u²/2) (shared by Φ and φ). No subnormal value for u = 0 or
// |u| ≥ 1e−19: e is ≥ e^−87 or 0 (exp_f32.h), u·φ(u) ≥ e^−87 where e > 0.
inline void erf_abs_and_gauss(const vf& u, vf& erf_abs, vf& e) {
  using namespace relpos::simd;
  const vf z = xsimd::abs(u) * splat(0.70710678118654752f);
  const vf one = splat(1.0f);
  const vf t = one / fma(z, splat(0.3275911f), one);
  vf p = fma(t, splat(1.061405429f), splat(-1.453152027f));
  p = fma(p, t, splat(1.421413741f));
  p = fma(p, t, splat(-0.284496736f));
  p = fma(p, t, splat(0.254829592f));
  p = p * t;
  e = relpos::kernels::exp_nonpositive(-(z * z));
  // p·e < 2^−25 from z ≈ 3.9 on (1 − p·e rounds to 1), and is subnormal for z ∈ [9.2, 9.35]: drop p
  // beyond z = 6 (same bits, no subnormal product; issue #28).
  erf_abs = one - xsimd::select(z > splat(6.0f), splat(0.0f), p) * e;
}

inline vf gelu_v(const vf& u) {
  using namespace relpos::simd;
  vf ea, e;
  erf_abs_and_gauss(u, ea, e);
  const vf erf = xsimd::select(u < splat(0.0f), -ea, ea);
  return splat(0.5f) * u * (splat(1.0f) + erf);
}

inline vf gelu_grad_v(const vf& u) {
  using namespace relpos::simd;
  vf ea, e;
  erf_abs_and_gauss(u, ea, e);
  const vf erf = xsimd::select(u < splat(0.0f), -ea, ea);
  return fma(u * splat(0.39894228040143268f), e, splat(0.5f) * (splat(1.0f) + erf));
}

// out[i] = f(a[i]) (times b[i] when b): full vectors, then one padded vector for the tail.
template <class F>
inline void map2(std::size_t n, const float* a, const float* b, float* out, F f) {
  using namespace relpos::simd;
  std::size_t i = 0;
  for (; i + width <= n; i += width) {
    const vf r = f(load(a + i));
    store(out + i, b ? r * load(b + i) : r);
  }
  if (i < n) {
    float ta[width] = {}, tb[width] = {};
    std::copy(a + i, a + n, ta);
    if (b) std::copy(b + i, b + n, tb);
    float to[width];
    const vf r = f(load(ta));
    store(to, b ? r * load(tb) : r);
    std::copy(to, to + (n - i), out + i);
  }
}
}  // namespace

void gelu_forward(std::size_t n, const float* u, float* y) { map2(n, u, nullptr, y, gelu_v); }
void gelu_backward(std::size_t n, const float* u, float* dy) { map2(n, u, dy, dy, gelu_grad_v); }
#else
void gelu_forward(std::size_t n, const float* u, float* y) {
  for (std::size_t i = 0; i < n; ++i) y[i] = gelu_reference(u[i]);
}
void gelu_backward(std::size_t n, const float* u, float* dy) {
  for (std::size_t i = 0; i < n; ++i) dy[i] *= gelu_grad_reference(u[i]);
}
#endif

}  // namespace relpos::train
