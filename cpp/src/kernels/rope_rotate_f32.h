// Rotary position embedding applied in place to rows of q or k.
//
// Row p of x (row stride ldx) is rotated by the angles of row p of cos/sin tables [rows, h]
// (row stride h, h = rotary_dim / 2, c_i = cos(p·ω_i), s_i = sin(p·ω_i)):
//   Half (LLaMA rotate_half):  (x[i], x[i + h])   ← (x[i]·c_i − x[i + h]·s_i,  x[i + h]·c_i + x[i]·s_i)
//   Interleaved (RoFormer):    (x[2i], x[2i + 1]) ← (x[2i]·c_i − x[2i + 1]·s_i, x[2i + 1]·c_i + x[2i]·s_i)
// for i < h; columns ≥ 2h are left unchanged. No allocation.
#pragma once

#include <cstddef>

namespace relpos::kernels {

void rope_rotate_half_f32(int rows, int h, const float* cos, const float* sin, float* x, std::size_t ldx);
void rope_rotate_interleaved_f32(int rows, int h, const float* cos, const float* sin, float* x, std::size_t ldx);

}  // namespace relpos::kernels
