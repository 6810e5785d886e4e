// The attention driver: validation, workspace layout, and the per-(batch, head) block loop that
// composes packed GEMMs, a scheme's terms, masking and the split softmax. See relpos/attention.h.
// Banded schedule: query block [i0, i1) computes only key columns [j0, j1) — the causal limit and the
// sliding window [i0 − w, i1 − 1 + w] (relpos/scheme.h, "Key columns") — for Q·Kᵀ (from the packed-K
// panel holding j0: up to gemm_nr − 1 extra columns on the left, never read), the scheme's terms,
// the softmax (each row over its own window only) and P·V (packed-V rows j0 … j1 − 1). So a window-w
// call costs O(seq · (block + 2w)) instead of O(seq²), and probabilities outside the window are 0.
// (batch, head) slices run in parallel (parallel_for, one slice per chunk — or runs of a slice's query
// blocks when there are fewer slices than threads), each on one thread with that thread's scratch; the
// scheme's shared per-call tables are built once, before the slices.
#include "relpos/attention.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "kernels/gemm_f32.h"
#include "kernels/simd.h"
#include "kernels/softmax_f32.h"
#include "relpos/error.h"
#include "parallel/parallel_for.h"
#include "relpos/scheme.h"
#include "relpos/threads.h"

namespace relpos {
namespace {

std::size_t checked_mul(std::size_t a, std::size_t b, const char* what) {
  if (a != 0 && b > std::numeric_limits<std::size_t>::max() / a)
    fail_range(std::string(what) + " overflows the address space");
  return a * b;
}

std::size_t round_up16(std::size_t n) { return (n + 15) & ~static_cast<std::size_t>(15); }

// Masks a row's logits in place and turns them into probabilities over its n columns (the keys the
// row may attend: causal limit and window already applied by the caller; key_mask points at the
// first of them). A row with no valid key becomes all zeros.
void masked_softmax_row(float* row, int n, const std::uint8_t* key_mask) {
  const float neg_inf = -std::numeric_limits<float>::infinity();
  if (key_mask)
    for (int j = 0; j < n; ++j)
      if (!key_mask[j]) row[j] = neg_inf;
  const float m = kernels::rmax_f32(static_cast<std::size_t>(n), row);
  if (m == neg_inf) {
    // No finite or +inf logit: a fully masked row (zeros) — unless a logit is NaN, which the SIMD
    // max skips; NaN must propagate to the row (attention.h), as it does in the scalar build.
    const bool nan = std::any_of(row, row + n, [](float x) { return x != x; });
    std::fill(row, row + n, nan ? std::numeric_limits<float>::quiet_NaN() : 0.0f);
    return;
  }
  const float sum = kernels::raddstoreexpminusmax_f32(static_cast<std::size_t>(n), row, m, row);
  kernels::vscale_f32(static_cast<std::size_t>(n), row, 1.0f / sum);
}

}  // namespace

std::size_t AttentionDims::qkv_elements() const {
  check();
  return checked_mul(checked_mul(checked_mul(batch, heads, "batch·heads"), seq, "batch·heads·seq"), head_dim,
                     "batch·heads·seq·head_dim");
}

std::size_t AttentionDims::score_elements() const {
  check();
  return checked_mul(checked_mul(checked_mul(batch, heads, "batch·heads"), seq, "batch·heads·seq"), seq,
                     "batch·heads·seq·seq");
}

void AttentionDims::check() const {
  auto positive = [](int value, const char* name) {
    if (value < 1) fail_range(std::string(name) + " must be a positive integer, got " + std::to_string(value));
  };
  positive(batch, "batch");
  positive(heads, "heads");
  positive(seq, "seq");
  positive(head_dim, "head_dim");
}

Workspace& Workspace::thread(int index) {
  if (index < 0) fail_range("Workspace::thread: index must be ≥ 0, got " + std::to_string(index));
  while (threads_.size() <= static_cast<std::size_t>(index)) threads_.push_back(std::make_unique<Workspace>());
  return *threads_[static_cast<std::size_t>(index)];
}

std::size_t Workspace::capacity_bytes() const {
  std::size_t bytes = storage_.size() * sizeof(float);
  for (const auto& t : threads_) bytes += t->capacity_bytes();
  return bytes;
}

void Workspace::release() {
  storage_ = {};
  threads_.clear();
}

float* Workspace::floats(std::size_t count) {
  const std::size_t need = count + 16;
  if (storage_.size() < need) storage_.resize(need);
  auto address = reinterpret_cast<std::uintptr_t>(storage_.data());
  const std::size_t misalign = (64 - (address & 63)) & 63;
  return storage_.data() + misalign / sizeof(float);
}

void attention(const AttentionDims& dims, const AttentionInputs& in, const Scheme& scheme,
               const AttentionOutputs& out, Workspace& workspace, const AttentionOptions& options) {
  dims.check();
  (void)dims.qkv_elements();
  if (!in.q || !in.k || !in.v) fail_value("attention: q, k and v are required");
  if (!out.output) fail_value("attention: an output buffer is required");
  const std::size_t n_terms = 1 + scheme.term_names().size();
  const bool want_terms = !out.terms.empty();
  if (want_terms && out.terms.size() != n_terms)
    fail_value("attention: scheme '" + std::string(scheme.name()) + "' has " + std::to_string(n_terms) +
               " terms (content + " + std::to_string(n_terms - 1) + "), got " + std::to_string(out.terms.size()) +
               " term buffers");
  if (out.probs || want_terms) (void)dims.score_elements();
  if (in.window < -1) fail_range("attention: window must be ≥ 0 (or −1 for none), got " + std::to_string(in.window));
  if (options.block_rows < 1) fail_range("attention: block_rows must be ≥ 1, got " + std::to_string(options.block_rows));
  const long long n_slices = static_cast<long long>(dims.batch) * dims.heads;
  const long long slice_end = options.slice_end < 0 ? n_slices : options.slice_end;
  if (options.slice_begin < 0 || options.slice_begin >= slice_end || slice_end > n_slices)
    fail_range("attention: slices [" + std::to_string(options.slice_begin) + ", " + std::to_string(slice_end) +
               ") must be a non-empty range within [0, batch·heads = " + std::to_string(n_slices) + ")");
  scheme.check(dims);

  const int seq = dims.seq, d = dims.head_dim;
  const int block = std::min(options.block_rows, seq);
  const bool materialise = out.probs != nullptr;
  constexpr int NR = simd::gemm_nr;  // packed-panel width: Q·Kᵀ starts on the panel holding j0
  const int window = in.window;
  // Row stride of the streaming path's logits: a block's columns [j0 rounded down to a panel, j1).
  const std::size_t ld_stream =
      window < 0 ? static_cast<std::size_t>(seq)
                 : static_cast<std::size_t>(std::min<long long>(seq, static_cast<long long>(block) + 2LL * window + NR));
  const std::size_t head_elems = static_cast<std::size_t>(seq) * d;
  const std::size_t score_head = static_cast<std::size_t>(seq) * seq;

  // Per-thread scratch layout (one allocation per thread, reused across calls).
  const bool rewrite = scheme.rewrites_qkv();
  const std::size_t n_qkv = rewrite ? 3 * round_up16(head_elems) : 0;
  const std::size_t n_kpack = round_up16(kernels::packed_b_floats(d, seq));
  const std::size_t n_vpack = round_up16(kernels::packed_b_floats(seq, d));
  const std::size_t n_logits = materialise ? 0 : round_up16(checked_mul(block, ld_stream, "block_rows·seq"));
  const std::size_t n_scheme = round_up16(scheme.scratch_floats(dims, block));
  const std::size_t n_thread = n_qkv + n_kpack + n_vpack + n_logits + n_scheme;

  // The call's shared, read-only scheme state, computed once before the slices.
  const std::size_t n_shared = scheme.shared_floats(dims, in.causal);
  float* shared = n_shared ? workspace.floats(n_shared) : nullptr;
  if (shared) scheme.begin_call(dims, in.causal, shared);
  // Per-thread scratch is allocated here, on the calling thread, for every thread that can take part
  // (at most one per slice): inside the region each thread only reads its own, so nothing allocates
  // concurrently — and WebAssembly memory never grows on a Worker, whose growth the main thread's
  // JavaScript heap views would miss.
  // Work units: one per slice, or — when there are fewer slices than threads — each slice's query
  // blocks cut into `groups` runs, every run preparing the slice itself (rewrite, packs, begin_head:
  // the same values on every thread). Each query row is still computed by the same code from the same
  // inputs, so the split changes no result.
  const long long n_slices_call = slice_end - options.slice_begin;
  const int n_blocks = (seq + block - 1) / block;
  const int pool_threads = num_threads();
  const int groups = n_slices_call >= pool_threads
                         ? 1
                         : static_cast<int>(std::min<long long>(n_blocks, (pool_threads + n_slices_call - 1) / n_slices_call));
  const long long units = n_slices_call * groups;
  const int threads = static_cast<int>(std::min<long long>(pool_threads, units));
  for (int t = 0; t < threads; ++t) (void)workspace.thread(t).floats(n_thread);

  const float content_scale = scheme.content_scale(d);
  constexpr std::size_t kMaxTerms = 8;
  if (n_terms > kMaxTerms) fail_value("attention: a scheme may report at most 7 terms");

  // One (batch, head) slice, start to end, on one thread: every output element of the slice is
  // computed here, whatever the thread count (bitwise identical results).
  auto compute_slice = [&](long long s, int block_begin, int block_end, int thread) {
    float* base = workspace.thread(thread).floats(n_thread);
    float* qkv_copy = base;
    float* kpack = qkv_copy + n_qkv;
    float* vpack = kpack + n_kpack;
    float* logits_scratch = vpack + n_vpack;
    float* scheme_scratch = logits_scratch + n_logits;
    float* term_rows[kMaxTerms] = {};

    const int b = static_cast<int>(s / dims.heads), h = static_cast<int>(s % dims.heads);
    const std::uint8_t* key_mask = in.key_mask ? in.key_mask + static_cast<std::size_t>(b) * seq : nullptr;
    const std::size_t local = static_cast<std::size_t>(s - options.slice_begin);  // slices from the pointers
    HeadView head;
    head.dims = &dims;
    head.batch_index = b;
    head.head_index = h;
    head.shared = shared;
    head.q = in.q + local * head_elems;
    head.k = in.k + local * head_elems;
    head.v = in.v + local * head_elems;
    head.key_mask = key_mask;
    head.causal = in.causal;
    if (rewrite) {
      float* q = qkv_copy;
      float* k = q + round_up16(head_elems);
      float* v = k + round_up16(head_elems);
      std::memcpy(q, head.q, head_elems * sizeof(float));
      std::memcpy(k, head.k, head_elems * sizeof(float));
      std::memcpy(v, head.v, head_elems * sizeof(float));
      scheme.rewrite_qkv_with_scratch(head, scheme_scratch, q, k, v);
      head.q = q;
      head.k = k;
      head.v = v;
    }
    kernels::pack_b_nk(d, seq, head.k, d, kpack);
    kernels::pack_b_kn(seq, d, head.v, d, vpack);
    scheme.begin_head(head, scheme_scratch);
    float* out_head = out.output + local * head_elems;

    for (int blk = block_begin; blk < block_end; ++blk) {
      const int i0 = blk * block;
      const int i1 = std::min(seq, i0 + block);
      const int rows = i1 - i0;
      // The block's key columns [j0, j1): keys beyond i1 − 1 are masked for every row when causal,
      // keys beyond [i0 − w, i1 − 1 + w] for every row under a window.
      int j0 = 0, j1 = in.causal ? i1 : seq;
      int jt = seq;  // the columns the scheme's terms cover: [j0, jt) ⊇ [j0, j1)
      if (window >= 0) {
        j0 = std::max(0, i0 - window);
        jt = static_cast<int>(std::min<long long>(seq, static_cast<long long>(i1) + window));
        j1 = std::min(j1, jt);
      }
      // With terms requested, a causal call still records the scheme's terms of the causally masked
      // keys (as they would be added; relpos/attention.h): the terms then run to jt, the softmax and
      // P·V to j1. Otherwise there is nothing to record and jt = j1.
      if (!(want_terms && in.causal)) jt = j1;
      const int c0 = j0 - j0 % NR;  // first column of the packed-K panel holding j0
      const std::size_t ld = materialise ? static_cast<std::size_t>(seq) : ld_stream;
      // logits points at column j0 (relpos/scheme.h); the GEMM writes from column c0 ≤ j0.
      float* logits_c0 = materialise ? out.probs + local * score_head + static_cast<std::size_t>(i0) * seq + c0
                                     : logits_scratch;
      float* logits = logits_c0 + (j0 - c0);
      const int cols = j1 - j0;
      kernels::gemm_f32_packed(rows, jt - c0, d, content_scale, head.q + static_cast<std::size_t>(i0) * d, d,
                               kpack + static_cast<std::size_t>(c0 / NR) * d * NR, logits_c0, ld, false);
      float* const* terms_ptr = nullptr;
      const std::size_t offset = local * score_head + static_cast<std::size_t>(i0) * seq;
      if (want_terms) {
        for (int r = 0; r < rows; ++r) {
          float* dst = out.terms[0] + offset + static_cast<std::size_t>(r) * seq;
          std::memcpy(dst + j0, logits + r * ld, sizeof(float) * cols);
          std::fill(dst + j1, dst + jt, 0.0f);  // the content term stays 0 beyond the causal limit
        }
        for (std::size_t t = 0; t + 1 < n_terms; ++t) term_rows[t] = out.terms[t + 1] + offset + j0;
        terms_ptr = term_rows;
      }
      scheme.add_logit_terms(head, scheme_scratch, i0, i1, j0, jt, logits, ld, terms_ptr);
      for (int r = 0; r < rows; ++r) {
        const int i = i0 + r;
        // Row i attends keys [lo, hi) ⊆ [j0, j1); everything else in [j0, j1) gets probability 0.
        int lo = 0, hi = in.causal ? i + 1 : seq;
        if (window >= 0) {
          lo = std::max(0, i - window);
          hi = static_cast<int>(std::min<long long>(hi, static_cast<long long>(i) + window + 1));
        }
        float* row = logits + r * ld;  // column j0
        std::fill(row, row + (lo - j0), 0.0f);
        std::fill(row + (hi - j0), row + cols, 0.0f);
        masked_softmax_row(row + (lo - j0), hi - lo, key_mask ? key_mask + lo : nullptr);
        if (materialise) {  // the whole probs row: zeros outside the block's columns
          float* full = row - j0;
          std::fill(full, full + j0, 0.0f);
          std::fill(full + j1, full + seq, 0.0f);
        }
        if (want_terms) {  // terms: zeros outside the block's columns and (window) outside row i's window
          const int right = window >= 0 ? static_cast<int>(std::min<long long>(jt, static_cast<long long>(i) + window + 1)) : jt;
          for (std::size_t t = 0; t < n_terms; ++t) {
            float* full = out.terms[t] + offset + static_cast<std::size_t>(r) * seq;
            std::fill(full, full + lo, 0.0f);
            std::fill(full + right, full + seq, 0.0f);
          }
        }
      }
      // P·V over keys [j0, j1): packed-V rows from j0 (vpack holds all seq keys per panel).
      kernels::gemm_f32_packed(rows, d, cols, 1.0f, logits, ld, vpack + static_cast<std::size_t>(j0) * NR,
                               out_head + static_cast<std::size_t>(i0) * d, d, false, seq);
      if (scheme.has_value_term())
        scheme.add_value_term(head, scheme_scratch, i0, i1, j0, j1, logits, ld,
                              out_head + static_cast<std::size_t>(i0) * d);
    }
  };

  parallel::parallel_for(0, units, 1, [&](parallel::Index u0, parallel::Index u1, int thread) {
    for (parallel::Index u = u0; u < u1; ++u) {
      const int g = static_cast<int>(u % groups);
      compute_slice(options.slice_begin + u / groups, static_cast<int>(static_cast<long long>(g) * n_blocks / groups),
                    static_cast<int>(static_cast<long long>(g + 1) * n_blocks / groups), thread);
    }
  }, static_cast<parallel::Work>(n_slices_call) * seq * static_cast<double>(std::min<std::size_t>(ld_stream, seq)) *
         (4.0 * d + 8.0));  // Q·Kᵀ, P·V, softmax over the band: small calls stay inline
}

}  // namespace relpos
