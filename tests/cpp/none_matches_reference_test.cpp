// Scheme none (plain attention) against the double-precision reference on the covering grid,
// bidirectional and causal, batch 2 with the second sequence's tail masked.
#include "reference/none.h"
#include "test_support.h"

namespace {

const bool registered = ts::register_variants({
    {"none", "plain",
     [](ts::SchemeCase& c, const relpos::AttentionDims&, unsigned) {
       c.kernel = relpos::make_scheme(relpos::NoneParams{});
       c.reference = std::make_unique<ref::None>();
     },
     true},
});

}  // namespace

TEST_CASE("none matches the reference with padding, bidirectional and causal", "[none][reference]") {
  ts::check_matches_reference("none", "plain", ts::covering_grid(false));
  ts::check_matches_reference("none", "plain", ts::small_grid(true));
}
