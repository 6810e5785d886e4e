// AttentionOptions::slice_begin/slice_end (how the npm package streams long sequences through the
// heap a few heads at a time): for every scheme variant, computing the (batch, head) slices in
// chunks — with q, k, v, output pointing at each chunk's first slice — gives the outputs of one
// whole call, including chunks that start mid-batch (per-head tables, per-head state that begin_head
// must rebuild, per-batch masks). Bad ranges are RangeErrors.
#include <cstring>

#include "test_support.h"

namespace {

// Runs the slices [begin, end) of `in` with the pointers offset to slice `begin`, and writes their
// outputs into `output` (all slices).
void run_slices(const ts::Inputs& in, const relpos::Scheme& scheme, int begin, int end, std::vector<float>& output,
                relpos::Workspace& ws) {
  const std::size_t slice = static_cast<std::size_t>(in.dims.seq) * in.dims.head_dim;
  const std::size_t offset = static_cast<std::size_t>(begin) * slice;
  std::vector<float> out(static_cast<std::size_t>(end - begin) * slice, std::nanf(""));
  relpos::AttentionInputs view = in.view();
  view.q += offset;
  view.k += offset;
  view.v += offset;
  relpos::AttentionOutputs outs;
  outs.output = out.data();
  relpos::AttentionOptions options;
  options.slice_begin = begin;
  options.slice_end = end;
  relpos::attention(in.dims, view, scheme, outs, ws, options);
  std::memcpy(output.data() + offset, out.data(), out.size() * sizeof(float));
}

}  // namespace

TEST_CASE("slice ranges computed in chunks match one whole call for every scheme", "[slices]") {
  REQUIRE(!ts::registry().empty());
  for (const ts::Variant& v : ts::registry()) {
    for (bool causal : {false, true}) {
      const relpos::AttentionDims dims{3, 4, 37, 16};  // 12 slices
      INFO(v.name() << (causal ? ", causal" : ", bidirectional") << ", batch 3, heads 4, seq 37, padded");
      auto c = v.instantiate(dims, 41);
      const ts::Inputs in = ts::make_inputs(dims, 42, causal);
      const ts::KernelRun whole = ts::run_attention(in, *c->kernel, false, false);
      REQUIRE(ts::all_finite(whole.output));
      const std::vector<double> expected(whole.output.begin(), whole.output.end());
      for (int chunk : {1, 5, 12}) {  // 5: chunks start at (0,0), (1,1), (2,2)
        INFO("chunks of " << chunk << " slices");
        std::vector<float> got(whole.output.size(), std::nanf(""));
        relpos::Workspace ws;
        for (int s = 0; s < 12; s += chunk) run_slices(in, *c->kernel, s, std::min(12, s + chunk), got, ws);
        const double err = ts::scaled_error(got, expected);
        CAPTURE(err);
        CHECK(err <= ts::kTolerance);
      }
    }
  }
}

TEST_CASE("slice ranges outside [0, batch·heads) or empty are RangeErrors", "[slices][invalid]") {
  const relpos::AttentionDims dims{2, 3, 5, 8};
  const ts::Inputs in = ts::make_inputs(dims, 3, false, false);
  auto scheme = relpos::make_scheme(relpos::NoneParams{});
  std::vector<float> out(dims.qkv_elements());
  relpos::AttentionOutputs outs;
  outs.output = out.data();
  relpos::Workspace ws;
  for (auto [begin, end] : {std::pair{-1, 2}, std::pair{3, 3}, std::pair{4, 2}, std::pair{0, 7}, std::pair{6, -1}}) {
    INFO("slices [" << begin << ", " << end << ")");
    relpos::AttentionOptions options;
    options.slice_begin = begin;
    options.slice_end = end;
    try {
      relpos::attention(dims, in.view(), *scheme, outs, ws, options);
      FAIL("no relpos::Error thrown");
    } catch (const relpos::Error& e) {
      CHECK(e.kind() == relpos::ErrorKind::Range);
      CHECK(std::string(e.what()).find("slices") != std::string::npos);
    }
  }
  // the library stays usable
  CHECK_NOTHROW(relpos::attention(dims, in.view(), *scheme, outs, ws, relpos::AttentionOptions{}));
}
