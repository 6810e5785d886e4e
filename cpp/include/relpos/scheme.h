// The extension point: how a position scheme takes part in attention.
//
// The attention driver (attention.cpp) calls begin_call(dims, causal, shared) once per call, then,
// for every (batch, head) slice — slices in parallel on the pool's threads (parallel/parallel_for.h),
// see "Threads" below:
//   1. rewrite_qkv(head, q, k, v)       — only if rewrites_qkv(): on private copies (RoPE, absolute)
//   2. begin_head(head, scratch)        — per-head precomputation into the scheme's scratch
//   3. for each block of query rows [i0, i1), over the block's key columns [j0, j1) only:
//        logits = content_scale · Q[i0:i1] K[j0:j1]ᵀ                  (driver, packed GEMM)
//        add_logit_terms(head, scratch, i0, i1, j0, j1, logits, ld, term_rows)
//        masking + softmax                                            (driver)
//        out[i0:i1] = P[:, j0:j1] V[j0:j1]                            (driver)
//        add_value_term(head, scratch, i0, i1, j0, j1, P, ld, out)    — only if has_value_term()
// Key columns: [j0, j1) is the smallest range holding every key some row of the block may attend:
// j0 = 0, j1 = seq without window or causal; causal: j1 = i1; window w: j0 = max(0, i0 − w),
// j1 = min(seq, i1 + w) (and ≤ i1 when causal) — except that a causal call with terms requested
// passes the non-causal j1, so that the terms of causally masked keys are recorded too. Always
// j0 ≤ i0 and i1 ≤ j1, so i − j0 ≥ 0 for every row. Columns outside [j0, j1) are never computed (a banded schedule for sliding windows); the
// logits, term_rows and probs pointers a scheme receives point at column j0: entry (i, j) lives at
// [(i − i0)·ld + (j − j0)]. A scheme must read and write only columns [j0, j1) of them.
// Distances are written d = j − i (key − query) unless a scheme's file says otherwise.
// Schemes hold non-owning pointers to their tables: the tables must outlive the call.
//
// Threads: shared per-call state vs per-thread scratch.
//   shared  (shared_floats, written by begin_call before any slice, then read-only, HeadView::shared):
//           tables that depend only on the call (dims, causal) — e.g. Transformer-XL's sinusoid R.
//   scratch (scratch_floats, one buffer per thread): everything begin_head, rewrite_qkv_with_scratch,
//           add_logit_terms and add_value_term write. One run of a slice — rewrite, begin_head, then
//           some of its query blocks in order — is on one thread, with nothing else touching that
//           scratch in between; other runs go concurrently on other threads with other scratch, in
//           no particular order. With fewer slices than threads a slice is cut into several runs
//           (each calls begin_head, then different blocks), so a block's terms may depend only on
//           begin_head's scratch and the block itself — never on state left by an earlier block.
// Scheme methods are const and must not write the scheme's members: one Scheme serves all threads.
// Each output element is computed by one slice, so results do not depend on the thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "relpos/attention.h"

