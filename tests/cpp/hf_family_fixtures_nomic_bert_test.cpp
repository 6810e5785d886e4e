// NomicBERT (model_type "nomic_bert", the authors' remote code modeling_hf_nomic_bert.py) against the
// fixtures in /work/shared/fixtures/hf-families (README "NomicBERT"):
//   nomic-bert-a (half-split rotary, base 1000, 4 heads × 8) and nomic-bert-b (interleaved pairs, base
//   10000, 2 heads × 16): hidden states ≤ 1e-4 and attention probabilities ≤ 1e-5 on valid positions;
//   aux.rotary_inv_freq / rotary_cos / rotary_sin [L, r/2] against relpos::rope_tables ≤ 5e-5
//   (inv_freq_j read back as atan2(sin, cos) at position 1; every angle there is ≤ 1 rad).
// Also: the rotary layout matters (the other layout moves last_hidden_state far beyond the tolerance);
// a "bert."-prefixed checkpoint (NomicBertForPreTraining) loads to the same outputs; forwards are bitwise
// identical for 1, 2 and 3 threads (float32 and q8); rotary_scaling_factor (dynamic NTK) and
// prenorm = true are Errors naming the field.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "hf_fixture_support.h"
#include "relpos/error.h"
#include "relpos/positions.h"
#include "relpos/threads.h"
#include "safetensors_builder.h"
#include "test_support.h"

using ts::bitwise_equal;
using ts::ThreadCountGuard;

using Catch::Matchers::Contains;

