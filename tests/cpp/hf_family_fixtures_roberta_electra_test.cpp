// RoBERTa, XLM-RoBERTa, CamemBERT and ELECTRA (model_type roberta, xlm-roberta, camembert, electra: the BERT
// description with the RoBERTa position-ids rule or ELECTRA's embedding projection) against Transformers 4.34.1,
// ../shared/fixtures/hf-families-d:
//   hidden states and pooler output ≤ 1e-4, attention probabilities ≤ 1e-5 on valid positions, every case
//   (ELECTRA with its token_type_ids); aux.position_ids = padded_position_ids(ids, pad_token_id) exactly;
//   the heads' logits (XLM-R sequence classification with 1 and 3 labels, ELECTRA's GELU head, RoBERTa's tied
//   masked LM, XLM-R token classification) ≤ 1e-4 (masked LM: 1e-4 or 5e-6 relative);
//   q8: the same last hidden state within 0.15 of max |fp32| (as q8_models_stay_close_to_fp32_test);
//   errors: more tokens than max_position_embeddings − pad_token_id − 1, a pad_token_id without position rows;
//   checkpoint formats: pytorch_model.bin, sharded .bin / safetensors, f16 .bin = f16 safetensors exactly.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "hf_family_fixture_support.h"
#include "relpos/checkpoint.h"
#include "relpos/error.h"
#include "relpos/heads.h"
#include "relpos/positions.h"
#include "test_support.h"

namespace {

using relpos_test::read_text;

std::string dir_of(const std::string& name) { return std::string(RELPOS_SHARED_DIR) + "/fixtures/hf-families-d/" + name + "/"; }

const char* kCases[] = {"roberta-a",       "xlm-roberta-a",         "camembert",       "electra-a",
                        "xlm-roberta-reranker", "xlm-roberta-seq-cls-3", "electra-seq-cls", "roberta-mlm",
                        "xlm-roberta-token-cls", "bge-m3"};

}  // namespace

TEST_CASE("roberta family and electra hidden states match transformers", "[hf-fixture][roberta]") {
  for (const char* name : kCases)
    SECTION(name) { relpos_test::run_fixture_in_dir(dir_of(name), name); }
}

TEST_CASE("roberta family positions are counted from the ids with the padding offset", "[hf-fixture][roberta]") {
  for (const char* name : {"roberta-a", "xlm-roberta-a", "camembert", "bge-m3"})
    SECTION(name) {
      const std::string dir = dir_of(name);
      const auto batch = relpos_test::read_fixture_batch(dir);
      const auto config = relpos::parse_model_config(read_text(dir + "config.json"));
      CHECK(config.positions_from_ids);
      const auto pos = relpos::padded_position_ids(batch.ids.data(), batch.B, batch.L, config.pad_token_id);
      const auto want = relpos::SafeTensors::read_file(dir + "expected.safetensors").to_i64("aux.position_ids");
      REQUIRE(want.size() == pos.size());
      for (std::size_t i = 0; i < pos.size(); ++i) CHECK(pos[i] == want[i]);
    }
  CHECK_FALSE(relpos::parse_model_config(read_text(dir_of("electra-a") + "config.json")).positions_from_ids);
}

TEST_CASE("roberta family and electra heads match transformers logits", "[hf-fixture][roberta]") {
  for (const char* name : {"xlm-roberta-reranker", "xlm-roberta-seq-cls-3", "electra-seq-cls", "roberta-mlm", "xlm-roberta-token-cls"})
    SECTION(name) {
      const std::string dir = dir_of(name);
      const auto batch = relpos_test::read_fixture_batch(dir);
      const std::string config = read_text(dir + "config.json");
      const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
      const auto expected = relpos::SafeTensors::read_file(dir + "expected.safetensors");
      auto model = relpos::load_model(config, weights);
      auto head = relpos::load_task_head(config, *model, weights);
      REQUIRE(head);
      const auto out = model->forward(batch.B, batch.L, batch.ids.data(), batch.mask_or_null(), {}, batch.types_or_null());
      const std::vector<float> got = head->logits(out);
      const std::vector<float> want = expected.to_f32("logits");
      REQUIRE(got.size() == want.size());
      const int n = head->outputs();
      const bool per_token = head->task() != relpos::HeadTask::SequenceClassification;
      const bool mlm = head->task() == relpos::HeadTask::MaskedLM;
      double worst = 0;
      for (int b = 0; b < batch.B; ++b)
        for (int l = 0; l < (per_token ? batch.lengths[b] : 1); ++l)
          for (int k = 0; k < n; ++k) {
            const std::size_t i = (per_token ? static_cast<std::size_t>(b) * batch.L + l : b) * n + k;
            const double err = std::fabs(double(got[i]) - want[i]);
            const double allowed = mlm ? std::max(1e-4, 5e-6 * std::fabs(double(want[i]))) : 1e-4;
            worst = std::max(worst, err / allowed * 1e-4);
          }
      INFO(name << " logits max error (scaled to the 1e-4 tolerance) " << worst);
      CHECK(worst <= 1e-4);
    }
}

