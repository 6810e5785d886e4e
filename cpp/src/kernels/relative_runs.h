// Relative index maps as runs, the shared vocabulary of the relative-position kernels.
//
// A relative scheme reads, for query i and key j, row index(δ) of a projected relative table,
// δ = j − i. Every scheme in relpos orders its table so that index(δ) is non-decreasing in δ
// (tables indexed by i − j are stored reversed), and describes index(δ) as a sorted list of runs:
//   for δ in [delta_begin, delta_end):  index(δ) = index_begin + step · (δ − delta_begin),  step ∈ {0, 1}.
// step 1 runs are contiguous slices (the unclipped middle); step 0 runs are constants (clipped tails,
// log buckets). Runs are sorted by delta_begin, disjoint, and together cover every δ a row touches.
#pragma once

#include <cstdint>

namespace relpos::kernels {

struct RelativeRun {
  std::int32_t delta_begin;
  std::int32_t delta_end;  // exclusive
  std::int32_t index_begin;
  std::int32_t step;  // 0 or 1
};

// Index of the first run whose delta_end > delta (n_runs if none); binary search.
inline int first_run_after(const RelativeRun* runs, int n_runs, int delta) {
  int lo = 0, hi = n_runs;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (runs[mid].delta_end <= delta)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// index(δ) for one δ covered by the runs (linear scan from a binary search; for set-up code).
inline int run_index(const RelativeRun* runs, int n_runs, int delta) {
  const RelativeRun& r = runs[first_run_after(runs, n_runs, delta)];
  return r.index_begin + r.step * (delta - r.delta_begin);
}

}  // namespace relpos::kernels
