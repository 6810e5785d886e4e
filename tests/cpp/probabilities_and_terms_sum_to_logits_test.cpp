// With probs and terms requested, every scheme reports: probabilities equal to the reference's; a
// content term equal to content_scale·q·k (after any rewrite); terms that add up to the reference's
// logits on every unmasked entry (and term by term where the decomposition matches the reference's);
// and probabilities that are the masked softmax of the sum of its own terms.
#include <limits>

#include "test_support.h"

namespace {

struct Case {
  ts::Shape shape;
  const char* what;
};

void check_variant(const ts::Variant& variant, const ts::Shape& s) {
  const relpos::AttentionDims dims{2, s.heads, s.seq, s.head_dim};
  INFO(variant.name() << ": seq " << s.seq << ", head_dim " << s.head_dim << ", heads " << s.heads
                      << (s.causal ? ", causal" : ", bidirectional"));
  auto c = variant.instantiate(dims, 21);
  const ts::Inputs in = ts::make_inputs(dims, 22 + s.seq, s.causal);
  const ref::Result expected = ts::run_reference(in, *c->reference, true);
  const ts::KernelRun got = ts::run_attention(in, *c->kernel, true, true);

  const std::vector<std::string> names = c->kernel->term_names();
  REQUIRE(got.terms.size() == names.size() + 1);
  const std::size_t S = s.seq, head_scores = S * S;
  auto unmasked = [&](std::size_t n) {
    const std::size_t bh = n / head_scores, i = (n % head_scores) / S, j = n % S;
    return !in.is_masked(static_cast<int>(bh / s.heads), static_cast<int>(i), static_cast<int>(j));
  };

  const double probs_err = ts::scaled_error(got.probs, expected.probs);
  CAPTURE(probs_err);
  CHECK(probs_err <= ts::kTolerance);

  const double content_err = ts::scaled_error(got.terms[0], expected.terms[0], unmasked);
  CAPTURE(content_err);
  CHECK(content_err <= ts::kTolerance);

  std::vector<float> sum(got.terms[0].size(), 0.0f);
  for (const auto& t : got.terms)
    for (std::size_t n = 0; n < sum.size(); ++n) sum[n] += t[n];
  const double sum_err = ts::scaled_error(sum, expected.logits, unmasked);
  CAPTURE(sum_err);
  CHECK(sum_err <= ts::kTolerance);

  const std::vector<std::string> ref_names = c->reference->term_names();
  if (ref_names.size() == names.size()) {
    for (std::size_t t = 0; t < names.size(); ++t) {
      const double term_err = ts::scaled_error(got.terms[t + 1], expected.terms[t + 1], unmasked);
      INFO("term " << names[t] << " (reference: " << ref_names[t] << ")");
      CAPTURE(term_err);
      CHECK(term_err <= ts::kTolerance);
    }
  } else {
    WARN(variant.name() << ": library reports " << names.size() << " terms, reference " << ref_names.size()
                        << "; only their sum is compared");
  }
  if (variant.scheme == "deberta") CHECK(names == ref_names);  // schemes.h names them c2p, p2c

  // probs = masked softmax of the library's own terms
  std::vector<double> mine(sum.size(), 0.0);
  for (std::size_t row = 0; row < sum.size() / S; ++row) {
    const int b = static_cast<int>(row / S / s.heads), i = static_cast<int>(row % S);
    double m = -std::numeric_limits<double>::infinity(), z = 0;
    for (int j = 0; j < s.seq; ++j)
      if (!in.is_masked(b, i, j)) m = std::max(m, double(sum[row * S + j]));
    for (int j = 0; j < s.seq; ++j)
      if (!in.is_masked(b, i, j)) z += (mine[row * S + j] = std::exp(sum[row * S + j] - m));
    for (int j = 0; j < s.seq; ++j) mine[row * S + j] = z > 0 ? mine[row * S + j] / z : 0.0;
  }
  const double self_err = ts::scaled_error(got.probs, mine);
  CAPTURE(self_err);
  CHECK(self_err <= ts::kTolerance);
}

}  // namespace

TEST_CASE("probabilities and terms of every scheme agree with the reference and sum to its logits",
          "[terms][probs][reference]") {
  REQUIRE(!ts::registry().empty());
  for (const ts::Variant& v : ts::registry()) {
    check_variant(v, {7, 8, 3, false});
    check_variant(v, {70, 32, 1, v.causal_use});
  }
}
