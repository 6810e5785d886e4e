// Quantized GEMM (gemm_qs8.h). Loop ladder: N in panels of NR = 2 vectors of int32 lanes; M in blocks
// of kRowBlock rows; K in chunks of kChunkPairs pairs, whose effective weights m·q the panel expands
// once to int16 on the stack (per group of 32 k: the NR nibble multipliers become two int16 vectors,
// each column's multiplier in both lanes of its pair; the int8 weights are sign-extended and
// multiplied); then the block's tiles of MR rows and a 1..MR−1 row tail run over the chunk.
// The micro-kernel keeps MR × 2 int32 accumulators live (4×8 on SIMD128, as gemm_f32: 8 accumulators
// + 2 weights + 1 activation, under V8's ~13 live vectors) and per pair of k: two int16 weight loads,
// then per row one 32-bit broadcast of the activation pair and two pair dot products (a0·b0 + a1·b1
// per int32 lane). Sums are exact int32, so chunks only hand partial sums over (K > 1024: through a
// small buffer) and change no bit of the result.
// The only per-arch code is the small set of integer operations below; everything else is shared.
#include "kernels/gemm_qs8.h"

#include <algorithm>
#include <climits>
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
inline vb mul_b(const vb& b, const vb& m) { return {b.b0 * m.b0, b.b1 * m.b1}; }
inline vb load_w(const std::int16_t* p) { return {p[0], p[1]}; }
inline void store_w(std::int16_t* p, const vb& b) {
  p[0] = static_cast<std::int16_t>(b.b0);
  p[1] = static_cast<std::int16_t>(b.b1);
}
inline vi load_i32(const std::int32_t* p) { return *p; }
inline void store_i32(std::int32_t* p, vi x) { *p = x; }
inline void store_f32(float* p, vi x) { *p = static_cast<float>(x); }
// NR = 2: one byte, column 0 in the low nibble, column 1 in the high one.
inline void load_multipliers(const std::uint8_t* p, vb& m0, vb& m1) {
  const std::int32_t lo = (p[0] & 15) + 1, hi = (p[0] >> 4) + 1;
  m0 = {lo, lo};
  m1 = {hi, hi};
}
#elif defined(__wasm_simd128__)
static_assert(W == 4, "SIMD128: 4 int32 lanes");
using vi = v128_t;
using vb = v128_t;
using va = v128_t;
inline vi zero() { return wasm_i32x4_splat(0); }
inline vb load_b(const std::int8_t* p) { return wasm_i16x8_load8x8(p); }
inline va splat_a(const std::int16_t* p) { return wasm_v128_load32_splat(p); }
inline vi dot_add(vi acc, va a, vb b) { return wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(a, b)); }
inline vb mul_b(vb b, vb m) { return wasm_i16x8_mul(b, m); }
inline vb load_w(const std::int16_t* p) { return wasm_v128_load(p); }
inline void store_w(std::int16_t* p, vb b) { wasm_v128_store(p, b); }
inline vi load_i32(const std::int32_t* p) { return wasm_v128_load(p); }
inline void store_i32(std::int32_t* p, vi x) { wasm_v128_store(p, x); }
inline void store_f32(float* p, vi x) { wasm_v128_store(p, wasm_f32x4_convert_i32x4(x)); }
// NR = 8: 4 bytes of nibbles → bytes c0 c0 c1 c1 … c7 c7 (low nibbles are the even columns) → int16 + 1.
inline void load_multipliers(const std::uint8_t* p, vb& m0, vb& m1) {
  const v128_t v = wasm_v128_load32_zero(p);
  const v128_t lo = wasm_v128_and(v, wasm_i8x16_splat(15)), hi = wasm_u8x16_shr(v, 4);
  const v128_t d = wasm_i8x16_shuffle(lo, hi, 0, 0, 16, 16, 1, 1, 17, 17, 2, 2, 18, 18, 3, 3, 19, 19);
  const v128_t one = wasm_i16x8_splat(1);
  m0 = wasm_i16x8_add(wasm_u16x8_extend_low_u8x16(d), one);
  m1 = wasm_i16x8_add(wasm_u16x8_extend_high_u8x16(d), one);
}
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
inline vb mul_b(vb b, vb m) { return _mm512_mullo_epi16(b, m); }
inline vb load_w(const std::int16_t* p) { return _mm512_loadu_si512(p); }
inline void store_w(std::int16_t* p, vb b) { _mm512_storeu_si512(p, b); }
inline vi load_i32(const std::int32_t* p) { return _mm512_loadu_si512(p); }
inline void store_i32(std::int32_t* p, vi x) { _mm512_storeu_si512(p, x); }
// NR = 32: 16 bytes of nibbles → columns 0–15 and 16–31, each byte doubled, widened to int16 + 1.
inline void load_multipliers(const std::uint8_t* p, vb& m0, vb& m1) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), low4 = _mm_set1_epi8(15);
  const __m128i lo = _mm_and_si128(v, low4), hi = _mm_and_si128(_mm_srli_epi16(v, 4), low4);
  const __m128i c0 = _mm_unpacklo_epi8(lo, hi), c1 = _mm_unpackhi_epi8(lo, hi);  // columns 0–15, 16–31
  const __m512i one = _mm512_set1_epi16(1);
  m0 = _mm512_add_epi16(_mm512_cvtepu8_epi16(_mm256_set_m128i(_mm_unpackhi_epi8(c0, c0), _mm_unpacklo_epi8(c0, c0))), one);
  m1 = _mm512_add_epi16(_mm512_cvtepu8_epi16(_mm256_set_m128i(_mm_unpackhi_epi8(c1, c1), _mm_unpacklo_epi8(c1, c1))), one);
}
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
inline vb mul_b(vb b, vb m) { return _mm256_mullo_epi16(b, m); }
inline vb load_w(const std::int16_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
inline void store_w(std::int16_t* p, vb b) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), b); }
inline vi load_i32(const std::int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
inline void store_i32(std::int32_t* p, vi x) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), x); }
// NR = 16: 8 bytes of nibbles → columns 0–15, each byte doubled (0–7, 8–15), widened to int16 + 1.
inline void load_multipliers(const std::uint8_t* p, vb& m0, vb& m1) {
  const __m128i v = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)), low4 = _mm_set1_epi8(15);
  const __m128i lo = _mm_and_si128(v, low4), hi = _mm_and_si128(_mm_srli_epi16(v, 4), low4);
  const __m128i c = _mm_unpacklo_epi8(lo, hi);
  const __m256i one = _mm256_set1_epi16(1);
  m0 = _mm256_add_epi16(_mm256_cvtepu8_epi16(_mm_unpacklo_epi8(c, c)), one);
  m1 = _mm256_add_epi16(_mm256_cvtepu8_epi16(_mm_unpackhi_epi8(c, c)), one);
}
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
inline vb mul_b(vb b, vb m) { return _mm_mullo_epi16(b, m); }
inline vb load_w(const std::int16_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
inline void store_w(std::int16_t* p, vb b) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), b); }
inline vi load_i32(const std::int32_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
inline void store_i32(std::int32_t* p, vi x) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), x); }
// NR = 8: 4 bytes of nibbles → columns 0–7, each byte doubled, widened to int16 + 1.
inline void load_multipliers(const std::uint8_t* p, vb& m0, vb& m1) {
  std::int32_t bits;
  std::memcpy(&bits, p, 4);
  const __m128i v = _mm_cvtsi32_si128(bits), low4 = _mm_set1_epi8(15);
  const __m128i lo = _mm_and_si128(v, low4), hi = _mm_and_si128(_mm_srli_epi16(v, 4), low4);
  const __m128i c = _mm_unpacklo_epi8(lo, hi);
  const __m128i d = _mm_unpacklo_epi8(c, c);
  const __m128i one = _mm_set1_epi16(1);
  m0 = _mm_add_epi16(_mm_cvtepu8_epi16(d), one);
  m1 = _mm_add_epi16(_mm_cvtepu8_epi16(_mm_srli_si128(d, 8)), one);
}
inline void store_f32(float* p, vi x) { _mm_storeu_ps(p, _mm_cvtepi32_ps(x)); }
#endif

