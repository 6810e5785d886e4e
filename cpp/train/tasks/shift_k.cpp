// shift-k: label_i = token_{i−k} (i ≥ k), −1 before; tokens uniform over [0, symbols).
#include "../tasks.h"

namespace relpos::train {
void shift_k_row(Rng& rng, int k, int symbols, int L, std::int32_t* tokens, std::int32_t* labels) {
  for (int i = 0; i < L; ++i) tokens[i] = rng.below(symbols);
  for (int i = 0; i < L; ++i) labels[i] = i >= k ? tokens[i - k] : -1;
}
}  // namespace relpos::train
