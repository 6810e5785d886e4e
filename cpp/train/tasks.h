// Synthetic sequence tasks: deterministic batches from a seed (Rng, splitmix64), one file each in
// tasks/. Every batch has tokens [B, L] and labels [B, L] (−1 = no loss at that position).
//   shift-k        tokens uniform over `symbols`; label_i = token_{i−k} for i ≥ k, −1 for i < k.
//                  classes = symbols. Causal-solvable: one head attending at distance −k.
//   reverse        tokens uniform over `symbols`; label_i = token_{L−1−i}. classes = symbols. Needs a
//                  bidirectional mask.
//   count-so-far   tokens uniform over {0, 1}; label_i = #{j ≤ i : token_j = 1}. classes = max_len + 1.
//   bracket-depth  Dyck-1 prefixes over {0 = "(", 1 = ")"}: "(" forced at depth 0, else each with
//                  probability 1/2; label_i = depth after token i. classes = max_len + 1.
#pragma once

#include <cstdint>
#include <string>

#include "model.h"
#include "rng.h"

namespace relpos::train {

struct TaskSpec {
  std::string name;  // "shift-k", "reverse", "count-so-far", "bracket-depth"
  int k = 2;         // shift-k's k
  int symbols = 8;   // shift-k and reverse alphabet
};

int task_vocab(const TaskSpec& t);
int task_classes(const TaskSpec& t, int max_len);
// True when the task can be solved under a causal mask (every label depends only on the prefix).
bool task_is_causal(const TaskSpec& t);
// Fills batch (resized to B × L) from seed; the same (task, B, L, seed) always gives the same batch.
void make_batch(const TaskSpec& t, int B, int L, std::uint64_t seed, Batch& batch);

// One generator per task (tasks/*.cpp): fill sequence `row` of `batch` (length batch.len).
void shift_k_row(Rng& rng, int k, int symbols, int L, std::int32_t* tokens, std::int32_t* labels);
void reverse_row(Rng& rng, int symbols, int L, std::int32_t* tokens, std::int32_t* labels);
void count_so_far_row(Rng& rng, int L, std::int32_t* tokens, std::int32_t* labels);
void bracket_depth_row(Rng& rng, int L, std::int32_t* tokens, std::int32_t* labels);

}  // namespace relpos::train