namespace relpos {

// A scheme as data for one call's dims, for executors other than this driver (the GPU plan,
// cpp/src/plan/plan.h). kind: "none" (content term only); "rope" (floats: cos then sin [seq,
// rotary_dim/2], numbers: interleaved, rotary_dim); "alibi" (floats: slopes [heads], numbers:
// symmetric); "bucket" (ints: bucket of distance j − i at [j − i + seq − 1], table: [rows, heads]);
// "relative_vectors" (ints: table row of distance j − i at [j − i + seq − 1]; logit += term_scale ·
// (q_i·table[h][row] + k_j·table2[h][row]), rows of head_dim, either table may be null; numbers:
// table_head, table2_head (floats between heads, 0 = one table for all heads), term_scale).
struct SchemeDescription {
  std::string kind;
  std::vector<std::pair<std::string, double>> numbers;
  std::vector<float> floats;
  std::vector<std::int32_t> ints;
  const float* table = nullptr;
  std::size_t table_floats = 0;
  const float* table2 = nullptr;  // a second table ("relative_vectors": the one dotted with k_j)
  std::size_t table2_floats = 0;
};

// One (batch, head) slice as a scheme sees it. q/k/v are [seq, head_dim], possibly rewritten.
struct HeadView {
  const AttentionDims* dims = nullptr;
  int batch_index = 0;
  int head_index = 0;
  const float* shared = nullptr;  // the call's shared tables (begin_call), read-only
  const float* q = nullptr;
  const float* k = nullptr;
  const float* v = nullptr;
  const std::uint8_t* key_mask = nullptr;  // [seq] for this batch row, or nullptr
  bool causal = false;
  int seq() const { return dims->seq; }
  int head_dim() const { return dims->head_dim; }
};

class Scheme {
 public:
  virtual ~Scheme() = default;

  virtual const char* name() const = 0;

  // Fills `out` and returns true when the scheme can be described as data (SchemeDescription);
  // false (the default) = it runs on this driver only.
  virtual bool describe(const AttentionDims& dims, SchemeDescription& out) const {
    (void)dims;
    (void)out;
    return false;
  }

  // Names of the logit terms this scheme adds, in the order add_logit_terms writes them
  // (e.g. {"c2p", "p2c"}). The driver's own q·k term is always reported first as "content".
  virtual std::vector<std::string> term_names() const { return {}; }

  // Throws relpos::Error when the scheme's parameters or tables cannot serve these dims.
  virtual void check(const AttentionDims& dims) const { (void)dims; }

  // Multiplier of q·k in the logits (1/sqrt(head_dim) unless the scheme says otherwise).
  virtual float content_scale(int head_dim) const;

  // Position information applied to the inputs themselves (RoPE, absolute encodings).
  virtual bool rewrites_qkv() const { return false; }
  virtual void rewrite_qkv(const HeadView& head, float* q, float* k, float* v) const;
  // The form the driver calls: rewrite_qkv with the scheme's scratch (scratch_floats of it) for
  // per-head tables; begin_head may overwrite that scratch afterwards. Default: rewrite_qkv(head, q, k, v).
  virtual void rewrite_qkv_with_scratch(const HeadView& head, float* scratch, float* q, float* k, float* v) const;

  // Floats of the call's shared, read-only state and its computation (default: none). begin_call runs
  // once per attention call, before any slice, on the calling thread.
  virtual std::size_t shared_floats(const AttentionDims& dims, bool causal) const;
  virtual void begin_call(const AttentionDims& dims, bool causal, float* shared) const;

  // Floats of per-thread scratch the scheme needs for a given block size (see "Threads" above).
  virtual std::size_t scratch_floats(const AttentionDims& dims, int block_rows) const;
  virtual void begin_head(const HeadView& head, float* scratch) const;

  // Adds this scheme's terms to logits[(i − i0)·ld + (j − j0)] for query rows [i0, i1) and keys
  // j ∈ [j0, j1) (see "Key columns" above). If term_rows is non-null, term_rows[t][(i − i0)·ld + (j − j0)]
  // receives the value of term t as added (already scaled). Masked entries may be written; the
  // driver overwrites them.
  virtual void add_logit_terms(const HeadView& head, float* scratch, int i0, int i1, int j0, int j1, float* logits,
                               std::size_t ld, float* const* term_rows) const;

  // Adds a value-side term to out[i − i0][:] (row stride head_dim) from probabilities
  // probs[(i − i0)·ld + (j − j0)], j ∈ [j0, j1) (every probability outside is 0) — Shaw et al.'s a^V.
  virtual bool has_value_term() const { return false; }
  virtual void add_value_term(const HeadView& head, float* scratch, int i0, int i1, int j0, int j1, const float* probs,
                              std::size_t ld, float* out) const;
};

}  // namespace relpos
