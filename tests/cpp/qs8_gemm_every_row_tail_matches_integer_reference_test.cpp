// kernels::gemm_qs8_packed for every row count from 1 to 4·MR + 3 (the rows run as ceil(M / MR) near-equal
// blocks since issue #41: every block size 1 … MR in every position) and across a row block, with N covering two full panels
// plus a partial one, against the exact int64 sums of the packed operands, rescaled in double.
// Regression: GCC 12.2 at -O2 with ASan+UBSan miscompiled the rolled epilogue of the 2-row tail (both
// rows read the second accumulator vector of row 1), silently; the other qs8 tests had no M ≡ 2 (mod MR)
// with N past the first vector of a panel. K = 2100 runs three chunks (partial sums handed over).
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

using relpos_test::effective_weight;

}  // namespace

TEST_CASE("gemm_qs8 gives every row of every tile and tail its own exact sums", "[qs8][kernels]") {
  const int MR = relpos::simd::gemm_mr, NR = relpos::simd::gemm_nr;
  const int N = 2 * NR + 5;
  unsigned seed = 101;
  for (int K : {70, 2100}) {
    std::vector<int> row_counts;
    for (int M = 1; M <= 4 * MR + 3; ++M) row_counts.push_back(M);  // every near-equal split of 1–4 row blocks
    row_counts.push_back(96 + 2);  // past one row block of the kernel, then a 2-row tail
    for (int M : row_counts) {
      CAPTURE(K, M, N);
      const auto A = ts::random_vector(static_cast<std::size_t>(M) * K, seed++, 2.0f);
      const auto Wt = ts::random_vector(static_cast<std::size_t>(N) * K, seed++, 0.5f);
      const auto bias = ts::random_vector(static_cast<std::size_t>(N), seed++);
      std::vector<std::int8_t> packed(packed_qs8_bytes(K, N));
      std::vector<float> sb(N), sa(M);
      const int qmax = pack_qs8_nk(K, N, Wt.data(), K, packed.data(), sb.data());
      const std::size_t ldq = qs8_row_entries(K);
      std::vector<std::int16_t> Aq(static_cast<std::size_t>(M) * ldq);
      quantize_rows_qs8(M, K, A.data(), K, Aq.data(), ldq, sa.data(), qmax);
      std::vector<float> C(static_cast<std::size_t>(M) * N);
      gemm_qs8_packed(M, N, K, Aq.data(), ldq, sa.data(), packed.data(), sb.data(), bias.data(), C.data(), N);

      int wrong = 0;
      for (int r = 0; r < M; ++r)
        for (int n = 0; n < N; ++n) {
          std::int64_t sum = 0;
          for (int k = 0; k < K; ++k)
            sum += static_cast<std::int64_t>(Aq[r * ldq + k]) * effective_weight(packed, K, k, n);
          const double product = static_cast<double>(sa[r]) * sb[n] * static_cast<double>(sum);
          const double ref = product + bias[n];
          // float32 conversion of the exact sum, two products and a sum: a few ulps of the terms.
          if (std::fabs(C[r * N + n] - ref) > 1e-6 * (std::fabs(product) + std::fabs(bias[n])) + 1e-30) {
            if (wrong < 4) UNSCOPED_INFO("row " << r << ", column " << n << ": " << C[r * N + n] << " vs " << ref);
            ++wrong;
          }
        }
      CHECK(wrong == 0);
    }
  }
}
