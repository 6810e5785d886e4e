// ModernBERT variants that ship as model_type "modernbert" with other settings (issue #34):
//   - Ettin encoders (jhu-clsp/ettin-encoder-*): equal local and global RoPE theta, written the transformers ≥ 5 way
//     (rope_parameters { full_attention, sliding_attention } and layer_types): bitwise the outputs of the legacy keys
//     global_rope_theta = local_rope_theta;
//   - mmBERT (jhu-clsp/mmBERT-*): a 256,000-token vocabulary (Gemma's tokenizer) with both thetas 160000: a checkpoint
//     whose table is the modernbert-b fixture's 100 rows followed by 255,900 more loads, runs ids from every part of the
//     table, and gives the fixture's outputs bitwise for the fixture's ids (rows past 100 are never read then).
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "fixture_files.h"
#include "hf_fixture_support.h"
#include "relpos/model.h"
#include "relpos/safetensors.h"
#include "safetensors_builder.h"
#include "test_support.h"

namespace {

using nlohmann::json;

std::string dir() { return std::string(RELPOS_SHARED_DIR) + "/fixtures/hf-families/modernbert-b/"; }

std::vector<float> last(const std::string& config, const relpos::Weights& w, const relpos_test::FixtureBatch& in) {
  auto model = relpos::load_model(config, w);
  return model->forward(in.B, in.L, in.ids.data(), in.mask.data()).last_hidden_state.data;
}

}  // namespace

TEST_CASE("ettin-style config: equal thetas in rope_parameters and layer_types run as the legacy keys", "[modernbert]") {
  const json base = json::parse(relpos_test::read_text(dir() + "config.json"));
  const auto w = relpos::SafeTensors::read_file(dir() + "model.safetensors");
  const auto in = relpos_test::read_fixture_batch(dir());
  json legacy = base;
  legacy["global_rope_theta"] = 160000.0;
  legacy["local_rope_theta"] = 160000.0;
  json ettin = base;
  ettin.erase("global_rope_theta");
  ettin.erase("local_rope_theta");
  ettin["rope_parameters"] = {{"full_attention", {{"rope_type", "default"}, {"rope_theta", 160000.0}}},
                              {"sliding_attention", {{"rope_type", "default"}, {"rope_theta", 160000.0}}}};
  std::vector<std::string> types;
  for (int i = 0; i < base.at("num_hidden_layers").get<int>(); ++i)
    types.push_back(i % base.value("global_attn_every_n_layers", 3) == 0 ? "full_attention" : "sliding_attention");
  ettin["layer_types"] = types;
  const auto a = last(legacy.dump(), w, in), b = last(ettin.dump(), w, in);
  CHECK(ts::bitwise_equal(a, b));
  CHECK(!ts::bitwise_equal(a, last(base.dump(), w, in)));  // the fixture's own 10000 local theta differs
}

TEST_CASE("mmbert-style config: a 256,000-token vocabulary loads and runs", "[modernbert]") {
  json config = json::parse(relpos_test::read_text(dir() + "config.json"));
  const auto w = relpos::SafeTensors::read_file(dir() + "model.safetensors");
  const auto in = relpos_test::read_fixture_batch(dir());
  const int H = config.at("hidden_size").get<int>(), V = 256000;
  const int fixture_vocab = config.at("vocab_size").get<int>();
  relpos_test::SafeTensorsBuilder b;
  for (const auto& name : w.names()) {
    if (name == "embeddings.tok_embeddings.weight") {
      auto table = w.to_f32(name);
      const auto extra = ts::random_vector(static_cast<std::size_t>(V - fixture_vocab) * H, 7, 1.0f);
      table.insert(table.end(), extra.begin(), extra.end());
      b.add(name, {V, H}, table);
    } else {
      b.add(name, w.info(name).shape, w.to_f32(name));
    }
  }
  const auto big = relpos::SafeTensors::parse(b.bytes(), "mmbert.safetensors");
  const std::string original = config.dump();
  config["vocab_size"] = V;
  config["global_rope_theta"] = 160000.0;
  config["local_rope_theta"] = 160000.0;
  json small = json::parse(original);
  small["global_rope_theta"] = 160000.0;
  small["local_rope_theta"] = 160000.0;
  CHECK(ts::bitwise_equal(last(config.dump(), big, in), last(small.dump(), w, in)));
  auto model = relpos::load_model(config.dump(), big);
  CHECK(model->config().vocab_size == V);
  const std::vector<std::int32_t> ids = {5, 1000, 100000, 255999};
  const auto out = model->forward(1, 4, ids.data(), nullptr);
  CHECK(ts::all_finite(out.last_hidden_state.data));
  const std::vector<std::int32_t> bad = {5, 256000};
  CHECK_THROWS_WITH(model->forward(1, 2, bad.data(), nullptr), Catch::Contains("outside the vocabulary [0, 256000)"));
}
