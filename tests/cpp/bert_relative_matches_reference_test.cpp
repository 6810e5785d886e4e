// BERT relative_key and relative_key_query (schemes.h 6) against the reference; seq < M and seq = M;
// seq beyond M and a missing table are rejected.
#include "reference/bert_relative.h"
#include "test_support.h"

namespace {

ts::CaseFactory bert(bool key_query, int extra_positions) {
  return [=](ts::SchemeCase& c, const relpos::AttentionDims& d, unsigned seed) {
    relpos::BertRelativeParams p;
    p.max_positions = d.seq + extra_positions;
    p.key_query = key_query;
    p.table = c.table(static_cast<std::size_t>(2 * p.max_positions - 1) * d.head_dim, seed, 0.7f);
    c.kernel = relpos::make_scheme(p);
    c.reference = std::make_unique<ref::BertRelative>(p.max_positions, key_query, p.table);
  };
}

const bool registered = ts::register_variants({
    {"bert_relative", "relative_key", bert(false, 4)},
    {"bert_relative", "relative_key_query", bert(true, 4)},
    {"bert_relative", "relative_key_query, seq = M", bert(true, 0)},
});

relpos::BertRelativeParams bert_with(const float* table, int m) {
  relpos::BertRelativeParams p;
  p.table = table;
  p.max_positions = m;
  return p;
}

const bool invalid = ts::register_invalid({
    {"bert_relative: seq 9 beyond max_positions 8", relpos::ErrorKind::Value, {"max_positions", "seq"},
     [] {
       std::vector<float> w(15 * 16, 0.1f);
       ts::call_attention(*relpos::make_scheme(bert_with(w.data(), 8)), {1, 2, 9, 16});
     },
     {relpos::ErrorKind::Range}},  // attention.h: Error for tables that do not fit; schemes.h 3: RangeError
    {"bert_relative: missing table", relpos::ErrorKind::Value, {"table"},
     [] { ts::call_attention(*relpos::make_scheme(bert_with(nullptr, 8)), {1, 2, 4, 16}); }},
});

}  // namespace

TEST_CASE("BERT relative_key matches the reference", "[bert_relative][reference]") {
  ts::check_matches_reference("bert_relative", "relative_key", ts::covering_grid());
}

TEST_CASE("BERT relative_key_query matches the reference", "[bert_relative][reference]") {
  ts::check_matches_reference("bert_relative", "relative_key_query", ts::small_grid());
  ts::check_matches_reference("bert_relative", "relative_key_query", {{1000, 32, 1, false}});
  ts::check_matches_reference("bert_relative", "relative_key_query, seq = M", ts::small_grid(true));
}
