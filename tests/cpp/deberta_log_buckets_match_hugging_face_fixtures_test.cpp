// relpos::deberta_relative_table / deberta_relative_position equal aux.relative_pos of the three
// deberta-v2-* fixtures (build_relative_position of transformers 4.34.1: plain clamped distances,
// 8 log buckets over 32, 16 log buckets over 128), and deberta_span picks buckets or max distance.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "relpos/positions.h"
#include "relpos/safetensors.h"

TEST_CASE("deberta relative positions equal Hugging Face's aux.relative_pos", "[deberta][positions][fixtures]") {
  for (const std::string name : {"deberta-v2-a-v2like", "deberta-v2-b-v3like", "deberta-v2-c-c2p-only"}) {
    const std::string dir = std::string(RELPOS_SHARED_DIR) + "/fixtures/hf/" + name + "/";
    std::ifstream in(dir + "config.json");
    REQUIRE(in.good());
    const auto config = nlohmann::json::parse(in);
    const int buckets = config["position_buckets"];
    int max_rel = config["max_relative_positions"];
    if (max_rel < 1) max_rel = config["max_position_embeddings"];
    const auto expected = relpos::SafeTensors::read_file(dir + "expected.safetensors");
    const int L = static_cast<int>(expected.info("aux.relative_pos").shape[1]);
    const auto rel = expected.to_i64("aux.relative_pos");
    const auto ours = relpos::deberta_relative_table(L, buckets, max_rel);
    REQUIRE(ours.size() == rel.size());
    int mismatches = 0;
    for (std::size_t t = 0; t < rel.size(); ++t) mismatches += ours[t] != rel[t];
    INFO(name << ": L " << L << ", position_buckets " << buckets << ", max_relative_positions " << max_rel);
    CHECK(mismatches == 0);
    CHECK(relpos::deberta_span(buckets, max_rel) == (buckets > 0 ? buckets : max_rel));
  }
}

TEST_CASE("deberta log buckets are odd, linear inside ±mid and monotone", "[deberta][positions]") {
  for (int buckets : {8, 16, 256}) {
    const int max_rel = buckets == 256 ? 512 : 4 * buckets, mid = buckets / 2;
    int previous = relpos::deberta_relative_position(-5000, buckets, max_rel);
    for (int r = -4999; r <= 5000; ++r) {
      const int b = relpos::deberta_relative_position(r, buckets, max_rel);
      INFO("buckets " << buckets << " r " << r);
      CHECK(b >= previous);
      CHECK(relpos::deberta_relative_position(-r, buckets, max_rel) == -b);
      if (r > -mid && r < mid) CHECK(b == r);
      previous = b;
    }
  }
  CHECK(relpos::deberta_relative_position(-7, -1, 16) == -7);  // no buckets: the raw distance
}
