// T5 relative bias (schemes.h 9) against the reference: bidirectional (encoder) and unidirectional
// (decoder, causal), default and small bucket configurations; no 1/sqrt(d) scaling.
#include "reference/t5_bias.h"
#include "test_support.h"

namespace {

ts::CaseFactory t5(int num_buckets, int max_distance, bool bidirectional) {
  return [=](ts::SchemeCase& c, const relpos::AttentionDims& d, unsigned seed) {
    relpos::T5Params p;
    p.num_buckets = num_buckets;
    p.max_distance = max_distance;
    p.bidirectional = bidirectional;
    p.bias_table = c.table(static_cast<std::size_t>(num_buckets) * d.heads, seed, 2.0f);
    c.kernel = relpos::make_scheme(p);
    c.reference = std::make_unique<ref::T5Bias>(num_buckets, max_distance, bidirectional, p.bias_table, d.heads);
  };
}

const bool registered = ts::register_variants({
    {"t5", "bidirectional, 32 buckets, max 128", t5(32, 128, true)},
    {"t5", "unidirectional, 32 buckets, max 128", t5(32, 128, false), true},
    {"t5", "bidirectional, 8 buckets, max 20", t5(8, 20, true)},
    {"t5", "unidirectional, 16 buckets, max 32", t5(16, 32, false), true},
});

const bool invalid = ts::register_invalid({
    {"t5: missing bias_table", relpos::ErrorKind::Value, {"bias_table"},
     [] { ts::call_attention(*relpos::make_scheme(relpos::T5Params{}), {1, 2, 4, 16}); }},
    {"t5: num_buckets 0", relpos::ErrorKind::Range, {"num_buckets"},
     [] {
       std::vector<float> w(64, 0.1f);
       relpos::T5Params p;
       p.num_buckets = 0;
       p.bias_table = w.data();
       ts::call_attention(*relpos::make_scheme(p), {1, 2, 4, 16});
     }},
});

}  // namespace

TEST_CASE("T5 bias matches the reference, bidirectional", "[t5][reference]") {
  ts::check_matches_reference("t5", "bidirectional, 32 buckets, max 128", ts::covering_grid());
  ts::check_matches_reference("t5", "bidirectional, 8 buckets, max 20", ts::small_grid());
}

TEST_CASE("T5 bias matches the reference, unidirectional and causal", "[t5][reference]") {
  ts::check_matches_reference("t5", "unidirectional, 32 buckets, max 128", ts::small_grid(true));
  ts::check_matches_reference("t5", "unidirectional, 32 buckets, max 128", {{1000, 32, 3, true}});
  ts::check_matches_reference("t5", "unidirectional, 16 buckets, max 32", ts::small_grid(true));
  ts::check_matches_reference("t5", "unidirectional, 16 buckets, max 32", ts::small_grid(false));
}
