// kernels::relative_logits_gather_quads_f32 / relative_rows_gather_quads_f32 (a run list expanded per δ,
// four outputs per byte shuffle) against the run gathers they replace, for index maps made of every kind
// of run (long slices and constants, which stream; slices and constants of 1–7 δ and jumps of 2 and 3 rows,
// which are shuffled), every query offset and lengths with and
// without a tail; build_relative_quads refuses a map that jumps 4 rows inside four δ. Issue #41 (DeBERTa's
// log buckets make runs of 1–5 δ); vtranspose_add_f32 against its definition.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "kernels/relative_logits_gather.h"
#include "kernels/relative_runs.h"
#include "kernels/vtranspose_add_f32.h"

namespace {

using namespace relpos::kernels;

// Runs for index(δ), δ in [lo, hi), from a non-decreasing table idx[δ − lo] (as the schemes build them).
std::vector<RelativeRun> runs_of(const std::vector<int>& idx, int lo) {
  std::vector<RelativeRun> runs;
  for (std::size_t e = 0; e < idx.size();) {
    std::size_t f = e + 1;
    const int step = f < idx.size() && idx[f] == idx[e] + 1 ? 1 : 0;
    while (f < idx.size() && idx[f] == idx[e] + step * static_cast<int>(f - e) && (step == 1 || idx[f] == idx[e])) ++f;
    runs.push_back({lo + static_cast<int>(e), lo + static_cast<int>(f), idx[e], step});
    e = f;
  }
  return runs;
}

// A log-bucket-like map over δ in [−(seq − 1), seq − 1]: clamped ends, a long slice, constants of 1–7 δ, slices,
// and jumps of up to max_jump rows, never more than 3 rows over four consecutive δ (what quads hold).
std::vector<int> mixed_map(int seq, int max_jump, unsigned seed) {
  std::vector<int> idx;
  int v = 0;
  unsigned s = seed;
  for (int d = -(seq - 1); d <= seq - 1; ++d) {
    idx.push_back(v);
    s = s * 1664525u + 1013904223u;
    const int r = static_cast<int>((s >> 24) % 8);
    if (d > -(seq - 1) / 2 && d < (seq - 1) / 2) {  // middle: slices, constants, jumps
      int step = r < 4 ? 1 : r < 6 ? 0 : 1 + static_cast<int>((s >> 16) % max_jump);
      if (2 * d > seq / 4 && 2 * d < seq / 2) step = 1;  // a long slice (streamed, not shuffled)
      if (idx.size() >= 3) step = std::min(step, 3 - (v - idx[idx.size() - 3]));
      v += std::max(0, step);
    }
  }
  return idx;
}

}  // namespace

TEST_CASE("quad gathers equal run gathers for slices, constants and jumps of up to 3 rows", "[kernels][relative]") {
  for (int seq : {1, 3, 9, 64, 77}) {
    for (unsigned seed : {1u, 2u, 3u}) {
      const std::vector<int> idx = mixed_map(seq, 3, seed);
      const std::vector<RelativeRun> runs = runs_of(idx, -(seq - 1));
      const int count = 2 * seq + 2;
      std::vector<float> storage(relative_quads_floats(count, static_cast<int>(runs.size())));
      REQUIRE(build_relative_quads(runs.data(), static_cast<int>(runs.size()), -(seq - 1), count, storage.data()));
      const RelativeQuads quads =
          relative_quads_at(storage.data(), runs.data(), static_cast<int>(runs.size()), -(seq - 1), count);
      const int rows_needed = idx.back() + 1;
      std::vector<float> x(rows_needed + 8);
      for (std::size_t t = 0; t < x.size(); ++t) x[t] = 0.5f + static_cast<float>(t);
      for (int i = 0; i < seq; ++i)
        for (int n : {seq - i, std::max(1, seq - i - 3)}) {  // keys from the query's offset: a tail and none
          if (n > seq) continue;
          std::vector<float> y_runs(n, 1.0f), y_quads(n, 1.0f), t_runs(n), t_quads(n), stored(n, -7.0f);
          relative_logits_gather_f32(i, n, runs.data(), static_cast<int>(runs.size()), x.data(), 0, y_runs.data(),
                                     t_runs.data());
          relative_logits_gather_quads_f32(i, n, quads, x.data(), 0, y_quads.data(), t_quads.data());
          relative_rows_gather_quads_f32(i, n, quads, x.data(), 0, stored.data());
          INFO("seq " << seq << " seed " << seed << " i " << i << " n " << n);
          CHECK(y_quads == y_runs);
          CHECK(t_quads == t_runs);
          CHECK(stored == t_runs);
        }
    }
  }
}