namespace {

std::string family_dir(const std::string& name) {
  return std::string(RELPOS_SHARED_DIR) + "/fixtures/hf-families/" + name + "/";
}

// config.json of the case with `key` set to `value`.
std::string edited_config(const std::string& name, const std::string& key, const nlohmann::json& value) {
  auto j = relpos_test::read_json(family_dir(name) + "config.json");
  j[key] = value;
  return j.dump();
}

relpos::ModelOutput run(const std::string& name, const std::string& config, const relpos::Weights& weights,
                        const relpos::LoadOptions& options = {}) {
  const auto batch = relpos_test::read_fixture_batch(family_dir(name));
  auto model = relpos::load_model(config, weights, options);
  relpos::ForwardOptions fo;
  fo.output_hidden_states = true;
  fo.output_attentions = true;
  return model->forward(batch.B, batch.L, batch.ids.data(), batch.mask_or_null(), fo);
}

// Max |actual − expected| of last_hidden_state on valid positions.
double last_hidden_error(const std::string& name, const relpos::ModelOutput& out) {
  const std::string dir = family_dir(name);
  const auto batch = relpos_test::read_fixture_batch(dir);
  const auto expected = relpos::SafeTensors::read_file(dir + "expected.safetensors");
  return relpos_test::max_error(out.last_hidden_state, expected.to_f32("last_hidden_state"), batch.lengths, false);
}

void check_against_fixture(const std::string& name) {
  const std::string dir = family_dir(name);
  const auto batch = relpos_test::read_fixture_batch(dir);
  const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
  const auto expected = relpos::SafeTensors::read_file(dir + "expected.safetensors");
  const auto out = run(name, relpos_test::read_text(dir + "config.json"), weights);
  const int layers = 2;
  REQUIRE(out.hidden_states.size() == static_cast<std::size_t>(layers + 1));
  REQUIRE(out.attentions.size() == static_cast<std::size_t>(layers));
  double hidden = 0, attention = 0;
  for (int i = 0; i <= layers; ++i) {
    const double e = relpos_test::max_error(out.hidden_states[i], expected.to_f32("hidden_states." + std::to_string(i)),
                                            batch.lengths, false);
    INFO("hidden_states." << i << " max abs error " << e);
    CHECK(e <= 1e-4);
    hidden = std::max(hidden, e);
  }
  const double last = last_hidden_error(name, out);
  INFO("last_hidden_state max abs error " << last);
  CHECK(last <= 1e-4);
  for (int i = 0; i < layers; ++i) {
    const double e =
        relpos_test::max_error(out.attentions[i], expected.to_f32("attentions." + std::to_string(i)), batch.lengths, true);
    INFO("attentions." << i << " max abs error " << e);
    CHECK(e <= 1e-5);
    attention = std::max(attention, e);
  }
  CHECK(out.pooler_output.data.empty());  // NomicBertModel is built without a pooler
  std::printf("[hf-family %s] %-14s hidden max err %.3g, attention max err %.3g\n", RELPOS_VARIANT, name.c_str(),
              std::max(hidden, last), attention);
}

void check_rotary_tables(const std::string& name) {
  const std::string dir = family_dir(name);
  const auto config = relpos::parse_model_config(relpos_test::read_text(dir + "config.json"));
  const auto expected = relpos::SafeTensors::read_file(dir + "expected.safetensors");
  const auto cos_e = expected.to_f32("aux.rotary_cos"), sin_e = expected.to_f32("aux.rotary_sin");
  const auto inv_e = expected.to_f32("aux.rotary_inv_freq");
  const int r = static_cast<int>(config.head_dim * config.rotary_emb_fraction), half = r / 2;
  REQUIRE(expected.info("aux.rotary_cos").shape.size() == 2);
  const int L = static_cast<int>(expected.info("aux.rotary_cos").shape[0]);
  REQUIRE(expected.info("aux.rotary_cos").shape[1] == half);
  REQUIRE(static_cast<int>(inv_e.size()) == half);
  const auto layout = config.rotary_emb_interleaved ? relpos::RopeLayout::Interleaved : relpos::RopeLayout::Half;
  std::vector<float> cos, sin;
  relpos::rope_tables(L, r, layout, config.rotary_emb_base, cos, sin);
  // Column of frequency j in relpos's [L, r] table: j (Half) or 2j (Interleaved).
  auto col = [&](int j) { return config.rotary_emb_interleaved ? 2 * j : j; };
  double worst = 0;
  for (int p = 0; p < L; ++p)
    for (int j = 0; j < half; ++j) {
      const std::size_t a = static_cast<std::size_t>(p) * r + col(j), e = static_cast<std::size_t>(p) * half + j;
      worst = std::max({worst, std::fabs(static_cast<double>(cos[a]) - cos_e[e]), std::fabs(static_cast<double>(sin[a]) - sin_e[e])});
    }
  double inv_worst = 0;
  for (int j = 0; j < half; ++j) {
    const std::size_t a = static_cast<std::size_t>(r) + col(j);  // position 1
    inv_worst = std::max(inv_worst, std::fabs(std::atan2(static_cast<double>(sin[a]), cos[a]) - inv_e[j]));
  }
  INFO(name << ": cos/sin max abs error " << worst << ", inv_freq max abs error " << inv_worst);
  CHECK(worst <= 5e-5);
  CHECK(inv_worst <= 5e-5);
}

}  // namespace

TEST_CASE("nomic-bert-a (half-split rotary, base 1000) matches the remote code", "[hf-family][nomic_bert]") {
  check_against_fixture("nomic-bert-a");
}

TEST_CASE("nomic-bert-b (interleaved rotary) matches the remote code", "[hf-family][nomic_bert]") {
  check_against_fixture("nomic-bert-b");
}

TEST_CASE("nomic_bert rotary frequencies, cos and sin match the remote code's tables", "[hf-family][nomic_bert]") {
  check_rotary_tables("nomic-bert-a");
  check_rotary_tables("nomic-bert-b");
}

TEST_CASE("nomic_bert: the interleaved and half-split rotary layouts give different models", "[hf-family][nomic_bert]") {
  for (const char* name : {"nomic-bert-a", "nomic-bert-b"}) {
    const std::string dir = family_dir(name);
    const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
    const bool interleaved = relpos::parse_model_config(relpos_test::read_text(dir + "config.json")).rotary_emb_interleaved;
    const auto flipped = run(name, edited_config(name, "rotary_emb_interleaved", !interleaved), weights);
    const double e = last_hidden_error(name, flipped);
    INFO(name << ": last_hidden_state moves by " << e << " with the other layout");
    CHECK(e > 0.5);  // README: 2.76 (a) / 2.52 (b)
  }
}

