// T5 buckets equal Hugging Face's T5Attention._relative_position_bucket (fixtures t5-*: aux.relative_position_bucket),
// and scheme t5's "bias" term equals HF compute_bias (aux.position_bias) for the model's own table.
#include <catch2/catch.hpp>
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

TEST_CASE("t5_bucket_table equals HF aux.relative_position_bucket for every t5 fixture", "[t5][fixtures]") {
  for (const std::string name : {"t5-a-classic", "t5-b-v1_1-gated-gelu"}) {
    const auto config = relpos_test::read_json(relpos_test::fixture_dir(name) + "config.json");
    const int nb = config["relative_attention_num_buckets"], md = config["relative_attention_max_distance"];
    const auto expected = relpos::SafeTensors::read_file(relpos_test::fixture_dir(name) + "expected.safetensors");
    const auto& info = expected.info("aux.relative_position_bucket");
    const int L = static_cast<int>(info.shape[0]);
    const auto buckets = expected.to_i64("aux.relative_position_bucket");
    const auto table = relpos::t5_bucket_table(L, true, nb, md);
    REQUIRE(table.size() == buckets.size());
    int mismatches = 0;
    for (int i = 0; i < L; ++i)
      for (int j = 0; j < L; ++j) {
        const std::size_t at = static_cast<std::size_t>(i) * L + j;
        if (table[at] != buckets[at] || relpos::t5_relative_bucket(j - i, true, nb, md) != buckets[at]) ++mismatches;
      }
    INFO(name << " L " << L << " num_buckets " << nb << " max_distance " << md);
    CHECK(mismatches == 0);
  }
}

TEST_CASE("scheme t5 bias term equals HF compute_bias (aux.position_bias)", "[t5][fixtures]") {
  for (const std::string name : {"t5-a-classic", "t5-b-v1_1-gated-gelu"}) {
    const auto config = relpos_test::read_json(relpos_test::fixture_dir(name) + "config.json");
    const int nb = config["relative_attention_num_buckets"], md = config["relative_attention_max_distance"];
    const int heads = config["num_heads"];
    const auto model = relpos::SafeTensors::read_file(relpos_test::fixture_dir(name) + "model.safetensors");
    const auto bias = model.to_f32("encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight");
    REQUIRE(bias.size() == static_cast<std::size_t>(nb) * heads);
    const auto expected = relpos::SafeTensors::read_file(relpos_test::fixture_dir(name) + "expected.safetensors");
    const int L = static_cast<int>(expected.info("aux.position_bias").shape[2]);
    const auto position_bias = expected.to_f32("aux.position_bias");

    relpos::T5Params params;
    params.num_buckets = nb;
    params.max_distance = md;
    params.bidirectional = true;
    params.bias_table = bias.data();
    auto scheme = relpos::make_scheme(params);
    REQUIRE(scheme->term_names() == std::vector<std::string>{"bias"});
    CHECK(scheme->content_scale(8) == 1.0f);

    relpos::AttentionDims dims{1, heads, L, 8};
    std::mt19937 rng(5);
    std::normal_distribution<float> dist;
    std::vector<float> q(dims.qkv_elements()), k(q.size()), v(q.size()), out(q.size());
    for (auto* t : {&q, &k, &v})
      for (auto& x : *t) x = dist(rng);
    std::vector<float> content(dims.score_elements()), term(dims.score_elements());
    relpos::AttentionOutputs outs;
    outs.output = out.data();
    outs.terms = {content.data(), term.data()};
    relpos::Workspace ws;
    relpos::attention(dims, {q.data(), k.data(), v.data(), nullptr, false}, *scheme, outs, ws);
    double worst = 0;
    for (std::size_t i = 0; i < term.size(); ++i) worst = std::max(worst, double(std::abs(term[i] - position_bias[i])));
    INFO(name);
    CHECK(worst == 0.0);
  }
}

TEST_CASE("t5 buckets with the default 32 buckets / 128 distance follow HF's bucket limits", "[t5]") {
  auto b = [](int rel) { return relpos::t5_relative_bucket(rel, true, 32, 128); };
  CHECK(b(0) == 0);
  CHECK(b(-1) == 1);
  CHECK(b(1) == 17);
  CHECK(b(-7) == 7);
  CHECK(b(-8) == 8);
  CHECK(b(-11) == 8);
  CHECK(b(-12) == 9);
  CHECK(b(-15) == 9);
  CHECK(b(-16) == 10);  // log(2)/log(16)·8 = 2 exactly in float32
  CHECK(b(-22) == 10);
  CHECK(b(-23) == 11);
  CHECK(b(-32) == 12);
  CHECK(b(-45) == 12);
  CHECK(b(-46) == 13);
  CHECK(b(-64) == 14);
  CHECK(b(-90) == 14);
  CHECK(b(-91) == 15);
  CHECK(b(-100000) == 15);
  CHECK(b(100000) == 31);
  // unidirectional: only the past has buckets, the future is bucket 0
  auto u = [](int rel) { return relpos::t5_relative_bucket(rel, false, 32, 128); };
  CHECK(u(5) == 0);
  CHECK(u(-5) == 5);
  CHECK(u(-15) == 15);
  CHECK(u(-16) == 16);
  CHECK(u(-1000) == 31);
}

TEST_CASE("t5 rejects too few buckets, a max_distance inside the exact range and a missing table", "[t5][errors]") {
  auto range_error = [](auto&& f, const std::string& needle) {
    try {
      f();
      FAIL("no error");
    } catch (const relpos::Error& e) {
      CHECK(e.kind() == relpos::ErrorKind::Range);
      CHECK_THAT(e.what(), Catch::Contains(needle));
    }
  };
  range_error([] { relpos::t5_relative_bucket(0, false, 1, 128); }, "num_buckets");
  range_error([] { relpos::t5_relative_bucket(0, true, 2, 128); }, "num_buckets");
  range_error([] { relpos::t5_bucket_table(4, true, 32, 8); }, "max_distance");
  relpos::T5Params params;
  auto scheme = relpos::make_scheme(params);
  try {
    scheme->check({1, 2, 4, 8});
    FAIL("no error");
  } catch (const relpos::Error& e) {
    CHECK(e.kind() == relpos::ErrorKind::Value);
    CHECK_THAT(e.what(), Catch::Contains("bias_table"));
  }
}
