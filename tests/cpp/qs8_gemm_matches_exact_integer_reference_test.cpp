// kernels::gemm_qs8 (8-bit weights, per-row int16 activations) against a float64 reference of the
// same quantized math: the int8 weights are read back from the documented packed layout, the
// activations from quantize_rows_qs8, their products summed exactly in int64, then rescaled in double.
// Odd shapes: M and N not multiples of the tile, K odd and not a multiple of 8, N = 1, K = 1.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/gemm_qs8.h"
#include "kernels/simd.h"
#include "test_support.h"

namespace {

using namespace relpos::kernels;

struct Shape {
  int M, N, K;
};

// Bq[k][n] from the packed layout of gemm_qs8.h.
int packed_weight(const std::vector<std::int8_t>& packed, int K, int k, int n) {
  const int NR = relpos::simd::gemm_nr;
  const std::size_t K2 = static_cast<std::size_t>((K + 1) / 2);
  return packed[((static_cast<std::size_t>(n / NR) * K2 + static_cast<std::size_t>(k / 2)) * NR + n % NR) * 2 + (k & 1)];
}

}  // namespace

TEST_CASE("gemm_qs8 equals the exact integer sums of its quantized operands, rescaled", "[qs8][kernels]") {
  const Shape shapes[] = {{1, 1, 1}, {7, 13, 29}, {5, 37, 15}, {13, 50, 100}, {4, 8, 8}, {6, 32, 384}, {3, 19, 1537}, {9, 3, 2}};
  unsigned seed = 11;
  for (const Shape& s : shapes) {
    CAPTURE(s.M, s.N, s.K);
    const auto A = ts::random_vector(static_cast<std::size_t>(s.M) * s.K, seed++, 3.0f);
    const auto Wt = ts::random_vector(static_cast<std::size_t>(s.N) * s.K, seed++, 0.05f);
    const auto bias = ts::random_vector(static_cast<std::size_t>(s.N), seed++);

    std::vector<std::int8_t> packed(packed_qs8_bytes(s.K, s.N));
    std::vector<float> sb(s.N);
    pack_qs8_nk(s.K, s.N, Wt.data(), s.K, packed.data(), sb.data());
    const std::size_t ldq = qs8_row_entries(s.K) + 2;  // a row stride wider than needed
    std::vector<std::int16_t> Aq(static_cast<std::size_t>(s.M) * ldq, 0x5555);
    std::vector<float> sa(s.M);
    quantize_rows_qs8(s.M, s.K, A.data(), s.K, Aq.data(), ldq, sa.data());

    const int qmax = qs8_activation_max(s.K);
    REQUIRE(qmax >= 127);
    // The quantized operands represent the floats to within half a step.
    for (int n = 0; n < s.N; ++n)
      for (int k = 0; k < s.K; ++k) {
        const int q = packed_weight(packed, s.K, k, n);
        REQUIRE(std::abs(q) <= 127);
        REQUIRE(std::fabs(q * static_cast<double>(sb[n]) - Wt[n * s.K + k]) <= 0.5001 * sb[n]);
      }
    for (int r = 0; r < s.M; ++r)
      for (int k = 0; k < s.K; ++k) {
        const int q = Aq[r * ldq + k];
        REQUIRE(std::abs(q) <= qmax);
        REQUIRE(std::fabs(q * static_cast<double>(sa[r]) - A[r * s.K + k]) <= 0.502 * sa[r]);  // x · (1/scale) is rounded in float32: |q| · 2⁻²⁴ ≤ 0.002 steps
      }

    const std::size_t ldc = s.N + 3;
    std::vector<float> C(static_cast<std::size_t>(s.M) * ldc, -7.0f);
    for (const float* b : {bias.data(), static_cast<const float*>(nullptr)}) {
      gemm_qs8_packed(s.M, s.N, s.K, Aq.data(), ldq, sa.data(), packed.data(), sb.data(), b, C.data(), ldc);
      double worst = 0;
      for (int r = 0; r < s.M; ++r) {
        for (int n = 0; n < s.N; ++n) {
          std::int64_t sum = 0;
          for (int k = 0; k < s.K; ++k) sum += static_cast<std::int64_t>(Aq[r * ldq + k]) * packed_weight(packed, s.K, k, n);
          REQUIRE(std::llabs(sum) <= 2147483647LL);
          const double ref = static_cast<double>(sa[r]) * sb[n] * static_cast<double>(sum) + (b ? b[n] : 0.0);
          const double scale = std::fabs(static_cast<double>(sa[r]) * sb[n]) * qmax * 127.0 * s.K + std::fabs(ref) + 1e-30;
          worst = std::max(worst, std::fabs(C[r * ldc + n] - ref) / scale);
        }
        for (std::size_t n = s.N; n < ldc; ++n) REQUIRE(C[r * ldc + n] == -7.0f);  // nothing beyond N written
      }
      // float32 conversion of an exact int32 sum and two products: a few ulps of the largest term.
      REQUIRE(worst < 4e-7);
    }
  }
}

TEST_CASE("qs8 activation range keeps the int32 sum exact for every K", "[qs8][kernels]") {
  for (int K : {1, 2, 516, 517, 4096, 11008, 133144}) {
    const long long bound = static_cast<long long>(qs8_activation_max(K)) * 127 * qs8_row_entries(K);
    CAPTURE(K);
    REQUIRE(bound <= 2147483647LL);
    REQUIRE(qs8_activation_max(K) >= 127);
  }
  REQUIRE(qs8_activation_max(384) == 32767);
}

TEST_CASE("qs8 quantization maps all-zero rows and columns to zero scales and zero outputs", "[qs8][kernels]") {
  const int M = 3, N = 5, K = 7;
  std::vector<float> A(M * K, 0.0f), Wt(N * K, 0.0f);
  A[K + 2] = 1.5f;  // row 1 has one nonzero
  Wt[2 * K + 2] = -2.0f;  // column 2 has one nonzero
  std::vector<std::int8_t> packed(packed_qs8_bytes(K, N));
  std::vector<float> sb(N), sa(M), C(M * N);
  std::vector<std::int16_t> Aq(M * qs8_row_entries(K));
  pack_qs8_nk(K, N, Wt.data(), K, packed.data(), sb.data());
  quantize_rows_qs8(M, K, A.data(), K, Aq.data(), qs8_row_entries(K), sa.data());
  REQUIRE(sa[0] == 0.0f);
  REQUIRE(sb[0] == 0.0f);
  gemm_qs8_packed(M, N, K, Aq.data(), qs8_row_entries(K), sa.data(), packed.data(), sb.data(), nullptr, C.data(), N);
  for (int r = 0; r < M; ++r)
    for (int n = 0; n < N; ++n) REQUIRE(C[r * N + n] == Approx(r == 1 && n == 2 ? -3.0f : 0.0f).margin(1e-6));
}
