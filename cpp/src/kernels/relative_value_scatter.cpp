// relative_value_scatter_f32 over simd::vf: slice adds for step-1 runs, vector sums for step-0 runs.
#include "kernels/relative_value_scatter.h"

#include <algorithm>

#include "kernels/simd.h"

namespace relpos::kernels {
namespace {

constexpr int W = static_cast<int>(simd::width);

inline float sum(int n, const float* x) {
  simd::vf a = simd::splat(0.0f), b = a;
  int j = 0;
  for (; j + 2 * W <= n; j += 2 * W) {
    a = a + simd::load(x + j);
    b = b + simd::load(x + j + W);
  }
  for (; j + W <= n; j += W) a = a + simd::load(x + j);
  float s = simd::reduce_add(a + b);
  for (; j < n; ++j) s += x[j];
  return s;
}

inline void add_slice(int n, const float* x, float* y) {
  int j = 0;
  for (; j + W <= n; j += W) simd::store(y + j, simd::load(y + j) + simd::load(x + j));
  for (; j < n; ++j) y[j] += x[j];
}

}  // namespace

void relative_value_scatter_f32(int i, int n, const RelativeRun* runs, int n_runs, const float* p, int index_base,
                                float* s) {
  int j = 0;
  for (int r = first_run_after(runs, n_runs, -i); r < n_runs && j < n; ++r) {
    const RelativeRun& run = runs[r];
    const int j_end = std::min(n, run.delta_end + i);
    if (j_end <= j) continue;
    if (run.step)
      add_slice(j_end - j, p + j, s + (run.index_begin - index_base + (j - i - run.delta_begin)));
    else
      s[run.index_begin - index_base] += sum(j_end - j, p + j);
    j = j_end;
  }
}

}  // namespace relpos::kernels
