// Packed-B GEMM over the shared vector type. Loop ladder:
//   N in panels of NR = 2 vectors, then K in chunks of KC, then M in tiles of MR rows and a 1..MR−1
//   row tail. Panel-outer order reads packed B once, front to back, as one stream: with few rows (a
//   sentence is 8–64 tokens) the product is bound by how fast the weights arrive, and a K-outer order
//   (each chunk jumping across every panel) measured 1.1–2.5× slower with B not in cache (M 4–32,
//   bench/src/gemm_stream.cpp, SIMD128 under Node 20); A (M × K, ≤ 96 rows in model layers) stays in
//   L1/L2 either way.
//   Every element's sum runs over the same chunks in the same order as before (bitwise unchanged).
// The micro-kernel keeps MR × 2 accumulators live: 8 on SIMD128 (4×8 floats), 12 on AVX. Its k loop walks
// one pointer per A row and one through the panel: Emscripten compiles with LLVM's loop strength
// reduction off (-mllvm -disable-lsr), so A[r·lda + k] cost three integer ops per row and k (14 per k
// step next to 16 float ops and 6 loads: V8's x64 code was bound by instruction throughput); bumped
// pointers leave 5, and the kernel went from 37 to 44 GFLOP/s with B in cache (gemm_stream, 2026-11-24).
// Unrolling k by two as well measured ~5 % slower (13 live vectors: V8 spills).
// Few rows (issue #41: a sentence is 11–47 tokens): the rows are split into ceil(M / MR) blocks of as
// equal a size as possible (13 rows on SIMD128: 4 + 3 + 3 + 3, not 4 + 4 + 4 + 1 — a 1-row block runs at
// about half the rate, bench/src/gemm_stream.cpp). Which block computes a row changes nothing in its sums.
// Every loop over a block's R rows is unrolled completely (RELPOS_F32_ROWS_UNROLLED): the accumulators
// are then indexed by constants only (GCC 12.2's -O2 ASan+UBSan miscompile, kernels/gemm_qs8.cpp).
#include "kernels/gemm_f32.h"

#include <algorithm>

#include "kernels/simd.h"

