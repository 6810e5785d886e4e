// For every scheme variant, the streaming path at block_rows 1, 7, 64 and seq, the materialised path
// (probs and/or terms requested) give the same outputs, to 1e-5 of the output scale.
#include "test_support.h"

TEST_CASE("streaming and materialised paths agree for every scheme", "[streaming][probs]") {
  REQUIRE(!ts::registry().empty());
  for (const ts::Variant& v : ts::registry()) {
    for (bool causal : {false, true}) {
      const relpos::AttentionDims dims{2, 3, 77, 32};
      INFO(v.name() << (causal ? ", causal" : ", bidirectional") << ", seq 77, head_dim 32, heads 3, padded");
      auto c = v.instantiate(dims, 31);
      const ts::Inputs in = ts::make_inputs(dims, 32, causal);
      const ts::KernelRun base = ts::run_attention(in, *c->kernel, true, false);
      REQUIRE(ts::all_finite(base.output));
      const std::vector<double> expected(base.output.begin(), base.output.end());
      struct Run {
        const char* what;
        bool probs, terms;
        int block;
      };
      for (const Run& r : {Run{"streaming, block_rows 1", false, false, 1}, Run{"streaming, block_rows 7", false, false, 7},
                           Run{"streaming, block_rows 64", false, false, 64},
                           Run{"streaming, block_rows seq", false, false, 77},
                           Run{"streaming, block_rows > seq", false, false, 1000},
                           Run{"probs and terms, block_rows 1", true, true, 1},
                           Run{"terms without probs", false, true, 7}}) {
        INFO(r.what);
        const ts::KernelRun got = ts::run_attention(in, *c->kernel, r.probs, r.terms, r.block);
        const double err = ts::scaled_error(got.output, expected);
        CAPTURE(err);
        CHECK(err <= ts::kTolerance);
      }
    }
  }
}
