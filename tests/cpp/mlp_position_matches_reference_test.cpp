// MLP position encoder (schemes.h 4) against the reference: f(p) = [p] and a sinusoidal feature.
#include "reference/mlp_position.h"
#include "test_support.h"

namespace {

ts::CaseFactory mlp(int feature_dim, int hidden) {
  return [=](ts::SchemeCase& c, const relpos::AttentionDims& d, unsigned seed) {
    relpos::MlpPositionParams p;
    p.feature_dim = feature_dim;
    p.hidden = hidden;
    // f(p) = [p] reaches 999: keep W1·f(p) of order 1–10.
    p.w1 = c.table(static_cast<std::size_t>(hidden) * feature_dim, seed, feature_dim == 1 ? 0.01f : 0.5f);
    p.b1 = c.table(hidden, seed + 1, 0.3f);
    p.w2 = c.table(static_cast<std::size_t>(d.head_dim) * hidden, seed + 2, 1.0f / std::sqrt(float(hidden)));
    p.b2 = c.table(d.head_dim, seed + 3, 0.3f);
    c.kernel = relpos::make_scheme(p);
    c.reference = std::make_unique<ref::MlpPosition>(feature_dim, hidden, p.w1, p.b1, p.w2, p.b2);
  };
}

const bool registered = ts::register_variants({
    {"mlp_position", "scalar feature", mlp(1, 16)},
    {"mlp_position", "sinusoidal feature", mlp(16, 24)},
});

const bool invalid = ts::register_invalid({
    {"mlp_position: missing w1", relpos::ErrorKind::Value, {"w1"},
     [] {
       std::vector<float> w(64 * 8, 0.1f);
       relpos::MlpPositionParams p;
       p.hidden = 8;
       p.b1 = w.data(), p.w2 = w.data(), p.b2 = w.data();
       ts::call_attention(*relpos::make_scheme(p), {1, 2, 4, 16});
     }},
    {"mlp_position: hidden 0", relpos::ErrorKind::Range, {"hidden"},
     [] {
       std::vector<float> w(64 * 8, 0.1f);
       relpos::MlpPositionParams p;
       p.hidden = 0;
       p.w1 = w.data(), p.b1 = w.data(), p.w2 = w.data(), p.b2 = w.data();
       ts::call_attention(*relpos::make_scheme(p), {1, 2, 4, 16});
     }},
});

}  // namespace

TEST_CASE("MLP position encoder matches the reference, f(p) = [p]", "[mlp_position][reference]") {
  ts::check_matches_reference("mlp_position", "scalar feature", ts::covering_grid());
}

TEST_CASE("MLP position encoder matches the reference, sinusoidal f(p)", "[mlp_position][reference]") {
  ts::check_matches_reference("mlp_position", "sinusoidal feature", ts::small_grid());
  ts::check_matches_reference("mlp_position", "sinusoidal feature", ts::small_grid(true));
}
