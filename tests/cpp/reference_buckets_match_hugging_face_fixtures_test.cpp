// The reference itself is checked against Hugging Face: its T5 buckets equal aux.relative_position_bucket
// of the t5-* fixtures and its DeBERTa relative positions equal aux.relative_pos of the deberta-* fixtures
// (both computed by transformers 4.34.1). Only the safetensors reader is used from the library.
#include <fstream>
#include <nlohmann/json.hpp>

#include "reference/deberta.h"
#include "reference/t5_bias.h"
#include "fixture_files.h"
#include "relpos/safetensors.h"
#include "test_support.h"

TEST_CASE("reference T5 buckets equal Hugging Face's", "[t5][reference][fixtures]") {
  for (const std::string name : {"t5-a-classic", "t5-b-v1_1-gated-gelu"}) {
    const auto config = relpos_test::read_json(relpos_test::fixture_dir(name) + "config.json");
    const int nb = config["relative_attention_num_buckets"], md = config["relative_attention_max_distance"];
    const auto expected = relpos::SafeTensors::read_file(relpos_test::fixture_dir(name) + "expected.safetensors");
    const int L = static_cast<int>(expected.info("aux.relative_position_bucket").shape[0]);
    const auto buckets = expected.to_i64("aux.relative_position_bucket");
    int mismatches = 0;
    for (int i = 0; i < L; ++i)
      for (int j = 0; j < L; ++j)
        mismatches += ref::t5_bucket(j - i, true, nb, md) != buckets[static_cast<std::size_t>(i) * L + j];
    INFO(name << ": L " << L << ", num_buckets " << nb << ", max_distance " << md);
    CHECK(mismatches == 0);
  }
}

TEST_CASE("reference DeBERTa relative positions equal Hugging Face's", "[deberta][reference][fixtures]") {
  for (const std::string name : {"deberta-v2-a-v2like", "deberta-v2-b-v3like", "deberta-v2-c-c2p-only"}) {
    const auto config = relpos_test::read_json(relpos_test::fixture_dir(name) + "config.json");
    const int buckets = config["position_buckets"];
    int max_rel = config["max_relative_positions"];
    if (max_rel < 1) max_rel = config["max_position_embeddings"];
    const auto expected = relpos::SafeTensors::read_file(relpos_test::fixture_dir(name) + "expected.safetensors");
    const int L = static_cast<int>(expected.info("aux.relative_pos").shape[1]);
    const auto rel = expected.to_i64("aux.relative_pos");
    int mismatches = 0;
    for (int i = 0; i < L; ++i)
      for (int j = 0; j < L; ++j)
        mismatches += ref::deberta_bucket(i - j, buckets, max_rel) != rel[static_cast<std::size_t>(i) * L + j];
    INFO(name << ": L " << L << ", position_buckets " << buckets << ", max_relative_positions " << max_rel);
    CHECK(mismatches == 0);
  }
}
