// Absolute sinusoidal positions (schemes.h 2) against the reference: both layouts, a non-default base,
// bidirectional and causal, batch 2 with padding.
#include "reference/sinusoidal_absolute.h"
#include "test_support.h"

namespace {

ts::CaseFactory sinusoid(relpos::SinusoidLayout layout, float base) {
  return [=](ts::SchemeCase& c, const relpos::AttentionDims&, unsigned) {
    relpos::SinusoidalAbsoluteParams p;
    p.layout = layout;
    p.base = base;
    c.kernel = relpos::make_scheme(p);
    c.reference = std::make_unique<ref::SinusoidalAbsolute>(layout == relpos::SinusoidLayout::Interleaved, base);
  };
}

const bool registered = ts::register_variants({
    {"sinusoidal_absolute", "interleaved", sinusoid(relpos::SinusoidLayout::Interleaved, 10000.0f)},
    {"sinusoidal_absolute", "concatenated", sinusoid(relpos::SinusoidLayout::Concatenated, 10000.0f)},
    {"sinusoidal_absolute", "interleaved, base 500", sinusoid(relpos::SinusoidLayout::Interleaved, 500.0f)},
});

}  // namespace

TEST_CASE("sinusoidal absolute positions match the reference, interleaved layout", "[sinusoidal_absolute][reference]") {
  ts::check_matches_reference("sinusoidal_absolute", "interleaved", ts::covering_grid());
  ts::check_matches_reference("sinusoidal_absolute", "interleaved", ts::small_grid(true));
}

TEST_CASE("sinusoidal absolute positions match the reference, concatenated layout", "[sinusoidal_absolute][reference]") {
  ts::check_matches_reference("sinusoidal_absolute", "concatenated", ts::small_grid());
  ts::check_matches_reference("sinusoidal_absolute", "concatenated", {{1000, 32, 1, false}});
}

TEST_CASE("sinusoidal absolute positions match the reference with another base", "[sinusoidal_absolute][reference]") {
  ts::check_matches_reference("sinusoidal_absolute", "interleaved, base 500", ts::small_grid());
}
