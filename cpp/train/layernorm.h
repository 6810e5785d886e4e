// LayerNorm rows for the training core (model.cpp), vectorised over simd::vf:
//   layernorm_row_forward(d, x, g, b, y, &mean, &rstd)   y = (x − μ)·r·g + b, r = 1/√(var + eps)
//   layernorm_row_backward(d, x, mean, rstd, g, dy, dx, accumulate)
//       dx = r·(u − mean(u) − x̂·mean(u ∘ x̂)), u = dy ∘ g, x̂ = (x − μ)·r   (written, or added)
//   layernorm_param_grads(d, x, mean, rstd, dy, dg, db)  dg += dy ∘ x̂,  db += dy   (one row)
// The row sums run over vector lanes, then the lanes, then the tail (order fixed by d only): results
// differ in the last bits from model.cpp's element-order loops, which native builds keep (bitwise
// results of docs/length-generalisation.md). model.cpp uses these where RELPOS_TRAIN_VECTOR_LN is 1:
// the WebAssembly SIMD build, where the scalar loops were ~10 % of a step (bench/train_profile.sh).
// Single-threaded and pure; no alignment needed.
#pragma once

#if defined(__EMSCRIPTEN__) && !defined(RELPOS_SCALAR)
#define RELPOS_TRAIN_VECTOR_LN 1
#else
#define RELPOS_TRAIN_VECTOR_LN 0
#endif

namespace relpos::train {

void layernorm_row_forward(int d, const float* x, const float* g, const float* b, float eps, float* y, float* mean,
                           float* rstd);
void layernorm_row_backward(int d, const float* x, float mean, float rstd, const float* g, const float* dy, float* dx,
                            bool accumulate);
void layernorm_param_grads(int d, const float* x, float mean, float rstd, const float* dy, float* dg, float* db);

}  // namespace relpos::train
