// Shared plumbing of the relative schemes (shaw, bert_relative, huang_relative, transformer_xl,
// deberta): clamp index maps as runs, per-block projection of a packed δ-ordered table, sinusoids.
//
// Convention: every relative table is held "δ-ordered": row t serves distance δ = j − i through a
// non-decreasing map index(δ) (tables indexed by i − j are copied reversed), so that for a fixed
// query row the rows read are contiguous (unclipped middle) or constant (clipped tails).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

#include "kernels/gemm_f32.h"
#include "kernels/relative_logits_gather.h"
#include "kernels/relative_runs.h"
#include "kernels/simd.h"

namespace relpos::detail {

inline std::size_t round16(std::size_t n) { return (n + 15) & ~static_cast<std::size_t>(15); }

// Carves consecutive 16-float-aligned buffers out of a scheme's scratch.
class ScratchCursor {
 public:
  explicit ScratchCursor(float* base) : at_(base) {}
  float* take(std::size_t floats) {
    float* p = at_;
    at_ += round16(floats);
    return p;
  }

 private:
  float* at_;
};

// index(δ) = clamp(δ, lo, hi) − lo for δ in (−seq, seq): three runs (constant, slice, constant).
inline void clamp_runs(int lo, int hi, int seq, kernels::RelativeRun runs[3]) {
  runs[0] = {-seq, lo, 0, 0};
  runs[1] = {lo, hi + 1, 0, 1};
  runs[2] = {hi + 1, std::max(seq, hi + 2), hi - lo, 0};
}

// Columns [c_lo, c_hi] of alpha · A[rows × K] · Tᵀ, T packed by pack_b_nk (K × table_rows) into
// `packed`; written to P (row stride ldp ≥ c_hi + 1 − c_lo + gemm_nr). Returns the table index held
// in P's column 0 (c_lo rounded down to a panel boundary).
inline int project_window(int rows, const float* A, std::size_t lda, int K, float alpha, const float* packed, int c_lo,
                          int c_hi, float* P, std::size_t ldp) {
  constexpr int NR = simd::gemm_nr;
  const int panel = c_lo / NR;
  const int base = panel * NR;
  kernels::gemm_f32_packed(rows, c_hi + 1 - base, K, alpha, A, lda, packed + static_cast<std::size_t>(panel) * K * NR, P,
                           ldp, false);
  return base;
}

// The query-side relative term of one block: for query rows i ∈ [i0, i1) and keys j ∈ [j0, j1),
//   logits[(i − i0)·ld + (j − j0)] += alpha · A[i − i0] · T[clamp(j − i, lo, hi) − lo]
// A: rows × K (row stride lda); T: the table, packed by pack_b_nk (K × (hi − lo + 1)) into `packed`;
// P: scratch of (i1 − i0) × ldp floats (ldp ≥ hi − lo + 1 + gemm_nr). Only the table rows the block
// reaches over its key columns are projected. term (nullable, row stride ld, at column j0) receives
// the added values. Requires j0 ≤ i0 (the kernels walk keys from j0 with query index i − j0 ≥ 0).
inline void add_query_relative_term(int i0, int i1, int j0, int j1, int seq, int lo, int hi, const float* A,
                                    std::size_t lda, int K, float alpha, const float* packed, float* P, std::size_t ldp,
                                    float* logits, std::size_t ld, float* term) {
  if (j1 <= j0) return;
  kernels::RelativeRun runs[3];
  clamp_runs(lo, hi, seq, runs);
  const int c_lo = kernels::run_index(runs, 3, j0 - (i1 - 1)), c_hi = kernels::run_index(runs, 3, j1 - 1 - i0);
  const int base = project_window(i1 - i0, A, lda, K, alpha, packed, c_lo, c_hi, P, ldp);
  for (int r = 0; r < i1 - i0; ++r)
    kernels::relative_logits_gather_f32(i0 + r - j0, j1 - j0, runs, 3, P + r * ldp, base, logits + r * ld,
                                        term ? term + r * ld : nullptr);
}

// Rows of the Concatenated sinusoid: out[t·ld + f] = sin(p_t·ω_f), out[t·ld + dim/2 + f] = cos(p_t·ω_f),
// p_t = first + t·stride (stride ±1), ω_f = base^(−2f/dim). Phases advance by a float64 rotation,
// re-anchored with exact sin/cos every 64 rows, so it matches the float64-angle table to float32.
// Frequencies go in chunks of 64 with their state on the stack, rows outermost (contiguous stores).
inline void sinusoid_rows(int first, int stride, int count, int dim, float base, float* out, std::size_t ld) {
  constexpr int kChunk = 64, kAnchor = 64;
  const int half = dim / 2;
  double omega[kChunk], cs[kChunk], sn[kChunk], s[kChunk], c[kChunk];
  for (int f0 = 0; f0 < half; f0 += kChunk) {
    const int nf = std::min(kChunk, half - f0);
    for (int f = 0; f < nf; ++f) {
      omega[f] = std::pow(static_cast<double>(base), -2.0 * (f0 + f) / dim);
      cs[f] = std::cos(stride * omega[f]);
      sn[f] = std::sin(stride * omega[f]);
    }
    for (int t = 0; t < count; ++t) {
      float* row = out + static_cast<std::size_t>(t) * ld + f0;
      if (t % kAnchor == 0) {
        const double p = static_cast<double>(first + t * stride);
        for (int f = 0; f < nf; ++f) {
          s[f] = std::sin(p * omega[f]);
          c[f] = std::cos(p * omega[f]);
        }
      } else {
        for (int f = 0; f < nf; ++f) {
          const double s2 = s[f] * cs[f] + c[f] * sn[f];
          c[f] = c[f] * cs[f] - s[f] * sn[f];
          s[f] = s2;
        }
      }
      for (int f = 0; f < nf; ++f) {
        row[f] = static_cast<float>(s[f]);
        row[half + f] = static_cast<float>(c[f]);
      }
    }
  }
}

}  // namespace relpos::detail
