// Packed-B single-precision GEMM: the one matrix product every attention step uses
// (Q·Kᵀ, P·V, Q·Rᵀ for relative tables, bucket sums · aV).
//
// Packed layout of B (K × N): ceil(N / NR) panels; panel p holds B[k][p·NR + c] at
// packed[(p·K + k)·NR + c] for k < K, c < NR, zero where p·NR + c ≥ N. NR = simd::gemm_nr.
#pragma once

#include <cstddef>

namespace relpos::kernels {

// Floats needed by a packed K × N matrix.
std::size_t packed_b_floats(int K, int N);

// Packs B given row-major as [K][N] with row stride ldb (e.g. V: K = seq, N = head_dim).
void pack_b_kn(int K, int N, const float* B, std::size_t ldb, float* packed);

// Packs B given transposed, as Bᵀ = [N][K] with row stride ldbt (e.g. keys: B = Kᵀ, N = seq).
void pack_b_nk(int K, int N, const float* Bt, std::size_t ldbt, float* packed);

// C[M×N] (row stride ldc) = alpha · A[M×K] (row stride lda) · B  (+ C when accumulate).
// Contract: M, N, K ≥ 0; A rows hold at least K floats; C rows at least N floats.
// packed_k: the K the B panels were packed with (0 = K); pass it to use only the first K rows of a
// matrix packed with more (e.g. causal P·V over the first keys of a V packed for all of them).
void gemm_f32_packed(int M, int N, int K, float alpha, const float* A, std::size_t lda, const float* packed_b,
                     float* C, std::size_t ldc, bool accumulate, int packed_k = 0);

}  // namespace relpos::kernels
