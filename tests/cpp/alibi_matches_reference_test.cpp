// ALiBi (schemes.h 13) against the reference: BLOOM, MPT and custom slopes, power-of-two and other head
// counts (1, 3, 6, 8), causal (its use), bidirectional and symmetric.
#include "reference/alibi.h"
#include "test_support.h"

namespace {

ts::CaseFactory alibi(relpos::AlibiSlopes rule, float bias_max, bool symmetric) {
  return [=](ts::SchemeCase& c, const relpos::AttentionDims& d, unsigned seed) {
    relpos::AlibiParams p;
    p.slopes = rule;
    p.mpt_bias_max = bias_max;
    p.symmetric = symmetric;
    std::vector<double> slopes;
    if (rule == relpos::AlibiSlopes::Custom) {
      std::vector<float> custom = ts::random_vector(d.heads, seed, 0.2f);
      for (auto& m : custom) m = std::abs(m) + 0.01f;
      p.custom = c.table(custom);
      slopes.assign(p.custom, p.custom + d.heads);
    } else if (rule == relpos::AlibiSlopes::Bloom) {
      slopes = ref::bloom_slopes(d.heads);
    } else {
      slopes = ref::mpt_slopes(d.heads, bias_max);
    }
    c.kernel = relpos::make_scheme(p);
    c.reference = std::make_unique<ref::Alibi>(slopes, symmetric);
  };
}

const bool registered = ts::register_variants({
    {"alibi", "bloom", alibi(relpos::AlibiSlopes::Bloom, 8.0f, false), true},
    {"alibi", "mpt", alibi(relpos::AlibiSlopes::Mpt, 8.0f, false), true},
    {"alibi", "mpt, bias_max 4", alibi(relpos::AlibiSlopes::Mpt, 4.0f, false), true},
    {"alibi", "custom", alibi(relpos::AlibiSlopes::Custom, 8.0f, false), true},
    {"alibi", "bloom, symmetric", alibi(relpos::AlibiSlopes::Bloom, 8.0f, true)},
});

const bool invalid = ts::register_invalid({
    {"alibi: custom slopes missing", relpos::ErrorKind::Value, {"custom"},
     [] {
       relpos::AlibiParams p;
       p.slopes = relpos::AlibiSlopes::Custom;
       ts::call_attention(*relpos::make_scheme(p), {1, 2, 4, 16});
     }},
});

// Head counts that are not powers of two, where BLOOM appends odd powers and MPT interleaves.
std::vector<ts::Shape> odd_heads(bool causal) { return {{7, 8, 3, causal}, {33, 32, 6, causal}, {5, 8, 5, causal}}; }

}  // namespace

TEST_CASE("ALiBi matches the reference, BLOOM slopes", "[alibi][reference]") {
  ts::check_matches_reference("alibi", "bloom", ts::covering_grid(true));
  ts::check_matches_reference("alibi", "bloom", odd_heads(true));
  // Bidirectional without symmetry: m·(j − i) grows to m·seq, so stay at moderate seq (float32 logits).
  ts::check_matches_reference("alibi", "bloom", ts::small_grid(false));
}

TEST_CASE("ALiBi matches the reference, MPT slopes", "[alibi][reference]") {
  ts::check_matches_reference("alibi", "mpt", ts::small_grid(true));
  ts::check_matches_reference("alibi", "mpt", odd_heads(true));
  ts::check_matches_reference("alibi", "mpt", {{1000, 32, 3, true}});
  ts::check_matches_reference("alibi", "mpt, bias_max 4", odd_heads(true));
}

TEST_CASE("ALiBi matches the reference, custom slopes", "[alibi][reference]") {
  ts::check_matches_reference("alibi", "custom", ts::small_grid(true));
  ts::check_matches_reference("alibi", "custom", ts::small_grid(false));
}

TEST_CASE("ALiBi matches the reference, symmetric", "[alibi][reference]") {
  ts::check_matches_reference("alibi", "bloom, symmetric", ts::small_grid(false));
  ts::check_matches_reference("alibi", "bloom, symmetric", odd_heads(false));
  ts::check_matches_reference("alibi", "bloom, symmetric", {{1000, 8, 3, false}});
}

TEST_CASE("ALiBi slopes of the reference are Hugging Face's for 8 and 6 heads", "[alibi][reference]") {
  // BLOOM 8 heads: 2^-1 … 2^-8; 6 heads: 2^-2, 2^-4, 2^-6, 2^-8, then 2^-1, 2^-3.
  const std::vector<double> b8 = ref::bloom_slopes(8), b6 = ref::bloom_slopes(6);
  for (int k = 0; k < 8; ++k) CHECK(b8[k] == Approx(std::pow(2.0, -(k + 1))));
  const double b6_expected[] = {0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125};
  for (int k = 0; k < 6; ++k) CHECK(b6[k] == Approx(b6_expected[k]));
  // MPT 3 heads, bias_max 8: n' = 4, s = 2^-2, 2^-4, 2^-6, 2^-8 → s[1::2] + s[0::2] = 2^-4, 2^-8, 2^-2.
  const std::vector<double> m3 = ref::mpt_slopes(3, 8.0);
  CHECK(m3[0] == Approx(0.0625));
  CHECK(m3[1] == Approx(0.00390625));
  CHECK(m3[2] == Approx(0.25));
}
