// Relative inner kernels over simd::vf: contiguous slices and splats for the row gather over runs, one
// unaligned load and a byte shuffle per four outputs for the gather over quads, a 4-row register-blocked
// dot for key-side terms.
// Contracts in relative_logits_gather.h.
#include "kernels/relative_logits_gather.h"

#include <algorithm>

#include "kernels/simd.h"

#if defined(RELPOS_SCALAR)
#elif defined(__wasm_simd128__)
#include <wasm_simd128.h>
#define RELPOS_QUADS_SHUFFLE 1
#elif defined(__SSSE3__)
#include <immintrin.h>
#define RELPOS_QUADS_SHUFFLE 1
#endif

namespace relpos::kernels {
namespace {
// Four floats and the byte shuffle the quads need, on SIMD128 or SSSE3 whatever simd::width is (native AVX
// builds included): x[first .. first + 3] permuted by a 16-byte pattern.
#if defined(__wasm_simd128__)
using Quad = v128_t;
inline Quad load4(const float* p) { return wasm_v128_load(p); }
inline void store4(float* p, Quad v) { wasm_v128_store(p, v); }
inline Quad add4(Quad a, Quad b) { return wasm_f32x4_add(a, b); }
inline Quad shuffle4(const float* src, const std::uint8_t* pattern) {
  return wasm_i8x16_swizzle(wasm_v128_load(src), wasm_v128_load(pattern));
}
#elif defined(RELPOS_QUADS_SHUFFLE)
using Quad = __m128;
inline Quad load4(const float* p) { return _mm_loadu_ps(p); }
inline void store4(float* p, Quad v) { _mm_storeu_ps(p, v); }
inline Quad add4(Quad a, Quad b) { return _mm_add_ps(a, b); }
inline Quad shuffle4(const float* src, const std::uint8_t* pattern) {
  return _mm_castsi128_ps(_mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src)),
                                           _mm_loadu_si128(reinterpret_cast<const __m128i*>(pattern))));
}
#endif

constexpr int W = static_cast<int>(simd::width);

// The three ways a gathered value v reaches y[j]: y[j] += v; y[j] += v and term[j] = v; y[j] = v.
enum class Put { Add, AddTerm, Store };

template <Put kPut>
inline void put(float* y, float* term, int j, const simd::vf& v) {
  if constexpr (kPut == Put::Store) {
    simd::store(y + j, v);
  } else {
    simd::store(y + j, simd::load(y + j) + v);
    if constexpr (kPut == Put::AddTerm) simd::store(term + j, v);
  }
}

template <Put kPut>
inline void put1(float* y, float* term, int j, float v) {
  if constexpr (kPut == Put::Store) {
    y[j] = v;
  } else {
    y[j] += v;
    if constexpr (kPut == Put::AddTerm) term[j] = v;
  }
}

// y[j] ⊕= x[j] for j in [0, n).
template <Put kPut>
inline void add_slice(int n, const float* x, float* y, float* term) {
  int j = 0;
  for (; j + 2 * W <= n; j += 2 * W) {
    const simd::vf a = simd::load(x + j), b = simd::load(x + j + W);
    put<kPut>(y, term, j, a);
    put<kPut>(y, term, j + W, b);
  }
  for (; j + W <= n; j += W) put<kPut>(y, term, j, simd::load(x + j));
  for (; j < n; ++j) put1<kPut>(y, term, j, x[j]);
}

// y[j] ⊕= c for j in [0, n).
template <Put kPut>
inline void add_splat(int n, float c, float* y, float* term) {
  const simd::vf v = simd::splat(c);
  int j = 0;
  for (; j + 2 * W <= n; j += 2 * W) {
    put<kPut>(y, term, j, v);
    put<kPut>(y, term, j + W, v);
  }
  for (; j + W <= n; j += W) put<kPut>(y, term, j, v);
  for (; j < n; ++j) put1<kPut>(y, term, j, c);
}