TEST_CASE("quad gathers read from negative query offsets as key-major gathers do", "[kernels][relative]") {
  // DeBERTa p2c: i is a key's offset from the block's first query, so −i runs up to seq − 1.
  const int seq = 40;
  const std::vector<int> idx = mixed_map(seq, 2, 9u);
  const std::vector<RelativeRun> runs = runs_of(idx, -(seq - 1));
  const int count = 2 * seq + 2;
  std::vector<float> storage(relative_quads_floats(count, static_cast<int>(runs.size())));
  REQUIRE(build_relative_quads(runs.data(), static_cast<int>(runs.size()), -(seq - 1), count, storage.data()));
  const RelativeQuads quads =
      relative_quads_at(storage.data(), runs.data(), static_cast<int>(runs.size()), -(seq - 1), count);
  std::vector<float> x(idx.back() + 9);
  for (std::size_t t = 0; t < x.size(); ++t) x[t] = static_cast<float>(t) * 0.25f - 3.0f;
  for (int i = -(seq - 1); i <= 0; ++i) {
    const int n = std::min(13, seq - 1 + i + 1);
    std::vector<float> expect(n, 0.0f), got(n, 5.0f), term(n);
    relative_logits_gather_f32(i, n, runs.data(), static_cast<int>(runs.size()), x.data(), 0, expect.data(), term.data());
    relative_rows_gather_quads_f32(i, n, quads, x.data(), 0, got.data());
    INFO("i " << i);
    CHECK(got == term);
  }
}

TEST_CASE("quads are refused where four distances jump four rows", "[kernels][relative]") {
  const int seq = 16;
  std::vector<int> idx;
  for (int d = -(seq - 1); d <= seq - 1; ++d) idx.push_back(d < 0 ? 0 : 4 + d);  // a jump of 4 at δ = 0
  const std::vector<RelativeRun> runs = runs_of(idx, -(seq - 1));
  std::vector<float> storage(relative_quads_floats(2 * seq + 2, static_cast<int>(runs.size())));
  CHECK_FALSE(build_relative_quads(runs.data(), static_cast<int>(runs.size()), -(seq - 1), 2 * seq + 2, storage.data()));
}

TEST_CASE("vtranspose_add_f32 adds a key-major tile to query-major rows", "[kernels][relative]") {
  for (int rows : {1, 3, 4, 7, 64})
    for (int cols : {1, 4, 5, 64}) {
      const std::size_t ldx = rows + 3, ldy = cols + 5;
      std::vector<float> x(cols * ldx), y(rows * ldy), term(rows * ldy, -1.0f);
      for (std::size_t t = 0; t < x.size(); ++t) x[t] = static_cast<float>(t % 97) - 40.0f;
      for (std::size_t t = 0; t < y.size(); ++t) y[t] = static_cast<float>(t % 13);
      std::vector<float> expect = y, expect_term = term;
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
          expect[r * ldy + c] += x[c * ldx + r];
          expect_term[r * ldy + c] = x[c * ldx + r];
        }
      std::vector<float> y2 = y;
      vtranspose_add_f32(rows, cols, x.data(), ldx, y.data(), ldy, term.data());
      vtranspose_add_f32(rows, cols, x.data(), ldx, y2.data(), ldy, nullptr);
      INFO("rows " << rows << " cols " << cols);
      CHECK(y == expect);
      CHECK(y2 == expect);
      CHECK(term == expect_term);
    }
}
