// Relative "inner" kernels: add scalars gathered from a projected relative table to a logits row,
// never forming a [seq, seq, head_dim] tensor. Index maps are RelativeRun lists (relative_runs.h),
// δ = j − i; `index_base` is subtracted from every index (the first table row held in memory).
#pragma once

#include <cstddef>

#include "kernels/relative_runs.h"

namespace relpos::kernels {

// Row gather (query-side terms: q_i·E[index], already projected into x = one row of Q·Eᵀ):
//   for j in [0, n):  v = x[index(j − i) − index_base];  y[j] += v;  if term: term[j] = v.
// Shapes: x holds every index the row touches; y, term hold n floats. step-1 runs are vector adds
// of contiguous slices, step-0 runs vector adds of a splat.
void relative_logits_gather_f32(int i, int n, const RelativeRun* runs, int n_runs, const float* x, int index_base,
                                float* y, float* term);

// The row gather's values stored instead of added: y[j] = x[index(j − i) − index_base] for j in [0, n).
// With the roles of queries and keys swapped (i a key, j a query), it lays a key-side term out key-major
// from a row of K·Eᵀ (DeBERTa p2c), for vtranspose_add_f32 to add query-major.
void relative_rows_gather_f32(int i, int n, const RelativeRun* runs, int n_runs, const float* x, int index_base,
                              float* y);

// The row gather over a run list expanded per δ (RelativeQuads): four outputs per step from one
// unaligned load of x and a byte shuffle, whatever the runs' lengths (log buckets make runs of 1–5).
//   for j in [0, n):  v = x[index(j − i) − index_base];  y[j] += v;  if term: term[j] = v
// (relative_rows_gather_quads_f32: y[j] = v). The quads cover every δ in [−i, n − i + 3); x is read up
// to 3 floats past the last index touched. Shuffles on SIMD128 and SSSE3; a scalar loop elsewhere.
void relative_logits_gather_quads_f32(int i, int n, const RelativeQuads& quads, const float* x, int index_base,
                                      float* y, float* term);
void relative_rows_gather_quads_f32(int i, int n, const RelativeQuads& quads, const float* x, int index_base, float* y);

// Key-side term computed directly (tables too long to project per head, e.g. BERT relative_key_query):
//   for r in [0, rows), j in [0, n):  v = alpha · K[j]·E[j − (i0 + r) + e_zero];
//   y[r·ldy + j] += v;  if term: term[r·ldy + j] = v.
// Shapes: K [n, d] (row stride ldk), E rows of d floats (stride lde) covering every
// j − i + e_zero touched (E ordered by δ = j − i, row e_zero ↔ δ = 0).
void relative_key_dot_f32(int rows, int i0, int n, int d, float alpha, const float* K, std::size_t ldk,
                          const float* E, std::size_t lde, int e_zero, float* y, std::size_t ldy, float* term);

// Elementwise y[j] += b[j] (and term[j] = b[j] when term is non-null) for j in [0, n): per-key biases.
void vadd_bias_f32(int n, const float* b, float* y, float* term);

}  // namespace relpos::kernels
