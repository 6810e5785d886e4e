// Internal: one ALiBi slope without allocating (see relpos::alibi_slopes in relpos/positions.h).
#pragma once

#include "relpos/schemes.h"

namespace relpos {

// Slope of head `head` of `heads` under `rule` (Bloom or Mpt; Custom is a table, not a rule).
// Throws relpos::Error for heads < 1, head out of range, Custom, or a non-finite/non-positive mpt_bias_max.
float alibi_slope(int head, int heads, AlibiSlopes rule, float mpt_bias_max);

}  // namespace relpos