TEST_CASE("nomic_bert: a bert.-prefixed checkpoint loads to the same outputs", "[hf-family][nomic_bert]") {
  const std::string name = "nomic-bert-a", dir = family_dir(name);
  const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
  relpos_test::SafeTensorsBuilder b;
  for (const auto& n : weights.names()) b.add("bert." + n, weights.info(n).shape, weights.to_f32(n));
  const auto prefixed = relpos::SafeTensors::parse(b.bytes(), "prefixed.safetensors");
  const std::string config = relpos_test::read_text(dir + "config.json");
  CHECK(bitwise_equal(run(name, config, prefixed).last_hidden_state.data, run(name, config, weights).last_hidden_state.data));
}

TEST_CASE("nomic_bert forwards are bitwise identical for 1, 2 and 3 threads", "[hf-family][nomic_bert][threads][q8]") {
  ThreadCountGuard guard;
  relpos::LoadOptions q8;
  q8.dtype = relpos::WeightFormat::Q8;
  for (const char* name : {"nomic-bert-a", "nomic-bert-b"})
    for (const auto& options : {relpos::LoadOptions{}, q8}) {
      INFO(name << (options.dtype == relpos::WeightFormat::Q8 ? " q8" : " f32"));
      const std::string dir = family_dir(name), config = relpos_test::read_text(dir + "config.json");
      const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
      std::vector<relpos::ModelOutput> outs;
      for (int threads : {1, 2, 3}) {
        relpos::set_num_threads(threads);
        outs.push_back(run(name, config, weights, options));
      }
      for (std::size_t t = 1; t < outs.size(); ++t) {
        CHECK(bitwise_equal(outs[t].last_hidden_state.data, outs[0].last_hidden_state.data));
        REQUIRE(outs[t].attentions.size() == outs[0].attentions.size());
        for (std::size_t i = 0; i < outs[0].attentions.size(); ++i)
          CHECK(bitwise_equal(outs[t].attentions[i].data, outs[0].attentions[i].data));
      }
    }
}

TEST_CASE("nomic_bert refuses rotary_scaling_factor and prenorm with an Error naming the field", "[hf-family][nomic_bert]") {
  const std::string name = "nomic-bert-a";
  const auto weights = relpos::SafeTensors::read_file(family_dir(name) + "model.safetensors");
  CHECK_THROWS_WITH(relpos::load_model(edited_config(name, "rotary_scaling_factor", 2.0), weights),
                    Contains("rotary_scaling_factor") && Contains("dynamic NTK"));
  CHECK_THROWS_WITH(relpos::load_model(edited_config(name, "prenorm", true), weights), Contains("prenorm"));
  CHECK_THROWS_WITH(relpos::load_model(edited_config(name, "rotary_emb_fraction", 0.3), weights),
                    Contains("rotary_emb_fraction"));
  // 0 is falsy in the remote code's `if config.rotary_scaling_factor:` — plain rotary, same outputs.
  CHECK(last_hidden_error(name, run(name, edited_config(name, "rotary_scaling_factor", 0), weights)) <= 1e-4);
}

