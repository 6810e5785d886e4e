// count-so-far: tokens uniform over {0, 1}; label_i = number of 1s among tokens 0 … i.
#include "../tasks.h"

namespace relpos::train {
void count_so_far_row(Rng& rng, int L, std::int32_t* tokens, std::int32_t* labels) {
  int count = 0;
  for (int i = 0; i < L; ++i) {
    tokens[i] = rng.below(2);
    count += tokens[i];
    labels[i] = count;
  }
}
}  // namespace relpos::train
