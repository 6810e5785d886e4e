// RoPE cos/sin tables [length, rotary_dim], ω_i = theta^(−2i/rotary_dim), i < rotary_dim/2, angles p·ω_i
// from kernels::sincos_positions_f32 (float64-accurate):
//   Half (LLaMA rope_cos/rope_sin): T[p, i] = T[p, i + rotary_dim/2] = f(p·ω_i)
//   Interleaved (RoFormer):         T[p, 2i] = T[p, 2i + 1] = f(p·ω_i)
#include <cmath>
#include <string>

#include "kernels/sincos_positions.h"
#include "relpos/error.h"
#include "relpos/positions.h"

namespace relpos {

void rope_tables(int length, int rotary_dim, RopeLayout layout, float theta, std::vector<float>& cos_out,
                 std::vector<float>& sin_out) {
  if (length < 0) fail_range("rope_tables: length must be ≥ 0, got " + std::to_string(length));
  if (rotary_dim < 2 || rotary_dim % 2 != 0)
    fail_range("rope_tables: rotary_dim must be a positive even integer, got " + std::to_string(rotary_dim));
  if (!std::isfinite(theta) || theta <= 0.0f)
    fail_range("rope_tables: theta must be a positive finite number, got " + std::to_string(theta));
  const int h = rotary_dim / 2;
  const std::size_t n = static_cast<std::size_t>(length) * rotary_dim;
  cos_out.assign(n, 0.0f);
  sin_out.assign(n, 0.0f);
  if (layout == RopeLayout::Half) {
    kernels::sincos_positions_f32(length, h, theta, rotary_dim, cos_out.data(), sin_out.data(), rotary_dim, 1);
    for (int p = 0; p < length; ++p)
      for (int i = 0; i < h; ++i) {
        const std::size_t at = static_cast<std::size_t>(p) * rotary_dim + i;
        cos_out[at + h] = cos_out[at];
        sin_out[at + h] = sin_out[at];
      }
  } else {
    kernels::sincos_positions_f32(length, h, theta, rotary_dim, cos_out.data(), sin_out.data(), rotary_dim, 2);
    for (std::size_t at = 0; at < n; at += 2) {
      cos_out[at + 1] = cos_out[at];
      sin_out[at + 1] = sin_out[at];
    }
  }
}

}  // namespace relpos
