// Sinusoids of consecutive integer positions, the table behind RoPE and sinusoidal positions.
//
//   ω_i = base^(−2i/dim),  i < n
//   cos_out[p·ld + i·stride] = cos(p·ω_i),  sin_out[p·ld + i·stride] = sin(p·ω_i),  p < length
//
// Angles advance by a rotation in double, (c, s) ← (c·cos ω − s·sin ω, s·cos ω + c·sin ω), re-anchored
// from std::cos/std::sin(p·ω) every 512 positions: error ≈ 1e-13 (far below float32 rounding, so the
// table matches a float64 reference) at ~6 flops per entry instead of a sin and a cos.
// cos_out and sin_out may interleave (e.g. sin at PE + 0, cos at PE + 1, stride 2). No allocation.
#pragma once

#include <cstddef>

namespace relpos::kernels {

void sincos_positions_f32(int length, int n, double base, int dim, float* cos_out, float* sin_out, std::size_t ld,
                          std::size_t stride);

}  // namespace relpos::kernels
