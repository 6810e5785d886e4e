// Element-wise activations, in place, for the feed-forward blocks (models/layers/activations.cpp):
//   vgelu_f32       x ← x/2 · (1 + erf(x/√2))                              (HF "gelu")
//   vgelu_tanh_f32  x ← x/2 · (1 + tanh(u)) = x · σ(2u),  u = √(2/π)(x + 0.044715x³)   (HF "gelu_new")
//   vsilu_f32       x ← x · σ(x)                                             (HF "silu")
// Written over simd::vf with exp_nonpositive (exp_f32.h):
//   σ(s) = 1/(1 + e^−s) evaluated as (s ≥ 0 ? 1 : e)/(1 + e), e = exp(−|s|): no overflow and no
//   cancellation for large |s|;
//   erf(z), z ≥ 0: Abramowitz–Stegun 7.1.26, 1 − t(a1 + t(a2 + t(a3 + t(a4 + t·a5))))·exp(−z²),
//   t = 1/(1 + 0.3275911·z), |error| ≤ 1.5e-7; odd in z.
// Absolute error against float64 ≤ 4e-7·max(1, |x|) (tests/cpp/activations_match_float64_test.cpp);
// ±inf and NaN behave as the float64 formulas (gelu(−inf) is NaN there too). The scalar build uses
// std::erf / std::tanh / std::exp directly.
// No subnormals (issue #28): for x = 0 or |x| ≥ 1e−19 (smaller ones square to subnormals inside the
// erf / tanh arguments) no result and no intermediate is subnormal: exp's cut-off, erf's z clamped to
// 6, σ(s) = e/(1 + e) with e ≥ e^−87 or 0, and |x|·σ(s) ≥ e^−87 wherever e > 0.
#pragma once

#include <cstddef>

namespace relpos::kernels {

void vgelu_f32(std::size_t n, float* x);
void vgelu_tanh_f32(std::size_t n, float* x);
void vsilu_f32(std::size_t n, float* x);

}  // namespace relpos::kernels
