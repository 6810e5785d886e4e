// Index maps of the learned relative tables (for models, tests and the demo; the kernels use runs).
//   shaw_index_table:          [seq, seq], entry (i, j) = clip(j − i, −k, k) + k   (row of a [2k+1, d] table)
//   bert_relative_index_table: [seq, seq], entry (i, j) = i − j + M − 1            (row of a [2M−1, d] table)
#include <algorithm>
#include <string>

#include "relpos/error.h"
#include "relpos/positions.h"

namespace relpos {

std::vector<std::int32_t> shaw_index_table(int seq, int max_distance) {
  if (seq < 1) fail_range("shaw_index_table: seq must be ≥ 1, got " + std::to_string(seq));
  if (max_distance < 1)
    fail_range("shaw_index_table: max_distance (k) must be ≥ 1, got " + std::to_string(max_distance));
  std::vector<std::int32_t> out(static_cast<std::size_t>(seq) * seq);
  for (int i = 0; i < seq; ++i)
    for (int j = 0; j < seq; ++j)
      out[static_cast<std::size_t>(i) * seq + j] = std::clamp(j - i, -max_distance, max_distance) + max_distance;
  return out;
}

std::vector<std::int32_t> bert_relative_index_table(int seq, int max_positions) {
  if (seq < 1) fail_range("bert_relative_index_table: seq must be ≥ 1, got " + std::to_string(seq));
  if (max_positions < seq)
    fail_range("bert_relative_index_table: seq " + std::to_string(seq) + " exceeds max_positions (M) " +
               std::to_string(max_positions));
  std::vector<std::int32_t> out(static_cast<std::size_t>(seq) * seq);
  for (int i = 0; i < seq; ++i)
    for (int j = 0; j < seq; ++j) out[static_cast<std::size_t>(i) * seq + j] = i - j + max_positions - 1;
  return out;
}

}  // namespace relpos