TEST_CASE("roberta family and electra stay close to fp32 when loaded as q8", "[hf-fixture][roberta][q8]") {
  for (const char* name : {"xlm-roberta-a", "electra-a"})
    SECTION(name) {
      const std::string dir = dir_of(name);
      const auto batch = relpos_test::read_fixture_batch(dir);
      const std::string config = read_text(dir + "config.json");
      const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
      relpos::LoadOptions q8;
      q8.dtype = relpos::WeightFormat::Q8;
      const auto a = relpos::load_model(config, weights)->forward(batch.B, batch.L, batch.ids.data(), batch.mask.data(), {}, batch.types_or_null());
      const auto b = relpos::load_model(config, weights, q8)->forward(batch.B, batch.L, batch.ids.data(), batch.mask.data(), {}, batch.types_or_null());
      const int H = a.last_hidden_state.shape[2];
      double diff = 0, scale = 0;
      for (int s = 0; s < batch.B; ++s)
        for (int l = 0; l < batch.lengths[s]; ++l)
          for (int k = 0; k < H; ++k) {
            const std::size_t i = (static_cast<std::size_t>(s) * batch.L + l) * H + k;
            diff = std::max(diff, std::fabs(double(a.last_hidden_state.data[i]) - b.last_hidden_state.data[i]));
            scale = std::max(scale, std::fabs(double(a.last_hidden_state.data[i])));
          }
      INFO(name << " q8 max |diff| " << diff << " of max |fp32| " << scale);
      CHECK(diff > 0);
      CHECK(diff <= 0.15 * scale);
    }
}

TEST_CASE("roberta refuses more tokens than max_position_embeddings - pad_token_id - 1", "[roberta]") {
  const std::string dir = dir_of("roberta-a");  // max_position_embeddings 47, pad 1: 45 tokens
  const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
  auto model = relpos::load_model(read_text(dir + "config.json"), weights);
  CHECK(model->max_sequence() == 45);
  std::vector<std::int32_t> ids(46, 7);
  CHECK_NOTHROW(model->forward(1, 45, ids.data(), nullptr));  // positions 2 … 46: the table's last row
  try {
    model->forward(1, 46, ids.data(), nullptr);
    FAIL("no relpos::Error for 46 tokens");
  } catch (const relpos::Error& e) {
    const std::string m = e.what();
    INFO(m);
    CHECK(m.find("46") != std::string::npos);
    CHECK(m.find("45") != std::string::npos);
    CHECK(m.find("roberta") != std::string::npos);
  }
  auto j = relpos_test::read_json(dir + "config.json");
  j["pad_token_id"] = 46;
  CHECK_THROWS_WITH(relpos::load_model(j.dump(), weights), Catch::Contains("pad_token_id 46"));
}

TEST_CASE("roberta treats a pad id inside the text as padding, as Hugging Face does", "[roberta]") {
  // create_position_ids_from_input_ids: the inner 1 reads row 1 and does not advance the count, so the tokens after
  // it keep the positions they would have without it (2, 3, then 4 for the 9 after the inner pad).
  const std::vector<std::int32_t> ids = {0, 5, 1, 9, 2};
  CHECK(relpos::padded_position_ids(ids.data(), 1, 5, 1) == std::vector<std::int32_t>({2, 3, 1, 4, 5}));
  const std::string dir = dir_of("roberta-a");
  const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
  auto model = relpos::load_model(read_text(dir + "config.json"), weights);
  const auto out = model->forward(1, 5, ids.data(), nullptr);
  for (float v : out.last_hidden_state.data) REQUIRE(std::isfinite(v));
}

// scripts/make-checkpoint-variants.py → build/checkpoint-variants/families-d/<case>/<variant>: the same fixture as
// pytorch_model.bin, sharded .bin and safetensors sets reproduces transformers; the f16 .bin gives exactly the outputs
// of the same F16 weights read from safetensors.
TEST_CASE("roberta family and electra load from every checkpoint format", "[hf-fixture][roberta][checkpoint]") {
  const auto dir = [](const std::string& c, const std::string& v) {
    return std::string(RELPOS_CHECKPOINT_DIR) + "/families-d/" + c + "/" + v;
  };
  const auto shards = [](const std::string& stem, const std::string& ext, const std::string& index) {
    std::vector<std::string> out;
    for (int i = 1; i <= 3; ++i) out.push_back(stem + "-0000" + std::to_string(i) + "-of-00003" + ext);
    out.push_back(index);
    return out;
  };
  for (const char* c : {"xlm-roberta-a", "electra-a", "roberta-mlm"})
    SECTION(c) {
      for (const auto& [v, files] : std::vector<std::pair<std::string, std::vector<std::string>>>{
               {"bin-f32", {"pytorch_model.bin"}},
               {"bin-sharded", shards("pytorch_model", ".bin", "pytorch_model.bin.index.json")},
               {"safetensors-sharded", shards("model", ".safetensors", "model.safetensors.index.json")}}) {
        INFO(c << " / " << v);
        const auto weights = relpos::read_checkpoint(dir(c, v), files);
        relpos_test::run_fixture_in_dir(dir_of(c), c, weights.get());
      }
      const auto batch = relpos_test::read_fixture_batch(dir_of(c));
      const std::string config = read_text(dir_of(c) + "config.json");
      const auto bin = relpos::read_checkpoint(dir(c, "bin-f16"), {"pytorch_model.bin"});
      const auto st = relpos::read_checkpoint(dir(c, "safetensors-f16"), {"model.safetensors"});
      const auto a = relpos::load_model(config, *bin)->forward(batch.B, batch.L, batch.ids.data(), batch.mask.data(), {}, batch.types_or_null());
      const auto b = relpos::load_model(config, *st)->forward(batch.B, batch.L, batch.ids.data(), batch.mask.data(), {}, batch.types_or_null());
      CHECK(a.last_hidden_state.data == b.last_hidden_state.data);
    }
}
