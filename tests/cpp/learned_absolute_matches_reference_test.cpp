// Learned absolute positions (schemes.h 3) against the reference; a table longer than seq and one of
// exactly seq rows; seq beyond the table and a missing table are rejected.
#include "reference/learned_absolute.h"
#include "test_support.h"

namespace {

ts::CaseFactory learned(int extra_rows) {
  return [=](ts::SchemeCase& c, const relpos::AttentionDims& d, unsigned seed) {
    relpos::LearnedAbsoluteParams p;
    p.table_rows = d.seq + extra_rows;
    p.table = c.table(static_cast<std::size_t>(p.table_rows) * d.head_dim, seed, 0.7f);
    c.kernel = relpos::make_scheme(p);
    c.reference = std::make_unique<ref::LearnedAbsolute>(p.table);
  };
}

const bool registered = ts::register_variants({
    {"learned_absolute", "table longer than seq", learned(5)},
    {"learned_absolute", "table of exactly seq rows", learned(0)},
});

const bool invalid = ts::register_invalid({
    {"learned_absolute: seq 9 beyond a table of 8 rows", relpos::ErrorKind::Range, {"table_rows", "seq"},
     [] {
       std::vector<float> table(8 * 16, 0.5f);
       relpos::LearnedAbsoluteParams p;
       p.table = table.data();
       p.table_rows = 8;
       ts::call_attention(*relpos::make_scheme(p), {1, 2, 9, 16});
     }},
    {"learned_absolute: missing table", relpos::ErrorKind::Value, {"table"},
     [] {
       relpos::LearnedAbsoluteParams p;
       p.table_rows = 8;
       ts::call_attention(*relpos::make_scheme(p), {1, 2, 4, 16});
     }},
});

}  // namespace

TEST_CASE("learned absolute positions match the reference", "[learned_absolute][reference]") {
  ts::check_matches_reference("learned_absolute", "table longer than seq", ts::covering_grid());
  ts::check_matches_reference("learned_absolute", "table of exactly seq rows", ts::small_grid(true));
}
