// Quantized GEMM for 8-bit linear layers: C[M×N] = diag(sa) · (Aq · Bq) · diag(sb) + bias, where
// Bq is the weight matrix quantized once to symmetric int8 with one scale per output channel (column
// of B = row of nn.Linear's W) and Aq the activations quantized per row at every call (symmetric,
// int16 values within ±qs8_activation_max(K)). Products run as 16-bit pair dot products into exact
// int32 sums (SIMD128 i32x4.dot_i16x8_s; SSE/AVX2/AVX-512 madd_epi16; scalar int32), in the style of
// XNNPACK's QD8 GEMMs; the rescale to float32 (and the bias) happens once per output element.
//
// Packed layout of Bq (K × N, from Bᵀ = W [N][K]): K2 = ceil(K / 2) pairs of k; ceil(N / NR) panels;
// panel p, pair j, column c holds the two int8 values B[2j][p·NR + c], B[2j+1][p·NR + c] at
// packed[((p·K2 + j)·NR + c)·2 + {0, 1}], zero where k ≥ K or p·NR + c ≥ N. NR = simd::gemm_nr.
// Quantized activation rows: Aq[r·ldq + k] for k < 2·K2 (the odd K's last slot is 0).
#pragma once

#include <cstddef>
#include <cstdint>

namespace relpos::kernels {

// round(x · inv) to the nearest integer (halves away from zero), clamped to [−qmax, qmax]; NaN → 0.
// Never converts an out-of-range float to int (non-finite weights or inputs give garbage, not UB).
inline int quantize_value(float x, float inv, int qmax) {
  float v = x * inv;
  const float m = static_cast<float>(qmax);
  if (!(v >= -m)) v = v != v ? 0.0f : -m;  // NaN or below
  if (v > m) v = m;
  return static_cast<int>(v + (v >= 0.0f ? 0.5f : -0.5f));
}

// Bytes of a packed K × N int8 matrix. Also where column n0 starts when n0 is a multiple of NR: the
// columns [n0, n0 + n) of a packed matrix are the packed K × n matrix at packed + packed_qs8_bytes(K, n0).
std::size_t packed_qs8_bytes(int K, int N);

// Quantizes and packs B given transposed, Bᵀ = W [N][K] (row stride ldbt), one scale per row n of W:
// scales[n] = max_k |W[n][k]| / 127 (0 for an all-zero row), Bq = round(W / scale) in [−127, 127].
// Contract: K, N ≥ 0; W finite; packed holds packed_qs8_bytes(K, N) bytes, scales N floats.
void pack_qs8_nk(int K, int N, const float* Bt, std::size_t ldbt, std::int8_t* packed, float* scales);

// Largest |Aq| for inner dimension K such that every int32 sum Σ_k Aq·Bq is exact:
// min(32767, (2³¹ − 1) / (127 · 2·K2)). ≥ 127 for K ≤ 133 144 (32767 up to K = 516).
int qs8_activation_max(int K);

// Int16 entries one quantized row needs: 2·K2 (K rounded up to even).
std::size_t qs8_row_entries(int K);

// Per-row symmetric quantization of A[M×K] (row stride lda): qmax = qs8_activation_max(K),
// scales[r] = max_k |A[r][k]| / qmax (0 for an all-zero row), Aq[r][k] = round(A[r][k] / scales[r]);
// the padding slot of an odd K is 0. Contract: A finite; ldq ≥ qs8_row_entries(K); scales M floats.
void quantize_rows_qs8(int M, int K, const float* A, std::size_t lda, std::int16_t* Aq, std::size_t ldq,
                       float* scales);

// C[M×N] (row stride ldc) = a_scales[r] · b_scales[n] · Σ_k Aq[r][k] · Bq[k][n] + bias[n].
// Contract: M, N, K ≥ 0; Aq from quantize_rows_qs8 with the same K (|Aq| ≤ qs8_activation_max(K));
// packed from pack_qs8_nk with the same K, N; b_scales N floats; bias N floats or null (no bias).
void gemm_qs8_packed(int M, int N, int K, const std::int16_t* Aq, std::size_t ldq, const float* a_scales,
                     const std::int8_t* packed, const float* b_scales, const float* bias, float* C, std::size_t ldc);

}  // namespace relpos::kernels
