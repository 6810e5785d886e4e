// Quantized GEMM (gemm_qs8.h). Loop ladder: N in panels of NR = 2 vectors of int32 lanes, M in tiles
// of MR rows, then a 1..MR−1 row tail; K whole (int32 sums are exact, so no K blocking is needed: a
// panel holds K·NR bytes, 12 KiB for K = 1536 on SIMD128).
// The micro-kernel keeps MR × 2 int32 accumulators live (4×8 on SIMD128, as gemm_f32), and per pair
// of k: two weight loads sign-extending 2·W int8 to int16, then per row one 32-bit broadcast of the
// activation pair and two pair dot products (a0·b0 + a1·b1 per int32 lane).
// The only per-arch code is the small set of integer operations below; everything else is shared.
#include "kernels/gemm_qs8.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/simd.h"

#if defined(RELPOS_SCALAR)
#elif defined(__wasm_simd128__)
#include <wasm_simd128.h>
#else
#include <immintrin.h>
#endif

namespace relpos::kernels {
namespace {

constexpr int NR = simd::gemm_nr;
constexpr int MR = simd::gemm_mr;
constexpr int W = static_cast<int>(simd::width);

// ---- integer lanes: W int32 accumulators; a weight vector holds W columns × 2 k as int16 ----------
#if defined(RELPOS_SCALAR)
struct vb {
  std::int32_t b0, b1;
};
using vi = std::int32_t;
using va = vb;
inline vi zero() { return 0; }
inline vb load_b(const std::int8_t* p) { return {p[0], p[1]}; }
inline va splat_a(const std::int16_t* p) { return {p[0], p[1]}; }
inline vi dot_add(vi acc, const va& a, const vb& b) { return acc + a.b0 * b.b0 + a.b1 * b.b1; }
inline void store_f32(float* p, vi x) { *p = static_cast<float>(x); }
#elif defined(__wasm_simd128__)
static_assert(W == 4, "SIMD128: 4 int32 lanes");
using vi = v128_t;
using vb = v128_t;
using va = v128_t;
inline vi zero() { return wasm_i32x4_splat(0); }
inline vb load_b(const std::int8_t* p) { return wasm_i16x8_load8x8(p); }
inline va splat_a(const std::int16_t* p) { return wasm_v128_load32_splat(p); }
inline vi dot_add(vi acc, va a, vb b) { return wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(a, b)); }
inline void store_f32(float* p, vi x) { wasm_v128_store(p, wasm_f32x4_convert_i32x4(x)); }
#elif defined(__AVX512BW__) && defined(__AVX512F__)
static_assert(W == 16, "AVX-512: 16 int32 lanes");
using vi = __m512i;
using vb = __m512i;
using va = __m512i;
inline vi zero() { return _mm512_setzero_si512(); }
inline vb load_b(const std::int8_t* p) { return _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))); }
inline va splat_a(const std::int16_t* p) {
  std::int32_t pair;
  std::memcpy(&pair, p, 4);
  return _mm512_set1_epi32(pair);
}
inline vi dot_add(vi acc, va a, vb b) { return _mm512_add_epi32(acc, _mm512_madd_epi16(a, b)); }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"  // GCC 12's _mm512_cvtepi32_ps passes _mm512_undefined_ps()
inline void store_f32(float* p, vi x) { _mm512_storeu_ps(p, _mm512_cvtepi32_ps(x)); }
#pragma GCC diagnostic pop
#elif defined(__AVX2__)
static_assert(W == 8, "AVX2: 8 int32 lanes");
using vi = __m256i;
using vb = __m256i;
using va = __m256i;
inline vi zero() { return _mm256_setzero_si256(); }
inline vb load_b(const std::int8_t* p) { return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
inline va splat_a(const std::int16_t* p) {
  std::int32_t pair;
  std::memcpy(&pair, p, 4);
  return _mm256_set1_epi32(pair);
}
inline vi dot_add(vi acc, va a, vb b) { return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b)); }
inline void store_f32(float* p, vi x) { _mm256_storeu_ps(p, _mm256_cvtepi32_ps(x)); }
#else
static_assert(W == 4, "SSE4.1: 4 int32 lanes");
using vi = __m128i;
using vb = __m128i;
using va = __m128i;
inline vi zero() { return _mm_setzero_si128(); }
inline vb load_b(const std::int8_t* p) { return _mm_cvtepi8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))); }
inline va splat_a(const std::int16_t* p) {
  std::int32_t pair;
  std::memcpy(&pair, p, 4);
  return _mm_set1_epi32(pair);
}
inline vi dot_add(vi acc, va a, vb b) { return _mm_add_epi32(acc, _mm_madd_epi16(a, b)); }
inline void store_f32(float* p, vi x) { _mm_storeu_ps(p, _mm_cvtepi32_ps(x)); }
#endif

