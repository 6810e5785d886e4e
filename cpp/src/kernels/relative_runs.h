// Relative index maps as runs, the shared vocabulary of the relative-position kernels.
//
// A relative scheme reads, for query i and key j, row index(δ) of a projected relative table,
// δ = j − i. Every scheme in relpos orders its table so that index(δ) is non-decreasing in δ
// (tables indexed by i − j are stored reversed), and describes index(δ) as a sorted list of runs:
//   for δ in [delta_begin, delta_end):  index(δ) = index_begin + step · (δ − delta_begin),  step ∈ {0, 1}.
// step 1 runs are contiguous slices (the unclipped middle); step 0 runs are constants (clipped tails,
// log buckets). Runs are sorted by delta_begin, disjoint, and together cover every δ a row touches.
#pragma once

#include <cstddef>
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

// A run list with the same map expanded per δ for four-at-a-time gathers (relative_logits_gather_quads_f32):
// for e = δ − delta_begin in [0, count), first[e] = index(δ) and pattern[e] holds, for k = 0..3, the byte
// offsets 4·(index(δ + k) − index(δ)) + 0..3 — a 16-byte shuffle that takes x[index(δ) .. + 3] to
// x[index(δ)], …, x[index(δ + 3)]. Exists only where every step of four δ moves the index by ≤ 3
// (build_relative_quads says); δ past the runs repeat the last index. The runs stay: long ones stream,
// next_long[r] = the first run at or after r at least kLongRun δ long (n_runs if none).
constexpr int kLongRun = 16;
struct RelativeQuads {
  const RelativeRun* runs = nullptr;
  std::int32_t n_runs = 0;
  const std::int32_t* next_long = nullptr;
  std::int32_t delta_begin = 0;
  std::int32_t count = 0;
  const std::int32_t* first = nullptr;
  const std::uint8_t (*pattern)[16] = nullptr;
};

// Floats of scratch build_relative_quads needs for `count` δ and up to max_runs runs (first, patterns, next_long).
inline std::size_t relative_quads_floats(int count, int max_runs) {
  return static_cast<std::size_t>(count) * 5 + static_cast<std::size_t>(max_runs);
}

// The quads held in `storage` (relative_quads_floats(count, n_runs) floats: first, patterns, next_long), as
// build_relative_quads writes them; read-only views may be taken again from the same storage.
inline RelativeQuads relative_quads_at(const float* storage, const RelativeRun* runs, int n_runs, int delta_begin,
                                       int count) {
  return {runs,
          n_runs,
          reinterpret_cast<const std::int32_t*>(storage + static_cast<std::size_t>(count) * 5),
          delta_begin,
          count,
          reinterpret_cast<const std::int32_t*>(storage),
          reinterpret_cast<const std::uint8_t(*)[16]>(storage + count)};
}

// Expands runs over δ in [delta_begin, delta_begin + count) into `storage` (relative_quads_floats(count, n_runs)
// floats; relative_quads_at views them). False when some four consecutive δ span more than 4 rows (a jump over a
// table row: the gather then uses the runs).
inline bool build_relative_quads(const RelativeRun* runs, int n_runs, int delta_begin, int count, float* storage) {
  auto* first = reinterpret_cast<std::int32_t*>(storage);
  auto* pattern = reinterpret_cast<std::uint8_t(*)[16]>(storage + count);
  auto* next_long = reinterpret_cast<std::int32_t*>(storage + static_cast<std::size_t>(count) * 5);
  int r = first_run_after(runs, n_runs, delta_begin);
  for (int e = 0; e < count; ++e) {
    const int delta = delta_begin + e;
    while (r + 1 < n_runs && runs[r].delta_end <= delta) ++r;
    const RelativeRun& run = runs[r];
    const int clamped = delta < run.delta_end ? delta : run.delta_end - 1;
    first[e] = run.index_begin + run.step * (clamped - run.delta_begin);
  }
  for (int e = 0; e < count; ++e)
    for (int k = 0; k < 4; ++k) {
      const int step = first[e + k < count ? e + k : count - 1] - first[e];
      if (step < 0 || step > 3) return false;
      for (int b = 0; b < 4; ++b) pattern[e][4 * k + b] = static_cast<std::uint8_t>(4 * step + b);
    }
  int next = n_runs;
  for (int k = n_runs - 1; k >= 0; --k) {
    if (runs[k].delta_end - runs[k].delta_begin >= kLongRun) next = k;
    next_long[k] = next;
  }
  return true;
}

}  // namespace relpos::kernels
