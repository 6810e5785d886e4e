// A query row whose keys are all masked gives probabilities 0 and output 0 (never NaN), on both paths,
// for every scheme: a batch row with an all-zero key mask, and with causal masking a first key that
// is masked (so row 0 has nothing to attend). The other rows still match the reference.
#include "test_support.h"

TEST_CASE("fully masked rows give zero outputs and probabilities for every scheme", "[masking]") {
  REQUIRE(!ts::registry().empty());
  for (const ts::Variant& v : ts::registry()) {
    for (bool causal : {false, true}) {
      const relpos::AttentionDims dims{2, 3, 11, 8};
      INFO(v.name() << (causal ? ", causal, key 0 masked in batch row 0" : ", bidirectional")
                    << ", batch row 1 fully masked");
      auto c = v.instantiate(dims, 51);
      ts::Inputs in = ts::make_inputs(dims, 52, causal);
      for (int j = 0; j < dims.seq; ++j) in.key_mask[dims.seq + j] = 0;
      if (causal) in.key_mask[0] = 0;
      const ref::Result expected = ts::run_reference(in, *c->reference, true);
      for (bool materialise : {false, true}) {
        INFO((materialise ? "materialised" : "streaming, block_rows 4"));
        const ts::KernelRun got = ts::run_attention(in, *c->kernel, materialise, false, 4);
        REQUIRE(ts::all_finite(got.output));
        const std::size_t head = static_cast<std::size_t>(dims.seq) * dims.head_dim;
        bool zero = true;
        for (std::size_t n = dims.heads * head; n < 2 * dims.heads * head; ++n) zero = zero && got.output[n] == 0.0f;
        if (causal)
          for (int h = 0; h < dims.heads; ++h)
            for (int c2 = 0; c2 < dims.head_dim; ++c2) zero = zero && got.output[h * head + c2] == 0.0f;
        CHECK(zero);
        const double err = ts::scaled_error(got.output, expected.output);
        CAPTURE(err);
        CHECK(err <= ts::kTolerance);
        if (materialise) {
          REQUIRE(ts::all_finite(got.probs));
          const double probs_err = ts::scaled_error(got.probs, expected.probs);
          CAPTURE(probs_err);
          CHECK(probs_err <= ts::kTolerance);
          const std::size_t scores = static_cast<std::size_t>(dims.seq) * dims.seq;
          bool zero_probs = true;
          for (std::size_t n = dims.heads * scores; n < 2 * dims.heads * scores; ++n) zero_probs = zero_probs && got.probs[n] == 0.0f;
          CHECK(zero_probs);
        }
      }
    }
  }
}
