// Embind: relpos::attention over buffers the caller placed in the module's heap, the reusable
// Workspace, and AttentionDims. Thin: the call maps one-to-one onto relpos/attention.h.
//
//   attention(dims, q, k, v, keyMask, causal, window, scheme, output, probs, terms, workspace, blockRows,
//             sliceBegin, sliceEnd)
//     window: AttentionInputs::window (−1 = none, ≥ 0 = |i − j| ≤ window, a banded schedule)
//     q, k, v, output, probs: heap byte addresses of float32 buffers (probs 0 = not wanted), holding
//       the (batch, head) slices [sliceBegin, sliceEnd) — AttentionOptions::slice_begin/slice_end
//     keyMask: heap address of [batch, seq] bytes, 0 = every key valid
//     terms: JS array of heap addresses, one per ["content", ...scheme.termNames()], or empty
//   returns undefined, or a JS Error (see common.h) when relpos::attention throws.
#include <emscripten/bind.h>

#include "common.h"
#include "relpos/attention.h"
#include "relpos/scheme.h"

namespace relpos::bindings {
namespace {

using namespace emscripten;

val run_attention(const AttentionDims& dims, std::uintptr_t q, std::uintptr_t k, std::uintptr_t v,
                  std::uintptr_t key_mask, bool causal, int window, const Scheme& scheme, std::uintptr_t output,
                  std::uintptr_t probs, const val& terms, Workspace& workspace, int block_rows,
                  int slice_begin, int slice_end) {
  return guarded([&] {
    AttentionInputs in;
    in.q = ptr<const float>(q);
    in.k = ptr<const float>(k);
    in.v = ptr<const float>(v);
    in.key_mask = ptr<const std::uint8_t>(key_mask);
    in.causal = causal;
    in.window = window;
    AttentionOutputs out;
    out.output = ptr<float>(output);
    out.probs = ptr<float>(probs);
    const unsigned n_terms = terms.isUndefined() ? 0 : terms["length"].as<unsigned>();
    for (unsigned t = 0; t < n_terms; ++t) out.terms.push_back(ptr<float>(terms[t].as<std::uintptr_t>()));
    AttentionOptions options;
    options.block_rows = block_rows;
    options.slice_begin = slice_begin;
    options.slice_end = slice_end;
    attention(dims, in, scheme, out, workspace, options);
    return val::undefined();
  });
}

}  // namespace
}  // namespace relpos::bindings

EMSCRIPTEN_BINDINGS(relpos_attention) {
  using namespace emscripten;
  using namespace relpos;

  value_object<AttentionDims>("AttentionDims")
      .field("batch", &AttentionDims::batch)
      .field("heads", &AttentionDims::heads)
      .field("seq", &AttentionDims::seq)
      .field("headDim", &AttentionDims::head_dim);

  class_<Workspace>("Workspace")
      .constructor<>()
      .function("capacityBytes", &Workspace::capacity_bytes)
      .function("release", &Workspace::release);

  function("attention", &bindings::run_attention);
}
