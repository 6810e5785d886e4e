// Huang et al. relative attention (schemes.h 7) against the reference: learned table with clipped
// distances and the unbounded concatenated sinusoid; bidirectional and causal.
#include "reference/huang_relative.h"
#include "test_support.h"

namespace {

ts::CaseFactory huang(int m, bool learned) {
  return [=](ts::SchemeCase& c, const relpos::AttentionDims& d, unsigned seed) {
    relpos::HuangRelativeParams p;
    p.max_distance = m;
    p.table = learned ? c.table(static_cast<std::size_t>(2 * m + 1) * d.head_dim, seed, 0.7f) : nullptr;
    c.kernel = relpos::make_scheme(p);
    c.reference = std::make_unique<ref::HuangRelative>(m, p.table);
  };
}

const bool registered = ts::register_variants({
    {"huang_relative", "learned, m 8", huang(8, true), true},
    {"huang_relative", "learned, m 300", huang(300, true), true},
    {"huang_relative", "sinusoidal", huang(0, false), true},
});

}  // namespace

TEST_CASE("Huang relative attention matches the reference with a learned table", "[huang_relative][reference]") {
  ts::check_matches_reference("huang_relative", "learned, m 8", ts::covering_grid());
  ts::check_matches_reference("huang_relative", "learned, m 8", ts::small_grid(true));
  ts::check_matches_reference("huang_relative", "learned, m 300", ts::small_grid(true));
}

TEST_CASE("Huang relative attention matches the reference with sinusoidal distances", "[huang_relative][reference]") {
  ts::check_matches_reference("huang_relative", "sinusoidal", ts::small_grid());
  ts::check_matches_reference("huang_relative", "sinusoidal", ts::small_grid(true));
  ts::check_matches_reference("huang_relative", "sinusoidal", {{1000, 32, 1, true}});
}
