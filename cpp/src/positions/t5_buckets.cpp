// T5 relative position buckets, exactly Hugging Face T5Attention._relative_position_bucket
// (transformers 4.34.1), relative_position = key − query:
//   bidirectional: nb = num_buckets / 2, bucket = (rel > 0 ? nb : 0), n = |rel|
//   unidirectional: nb = num_buckets,     bucket = 0,                  n = −min(rel, 0)
//   max_exact = nb / 2;  n < max_exact → bucket + n
//   else bucket + min(nb − 1, max_exact + trunc(log(n / max_exact) / log(max_distance / max_exact) · (nb − max_exact)))
// The log term is evaluated in float32 like torch (float tensor ops, Python-double scalars cast to
// float32), so bucket limits at exact powers land where Hugging Face puts them.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "relpos/error.h"
#include "relpos/positions.h"

namespace relpos {
namespace {

void check_t5(bool bidirectional, int num_buckets, int max_distance) {
  const int min_buckets = bidirectional ? 4 : 2;
  if (num_buckets < min_buckets)
    fail_range("T5 relative bias: num_buckets must be ≥ " + std::to_string(min_buckets) + " (" +
               (bidirectional ? "bidirectional: half per direction, " : "") +
               "at least one exact bucket), got " + std::to_string(num_buckets));
  const int max_exact = (bidirectional ? num_buckets / 2 : num_buckets) / 2;
  if (max_distance <= max_exact)
    fail_range("T5 relative bias: max_distance must be greater than the exact range " + std::to_string(max_exact) +
               " (num_buckets " + std::to_string(num_buckets) + "), got " + std::to_string(max_distance));
}

int bucket_unchecked(int relative_position, bool bidirectional, int num_buckets, int max_distance) {
  int nb = num_buckets;
  int bucket = 0;
  long long n;
  if (bidirectional) {
    nb /= 2;
    if (relative_position > 0) bucket += nb;
    n = std::llabs(static_cast<long long>(relative_position));
  } else {
    n = -std::min<long long>(relative_position, 0);
  }
  const int max_exact = nb / 2;
  if (n < max_exact) return bucket + static_cast<int>(n);
  const float ratio = static_cast<float>(n) / static_cast<float>(max_exact);
  const float denominator = static_cast<float>(std::log(static_cast<double>(max_distance) / max_exact));
  const float scaled = std::log(ratio) / denominator * static_cast<float>(nb - max_exact);
  const int large = max_exact + static_cast<int>(scaled);
  return bucket + std::min(large, nb - 1);
}

}  // namespace

int t5_relative_bucket(int relative_position, bool bidirectional, int num_buckets, int max_distance) {
  check_t5(bidirectional, num_buckets, max_distance);
  return bucket_unchecked(relative_position, bidirectional, num_buckets, max_distance);
}

std::vector<std::int32_t> t5_bucket_table(int seq, bool bidirectional, int num_buckets, int max_distance) {
  if (seq < 0) fail_range("t5_bucket_table: seq must be ≥ 0, got " + std::to_string(seq));
  check_t5(bidirectional, num_buckets, max_distance);
  std::vector<std::int32_t> by_distance(seq > 0 ? 2 * static_cast<std::size_t>(seq) - 1 : 0);
  for (int d = 1 - seq; d < seq; ++d)
    by_distance[d + seq - 1] = bucket_unchecked(d, bidirectional, num_buckets, max_distance);
  std::vector<std::int32_t> table(static_cast<std::size_t>(seq) * seq);
  for (int i = 0; i < seq; ++i)
    for (int j = 0; j < seq; ++j) table[static_cast<std::size_t>(i) * seq + j] = by_distance[j - i + seq - 1];
  return table;
}

}  // namespace relpos