// C tile [R × ncols] (ncols ≤ NR) from R quantized rows and one panel of K2 pairs.
template <int R>
inline void micro_kernel(int K2, const std::int16_t* A, std::size_t ldq, const float* a_scales, const std::int8_t* panel,
                         const float* b_scales, const float* bias, float* C, std::size_t ldc, int ncols) {
  vi acc0[R];
  vi acc1[R];
  for (int r = 0; r < R; ++r) acc0[r] = acc1[r] = zero();
  for (int j = 0; j < K2; ++j) {
    const vb b0 = load_b(panel + static_cast<std::size_t>(j) * NR * 2);
    const vb b1 = load_b(panel + static_cast<std::size_t>(j) * NR * 2 + 2 * W);
    for (int r = 0; r < R; ++r) {
      const va a = splat_a(A + r * ldq + 2 * j);
      acc0[r] = dot_add(acc0[r], a, b0);
      acc1[r] = dot_add(acc1[r], a, b1);
    }
  }
  // Rescale: c = sa[r] · sb[n] · sum + bias[n].
  alignas(64) float sb[NR];
  alignas(64) float bb[NR];
  for (int c = 0; c < NR; ++c) {
    sb[c] = c < ncols ? b_scales[c] : 0.0f;
    bb[c] = c < ncols && bias ? bias[c] : 0.0f;
  }
  const simd::vf sb0 = simd::load(sb), sb1 = simd::load(sb + W);
  const simd::vf bb0 = simd::load(bb), bb1 = simd::load(bb + W);
  for (int r = 0; r < R; ++r) {
    alignas(64) float tile[NR];
    store_f32(tile, acc0[r]);
    store_f32(tile + W, acc1[r]);
    const simd::vf sa = simd::splat(a_scales[r]);
    const simd::vf c0 = simd::fma(simd::load(tile) * sa, sb0, bb0);
    const simd::vf c1 = simd::fma(simd::load(tile + W) * sa, sb1, bb1);
    float* c = C + r * ldc;
    if (ncols == NR) {
      simd::store(c, c0);
      simd::store(c + W, c1);
    } else {
      simd::store(tile, c0);
      simd::store(tile + W, c1);
      for (int j = 0; j < ncols; ++j) c[j] = tile[j];
    }
  }
}

template <int R>
void row_tail(int rows, int K2, const std::int16_t* A, std::size_t ldq, const float* a_scales, const std::int8_t* panel,
              const float* b_scales, const float* bias, float* C, std::size_t ldc, int ncols) {
  if constexpr (R > 0) {
    if (rows == R) return micro_kernel<R>(K2, A, ldq, a_scales, panel, b_scales, bias, C, ldc, ncols);
    row_tail<R - 1>(rows, K2, A, ldq, a_scales, panel, b_scales, bias, C, ldc, ncols);
  }
}

inline int pairs(int K) { return (K + 1) / 2; }


}  // namespace

