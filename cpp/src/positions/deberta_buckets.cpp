// DeBERTa-v2/v3 relative positions, as Hugging Face transformers 4.34.1 computes them
// (modeling_deberta_v2.make_log_bucket_position / build_relative_position):
//   r = i − j (query − key);  when position_buckets > 0 and max_relative_positions > 0:
//   mid = buckets / 2;  abs = (−mid < r < mid) ? mid − 1 : |r|
//   log_pos = ceil(log(abs / mid) / log((max − 1) / mid) · (mid − 1)) + mid
//   bucket = abs ≤ mid ? r : sign(r) · log_pos
// torch evaluates log_pos in float32 (int64 / int → float32 tensors, a float32 scalar tensor for
// (max − 1)/mid), so we do too: the ceil of a float32 product differs from float64's at some points.
//   span = position_buckets > 0 ? position_buckets : max_relative_positions.
#include <cmath>
#include <string>

#include "relpos/error.h"
#include "relpos/positions.h"

namespace relpos {

int deberta_relative_position(int relative_position, int position_buckets, int max_relative_positions) {
  if (position_buckets <= 0 || max_relative_positions <= 0) return relative_position;
  const int mid = position_buckets / 2;
  if (mid < 1) fail_range("deberta: position_buckets must be ≥ 2 when positive, got " + std::to_string(position_buckets));
  const int r = relative_position;
  const int sign = (r > 0) - (r < 0);
  const long long abs_pos = (r < mid && r > -mid) ? mid - 1 : std::llabs(static_cast<long long>(r));
  if (abs_pos <= mid) return r;
  const float ratio = static_cast<float>(abs_pos) / static_cast<float>(mid);
  const float denom = std::log(static_cast<float>(static_cast<double>(max_relative_positions - 1) / mid));
  const float scaled = std::log(ratio) / denom * static_cast<float>(mid - 1);
  const float log_pos = std::ceil(scaled) + static_cast<float>(mid);
  return static_cast<int>(log_pos) * sign;
}

std::vector<std::int32_t> deberta_relative_table(int seq, int position_buckets, int max_relative_positions) {
  if (seq < 1) fail_range("deberta_relative_table: seq must be ≥ 1, got " + std::to_string(seq));
  // r depends on i − j only: bucket each distance once.
  std::vector<std::int32_t> by_distance(2 * static_cast<std::size_t>(seq) - 1);
  for (int r = -(seq - 1); r <= seq - 1; ++r)
    by_distance[r + seq - 1] = deberta_relative_position(r, position_buckets, max_relative_positions);
  std::vector<std::int32_t> out(static_cast<std::size_t>(seq) * seq);
  for (int i = 0; i < seq; ++i)
    for (int j = 0; j < seq; ++j) out[static_cast<std::size_t>(i) * seq + j] = by_distance[i - j + seq - 1];
  return out;
}

int deberta_span(int position_buckets, int max_relative_positions) {
  return position_buckets > 0 ? position_buckets : max_relative_positions;
}

}  // namespace relpos
