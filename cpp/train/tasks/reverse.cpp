// reverse: label_i = token_{L−1−i}; tokens uniform over [0, symbols).
#include "../tasks.h"

namespace relpos::train {
void reverse_row(Rng& rng, int symbols, int L, std::int32_t* tokens, std::int32_t* labels) {
  for (int i = 0; i < L; ++i) tokens[i] = rng.below(symbols);
  for (int i = 0; i < L; ++i) labels[i] = tokens[L - 1 - i];
}
}  // namespace relpos::train