constexpr int kGroupPairs = kQs8Group / 2;
static_assert(kQs8Group % 2 == 0 && NR % 2 == 0, "groups are whole pairs; a group's multipliers whole bytes");
// Pairs of k whose effective weights are expanded at a time (one chunk for K ≤ 1024): kChunkPairs·NR·2
// int16 on the stack, 16 KiB on SIMD128 (64 KiB with AVX-512), reused by every row tile of the block.
constexpr int kChunkPairs = 512;
static_assert(kChunkPairs % kGroupPairs == 0, "chunks are whole groups");
// Rows per block sharing one expansion; with more than one chunk their int32 sums wait in a buffer.
constexpr int kRowBlock = 96;
static_assert(kRowBlock % MR == 0, "row blocks are whole micro-tiles");

// w16[(j − j0)·NR·2 + c·2 + {0, 1}] = m · q of pairs [j0, j1) of one panel (j0 a multiple of
// kGroupPairs): the int8 weights sign-extended and multiplied by their group's multiplier.
inline void expand_pairs(const std::int8_t* panel, int K2, int j0, int j1, std::int16_t* w16) {
  const auto* multipliers = reinterpret_cast<const std::uint8_t*>(panel) + static_cast<std::size_t>(K2) * NR * 2;
  for (int g0 = j0; g0 < j1; g0 += kGroupPairs) {
    vb m0, m1;
    load_multipliers(multipliers + static_cast<std::size_t>(g0 / kGroupPairs) * (NR / 2), m0, m1);
    const int g1 = std::min(j1, g0 + kGroupPairs);
    for (int j = g0; j < g1; ++j) {
      const std::int8_t* src = panel + static_cast<std::size_t>(j) * NR * 2;
      std::int16_t* dst = w16 + static_cast<std::size_t>(j - j0) * NR * 2;
      store_w(dst, mul_b(load_b(src), m0));
      store_w(dst + 2 * W, mul_b(load_b(src + 2 * W), m1));
    }
  }
}

