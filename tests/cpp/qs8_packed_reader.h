// Reads one weight back out of gemm_qs8.h's packed layout (the q8 kernel tests' exact references):
// q[k][n] (int8) and its group multiplier m[k / 32][n] (1–16), effective weight m · q.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/simd.h"

namespace relpos_test {

struct PackedWeight {
  int q, m;
};

inline PackedWeight packed_weight(const std::vector<std::int8_t>& packed, int K, int k, int n) {
  const int NR = relpos::simd::gemm_nr;
  const std::size_t K2 = static_cast<std::size_t>((K + 1) / 2), G2 = static_cast<std::size_t>((K + 31) / 32);
  const std::size_t panel = static_cast<std::size_t>(n / NR) * (K2 * NR * 2 + G2 * NR / 2);
  const int q = packed[panel + (static_cast<std::size_t>(k / 2) * NR + n % NR) * 2 + (k & 1)];
  const std::size_t nibble = static_cast<std::size_t>(k / 32) * NR + n % NR;
  const auto byte = static_cast<std::uint8_t>(packed[panel + K2 * NR * 2 + nibble / 2]);
  return {q, ((nibble & 1) ? byte >> 4 : byte & 15) + 1};
}

inline int effective_weight(const std::vector<std::int8_t>& packed, int K, int k, int n) {
  const PackedWeight w = packed_weight(packed, K, k, n);
  return w.q * w.m;
}

}  // namespace relpos_test