namespace relpos::kernels {
namespace {

using simd::vf;
constexpr int NR = simd::gemm_nr;
constexpr int MR = simd::gemm_mr;
constexpr int W = static_cast<int>(simd::width);
constexpr int KC = 256;

#define RELPOS_F32_ROWS_UNROLLED _Pragma("GCC unroll 8")
static_assert(MR <= 8, "RELPOS_F32_ROWS_UNROLLED covers every row count of a tile");

// C tile [R × ncols] (ncols ≤ NR) = alpha · A[R × K] · panel (+ C).
template <int R>
inline void micro_kernel(int K, float alpha, const float* A, std::size_t lda, const float* panel, float* C,
                         std::size_t ldc, int ncols, bool accumulate) {
  vf acc0[R];
  vf acc1[R];
  RELPOS_F32_ROWS_UNROLLED
  for (int r = 0; r < R; ++r) acc0[r] = acc1[r] = simd::splat(0.0f);
  const float* a[R];
  RELPOS_F32_ROWS_UNROLLED
  for (int r = 0; r < R; ++r) a[r] = A + r * lda;
  const float* const end = panel + static_cast<std::size_t>(K) * NR;
  for (const float* b = panel; b != end; b += NR) {
    const vf b0 = simd::load(b);
    const vf b1 = simd::load(b + W);
    RELPOS_F32_ROWS_UNROLLED
    for (int r = 0; r < R; ++r) {
      const vf x = simd::splat(*a[r]++);
      acc0[r] = simd::fma(x, b0, acc0[r]);
      acc1[r] = simd::fma(x, b1, acc1[r]);
    }
  }
  const vf va = simd::splat(alpha);
  RELPOS_F32_ROWS_UNROLLED
  for (int r = 0; r < R; ++r) {
    float* c = C + r * ldc;
    if (ncols == NR) {
      vf c0 = acc0[r] * va, c1 = acc1[r] * va;
      if (accumulate) {
        c0 = c0 + simd::load(c);
        c1 = c1 + simd::load(c + W);
      }
      simd::store(c, c0);
      simd::store(c + W, c1);
    } else {
      alignas(64) float tile[NR];
      simd::store(tile, acc0[r] * va);
      simd::store(tile + W, acc1[r] * va);
      for (int j = 0; j < ncols; ++j) c[j] = accumulate ? c[j] + tile[j] : tile[j];
    }
  }
}

// micro_kernel<rows> for 1 ≤ rows ≤ R.
template <int R>
void row_block(int rows, int K, float alpha, const float* A, std::size_t lda, const float* panel, float* C,
               std::size_t ldc, int ncols, bool accumulate) {
  if constexpr (R > 0) {
    if (rows == R) return micro_kernel<R>(K, alpha, A, lda, panel, C, ldc, ncols, accumulate);
    row_block<R - 1>(rows, K, alpha, A, lda, panel, C, ldc, ncols, accumulate);
  }
}

}  // namespace

std::size_t packed_b_floats(int K, int N) {
  const std::size_t panels = (static_cast<std::size_t>(N) + NR - 1) / NR;
  return panels * static_cast<std::size_t>(K) * NR;
}

void pack_b_kn(int K, int N, const float* B, std::size_t ldb, float* packed) {
  const int panels = (N + NR - 1) / NR;
  for (int p = 0; p < panels; ++p) {
    const int n0 = p * NR;
    const int cols = std::min(NR, N - n0);
    float* dst = packed + static_cast<std::size_t>(p) * K * NR;
    for (int k = 0; k < K; ++k) {
      const float* src = B + k * ldb + n0;
      float* d = dst + static_cast<std::size_t>(k) * NR;
      if (cols == NR) {
        simd::store(d, simd::load(src));
        simd::store(d + W, simd::load(src + W));
      } else {
        for (int c = 0; c < cols; ++c) d[c] = src[c];
        for (int c = cols; c < NR; ++c) d[c] = 0.0f;
      }
    }
  }
}

void pack_b_nk(int K, int N, const float* Bt, std::size_t ldbt, float* packed) {
  const int panels = (N + NR - 1) / NR;
  for (int p = 0; p < panels; ++p) {
    const int n0 = p * NR;
    const int cols = std::min(NR, N - n0);
    float* dst = packed + static_cast<std::size_t>(p) * K * NR;
    for (int c = 0; c < cols; ++c) {
      const float* src = Bt + (n0 + c) * ldbt;
      for (int k = 0; k < K; ++k) dst[static_cast<std::size_t>(k) * NR + c] = src[k];
    }
    for (int c = cols; c < NR; ++c)
      for (int k = 0; k < K; ++k) dst[static_cast<std::size_t>(k) * NR + c] = 0.0f;
  }
}

void gemm_f32_packed(int M, int N, int K, float alpha, const float* A, std::size_t lda, const float* packed_b,
                     float* C, std::size_t ldc, bool accumulate, int packed_k) {
  if (M <= 0 || N <= 0) return;
  const int KP = packed_k > 0 ? packed_k : K;  // row count of each packed panel
  if (K <= 0) {
    if (!accumulate)
      for (int i = 0; i < M; ++i) std::fill(C + i * ldc, C + i * ldc + N, 0.0f);
    return;
  }
  const int panels = (N + NR - 1) / NR;
  // ceil(M / MR) row blocks: the first `larger` of them base + 1 rows, the others base (≤ MR each)
  const int blocks = (M + MR - 1) / MR, base = M / blocks, larger = M % blocks;
  for (int p = 0; p < panels; ++p) {
    const int n0 = p * NR;
    const int ncols = std::min(NR, N - n0);
    for (int k0 = 0; k0 < K; k0 += KC) {
      const int kc = std::min(KC, K - k0);
      const bool acc = accumulate || k0 > 0;
      const float* panel = packed_b + (static_cast<std::size_t>(p) * KP + k0) * NR;
      for (int b = 0, i = 0; b < blocks; ++b) {
        const int rows = base + (b < larger ? 1 : 0);
        if (rows == MR)
          micro_kernel<MR>(kc, alpha, A + i * lda + k0, lda, panel, C + i * ldc + n0, ldc, ncols, acc);
        else
          row_block<MR - 1>(rows, kc, alpha, A + i * lda + k0, lda, panel, C + i * ldc + n0, ldc, ncols, acc);
        i += rows;
      }
    }
  }
}

}  // namespace relpos::kernels
