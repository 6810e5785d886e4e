// Task dispatch (contracts in tasks.h): one Rng(seed) per batch, rows generated in order.
#include <stdexcept>

#include "../tasks.h"

namespace relpos::train {

int task_vocab(const TaskSpec& t) {
  if (t.name == "shift-k" || t.name == "reverse") return t.symbols;
  if (t.name == "count-so-far" || t.name == "bracket-depth") return 2;
  throw std::invalid_argument("unknown task: " + t.name);
}

int task_classes(const TaskSpec& t, int max_len) {
  if (t.name == "shift-k" || t.name == "reverse") return t.symbols;
  if (t.name == "count-so-far" || t.name == "bracket-depth") return max_len + 1;
  throw std::invalid_argument("unknown task: " + t.name);
}

bool task_is_causal(const TaskSpec& t) { return t.name != "reverse"; }

void make_batch(const TaskSpec& t, int B, int L, std::uint64_t seed, Batch& batch) {
  batch.batch = B;
  batch.len = L;
  batch.tokens.resize(static_cast<std::size_t>(B) * L);
  batch.labels.resize(batch.tokens.size());
  Rng rng(seed);
  for (int b = 0; b < B; ++b) {
    std::int32_t* tok = batch.tokens.data() + static_cast<std::size_t>(b) * L;
    std::int32_t* lab = batch.labels.data() + static_cast<std::size_t>(b) * L;
    if (t.name == "shift-k") shift_k_row(rng, t.k, t.symbols, L, tok, lab);
    else if (t.name == "reverse") reverse_row(rng, t.symbols, L, tok, lab);
    else if (t.name == "count-so-far") count_so_far_row(rng, L, tok, lab);
    else if (t.name == "bracket-depth") bracket_depth_row(rng, L, tok, lab);
    else throw std::invalid_argument("unknown task: " + t.name);
  }
}

}  // namespace relpos::train
