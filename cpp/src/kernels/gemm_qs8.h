// Quantized GEMM for 8-bit linear layers: C[M×N] = diag(sa) · (Aq · Bq) · diag(sb) + bias, where
// Bq is the weight matrix quantized once to int8 with a two-level scale — one float32 scale per output
// channel (column of B = row of nn.Linear's W) times a 4-bit integer multiplier m ∈ [1, 16] per group
// of kQs8Group = 32 consecutive k — and Aq the activations quantized per row at every call (symmetric,
// int16 values within the matrix's activation range). The effective weight of (k, n) is the integer
// m[k / 32][n] · q[k][n] (|·| ≤ 127 · 16), so a group whose largest weight is a fraction of its row's
// largest gets that much finer steps, with no float work in the inner loop: the weights are multiplied
// by their group's multiplier after sign extension to int16. Products run as 16-bit pair dot products
// into exact int32 sums (SIMD128 i32x4.dot_i16x8_s; SSE/AVX2/AVX-512 madd_epi16; scalar int32), in the
// style of XNNPACK's QD8 GEMMs; the rescale to float32 (and the bias) happens once per output element.
//
// Packed layout of Bq (K × N, from Bᵀ = W [N][K]): K2 = ceil(K / 2) pairs of k; G2 = ceil(K / 32)
// groups; ceil(N / NR) panels of panel_bytes = K2·NR·2 + G2·NR/2 bytes each. Panel p, pair j, column c
// holds the two int8 values q[2j][p·NR + c], q[2j+1][p·NR + c] at packed[p·panel_bytes + (j·NR + c)·2 +
// {0, 1}], zero where k ≥ K or p·NR + c ≥ N; after the pairs, group g's multipliers of the panel's NR
// columns as nibbles m − 1: column c at byte p·panel_bytes + K2·NR·2 + (g·NR + c) / 2, low nibble for
// even c. NR = simd::gemm_nr (even). Quantized activation rows: Aq[r·ldq + k] for k < 2·K2 (the odd K's
// last slot is 0).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace relpos::kernels {

constexpr int kQs8Group = 32;          // k per weight group (even: a group is whole pairs)
constexpr int kQs8MaxMultiplier = 16;  // group multipliers m ∈ [1, 16], stored as m − 1 in 4 bits

// round(x · inv) to the nearest integer (halves away from zero), clamped to [−qmax, qmax]; NaN → 0.
// Never converts an out-of-range float to int (non-finite weights or inputs give garbage, not UB).
// Branch-free (selects, copysign; vquantize_f32 is its vector form): the signs of weights are random, and a branch on
// each was mispredicted half the time (bench/results/loads/README.md). ±0.5 by copysign gives −0.5 for −0.0, where a
// v ≥ 0 test gave +0.5: both truncate to 0, so every result is the same.
inline int quantize_value(float x, float inv, int qmax) {
  float v = x * inv;
  const float m = static_cast<float>(qmax);
  v = v != v ? 0.0f : v;  // NaN
  v = v < -m ? -m : v;
  v = v > m ? m : v;
  return static_cast<int>(v + std::copysign(0.5f, v));
}

// max |x[i]| over n floats, from 0, NaN ignored (std::max(m, |x|) in order: one result whatever the vector width).
float rabsmax_f32(std::size_t n, const float* x);
// q[i] = quantize_value(x[i], inv, qmax), a vector at a time (the same results).
void vquantize_f32(std::size_t n, const float* x, float inv, int qmax, std::int32_t* q);
// The same values as int16 (qmax ≤ 32767): the activation rows of quantize_rows_qs8.
void vquantize_f32_s16(std::size_t n, const float* x, float inv, int qmax, std::int16_t* q);

// Bytes of a packed K × N int8 matrix (weights and group multipliers). Also where column n0 starts
// when n0 is a multiple of NR: the columns [n0, n0 + n) of a packed matrix are the packed K × n matrix
// at packed + packed_qs8_bytes(K, n0).
std::size_t packed_qs8_bytes(int K, int N);