template <Put kPut>
void row_gather(int i, int n, const RelativeRun* runs, int n_runs, const float* x, int index_base, float* y,
                float* term) {
  int j = 0;
  for (int r = first_run_after(runs, n_runs, -i); r < n_runs && j < n; ++r) {
    const RelativeRun& run = runs[r];
    const int j_end = std::min(n, run.delta_end + i);
    if (j_end <= j) continue;
    if (run.step) {
      const float* src = x + (run.index_begin - index_base + (j - i - run.delta_begin));
      add_slice<kPut>(j_end - j, src, y + j, term ? term + j : nullptr);
    } else {
      add_splat<kPut>(j_end - j, x[run.index_begin - index_base], y + j, term ? term + j : nullptr);
    }
    j = j_end;
  }
}

// Outputs [j, j_stop) from the quads, four per step (a step may pass j_stop by up to 3: the quads are exact
// there too); a step that would pass n is done one output at a time. Returns where it stopped (≥ j_stop).
template <Put kPut>
inline int quad_steps(int j, int j_stop, int n, const std::int32_t* first, const std::uint8_t (*pattern)[16],
                      const float* x, int index_base, float* y, float* term) {
#if defined(RELPOS_QUADS_SHUFFLE)
  for (; j < j_stop && j + 4 <= n; j += 4) {
    const Quad v = shuffle4(x + (first[j] - index_base), pattern[j]);
    if constexpr (kPut == Put::Store) {
      store4(y + j, v);
    } else {
      store4(y + j, add4(load4(y + j), v));
      if constexpr (kPut == Put::AddTerm) store4(term + j, v);
    }
  }
#else
  (void)pattern;
  (void)n;
#endif
  for (; j < j_stop; ++j) put1<kPut>(y, term, j, x[first[j] - index_base]);
  return j;
}

template <Put kPut>
void quads_gather(int i, int n, const RelativeQuads& q, const float* x, int index_base, float* y, float* term) {
  const std::int32_t* first = q.first + (-i - q.delta_begin);  // first[j] = index(j − i)
  const std::uint8_t(*pattern)[16] = q.pattern + (-i - q.delta_begin);
  const RelativeRun* runs = q.runs;
  int r = first_run_after(runs, q.n_runs, -i);
  int j = 0;
  // Runs at least kLongRun δ long stream as slices or splats; the stretches of shorter ones between them
  // go through the quads (a shuffled step of four costs about what one run's set-up does).
  while (j < n) {
    while (r + 1 < q.n_runs && runs[r].delta_end + i <= j) ++r;
    const RelativeRun& run = runs[r];
    if (q.next_long[r] == r) {
      const int j_end = std::min(n, run.delta_end + i);
      if (run.step)
        add_slice<kPut>(j_end - j, x + (run.index_begin - index_base + (j - i - run.delta_begin)), y + j,
                        term ? term + j : nullptr);
      else
        add_splat<kPut>(j_end - j, x[run.index_begin - index_base], y + j, term ? term + j : nullptr);
      j = j_end;
    } else {
      const int s = q.next_long[r];
      const int j_stop = s < q.n_runs ? std::min(n, runs[s].delta_begin + i) : n;
      j = quad_steps<kPut>(j, j_stop, n, first, pattern, x, index_base, y, term);
      if (s < q.n_runs) r = s;
    }
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
    row_gather<Put::AddTerm>(i, n, runs, n_runs, x, index_base, y, term);
  else
    row_gather<Put::Add>(i, n, runs, n_runs, x, index_base, y, nullptr);
}

void relative_rows_gather_f32(int i, int n, const RelativeRun* runs, int n_runs, const float* x, int index_base,
                              float* y) {
  row_gather<Put::Store>(i, n, runs, n_runs, x, index_base, y, nullptr);
}

void relative_logits_gather_quads_f32(int i, int n, const RelativeQuads& quads, const float* x, int index_base,
                                      float* y, float* term) {
  if (term)
    quads_gather<Put::AddTerm>(i, n, quads, x, index_base, y, term);
  else
    quads_gather<Put::Add>(i, n, quads, x, index_base, y, nullptr);
}

void relative_rows_gather_quads_f32(int i, int n, const RelativeQuads& quads, const float* x, int index_base, float* y) {
  // short rows (a block's queries): every step shuffled, no run walking
  const int e = -i - quads.delta_begin;
  quad_steps<Put::Store>(0, n, n, quads.first + e, quads.pattern + e, x, index_base, y, nullptr);
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
    add_slice<Put::AddTerm>(n, b, y, term);
  else
    add_slice<Put::Add>(n, b, y, nullptr);
}

}  // namespace relpos::kernels