// Every loop over the R rows of a tile is unrolled completely (R ≤ MR ≤ 6), so the accumulators are
// only ever indexed by constants. -O3 does this anyway; the pragma makes it hold at -O2 too, where GCC
// 12.2 miscompiles the rolled epilogue of the ASan+UBSan build (acc0/acc1 addressable, in memory): ivopts
// addresses acc1[r] as MEM[base = r·64 (an integer IV) + index = &acc1], then VRP2 folds that base to
// 64 (a dereferenced base taken as non-null: the multiple of 64 in [1, 64]), so both rows of
// micro_kernel<2> read acc1[1] (row 0's columns W..NR−1 got row 1's sums; no sanitizer report).
// clang reads `#pragma GCC unroll` too.
#define RELPOS_QS8_ROWS_UNROLLED _Pragma("GCC unroll 8")
static_assert(MR <= 8, "RELPOS_QS8_ROWS_UNROLLED covers every row count of a tile");

// One chunk of pairs for a tile of R rows × one panel: sums Aq · w16 over `npairs` pairs (A already at
// the chunk's first pair), starting from zero when `first`, else from sums[R][NR]; then, when `last`,
// rescales into C [R × ncols] (ncols ≤ NR), else leaves the int32 sums in `sums`.
template <int R>
inline void micro_kernel(int npairs, const std::int16_t* A, std::size_t ldq, const std::int16_t* w16, bool first,
                         bool last, std::int32_t* sums, const float* a_scales, const float* b_scales, const float* bias,
                         float* C, std::size_t ldc, int ncols) {
  vi acc0[R];
  vi acc1[R];
  RELPOS_QS8_ROWS_UNROLLED
  for (int r = 0; r < R; ++r) {
    acc0[r] = first ? zero() : load_i32(sums + r * NR);
    acc1[r] = first ? zero() : load_i32(sums + r * NR + W);
  }
  // One pointer per row and one through w16, bumped per pair (as gemm_f32's micro-kernel: Emscripten's
  // LLVM runs without loop strength reduction, and indexed addresses cost ~3 integer ops per row and pair).
  const std::int16_t* a[R];
  RELPOS_QS8_ROWS_UNROLLED
  for (int r = 0; r < R; ++r) a[r] = A + r * ldq;
  const std::int16_t* const end = w16 + static_cast<std::size_t>(npairs) * NR * 2;
  for (const std::int16_t* w = w16; w != end; w += NR * 2) {
    const vb b0 = load_w(w);
    const vb b1 = load_w(w + 2 * W);
    RELPOS_QS8_ROWS_UNROLLED
    for (int r = 0; r < R; ++r) {
      const va x = splat_a(a[r]);
      a[r] += 2;
      acc0[r] = dot_add(acc0[r], x, b0);
      acc1[r] = dot_add(acc1[r], x, b1);
    }
  }
  if (!last) {
    RELPOS_QS8_ROWS_UNROLLED
    for (int r = 0; r < R; ++r) {
      store_i32(sums + r * NR, acc0[r]);
      store_i32(sums + r * NR + W, acc1[r]);
    }
    return;
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
  RELPOS_QS8_ROWS_UNROLLED
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
#undef RELPOS_QS8_ROWS_UNROLLED

template <int R>
void row_tail(int rows, int npairs, const std::int16_t* A, std::size_t ldq, const std::int16_t* w16, bool first, bool last,
              std::int32_t* sums, const float* a_scales, const float* b_scales, const float* bias, float* C,
              std::size_t ldc, int ncols) {
  if constexpr (R > 0) {
    if (rows == R)
      return micro_kernel<R>(npairs, A, ldq, w16, first, last, sums, a_scales, b_scales, bias, C, ldc, ncols);
    row_tail<R - 1>(rows, npairs, A, ldq, w16, first, last, sums, a_scales, b_scales, bias, C, ldc, ncols);
  }
}

inline int pairs(int K) { return (K + 1) / 2; }
inline int groups(int K) { return (K + kQs8Group - 1) / kQs8Group; }
// Bytes of one packed panel: NR columns of pairs, then the groups' nibble multipliers.
inline std::size_t panel_bytes(int K) {
  return static_cast<std::size_t>(pairs(K)) * NR * 2 + static_cast<std::size_t>(groups(K)) * (NR / 2);
}

}  // namespace

std::size_t packed_qs8_bytes(int K, int N) {
  const std::size_t panels = (static_cast<std::size_t>(N) + NR - 1) / NR;
  return panels * panel_bytes(K);
}

namespace {
// clamp(ceil(16 · gmax / amax), 1, 16), compared as a float first: a non-finite weight (amax = inf, ratio NaN) gets
// m = 1 instead of a float → int conversion out of range (found by fuzz_streamed_checkpoint)
inline int group_multiplier(float gmax, float amax) {
  const float r = std::ceil(kQs8MaxMultiplier * (gmax / amax));
  return r >= 1.0f ? (r < static_cast<float>(kQs8MaxMultiplier) ? static_cast<int>(r) : kQs8MaxMultiplier) : 1;
}

// One group of n ≤ 32 weights x of a row whose largest |w| is amax (> 0): its multiplier m (returned) and q[i] =
// round(x[i] / (scale · m)), scale = amax / (127 · 16), a vector at a time (pack_qs8_nk and quantize_qs8_rows).
inline int quantize_group(const float* x, int n, float amax, std::int32_t* q) {
  const int m = group_multiplier(rabsmax_f32(static_cast<std::size_t>(n), x), amax);
  vquantize_f32(static_cast<std::size_t>(n), x, (127.0f * kQs8MaxMultiplier) / (amax * static_cast<float>(m)), 127, q);
  return m;
}
}  // namespace

int pack_qs8_nk(int K, int N, const float* Bt, std::size_t ldbt, std::int8_t* packed, float* scales) {
  std::memset(packed, 0, packed_qs8_bytes(K, N));
  const int K2 = pairs(K);
  constexpr int Mx = kQs8MaxMultiplier;
  long long l1_max = 0;
  for (int n = 0; n < N; ++n) {
    const float* row = Bt + static_cast<std::size_t>(n) * ldbt;
    const float amax = rabsmax_f32(static_cast<std::size_t>(K), row);
    scales[n] = amax / (127.0f * Mx);
    if (amax == 0.0f) continue;  // q = 0, nibbles 0 (m = 1)
    std::int8_t* panel = packed + static_cast<std::size_t>(n / NR) * panel_bytes(K);
    auto* nibbles = reinterpret_cast<std::uint8_t*>(panel) + static_cast<std::size_t>(K2) * NR * 2;
    const int c = n % NR;
    long long l1 = 0;
    for (int k0 = 0; k0 < K; k0 += kQs8Group) {
      const int k1 = std::min(K, k0 + kQs8Group);
      // the group's values a vector at a time, then into the panel: pairs (k, k + 1) of column c
      alignas(64) std::int32_t q[kQs8Group];
      const int m = quantize_group(row + k0, k1 - k0, amax, q);
      int sum = 0;
      for (int k = k0; k < k1; ++k) {
        sum += std::abs(q[k - k0]);
        panel[(static_cast<std::size_t>(k / 2) * NR + c) * 2 + (k & 1)] = static_cast<std::int8_t>(q[k - k0]);
      }
      l1 += static_cast<long long>(sum) * m;
      const std::size_t at = static_cast<std::size_t>(k0 / kQs8Group) * NR + c;
      nibbles[at / 2] |= static_cast<std::uint8_t>((m - 1) << (4 * (at & 1)));
    }
    l1_max = std::max(l1_max, l1);
  }
  return static_cast<int>(std::clamp(static_cast<long long>(INT_MAX) / std::max(1LL, l1_max), 1LL, 32767LL));
}

void unpack_qs8_nk(int K, int N, const std::int8_t* packed, std::int8_t* q, std::uint8_t* m) {
  const int K2 = pairs(K), G = groups(K);
  for (int n = 0; n < N; ++n) {
    const std::int8_t* panel = packed + static_cast<std::size_t>(n / NR) * panel_bytes(K);
    const auto* nibbles = reinterpret_cast<const std::uint8_t*>(panel) + static_cast<std::size_t>(K2) * NR * 2;
    const int c = n % NR;
    for (int k = 0; k < K; ++k)
      q[static_cast<std::size_t>(n) * K + k] = panel[(static_cast<std::size_t>(k / 2) * NR + c) * 2 + (k & 1)];
    for (int g = 0; g < G; ++g) {
      const std::size_t at = static_cast<std::size_t>(g) * NR + c;
      m[static_cast<std::size_t>(n) * G + g] = static_cast<std::uint8_t>(((nibbles[at / 2] >> (4 * (at & 1))) & 15) + 1);
    }
  }
}

void quantize_qs8_rows(int K, int N, const float* Bt, std::size_t ldbt, std::int8_t* q, std::uint8_t* m, float* scales) {
  const std::size_t G = static_cast<std::size_t>(groups(K)), k_size = static_cast<std::size_t>(K);
  constexpr int Mx = kQs8MaxMultiplier;
  for (int n = 0; n < N; ++n) {
    const float* row = Bt + static_cast<std::size_t>(n) * ldbt;
    std::int8_t* qn = q + static_cast<std::size_t>(n) * k_size;
    std::uint8_t* mn = m + static_cast<std::size_t>(n) * G;
    const float amax = rabsmax_f32(k_size, row);
    scales[n] = amax / (127.0f * Mx);
    if (amax == 0.0f) {  // q = 0, m = 1, as pack_qs8_nk leaves the row
      if (k_size > 0) std::memset(qn, 0, k_size);
      if (G > 0) std::memset(mn, 1, G);
      continue;
    }
    for (int k0 = 0; k0 < K; k0 += kQs8Group) {
      const int k1 = std::min(K, k0 + kQs8Group);
      alignas(64) std::int32_t v[kQs8Group];
      mn[k0 / kQs8Group] = static_cast<std::uint8_t>(quantize_group(row + k0, k1 - k0, amax, v));
      for (int k = k0; k < k1; ++k) qn[k] = static_cast<std::int8_t>(v[k - k0]);
    }
  }
}

int qs8_activation_max(int K) {
  const long long per_unit = 127LL * kQs8MaxMultiplier * 2 * std::max(1, pairs(K));
  return static_cast<int>(std::clamp(static_cast<long long>(INT_MAX) / per_unit, 1LL, 32767LL));
}

std::size_t qs8_row_entries(int K) { return static_cast<std::size_t>(pairs(K)) * 2; }

void quantize_rows_qs8(int M, int K, const float* A, std::size_t lda, std::int16_t* Aq, std::size_t ldq,
                       float* scales) {
  quantize_rows_qs8(M, K, A, lda, Aq, ldq, scales, qs8_activation_max(K));
}

void quantize_rows_qs8(int M, int K, const float* A, std::size_t lda, std::int16_t* Aq, std::size_t ldq,
                       float* scales, int activation_max) {
  const float qmax = static_cast<float>(activation_max);
  for (int r = 0; r < M; ++r) {
    const float* a = A + static_cast<std::size_t>(r) * lda;
    std::int16_t* q = Aq + static_cast<std::size_t>(r) * ldq;
    const float amax = rabsmax_f32(static_cast<std::size_t>(K), a);  // A finite: max |a[k]| whatever the order
    scales[r] = amax / qmax;
    const float inv = amax > 0.0f ? qmax / amax : 0.0f;
    const int qm = static_cast<int>(qmax);
    vquantize_f32_s16(static_cast<std::size_t>(K), a, inv, qm, q);
    if (K & 1) q[K] = 0;
  }
}

void gemm_qs8_packed(int M, int N, int K, const std::int16_t* Aq, std::size_t ldq, const float* a_scales,
                     const std::int8_t* packed, const float* b_scales, const float* bias, float* C, std::size_t ldc) {
  if (M <= 0 || N <= 0) return;
  const int K2 = pairs(K);
  const int panels = (N + NR - 1) / NR;
  alignas(64) std::int16_t w16[static_cast<std::size_t>(kChunkPairs) * NR * 2];
  alignas(64) std::int32_t sums[static_cast<std::size_t>(kRowBlock) * NR];
  for (int p = 0; p < panels; ++p) {
    const std::int8_t* panel = packed + static_cast<std::size_t>(p) * panel_bytes(K);
    const int n0 = p * NR;
    const int ncols = std::min(NR, N - n0);
    const float* sb = b_scales + n0;
    const float* bs = bias ? bias + n0 : nullptr;
    for (int i0 = 0; i0 < M; i0 += kRowBlock) {
      const int rows = std::min(kRowBlock, M - i0);
      int j0 = 0;
      do {  // once when K = 0: the zero sums still need their rescale (bias only)
        const int j1 = std::min(K2, j0 + kChunkPairs);
        const bool first = j0 == 0, last = j1 == K2;
        expand_pairs(panel, K2, j0, j1, w16);
        const std::int16_t* A = Aq + static_cast<std::size_t>(i0) * ldq + 2 * static_cast<std::size_t>(j0);
        float* c = C + static_cast<std::size_t>(i0) * ldc + n0;
        // ceil(rows / MR) near-equal row blocks, as gemm_f32 (no slow 1-row block; exact sums either way)
        const int blocks = (rows + MR - 1) / MR, base = rows / blocks, larger = rows % blocks;
        for (int b = 0, i = 0; b < blocks; ++b) {
          const int r = base + (b < larger ? 1 : 0);
          if (r == MR)
            micro_kernel<MR>(j1 - j0, A + i * ldq, ldq, w16, first, last, sums + i * NR, a_scales + i0 + i, sb, bs,
                             c + i * ldc, ldc, ncols);
          else
            row_tail<MR - 1>(r, j1 - j0, A + i * ldq, ldq, w16, first, last, sums + i * NR, a_scales + i0 + i, sb, bs,
                             c + i * ldc, ldc, ncols);
          i += r;
        }
        j0 = j1;
      } while (j0 < K2);
    }
  }
}

}  // namespace relpos::kernels
