// GELU and its derivative over arrays, for the training core's MLP (model.cpp):
//   gelu_forward(n, u, y)     y[i] = u/2·(1 + erf(u/√2))
//   gelu_backward(n, u, dy)   dy[i] *= Φ(u) + u·φ(u)   (d/du GELU)
// SIMD builds: erf by Abramowitz–Stegun 7.1.26 (|error| ≤ 1.5e-7, as kernels/vgelu_f32.cpp) and
// kernels/exp_f32.h's exp_nonpositive, every element through the same vector code (the tail padded),
// so each result depends on its own input only (any chunking gives the same bits). RELPOS_SCALAR:
// std::erf / std::exp, element by element (gelu_reference / gelu_grad_reference).
// Single-threaded and pure; u and y / dy may not overlap (except gelu_forward's u == y).
//
// model.cpp uses them where RELPOS_TRAIN_VECTOR_GELU is 1: the WebAssembly SIMD build, where the scalar
// std::erf / std::exp loops were ~25 % of a training step (bench/train_profile.sh). Native builds keep
// the reference loops, so native losses and gradients (docs/length-generalisation.md) stay bitwise.
#pragma once

#include <cmath>
#include <cstddef>

#if defined(__EMSCRIPTEN__) && !defined(RELPOS_SCALAR)
#define RELPOS_TRAIN_VECTOR_GELU 1
#else
#define RELPOS_TRAIN_VECTOR_GELU 0
#endif

namespace relpos::train {

inline float gelu_reference(float u) { return 0.5f * u * (1.0f + std::erf(u * 0.70710678118654752f)); }
// exp(−u²/2) is 0 below −87, as kernels/exp_f32.h: std::exp returns subnormals on [−103.9, −87.3]
// (|u| ∈ [13.2, 14.4]), which cost a microcode assist per operation on Intel (issue #28).
inline float gelu_grad_reference(float u) {
  const float a = -0.5f * u * u;
  return 0.5f * (1.0f + std::erf(u * 0.70710678118654752f)) + u * 0.39894228040143268f * (a < -87.0f ? 0.0f : std::exp(a));
}

void gelu_forward(std::size_t n, const float* u, float* y);
void gelu_backward(std::size_t n, const float* u, float* dy);

}  // namespace relpos::train
