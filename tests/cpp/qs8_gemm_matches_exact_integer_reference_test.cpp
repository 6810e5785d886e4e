// kernels::gemm_qs8 (8-bit weights with per-group multipliers, per-row int16 activations) against a
// float64 reference of the same quantized math: the int8 weights and their 4-bit group multipliers are
// read back from the documented packed layout, the activations from quantize_rows_qs8 within the range
// pack_qs8_nk returned, their products summed exactly in int64, then rescaled in double.
// Odd shapes: M and N not multiples of the tile, K odd and not a multiple of 8 or of the 32-k group,
// N = 1, K = 1. Also: that range keeps every sum exact, and groups of small weights get finer steps.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/gemm_qs8.h"
#include "kernels/simd.h"
#include "qs8_packed_reader.h"
#include "test_support.h"

namespace {

using namespace relpos::kernels;

struct Shape {
  int M, N, K;
};

using relpos_test::effective_weight;
using relpos_test::packed_weight;
using relpos_test::PackedWeight;

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
    const int qmax = pack_qs8_nk(s.K, s.N, Wt.data(), s.K, packed.data(), sb.data());
    REQUIRE(qmax >= qs8_activation_max(s.K));
    REQUIRE(qmax <= 32767);
    const std::size_t ldq = qs8_row_entries(s.K) + 2;  // a row stride wider than needed
    std::vector<std::int16_t> Aq(static_cast<std::size_t>(s.M) * ldq, 0x5555);
    std::vector<float> sa(s.M);
    quantize_rows_qs8(s.M, s.K, A.data(), s.K, Aq.data(), ldq, sa.data(), qmax);

    // The quantized operands represent the floats to within half a step (sb[n] · m for weights), and
    // the activation range keeps every sum exact: qmax · Σ_k |m·q| ≤ 2³¹ − 1 for every column.
    for (int n = 0; n < s.N; ++n) {
      long long l1 = 0;
      int largest_m = 0;
      for (int k = 0; k < s.K; ++k) {
        const PackedWeight w = packed_weight(packed, s.K, k, n);
        REQUIRE(std::abs(w.q) <= 127);
        REQUIRE((w.m >= 1 && w.m <= 16));
        const double step = static_cast<double>(sb[n]) * w.m;
        REQUIRE(std::fabs(w.q * step - Wt[n * s.K + k]) <= 0.5001 * step);
        l1 += std::abs(w.q * w.m);
        largest_m = std::max(largest_m, w.m);
      }
      REQUIRE(largest_m == 16);  // the group holding the row's largest |w| uses the whole int8 range
      REQUIRE(static_cast<long long>(qmax) * l1 <= 2147483647LL);
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
          for (int k = 0; k < s.K; ++k) sum += static_cast<std::int64_t>(Aq[r * ldq + k]) * effective_weight(packed, s.K, k, n);
          REQUIRE(std::llabs(sum) <= 2147483647LL);
          const double ref = static_cast<double>(sa[r]) * sb[n] * static_cast<double>(sum) + (b ? b[n] : 0.0);
          const double scale = std::fabs(static_cast<double>(sa[r]) * sb[n]) * qmax * 127.0 * 16.0 * s.K + std::fabs(ref) + 1e-30;
          worst = std::max(worst, std::fabs(C[r * ldc + n] - ref) / scale);
        }
        for (std::size_t n = s.N; n < ldc; ++n) REQUIRE(C[r * ldc + n] == -7.0f);  // nothing beyond N written
      }
      // float32 conversion of an exact int32 sum and two products: a few ulps of the largest term.
      REQUIRE(worst < 4e-7);
    }
  }
}

TEST_CASE("qs8 worst-case activation range keeps the int32 sum exact for every K", "[qs8][kernels]") {
  for (int K : {1, 2, 33, 516, 517, 4096, 8320, 8321, 11008, 133144}) {
    const long long bound = static_cast<long long>(qs8_activation_max(K)) * 127 * 16 * qs8_row_entries(K);
    CAPTURE(K);
    REQUIRE(bound <= 2147483647LL);
    REQUIRE(qs8_activation_max(K) >= (K <= 8320 ? 127 : 1));
  }
  REQUIRE(qs8_activation_max(32) == 32767);
  REQUIRE(qs8_activation_max(384) == 2752);
}

TEST_CASE("qs8 groups of 32 whose largest weight is a fraction of the row's get that much finer steps", "[qs8][kernels]") {
  // One column (N = 1), K = 96: group 0 holds the row's largest weight 1.0, group 1 weights up to 0.25,
  // group 2 up to 0.01 (below 1/16 of the row's largest: the finest step there is the m = 1 one).
  const int K = 96;
  std::vector<float> W(K);
  for (int k = 0; k < K; ++k) W[k] = (k < 32 ? 1.0f : k < 64 ? 0.25f : 0.01f) * static_cast<float>(std::sin(1.7 * k + 0.3));
  W[5] = 1.0f;
  W[40] = -0.25f;
  W[70] = 0.01f;
  std::vector<std::int8_t> packed(packed_qs8_bytes(K, 1));
  float sb = 0;
  const int qmax = pack_qs8_nk(K, 1, W.data(), K, packed.data(), &sb);
  REQUIRE(sb == Approx(1.0 / (127 * 16)));
  CHECK(packed_weight(packed, K, 0, 0).m == 16);
  CHECK(packed_weight(packed, K, 32, 0).m == 4);
  CHECK(packed_weight(packed, K, 64, 0).m == 1);
  double worst[3] = {0, 0, 0};
  long long l1 = 0;
  for (int k = 0; k < K; ++k) {
    const int w = effective_weight(packed, K, k, 0);
    l1 += std::abs(w);
    worst[k / 32] = std::max(worst[k / 32], std::fabs(w * static_cast<double>(sb) - W[k]));
  }
  CHECK(worst[0] <= 0.5001 * 16 * sb);
  CHECK(worst[1] <= 0.5001 * 4 * sb);   // 4× finer than one scale per row would give
  CHECK(worst[2] <= 0.5001 * 1 * sb);
  CHECK(qmax == std::min(32767LL, 2147483647LL / l1));
}

TEST_CASE("qs8 quantization maps all-zero rows and columns to zero scales and zero outputs", "[qs8][kernels]") {
  const int M = 3, N = 5, K = 7;
  std::vector<float> A(M * K, 0.0f), Wt(N * K, 0.0f);
  A[K + 2] = 1.5f;  // row 1 has one nonzero
  Wt[2 * K + 2] = -2.0f;  // column 2 has one nonzero
  std::vector<std::int8_t> packed(packed_qs8_bytes(K, N));
  std::vector<float> sb(N), sa(M), C(M * N);
  std::vector<std::int16_t> Aq(M * qs8_row_entries(K));
  const int qmax = pack_qs8_nk(K, N, Wt.data(), K, packed.data(), sb.data());
  quantize_rows_qs8(M, K, A.data(), K, Aq.data(), qs8_row_entries(K), sa.data(), qmax);
  REQUIRE(sa[0] == 0.0f);
  REQUIRE(sb[0] == 0.0f);
  gemm_qs8_packed(M, N, K, Aq.data(), qs8_row_entries(K), sa.data(), packed.data(), sb.data(), nullptr, C.data(), N);
  for (int r = 0; r < M; ++r)
    for (int n = 0; n < N; ++n) REQUIRE(C[r * N + n] == Approx(r == 1 && n == 2 ? -3.0f : 0.0f).margin(1e-6));
}
