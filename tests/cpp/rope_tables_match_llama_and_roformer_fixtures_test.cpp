// rope_tables reproduce Hugging Face's LLaMA rope_cos/rope_sin (rotate_half layout) and RoFormer's
// sinusoidal_pos (interleaved pairs) within 5e-5, and scheme rope checks its dimensions.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "relpos/error.h"
#include "relpos/positions.h"
#include "fixture_files.h"
#include "relpos/safetensors.h"
#include "relpos/schemes.h"

TEST_CASE("RoPE Half tables equal LLaMA aux.rope_cos / aux.rope_sin", "[rope][fixtures]") {
  const auto expected = relpos::SafeTensors::read_file(relpos_test::fixture_dir("llama-rope") + "expected.safetensors");
  const auto& info = expected.info("aux.rope_cos");
  const int L = static_cast<int>(info.shape[0]), d = static_cast<int>(info.shape[1]);
  const auto want_cos = expected.to_f32("aux.rope_cos"), want_sin = expected.to_f32("aux.rope_sin");
  std::vector<float> cos, sin;
  relpos::rope_tables(L, d, relpos::RopeLayout::Half, 10000.0f, cos, sin);
  REQUIRE(cos.size() == want_cos.size());
  double worst = 0;
  for (std::size_t i = 0; i < cos.size(); ++i)
    worst = std::max({worst, double(std::abs(cos[i] - want_cos[i])), double(std::abs(sin[i] - want_sin[i]))});
  CHECK(worst <= 5e-5);
}

TEST_CASE("RoPE Interleaved tables equal RoFormer aux.sinusoidal_pos pairwise", "[rope][fixtures]") {
  const auto expected = relpos::SafeTensors::read_file(relpos_test::fixture_dir("roformer-rotary") + "expected.safetensors");
  const auto& info = expected.info("aux.sinusoidal_pos");  // [L, d]: [sin(p·ω_i) | cos(p·ω_i)]
  const int L = static_cast<int>(info.shape[0]), d = static_cast<int>(info.shape[1]), h = d / 2;
  const auto sinusoidal = expected.to_f32("aux.sinusoidal_pos");
  std::vector<float> cos, sin;
  relpos::rope_tables(L, d, relpos::RopeLayout::Interleaved, 10000.0f, cos, sin);
  double worst = 0;
  for (int p = 0; p < L; ++p)
    for (int i = 0; i < h; ++i) {
      const float s = sinusoidal[static_cast<std::size_t>(p) * d + i], c = sinusoidal[static_cast<std::size_t>(p) * d + h + i];
      for (int t = 0; t < 2; ++t) {
        worst = std::max(worst, double(std::abs(sin[static_cast<std::size_t>(p) * d + 2 * i + t] - s)));
        worst = std::max(worst, double(std::abs(cos[static_cast<std::size_t>(p) * d + 2 * i + t] - c)));
      }
    }
  CHECK(worst <= 5e-5);
}

TEST_CASE("RoPE tables stay float64-accurate at long positions", "[rope]") {
  std::vector<float> cos, sin;
  const int L = 5000, d = 64;
  relpos::rope_tables(L, d, relpos::RopeLayout::Half, 500000.0f, cos, sin);
  double worst = 0;
  for (int p = 0; p < L; p += 7)
    for (int i = 0; i < d / 2; ++i) {
      const double angle = p * std::pow(500000.0, -2.0 * i / d);
      worst = std::max(worst, std::abs(std::cos(angle) - cos[static_cast<std::size_t>(p) * d + i]));
      worst = std::max(worst, std::abs(std::sin(angle) - sin[static_cast<std::size_t>(p) * d + d / 2 + i]));
    }
  CHECK(worst <= 1e-6);
}

TEST_CASE("rope rejects odd head_dim, odd rotary_dim and rotary_dim > head_dim", "[rope][errors]") {
  auto range_error = [](const relpos::RopeParams& params, relpos::AttentionDims dims, const std::string& needle) {
    try {
      relpos::make_scheme(params)->check(dims);
      FAIL("no error");
    } catch (const relpos::Error& e) {
      CHECK(e.kind() == relpos::ErrorKind::Range);
      CHECK_THAT(e.what(), Catch::Contains(needle));
    }
  };
  relpos::RopeParams params;
  range_error(params, {1, 1, 4, 7}, "head_dim");
  params.rotary_dim = 5;
  range_error(params, {1, 1, 4, 8}, "rotary_dim");
  params.rotary_dim = 10;
  range_error(params, {1, 1, 4, 8}, "rotary_dim");
  params.rotary_dim = 0;
  params.theta = 0.0f;
  range_error(params, {1, 1, 4, 8}, "theta");
}