std::size_t packed_qs8_bytes(int K, int N) {
  const std::size_t panels = (static_cast<std::size_t>(N) + NR - 1) / NR;
  return panels * static_cast<std::size_t>(pairs(K)) * NR * 2;
}

void pack_qs8_nk(int K, int N, const float* Bt, std::size_t ldbt, std::int8_t* packed, float* scales) {
  std::memset(packed, 0, packed_qs8_bytes(K, N));
  const int K2 = pairs(K);
  for (int n = 0; n < N; ++n) {
    const float* row = Bt + static_cast<std::size_t>(n) * ldbt;
    float amax = 0.0f;
    for (int k = 0; k < K; ++k) amax = std::max(amax, std::fabs(row[k]));
    const float scale = amax / 127.0f;
    scales[n] = scale;
    if (amax == 0.0f) continue;
    const float inv = 127.0f / amax;
    std::int8_t* panel = packed + static_cast<std::size_t>(n / NR) * K2 * NR * 2;
    const int c = n % NR;
    for (int k = 0; k < K; ++k) {
      const int q = quantize_value(row[k], inv, 127);
      panel[(static_cast<std::size_t>(k / 2) * NR + c) * 2 + (k & 1)] = static_cast<std::int8_t>(q);
    }
  }
}

int qs8_activation_max(int K) {
  const long long per_unit = 127LL * 2 * std::max(1, pairs(K));
  return static_cast<int>(std::min(32767LL, 2147483647LL / per_unit));
}

std::size_t qs8_row_entries(int K) { return static_cast<std::size_t>(pairs(K)) * 2; }

void quantize_rows_qs8(int M, int K, const float* A, std::size_t lda, std::int16_t* Aq, std::size_t ldq,
                       float* scales) {
  const float qmax = static_cast<float>(qs8_activation_max(K));
  for (int r = 0; r < M; ++r) {
    const float* a = A + static_cast<std::size_t>(r) * lda;
    std::int16_t* q = Aq + static_cast<std::size_t>(r) * ldq;
    simd::vf vmax = simd::splat(0.0f);
    int k = 0;
    for (; k + W <= K; k += W) {
      const simd::vf x = simd::load(a + k);
      vmax = simd::max(vmax, simd::max(x, simd::splat(0.0f) - x));
    }
    float amax = simd::reduce_max(vmax);
    for (; k < K; ++k) amax = std::max(amax, std::fabs(a[k]));
    scales[r] = amax / qmax;
    const float inv = amax > 0.0f ? qmax / amax : 0.0f;
    const int qm = static_cast<int>(qmax);
    for (k = 0; k < K; ++k) q[k] = static_cast<std::int16_t>(quantize_value(a[k], inv, qm));
    if (K & 1) q[K] = 0;
  }
}

void gemm_qs8_packed(int M, int N, int K, const std::int16_t* Aq, std::size_t ldq, const float* a_scales,
                     const std::int8_t* packed, const float* b_scales, const float* bias, float* C, std::size_t ldc) {
  if (M <= 0 || N <= 0) return;
  const int K2 = pairs(K);
  const int panels = (N + NR - 1) / NR;
  for (int p = 0; p < panels; ++p) {
    const std::int8_t* panel = packed + static_cast<std::size_t>(p) * K2 * NR * 2;
    const int n0 = p * NR;
    const int ncols = std::min(NR, N - n0);
    const float* sb = b_scales + n0;
    const float* bs = bias ? bias + n0 : nullptr;
    int i = 0;
    for (; i + MR <= M; i += MR)
      micro_kernel<MR>(K2, Aq + i * ldq, ldq, a_scales + i, panel, sb, bs, C + i * ldc + n0, ldc, ncols);
    if (i < M) row_tail<MR - 1>(M - i, K2, Aq + i * ldq, ldq, a_scales + i, panel, sb, bs, C + i * ldc + n0, ldc, ncols);
  }
}

}  // namespace relpos::kernels
