// Row helpers of the training core, written over simd::vf (kernels/simd.h) like the library kernels.
// Single-threaded and pure; n ≥ 0, pointers need no alignment.
//   dot(n, a, b)        = Σ_i a[i]·b[i]      (vector lanes summed with simd::reduce_add, then the tail)
//   axpy(n, α, x, y)    y[i] += α·x[i]
//   add_to(n, x, y)     y[i] += x[i]          (one add per element: same bits as the scalar loop)
// The summation order depends only on n, so results do not depend on threads or call site.
#pragma once

#include <cstddef>

#include "kernels/simd.h"

namespace relpos::train {

inline float dot(int n, const float* a, const float* b) {
  using namespace relpos::simd;
  int i = 0;
  vf acc = splat(0.0f);
  for (; i + static_cast<int>(width) <= n; i += static_cast<int>(width)) acc = fma(load(a + i), load(b + i), acc);
  float s = reduce_add(acc);
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}

inline void axpy(int n, float alpha, const float* x, float* y) {
  using namespace relpos::simd;
  int i = 0;
  const vf va = splat(alpha);
  for (; i + static_cast<int>(width) <= n; i += static_cast<int>(width)) store(y + i, fma(va, load(x + i), load(y + i)));
  for (; i < n; ++i) y[i] += alpha * x[i];
}

inline void add_to(int n, const float* x, float* y) {
  using namespace relpos::simd;
  int i = 0;
  for (; i + static_cast<int>(width) <= n; i += static_cast<int>(width)) store(y + i, load(y + i) + load(x + i));
  for (; i < n; ++i) y[i] += x[i];
}

}  // namespace relpos::train
