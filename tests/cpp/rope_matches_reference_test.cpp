// RoPE (schemes.h 12) against the reference: half (LLaMA) and interleaved (RoFormer) layouts, full and
// partial rotary_dim, bidirectional and causal.
#include "reference/rope.h"
#include "test_support.h"

namespace {

// rotary_dim: 0 = head_dim (the default), −1 = explicitly head_dim, −2 = head_dim / 2.
ts::CaseFactory rope(relpos::RopeLayout layout, int rotary, float theta) {
  return [=](ts::SchemeCase& c, const relpos::AttentionDims& d, unsigned) {
    relpos::RopeParams p;
    p.layout = layout;
    p.theta = theta;
    p.rotary_dim = rotary == -1 ? d.head_dim : rotary == -2 ? d.head_dim / 2 : rotary;
    c.kernel = relpos::make_scheme(p);
    c.reference = std::make_unique<ref::Rope>(layout == relpos::RopeLayout::Interleaved, theta, p.rotary_dim);
  };
}

const bool registered = ts::register_variants({
    {"rope", "half", rope(relpos::RopeLayout::Half, 0, 10000.0f), true},
    {"rope", "interleaved", rope(relpos::RopeLayout::Interleaved, 0, 10000.0f), true},
    {"rope", "half, rotary_dim = head_dim/2", rope(relpos::RopeLayout::Half, -2, 10000.0f), true},
    {"rope", "interleaved, rotary_dim = head_dim/2", rope(relpos::RopeLayout::Interleaved, -2, 10000.0f), true},
    {"rope", "half, explicit rotary_dim, theta 500000", rope(relpos::RopeLayout::Half, -1, 500000.0f), true},
});

relpos::RopeParams rope_with(int rotary_dim) {
  relpos::RopeParams p;
  p.rotary_dim = rotary_dim;
  return p;
}

const bool invalid = ts::register_invalid({
    {"rope: odd rotary_dim", relpos::ErrorKind::Range, {"rotary_dim"},
     [] { ts::call_attention(*relpos::make_scheme(rope_with(7)), {1, 2, 4, 16}); }},
    {"rope: rotary_dim beyond head_dim", relpos::ErrorKind::Range, {"rotary_dim"},
     [] { ts::call_attention(*relpos::make_scheme(rope_with(32)), {1, 2, 4, 16}); }},
    {"rope: negative rotary_dim", relpos::ErrorKind::Range, {"rotary_dim"},
     [] { ts::call_attention(*relpos::make_scheme(rope_with(-4)), {1, 2, 4, 16}); }},
});

}  // namespace

TEST_CASE("RoPE matches the reference, half layout", "[rope][reference]") {
  ts::check_matches_reference("rope", "half", ts::covering_grid(true));
  ts::check_matches_reference("rope", "half", ts::small_grid(false));
}

TEST_CASE("RoPE matches the reference, interleaved layout", "[rope][reference]") {
  ts::check_matches_reference("rope", "interleaved", ts::small_grid(false));
  ts::check_matches_reference("rope", "interleaved", {{1000, 32, 1, false}});
}

TEST_CASE("RoPE matches the reference with rotary_dim < head_dim", "[rope][reference]") {
  ts::check_matches_reference("rope", "half, rotary_dim = head_dim/2", ts::small_grid(true));
  ts::check_matches_reference("rope", "interleaved, rotary_dim = head_dim/2", ts::small_grid(false));
  ts::check_matches_reference("rope", "half, explicit rotary_dim, theta 500000", ts::small_grid(true));
}
