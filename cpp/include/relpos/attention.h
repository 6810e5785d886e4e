// Multi-head scaled dot-product attention with a pluggable position scheme.
//
// Layout (row-major float32 throughout):
//   q, k, v, output : [batch, heads, seq, head_dim]
//   key_mask        : [batch, seq] bytes, nonzero = the key may be attended; nullptr = all keys valid
//   probs           : [batch, heads, seq, seq]  (optional)
//   terms[t]        : [batch, heads, seq, seq]  (optional) the t-th logit term, see Scheme::term_names
//
// For query i, key j:  logit(i, j) = content_scale · q_i·k_j + Σ scheme terms(i, j)
//   masked when key_mask[b, j] == 0 or (causal and j > i) or (window ≥ 0 and |i − j| > window);
//   p(i, ·) = softmax over unmasked keys;  out_i = Σ_j p(i, j) v_j + scheme value term.
// A row whose keys are all masked gives p = 0 and out = 0 (never NaN).
// NaN or Inf in the inputs propagates into the rows that read them; nothing is clamped.
//
// Window (banded schedule): a block of query rows [i0, i1) computes only key columns
// [max(0, i0 − window), min(seq, i1 + window)) (and < i1 when causal) — Q·Kᵀ, scheme terms, softmax
// and P·V — so a windowed call costs O(seq · (block_rows + 2·window)), not O(seq²). Probabilities
// outside the window are exactly 0; with terms requested, every term is 0 outside the window too.
// Terms of keys masked otherwise (key_mask, causal) hold the values as they would be added, except
// that the content term is 0 right of a causal query block.
// The results equal masked full attention up to float rounding (the sums run over fewer keys).
//
// Memory: without probs/terms, queries are processed in blocks of `block_rows` and the scratch
// per call is O(block_rows · seq + seq · head_dim) floats (O(block_rows · (block_rows + 2·window))
// for the logits under a window), so long sequences fit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace relpos {

class Scheme;

struct AttentionDims {
  int batch = 1;
  int heads = 1;
  int seq = 1;
  int head_dim = 1;

  std::size_t qkv_elements() const;    // batch·heads·seq·head_dim (throws RangeError on overflow)
  std::size_t score_elements() const;  // batch·heads·seq·seq      (throws RangeError on overflow)
  void check() const;                  // throws RangeError unless every size is ≥ 1
};

struct AttentionInputs {
  const float* q = nullptr;
  const float* k = nullptr;
  const float* v = nullptr;
  const std::uint8_t* key_mask = nullptr;
  bool causal = false;
  // Sliding window (ModernBERT local layers: window = local_attention / 2): ≥ 0 lets query i attend
  // only keys with |i − j| ≤ window (on top of key_mask and causal), computed as a banded schedule
  // (see the top of this file); −1 = no window.
  int window = -1;
};

struct AttentionOutputs {
  float* output = nullptr;     // required
  float* probs = nullptr;      // optional
  std::vector<float*> terms;   // optional: empty, or one buffer per Scheme::term_names() entry
};

// Reusable scratch memory: keep one per caller and pass it to every call so that repeated calls
// allocate nothing after the first. A threaded call uses this object's storage for the call's shared
// tables and thread t's scratch from thread(t) (owned here, created on first use).
class Workspace {
 public:
  float* floats(std::size_t count);    // 64-byte aligned, valid until the next floats() call
  Workspace& thread(int index);        // per-thread scratch of a parallel call (index ≥ 0)
  std::size_t capacity_bytes() const;  // this and every thread's storage
  void release();

 private:
  std::vector<float> storage_;
  std::vector<std::unique_ptr<Workspace>> threads_;
};

struct AttentionOptions {
  int block_rows = 64;  // query rows per block on the streaming path (ignored when probs/terms wanted)
  // Compute only the (batch, head) slices s = b·heads + h in [slice_begin, slice_end) (slice_end −1 =
  // through the last). q, k, v, output, probs and terms then point at slice slice_begin's data, not
  // slice 0's; key_mask stays the whole [batch, seq]. Schemes see the true batch and head indices,
  // so a caller can stream a long sequence through the heap a few heads at a time.
  int slice_begin = 0;
  int slice_end = -1;
};

// Computes attention for every (batch, head). Throws relpos::Error (RangeError for bad sizes,
// Error for a scheme whose tables do not fit the dims) before writing anything.
void attention(const AttentionDims& dims, const AttentionInputs& in, const Scheme& scheme,
               const AttentionOutputs& out, Workspace& workspace, const AttentionOptions& options = {});

}  // namespace relpos
