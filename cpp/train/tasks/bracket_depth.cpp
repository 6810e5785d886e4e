// bracket-depth: a random Dyck-1 prefix, 0 = "(" and 1 = ")"; "(" is forced at depth 0, otherwise
// each bracket has probability 1/2. label_i = nesting depth after token i (≥ 0).
#include "../tasks.h"

namespace relpos::train {
void bracket_depth_row(Rng& rng, int L, std::int32_t* tokens, std::int32_t* labels) {
  int depth = 0;
  for (int i = 0; i < L; ++i) {
    const bool open = depth == 0 || rng.below(2) == 0;
    tokens[i] = open ? 0 : 1;
    depth += open ? 1 : -1;
    labels[i] = depth;
  }
}
}  // namespace relpos::train