// rotary_emb_fraction = 0 (NomicBertEmbeddings with a position table): hidden_states.0 =
// emb_ln(word[id] + token_type[0] + position[l]), computed here in double from the checkpoint's tensors;
// without the table the load is an Error naming it, and a sequence longer than n_positions is refused.
TEST_CASE("nomic_bert with rotary_emb_fraction 0 adds learned positions 0 … L−1", "[hf-family][nomic_bert]") {
  const std::string name = "nomic-bert-a", dir = family_dir(name);
  const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
  auto j = relpos_test::read_json(dir + "config.json");
  j["rotary_emb_fraction"] = 0.0;
  const int H = j["n_embd"].get<int>(), P = 48;
  j["n_positions"] = P;
  const std::string config = j.dump();
  CHECK_THROWS_WITH(relpos::load_model(config, weights), Contains("embeddings.position_embeddings.weight"));

  const auto positions = ts::random_vector(static_cast<std::size_t>(P) * H, 7, 1.0f);
  relpos_test::SafeTensorsBuilder b;
  for (const auto& n : weights.names()) b.add(n, weights.info(n).shape, weights.to_f32(n));
  b.add("embeddings.position_embeddings.weight", {P, H}, positions);
  const auto with_table = relpos::SafeTensors::parse(b.bytes(), "with-positions.safetensors");
  const auto out = run(name, config, with_table);
  const auto batch = relpos_test::read_fixture_batch(dir);
  const auto word = weights.to_f32("embeddings.word_embeddings.weight");
  const auto type = weights.to_f32("embeddings.token_type_embeddings.weight");
  const auto gamma = weights.to_f32("emb_ln.weight"), beta = weights.to_f32("emb_ln.bias");
  const double eps = j["layer_norm_epsilon"].get<double>();
  double worst = 0;
  for (int t = 0; t < batch.B * batch.L; ++t) {
    std::vector<double> e(H);
    double mean = 0, var = 0;
    for (int c = 0; c < H; ++c) {
      e[c] = static_cast<double>(word[static_cast<std::size_t>(batch.ids[t]) * H + c]) + type[c] +
             positions[static_cast<std::size_t>(t % batch.L) * H + c];
      mean += e[c] / H;
    }
    for (int c = 0; c < H; ++c) var += (e[c] - mean) * (e[c] - mean) / H;
    for (int c = 0; c < H; ++c) {
      const double want = (e[c] - mean) / std::sqrt(var + eps) * gamma[c] + beta[c];
      worst = std::max(worst, std::fabs(want - out.hidden_states[0].data[static_cast<std::size_t>(t) * H + c]));
    }
  }
  INFO("hidden_states.0 max abs error " << worst);
  CHECK(worst <= 1e-5);
  CHECK(ts::all_finite(out.last_hidden_state.data));
  // Positions are real now: the output differs from the rotary model's.
  CHECK(last_hidden_error(name, out) > 0.1);

  auto model = relpos::load_model(config, with_table);
  std::vector<std::int32_t> ids(P + 1, 5);
  CHECK_THROWS_WITH(model->forward(1, P + 1, ids.data(), nullptr), Contains("exceeds the model's 48 positions"));
  CHECK_NOTHROW(model->forward(1, P, ids.data(), nullptr));
}

// config.json parsing follows NomicBertConfig over GPT2Config: GPT-2 defaults, the attribute_map aliases
// applied after the GPT-2 keys, vocab_size rounded up to pad_vocab_size_multiple (NomicBertModel does
// it before building the table), and settings that build another model refused by name.
TEST_CASE("nomic_bert config.json: GPT-2 defaults, aliases, padded vocabulary, refused settings", "[nomic_bert]") {
  const auto d = relpos::parse_model_config(R"({"model_type": "nomic_bert"})");
  CHECK(d.vocab_size == 50257);
  CHECK(d.hidden_size == 768);
  CHECK(d.num_heads == 12);
  CHECK(d.num_layers == 12);
  CHECK(d.max_position_embeddings == 1024);
  CHECK(d.hidden_act == "gelu_new");
  CHECK(d.norm_eps == 1e-5f);
  CHECK(d.rotary_emb_fraction == 0.0f);
  CHECK(d.rotary_emb_base == 10000.0f);
  CHECK(d.type_vocab_size == 2);
  CHECK((d.qkv_proj_bias && d.mlp_fc1_bias && d.mlp_fc2_bias && !d.prenorm && !d.has_rotary_scaling_factor));

  const auto a = relpos::parse_model_config(
      R"({"model_type": "nomic_bert", "n_embd": 64, "hidden_size": 32, "n_head": 4, "vocab_size": 100, "pad_vocab_size_multiple": 64})");
  CHECK(a.hidden_size == 32);
  CHECK(a.head_dim == 8);
  CHECK(a.vocab_size == 128);

  CHECK_THROWS_WITH(relpos::parse_model_config(R"({"model_type": "nomic_bert", "moe_every_n_layers": 2})"),
                    Contains("moe_every_n_layers"));
  CHECK_THROWS_WITH(relpos::parse_model_config(R"({"model_type": "nomic_bert", "n_head": 4, "n_embd": 32, "num_heads_kv": 2})"),
                    Contains("num_heads_kv"));
  CHECK_THROWS_WITH(relpos::parse_model_config(R"({"model_type": "nomic_bert", "rotary_head_dim": true})"),
                    Contains("rotary_head_dim"));
}