// Quantizes and packs B given transposed, Bᵀ = W [N][K] (row stride ldbt). Row n of W, with largest
// |W[n][k]| = wmax (the row is skipped when 0: scale 0, q 0, m 1): scales[n] = wmax / (127 · 16); group g
// with largest |W[n][k]| = gmax gets m = clamp(ceil(16 · gmax / wmax), 1, 16) and q = round(W / (scales[n] · m))
// in [−127, 127], so W[n][k] ≈ scales[n] · m · q within half a step scales[n] · m.
// Returns the matrix's activation range: the largest |Aq| for which every int32 sum Σ_k Aq · m·q is
// exact, min(32767, (2³¹ − 1) / max_n Σ_k |m·q|) (≥ 1). Pass it to quantize_rows_qs8.
// Contract: K, N ≥ 0; packed holds packed_qs8_bytes(K, N) bytes, scales N floats. W should be finite: a row
// holding inf or NaN gets unspecified values (but no undefined behaviour).
int pack_qs8_nk(int K, int N, const float* Bt, std::size_t ldbt, std::int8_t* packed, float* scales);

// The inverse of pack_qs8_nk's layout, for W [N][K] as packed: q[n·K + k] (int8, in [−127, 127]) and the
// group multipliers m[n·G + g] ∈ [1, 16], G = ceil(K / 32), so W[n][k] ≈ scales[n] · m[n·G + k/32] · q[n·K + k]
// exactly as gemm_qs8_packed multiplies (the WebGPU q8 layout is built from these, plan/weights.cpp).
// Contract: packed from pack_qs8_nk(K, N, …); q holds N·K, m N·G entries.
void unpack_qs8_nk(int K, int N, const std::int8_t* packed, std::int8_t* q, std::uint8_t* m);

// pack_qs8_nk's quantization without its layout: W [N][K] (row stride ldbt) → q[n·K + k], m[n·G + g] and scales[n],
// the values unpack_qs8_nk would give back from pack_qs8_nk's panels (bit for bit), for a consumer that takes rows —
// the GPU's q8 words (plan.h Q8Values) of a layer streamed to it (models/layers/streamed_checkpoint.h).
// Contract: as pack_qs8_nk's; q holds N·K, m N·G entries, scales N floats.
void quantize_qs8_rows(int K, int N, const float* Bt, std::size_t ldbt, std::int8_t* q, std::uint8_t* m, float* scales);

// The activation range that is exact for every matrix packed with inner dimension K (the bound
// pack_qs8_nk's own range never goes below): min(32767, (2³¹ − 1) / (127 · 16 · 2·K2)); ≥ 127 for K ≤ 8320.
int qs8_activation_max(int K);

// Int16 entries one quantized row needs: 2·K2 (K rounded up to even).
std::size_t qs8_row_entries(int K);

// Per-row symmetric quantization of A[M×K] (row stride lda) to [−qmax, qmax]:
// scales[r] = max_k |A[r][k]| / qmax (0 for an all-zero row), Aq[r][k] = round(A[r][k] / scales[r]);
// the padding slot of an odd K is 0. qmax: pack_qs8_nk's return value for the matrix these rows
// multiply (or any smaller value ≥ 1); without it, qs8_activation_max(K).
// Contract: A finite; ldq ≥ qs8_row_entries(K); scales M floats; 1 ≤ qmax ≤ 32767.
void quantize_rows_qs8(int M, int K, const float* A, std::size_t lda, std::int16_t* Aq, std::size_t ldq,
                       float* scales, int qmax);
void quantize_rows_qs8(int M, int K, const float* A, std::size_t lda, std::int16_t* Aq, std::size_t ldq,
                       float* scales);

// C[M×N] (row stride ldc) = a_scales[r] · b_scales[n] · Σ_k Aq[r][k] · m[k/32][n] · q[k][n] + bias[n].
// Contract: M, N, K ≥ 0; Aq from quantize_rows_qs8 with the same K and a range no larger than the one
// pack_qs8_nk returned for `packed` (same K, N); b_scales N floats; bias N floats or null (no bias).
void gemm_qs8_packed(int M, int N, int K, const std::int16_t* Aq, std::size_t ldq, const float* a_scales,
                     const std::int8_t* packed, const float* b_scales, const float* bias, float* C, std::size_t ldc);

}  // namespace relpos::kernels
