// T5 relative bias (schemes.h 9) against the reference: bidirectional (encoder) and unidirectional
// (decoder, causal), default and small bucket configurations; no 1/sqrt(d) scaling. MPNet's form:
// content scaled by 1/sqrt(d), 32 buckets / max 128 read from a table with more rows (40).
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

// MPNet: T5Params with scale_content and a bias table of `rows` ≥ 32 rows (only rows 0 … 31 are read).
ts::CaseFactory mpnet(int rows) {
  return [=](ts::SchemeCase& c, const relpos::AttentionDims& d, unsigned seed) {
    relpos::T5Params p;
    p.scale_content = true;
    p.table_rows = rows;
    p.bias_table = c.table(static_cast<std::size_t>(rows) * d.heads, seed, 2.0f);
    c.kernel = relpos::make_scheme(p);
    c.reference = std::make_unique<ref::T5Bias>(32, 128, true, p.bias_table, d.heads, true);
  };
}

const bool registered = ts::register_variants({
    {"t5", "MPNet: scaled content, 32 buckets, max 128, 40-row table", mpnet(40)},
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
    {"t5: table_rows below num_buckets", relpos::ErrorKind::Value, {"table_rows", "32 buckets"},
     [] {
       std::vector<float> w(64, 0.1f);
       relpos::T5Params p;
       p.table_rows = 20;
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

TEST_CASE("T5 bias with MPNet's scaled content matches the reference", "[t5][reference][mpnet]") {
  ts::check_matches_reference("t5", "MPNet: scaled content, 32 buckets, max 128, 40-row table", ts::covering_grid());
}
