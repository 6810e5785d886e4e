// Logits near ±1e4 (rows whose every logit is ≈ +1e4, and rows whose every logit is ≈ −1e4, where a
// softmax without max subtraction overflows or underflows to 0/0) stay finite, normalised, and
// close to the reference for every scheme.
#include "test_support.h"

TEST_CASE("logits near plus and minus 1e4 stay finite for every scheme", "[extreme]") {
  REQUIRE(!ts::registry().empty());
  for (const ts::Variant& v : ts::registry()) {
    for (bool causal : {false, true}) {
      const relpos::AttentionDims dims{2, 2, 16, 32};
      INFO(v.name() << (causal ? ", causal" : ", bidirectional") << ", seq 16, head_dim 32, logits ≈ ±1e4");
      auto c = v.instantiate(dims, 61);
      ts::Inputs in = ts::make_inputs(dims, 62, causal);
      // k_j = a·u + noise, q_i = ±b·u with a·b·content_scale = 1e4: every logit of a row ≈ ±1e4.
      const std::vector<float> u0 = ts::random_vector(dims.head_dim, 63);
      double norm = 0;
      for (float x : u0) norm += double(x) * x;
      const double cs = c->reference->content_scale(dims.head_dim);
      const double ab = std::sqrt(1e4 / cs);
      const std::size_t heads = static_cast<std::size_t>(dims.batch) * dims.heads;
      for (std::size_t bh = 0; bh < heads; ++bh)
        for (int i = 0; i < dims.seq; ++i)
          for (int ch = 0; ch < dims.head_dim; ++ch) {
            const std::size_t at = (bh * dims.seq + i) * dims.head_dim + ch;
            const double u = u0[ch] / std::sqrt(norm);
            in.k[at] = static_cast<float>(ab * u + 0.05 * in.k[at]);
            in.q[at] = static_cast<float>((i % 2 == 0 ? 1 : -1) * ab * u + 0.05 * in.q[at]);
          }
      const ref::Result expected = ts::run_reference(in, *c->reference, true);
      double max_logit = 0;
      for (double x : expected.terms[0]) max_logit = std::max(max_logit, std::abs(x));
      CAPTURE(max_logit);
      CHECK(max_logit > 5e3);
      for (bool materialise : {false, true}) {
        INFO((materialise ? "materialised" : "streaming"));
        const ts::KernelRun got = ts::run_attention(in, *c->kernel, materialise, false, 5);
        CHECK(ts::all_finite(got.output));
        // float32 logits of 1e4 carry absolute errors of ~1e-3, so compare loosely.
        const double err = ts::scaled_error(got.output, expected.output);
        CAPTURE(err);
        CHECK(err <= 1e-2);
        if (materialise) {
          CHECK(ts::all_finite(got.probs));
          for (std::size_t row = 0; row < got.probs.size() / dims.seq; ++row) {
            double z = 0;
            for (int j = 0; j < dims.seq; ++j) z += got.probs[row * dims.seq + j];
            INFO("row " << row);
            CHECK(std::abs(z - 1.0) <= 1e-5);
          }
        }
      }
    }
  }
}
