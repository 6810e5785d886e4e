// ALiBi slopes (Press et al.), as Hugging Face computes them (transformers 4.34.1):
//   BLOOM build_alibi_tensor: c = largest power of two ≤ heads; head h < c: (2^(−8/c))^(h+1);
//     extra heads h ≥ c: (2^(−4/c))^(2(h − c) + 1)  (odd powers of the next power of two's base).
//   MPT build_mpt_alibi_tensor: n' = smallest power of two ≥ heads, s_k = 1 / 2^(k·bias_max/n') for
//     k = 1..n'; if n' ≠ heads the order is concat(s[1::2], s[::2])[:heads] (0-based list indices).
// Bases are computed in double and rounded to float32, powers in float32, like the torch code.
#include <cmath>
#include <string>

#include "positions/alibi_slopes.h"
#include "relpos/error.h"
#include "relpos/positions.h"

namespace relpos {

float alibi_slope(int head, int heads, AlibiSlopes rule, float mpt_bias_max) {
  if (heads < 1) fail_range("ALiBi slopes: heads must be ≥ 1, got " + std::to_string(heads));
  if (head < 0 || head >= heads)
    fail_range("ALiBi slopes: head must be in [0, " + std::to_string(heads) + "), got " + std::to_string(head));
  if (rule == AlibiSlopes::Bloom) {
    int closest = 1;
    while (closest * 2 <= heads) closest *= 2;
    if (head < closest) {
      const float base = static_cast<float>(std::pow(2.0, -8.0 / closest));
      return std::pow(base, static_cast<float>(head + 1));
    }
    const float extra_base = static_cast<float>(std::pow(2.0, -4.0 / closest));
    return std::pow(extra_base, static_cast<float>(2 * (head - closest) + 1));
  }
  if (rule == AlibiSlopes::Mpt) {
    if (!std::isfinite(mpt_bias_max) || mpt_bias_max <= 0.0f)
      fail_range("ALiBi slopes: mpt_bias_max must be a positive finite number, got " + std::to_string(mpt_bias_max));
    int pow2 = 1;
    while (pow2 < heads) pow2 *= 2;
    int index = head;  // 0-based index into s (s[index] has k = index + 1)
    if (pow2 != heads) index = head < pow2 / 2 ? 2 * head + 1 : 2 * (head - pow2 / 2);
    const float step = static_cast<float>(static_cast<double>(mpt_bias_max) / pow2);
    const float exponent = static_cast<float>(index + 1) * step;
    return 1.0f / std::pow(2.0f, exponent);
  }
  fail_value("ALiBi slopes: the Custom rule has no formula; pass AlibiParams::custom ([heads] slopes)");
}

std::vector<float> alibi_slopes(int heads, AlibiSlopes rule, float mpt_bias_max) {
  if (heads < 1) fail_range("alibi_slopes: heads must be ≥ 1, got " + std::to_string(heads));
  std::vector<float> slopes(static_cast<std::size_t>(heads));
  for (int h = 0; h < heads; ++h) slopes[h] = alibi_slope(h, heads, rule, mpt_bias_max);
  return slopes;
}

}  // namespace relpos
