// ALiBi slopes equal Hugging Face's BLOOM build_alibi_tensor and MPT build_mpt_alibi_tensor
// (fixtures bloom-alibi, mpt-alibi: aux.alibi), the non-power-of-two rules interleave as HF/MosaicML do,
// and scheme alibi's "bias" term is m_h·(j − i) (symmetric: −m_h·|j − i|).
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "relpos/attention.h"
#include "relpos/error.h"
#include "relpos/positions.h"
#include "fixture_files.h"
#include "relpos/safetensors.h"
#include "relpos/schemes.h"

TEST_CASE("BLOOM slopes times key index equal HF build_alibi_tensor (bloom-alibi aux.alibi)", "[alibi][fixtures]") {
  const auto config = relpos_test::read_json(relpos_test::fixture_dir("bloom-alibi") + "config.json");
  const auto input = relpos_test::read_json(relpos_test::fixture_dir("bloom-alibi") + "input.json");
  const int heads = config["n_head"];
  const auto expected = relpos::SafeTensors::read_file(relpos_test::fixture_dir("bloom-alibi") + "expected.safetensors");
  const auto& info = expected.info("aux.alibi");  // [B·heads, 1, L]
  const int L = static_cast<int>(info.shape[2]);
  const auto alibi = expected.to_f32("aux.alibi");
  const auto slopes = relpos::alibi_slopes(heads, relpos::AlibiSlopes::Bloom);
  double worst = 0;
  for (int b = 0; b < 2; ++b) {
    const int length = input["lengths"][b];
    for (int h = 0; h < heads; ++h)
      for (int j = 0; j < length; ++j)
        worst = std::max(worst, std::abs(double(slopes[h]) * j - alibi[(static_cast<std::size_t>(b) * heads + h) * L + j]));
  }
  CHECK(worst <= 5e-5);
}

TEST_CASE("MPT slopes times (key − (L − 1)) equal HF build_mpt_alibi_tensor (mpt-alibi aux.alibi)", "[alibi][fixtures]") {
  const auto config = relpos_test::read_json(relpos_test::fixture_dir("mpt-alibi") + "config.json");
  const int heads = config["n_heads"];
  const float bias_max = config["attn_config"]["alibi_bias_max"];
  const auto expected = relpos::SafeTensors::read_file(relpos_test::fixture_dir("mpt-alibi") + "expected.safetensors");
  const auto& info = expected.info("aux.alibi");  // [heads, 1, L]
  REQUIRE(info.shape[0] == heads);
  const int L = static_cast<int>(info.shape[2]);
  const auto alibi = expected.to_f32("aux.alibi");
  const auto slopes = relpos::alibi_slopes(heads, relpos::AlibiSlopes::Mpt, bias_max);
  double worst = 0;
  for (int h = 0; h < heads; ++h)
    for (int j = 0; j < L; ++j)
      worst = std::max(worst, std::abs(double(slopes[h]) * (j - (L - 1)) - alibi[static_cast<std::size_t>(h) * L + j]));
  CHECK(worst <= 5e-5);
}

TEST_CASE("ALiBi slopes for non-power-of-two head counts interleave like BLOOM and MPT", "[alibi]") {
  using Catch::Matchers::WithinRel;
  const auto bloom6 = relpos::alibi_slopes(6, relpos::AlibiSlopes::Bloom);
  const std::vector<double> want_bloom6{0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125};
  for (int h = 0; h < 6; ++h) CHECK_THAT(bloom6[h], WithinRel(want_bloom6[h], 1e-6));
  const auto bloom12 = relpos::alibi_slopes(12, relpos::AlibiSlopes::Bloom);
  for (int h = 0; h < 8; ++h) CHECK_THAT(bloom12[h], WithinRel(std::pow(0.5, h + 1), 1e-6));
  for (int e = 0; e < 4; ++e) CHECK_THAT(bloom12[8 + e], WithinRel(std::pow(2.0, -0.5 * (2 * e + 1)), 1e-6));
  const auto mpt6 = relpos::alibi_slopes(6, relpos::AlibiSlopes::Mpt, 8.0f);
  const std::vector<double> want_mpt6{1.0 / 4, 1.0 / 16, 1.0 / 64, 1.0 / 256, 1.0 / 2, 1.0 / 8};
  for (int h = 0; h < 6; ++h) CHECK_THAT(mpt6[h], WithinRel(want_mpt6[h], 1e-6));
  const auto mpt8 = relpos::alibi_slopes(8, relpos::AlibiSlopes::Mpt, 8.0f);
  for (int h = 0; h < 8; ++h) CHECK_THAT(mpt8[h], WithinRel(std::pow(0.5, h + 1), 1e-6));
}

TEST_CASE("scheme alibi adds m_h·(j − i), or −m_h·|j − i| when symmetric, as its bias term", "[alibi]") {
  const int heads = 3, seq = 37, d = 8;
  for (bool symmetric : {false, true})
    for (bool causal : {false, true}) {
      const std::vector<float> custom{0.5f, 0.125f, 0.03125f};
      relpos::AlibiParams params;
      params.slopes = relpos::AlibiSlopes::Custom;
      params.custom = custom.data();
      params.symmetric = symmetric;
      auto scheme = relpos::make_scheme(params);
      relpos::AttentionDims dims{2, heads, seq, d};
      std::mt19937 rng(11);
      std::normal_distribution<float> dist;
      std::vector<float> q(dims.qkv_elements()), k(q.size()), v(q.size()), out(q.size());
      for (auto* t : {&q, &k, &v})
        for (auto& x : *t) x = dist(rng);
      std::vector<float> content(dims.score_elements()), term(dims.score_elements());
      relpos::AttentionOutputs outs;
      outs.output = out.data();
      outs.terms = {content.data(), term.data()};
      relpos::Workspace ws;
      relpos::attention(dims, {q.data(), k.data(), v.data(), nullptr, causal}, *scheme, outs, ws, {5});
      double worst = 0;
      for (int b = 0; b < 2; ++b)
        for (int h = 0; h < heads; ++h)
          for (int i = 0; i < seq; ++i)
            for (int j = 0; j < seq; ++j) {
              const double want = symmetric ? -custom[h] * std::abs(j - i) : custom[h] * double(j - i);
              const std::size_t at = ((static_cast<std::size_t>(b) * heads + h) * seq + i) * seq + j;
              worst = std::max(worst, std::abs(want - term[at]));
            }
      INFO("symmetric " << symmetric << " causal " << causal);
      CHECK(worst <= 1e-5);
    }
}

TEST_CASE("alibi rejects missing custom slopes and a bad mpt_bias_max", "[alibi][errors]") {
  relpos::AlibiParams params;
  params.slopes = relpos::AlibiSlopes::Custom;
  try {
    relpos::make_scheme(params)->check({1, 2, 4, 8});
    FAIL("no error");
  } catch (const relpos::Error& e) {
    CHECK(e.kind() == relpos::ErrorKind::Value);
    CHECK_THAT(e.what(), Catch::Contains("custom"));
  }
  params.slopes = relpos::AlibiSlopes::Mpt;
  params.mpt_bias_max = -1.0f;
  try {
    relpos::make_scheme(params)->check({1, 2, 4, 8});
    FAIL("no error");
  } catch (const relpos::Error& e) {
    CHECK(e.kind() == relpos::ErrorKind::Range);
    CHECK_THAT(e.what(), Catch::Contains("mpt_bias_max"));
  }
}
