// Relative inner kernels over simd::vf: contiguous slices and splats for the row gather, contiguous
// rows and scalar diagonals for the column gather, a 4-row register-blocked dot for key-side terms.
// Contracts in relative_logits_gather.h.
#include "kernels/relative_logits_gather.h"

#include <algorithm>

#include "kernels/simd.h"

namespace relpos::kernels {
namespace {

constexpr int W = static_cast<int>(simd::width);

// y[j] += x[j] (term[j] = x[j]) for j in [0, n).
template <bool kTerm>
inline void add_slice(int n, const float* x, float* y, float* term) {
  int j = 0;
  for (; j + 2 * W <= n; j += 2 * W) {
    const simd::vf a = simd::load(x + j), b = simd::load(x + j + W);
    simd::store(y + j, simd::load(y + j) + a);
    simd::store(y + j + W, simd::load(y + j + W) + b);
    if (kTerm) {
      simd::store(term + j, a);
      simd::store(term + j + W, b);
    }
  }
  for (; j + W <= n; j += W) {
    const simd::vf a = simd::load(x + j);
    simd::store(y + j, simd::load(y + j) + a);
    if (kTerm) simd::store(term + j, a);
  }
  for (; j < n; ++j) {
    y[j] += x[j];
    if (kTerm) term[j] = x[j];
  }
}

// y[j] += c (term[j] = c) for j in [0, n).
template <bool kTerm>
inline void add_splat(int n, float c, float* y, float* term) {
  const simd::vf v = simd::splat(c);
  int j = 0;
  for (; j + 2 * W <= n; j += 2 * W) {
    simd::store(y + j, simd::load(y + j) + v);
    simd::store(y + j + W, simd::load(y + j + W) + v);
    if (kTerm) {
      simd::store(term + j, v);
      simd::store(term + j + W, v);
    }
  }
  for (; j + W <= n; j += W) {
    simd::store(y + j, simd::load(y + j) + v);
    if (kTerm) simd::store(term + j, v);
  }
  for (; j < n; ++j) {
    y[j] += c;
    if (kTerm) term[j] = c;
  }
}

template <bool kTerm>
void row_gather(int i, int n, const RelativeRun* runs, int n_runs, const float* x, int index_base, float* y,
                float* term) {
  int j = 0;
  for (int r = first_run_after(runs, n_runs, -i); r < n_runs && j < n; ++r) {
    const RelativeRun& run = runs[r];
    const int j_end = std::min(n, run.delta_end + i);
    if (j_end <= j) continue;
    if (run.step) {
      const float* src = x + (run.index_begin - index_base + (j - i - run.delta_begin));
      add_slice<kTerm>(j_end - j, src, y + j, kTerm ? term + j : nullptr);
    } else {
      add_splat<kTerm>(j_end - j, x[run.index_begin - index_base], y + j, kTerm ? term + j : nullptr);
    }
    j = j_end;
  }
}

template <bool kTerm>
void column_gather(int i, int n, const RelativeRun* runs, int n_runs, const float* X, std::size_t ldx,
                   int index_base, float* y, float* term) {
  int j = 0;
  for (int r = first_run_after(runs, n_runs, -i); r < n_runs && j < n; ++r) {
    const RelativeRun& run = runs[r];
    const int j_end = std::min(n, run.delta_end + i);
    if (j_end <= j) continue;
    if (run.step) {
      // index − index_base = c0 + (j − j_start) while j advances: one diagonal of X.
      const float* p = X + static_cast<std::size_t>(run.index_begin - index_base + (j - i - run.delta_begin)) * ldx + j;
      for (int jj = j; jj < j_end; ++jj, p += ldx + 1) {
        y[jj] += *p;
        if (kTerm) term[jj] = *p;
      }
    } else {
      const float* row = X + static_cast<std::size_t>(run.index_begin - index_base) * ldx;
      add_slice<kTerm>(j_end - j, row + j, y + j, kTerm ? term + j : nullptr);
    }
    j = j_end;
  }
}

template <int R, bool kTerm>
void key_dot_rows(int i0, int n, int d, float alpha, const float* K, std::size_t ldk, const float* E, std::size_t lde,
                  int e_zero, float* y, std::size_t ldy, float* term) {
  for (int j = 0; j < n; ++j) {
    const float* kj = K + static_cast<std::size_t>(j) * ldk;
    const float* e[R];
    for (int r = 0; r < R; ++r) e[r] = E + static_cast<std::size_t>(j - (i0 + r) + e_zero) * lde;
    simd::vf acc[R];
    for (int r = 0; r < R; ++r) acc[r] = simd::splat(0.0f);
    int c = 0;
    for (; c + W <= d; c += W) {
      const simd::vf kv = simd::load(kj + c);
      for (int r = 0; r < R; ++r) acc[r] = simd::fma(kv, simd::load(e[r] + c), acc[r]);
    }
    float s[R];
    for (int r = 0; r < R; ++r) s[r] = simd::reduce_add(acc[r]);
    for (; c < d; ++c)
      for (int r = 0; r < R; ++r) s[r] += kj[c] * e[r][c];
    for (int r = 0; r < R; ++r) {
      const float v = alpha * s[r];
      y[r * ldy + j] += v;
      if (kTerm) term[r * ldy + j] = v;
    }
  }
}

template <bool kTerm>
void key_dot(int rows, int i0, int n, int d, float alpha, const float* K, std::size_t ldk, const float* E,
             std::size_t lde, int e_zero, float* y, std::size_t ldy, float* term) {
  int r = 0;
  for (; r + 4 <= rows; r += 4)
    key_dot_rows<4, kTerm>(i0 + r, n, d, alpha, K, ldk, E, lde, e_zero, y + r * ldy, ldy,
                           kTerm ? term + r * ldy : nullptr);
  for (; r < rows; ++r)
    key_dot_rows<1, kTerm>(i0 + r, n, d, alpha, K, ldk, E, lde, e_zero, y + r * ldy, ldy,
                           kTerm ? term + r * ldy : nullptr);
}

}  // namespace

void relative_logits_gather_f32(int i, int n, const RelativeRun* runs, int n_runs, const float* x, int index_base,
                                float* y, float* term) {
  if (term)
    row_gather<true>(i, n, runs, n_runs, x, index_base, y, term);
  else
    row_gather<false>(i, n, runs, n_runs, x, index_base, y, nullptr);
}

void relative_logits_gather_columns_f32(int i, int n, const RelativeRun* runs, int n_runs, const float* X,
                                        std::size_t ldx, int index_base, float* y, float* term) {
  if (term)
    column_gather<true>(i, n, runs, n_runs, X, ldx, index_base, y, term);
  else
    column_gather<false>(i, n, runs, n_runs, X, ldx, index_base, y, nullptr);
}

void relative_key_dot_f32(int rows, int i0, int n, int d, float alpha, const float* K, std::size_t ldk,
                          const float* E, std::size_t lde, int e_zero, float* y, std::size_t ldy, float* term) {
  if (term)
    key_dot<true>(rows, i0, n, d, alpha, K, ldk, E, lde, e_zero, y, ldy, term);
  else
    key_dot<false>(rows, i0, n, d, alpha, K, ldk, E, lde, e_zero, y, ldy, nullptr);
}

void vadd_bias_f32(int n, const float* b, float* y, float* term) {
  if (term)
    add_slice<true>(n, b, y, term);
  else
    add_slice<false>(n, b, y, nullptr);
}

}  // namespace relpos::kernels
