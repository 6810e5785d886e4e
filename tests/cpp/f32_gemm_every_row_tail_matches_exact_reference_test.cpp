// kernels::gemm_f32_packed for every row count from 1 to 4·MR + 3 (every split of the rows into
// ceil(M / MR) near-equal blocks: 13 rows on SIMD128 are 4 + 3 + 3 + 3), a sentence's 47 rows and 98 (two
// 96-row tiles' worth), with N two full panels plus a partial one and K across one and three KC chunks,
// against an exact reference: A and B hold small multiples of 1/4 and 1/8, so every product and every
// partial sum is a float exactly and any order of summation gives the same bits. Issue #41 (few-row
// blocks); DEVELOPERS.md's GCC 12.2 miscompile note (a rolled row loop over accumulator arrays).
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "kernels/gemm_f32.h"
#include "kernels/simd.h"

namespace {

using namespace relpos::kernels;

// k-th value of a deterministic sequence in {−3, …, 3} · unit.
std::vector<float> small_multiples(std::size_t n, unsigned seed, float unit) {
  std::vector<float> v(n);
  unsigned s = seed;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(static_cast<int>((s >> 16) % 7) - 3) * unit;
  }
  return v;
}

}  // namespace

TEST_CASE("gemm_f32_packed gives every row of every row-block split its exact sums", "[gemm][kernels]") {
  const int MR = relpos::simd::gemm_mr, NR = relpos::simd::gemm_nr;
  const int N = 2 * NR + 5;
  unsigned seed = 7;
  for (int K : {70, 600}) {
    std::vector<int> row_counts;
    for (int M = 1; M <= 4 * MR + 3; ++M) row_counts.push_back(M);
    row_counts.push_back(47);
    row_counts.push_back(98);
    const auto B = small_multiples(static_cast<std::size_t>(K) * N, seed++, 0.125f);
    std::vector<float> packed(packed_b_floats(K, N));
    pack_b_kn(K, N, B.data(), N, packed.data());
    for (int M : row_counts)
      for (bool accumulate : {false, true}) {
        CAPTURE(K, M, N, accumulate);
        const auto A = small_multiples(static_cast<std::size_t>(M) * K, seed++, 0.25f);
        const auto C0 = small_multiples(static_cast<std::size_t>(M) * N, seed++, 1.0f);
        std::vector<float> C = C0;
        gemm_f32_packed(M, N, K, 0.5f, A.data(), K, packed.data(), C.data(), N, accumulate);
        int wrong = 0;
        for (int r = 0; r < M; ++r)
          for (int n = 0; n < N; ++n) {
            double sum = 0;
            for (int k = 0; k < K; ++k) sum += static_cast<double>(A[r * K + k]) * B[k * N + n];
            const float ref = static_cast<float>(0.5 * sum + (accumulate ? C0[r * N + n] : 0.0));
            if (std::memcmp(&C[r * N + n], &ref, sizeof ref) != 0) {
              if (wrong < 4) UNSCOPED_INFO("row " << r << ", column " << n << ": " << C[r * N + n] << " vs " << ref);
              ++wrong;
            }
          }
        CHECK(wrong == 0);
      }
  }
}
