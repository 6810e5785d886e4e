// load_model / parse_model_config / forward reject bad inputs with relpos::Error naming the problem.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "hf_fixture_support.h"
#include "relpos/config.h"
#include "relpos/error.h"
#include "relpos/model.h"
#include "safetensors_builder.h"

using Catch::Matchers::Contains;
using relpos_test::fixture_dir;
using relpos_test::read_text;

namespace {

// The fixture's weights re-packed, with `drop` left out and `reshape` given shape [1] (one float).
relpos::SafeTensors repack(const relpos::SafeTensors& w, const std::string& drop, const std::string& reshape) {
  relpos_test::SafeTensorsBuilder b;
  for (const auto& name : w.names()) {
    if (name == drop) continue;
    if (name == reshape) {
      b.add(name, {1}, {0.5f});
      continue;
    }
    b.add(name, w.info(name).shape, w.to_f32(name));
  }
  return relpos::SafeTensors::parse(b.bytes(), "edited.safetensors");
}

std::string load_error(const std::string& config, const relpos::SafeTensors& w) {
  try {
    (void)relpos::load_model(config, w);
  } catch (const relpos::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("model config rejects text that is not a JSON object", "[model-errors]") {
  CHECK_THROWS_WITH(relpos::parse_model_config("{not json"), Contains("not valid JSON"));
  CHECK_THROWS_WITH(relpos::parse_model_config("[1]"), Contains("must be a JSON object"));
}

TEST_CASE("model config requires model_type and lists the supported types for an unknown one", "[model-errors]") {
  CHECK_THROWS_WITH(relpos::parse_model_config(R"({"hidden_size": 8})"), Contains("missing required field 'model_type'"));
  CHECK_THROWS_WITH(relpos::parse_model_config(R"({"model_type": "gpt9"})"),
                    Contains("unsupported model_type 'gpt9'") && Contains("bert") && Contains("deberta-v2") &&
                        Contains("llama") && Contains("transfo-xl"));
}

TEST_CASE("model config names a field of the wrong type and rejects heads that do not divide the width", "[model-errors]") {
  CHECK_THROWS_WITH(relpos::parse_model_config(R"({"model_type": "bert", "hidden_size": "big"})"), Contains("'hidden_size'"));
  CHECK_THROWS_WITH(relpos::parse_model_config(R"({"model_type": "bert", "hidden_size": 30, "num_attention_heads": 4})"),
                    Contains("not a multiple"));
  CHECK_THROWS_WITH(relpos::parse_model_config(R"({"model_type": "t5", "feed_forward_proj": "fancy-gelu"})"),
                    Contains("feed_forward_proj"));
}

TEST_CASE("model config applies Hugging Face defaults for absent fields", "[model-errors]") {
  const auto bert = relpos::parse_model_config(R"({"model_type": "bert"})");
  CHECK(bert.hidden_size == 768);
  CHECK(bert.num_heads == 12);
  CHECK(bert.head_dim == 64);
  CHECK(bert.position_embedding_type == "absolute");
  CHECK(bert.norm_eps == Approx(1e-12f));
  const auto t5 = relpos::parse_model_config(R"({"model_type": "t5", "feed_forward_proj": "gated-gelu"})");
  CHECK(t5.is_gated_act);
  CHECK(t5.dense_act_fn == "gelu_new");
  CHECK(t5.relative_attention_num_buckets == 32);
  const auto deberta = relpos::parse_model_config(R"({"model_type": "deberta-v2", "max_position_embeddings": 128})");
  CHECK(deberta.max_relative_positions == 128);  // < 1 → max_position_embeddings
  CHECK(deberta.position_buckets == -1);
  const auto llama = relpos::parse_model_config(R"({"model_type": "llama", "num_attention_heads": 8, "hidden_size": 64})");
  CHECK(llama.num_kv_heads == 8);
}

TEST_CASE("load_model names a missing weight tensor", "[model-errors]") {
  const std::string dir = fixture_dir("bert-absolute");
  const auto w = relpos::SafeTensors::read_file(dir + "model.safetensors");
  const auto edited = repack(w, "encoder.layer.1.attention.self.key.weight", "");
  CHECK_THAT(load_error(read_text(dir + "config.json"), edited),
             Contains("edited.safetensors") && Contains("missing tensor 'encoder.layer.1.attention.self.key.weight'"));
}

TEST_CASE("load_model names a weight whose shape does not match config.json", "[model-errors]") {
  const std::string dir = fixture_dir("t5-a-classic");
  const auto w = relpos::SafeTensors::read_file(dir + "model.safetensors");
  const auto edited = repack(w, "", "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight");
  CHECK_THAT(load_error(read_text(dir + "config.json"), edited),
             Contains("relative_attention_bias") && Contains("[1]") && Contains("[8, 4]"));
  // A config that disagrees with the file: wider hidden size.
  auto config = nlohmann::json::parse(read_text(dir + "config.json"));
  config["d_model"] = 64;
  CHECK_THAT(load_error(config.dump(), w), Contains("expected [100, 64]"));
}

TEST_CASE("forward rejects token ids outside the vocabulary and sequences longer than the position table", "[model-errors]") {
  const std::string dir = fixture_dir("bert-absolute");
  auto model = relpos::load_model(read_text(dir + "config.json"), relpos::SafeTensors::read_file(dir + "model.safetensors"));
  std::vector<std::int32_t> ids = {1, 2, 100};
  try {
    (void)model->forward(1, 3, ids.data(), nullptr);
    FAIL("no error");
  } catch (const relpos::Error& e) {
    CHECK(e.kind() == relpos::ErrorKind::Range);
    CHECK_THAT(std::string(e.what()), Contains("100"));
  }
  std::vector<std::int32_t> long_ids(65, 1);
  CHECK_THROWS_WITH(model->forward(1, 65, long_ids.data(), nullptr), Contains("65") && Contains("64"));
  // The model stays usable after an error.
  ids[2] = 3;
  CHECK(model->forward(1, 3, ids.data(), nullptr).last_hidden_state.data.size() == 3u * 32u);
}
