// Shaw et al. relative representations (schemes.h 5) against the reference: keys and values, keys only,
// a clip distance larger than short sequences; bidirectional and causal.
#include "reference/shaw.h"
#include "test_support.h"

namespace {

ts::CaseFactory shaw(int k, bool values) {
  return [=](ts::SchemeCase& c, const relpos::AttentionDims& d, unsigned seed) {
    relpos::ShawParams p;
    p.max_distance = k;
    const std::size_t n = static_cast<std::size_t>(2 * k + 1) * d.head_dim;
    p.key_table = c.table(n, seed, 0.7f);
    p.value_table = values ? c.table(n, seed + 1, 0.7f) : nullptr;
    c.kernel = relpos::make_scheme(p);
    c.reference = std::make_unique<ref::Shaw>(k, p.key_table, p.value_table);
  };
}

const bool registered = ts::register_variants({
    {"shaw", "keys and values, k 4", shaw(4, true)},
    {"shaw", "keys only, k 4", shaw(4, false)},
    {"shaw", "keys and values, k 16", shaw(16, true)},
    {"shaw", "keys and values, k 1", shaw(1, true)},
});

const bool invalid = ts::register_invalid({
    {"shaw: missing key_table", relpos::ErrorKind::Value, {"key_table"},
     [] {
       relpos::ShawParams p;
       p.max_distance = 2;
       ts::call_attention(*relpos::make_scheme(p), {1, 2, 4, 16});
     }},
    {"shaw: max_distance 0", relpos::ErrorKind::Range, {"max_distance"},
     [] {
       std::vector<float> w(64, 0.1f);
       relpos::ShawParams p;
       p.max_distance = 0;
       p.key_table = w.data();
       ts::call_attention(*relpos::make_scheme(p), {1, 2, 4, 16});
     }},
});

}  // namespace

TEST_CASE("Shaw matches the reference with key and value tables", "[shaw][reference]") {
  ts::check_matches_reference("shaw", "keys and values, k 4", ts::covering_grid());
  ts::check_matches_reference("shaw", "keys and values, k 4", ts::small_grid(true));
}

TEST_CASE("Shaw matches the reference with a key table only", "[shaw][reference]") {
  ts::check_matches_reference("shaw", "keys only, k 4", ts::small_grid());
  ts::check_matches_reference("shaw", "keys only, k 4", {{1000, 32, 1, false}});
}

TEST_CASE("Shaw matches the reference with clip distances 16 and 1", "[shaw][reference]") {
  ts::check_matches_reference("shaw", "keys and values, k 16", ts::small_grid());
  ts::check_matches_reference("shaw", "keys and values, k 1", ts::small_grid(true));
}
