// Transformers 4.34.1 builds MPT's ALiBi slopes with alibi_bias_max = 8 whatever config.json's
// attn_config.alibi_bias_max says (MptModel never passes it on). relpos matches: the mpt-alibi
// fixture with alibi_bias_max = 16 (or 2) in its config gives exactly the outputs of the original
// config, which hf_fixture_models_match_transformers_test.cpp checks against the reference.
#include "hf_fixture_support.h"

TEST_CASE("mpt alibi_bias_max in config.json does not change the slopes (always 8, as Transformers)", "[mpt]") {
  const std::string dir = relpos_test::fixture_dir("mpt-alibi");
  const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
  auto config = relpos_test::read_json(dir + "config.json");
  REQUIRE(config["attn_config"]["alibi_bias_max"] == 8);
  const int B = 1, L = 12;
  std::vector<std::int32_t> ids(L);
  for (int i = 0; i < L; ++i) ids[i] = (7 * i + 3) % 100;
  auto run = [&](double bias_max) {
    config["attn_config"]["alibi_bias_max"] = bias_max;
    return relpos::load_model(config.dump(), weights)->forward(B, L, ids.data(), nullptr, {}).last_hidden_state.data;
  };
  const auto base = run(8);
  CHECK(run(16) == base);
  CHECK(run(2) == base);
}
