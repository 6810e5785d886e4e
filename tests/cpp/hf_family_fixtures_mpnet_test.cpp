// MPNet (model_type "mpnet") against MPNetModel of Transformers 4.34.1, ../shared/fixtures/hf-families/mpnet-{a,b}:
//   hidden states and pooler output ≤ 1e-4, attention probabilities ≤ 1e-5 on valid positions;
//   the fixtures' aux tensors: aux.position_ids = padded_position_ids(ids, padding_idx 1) exactly,
//   aux.relative_position_bucket = t5_bucket_table(L, bidirectional, 32, 128) exactly (whatever
//   relative_attention_num_buckets says: 40 in mpnet-b), aux.position_bias = the "bias" term the MPNet
//   T5 scheme adds (a table lookup: exact), with the content term q·k / sqrt(head_dim);
//   errors: more tokens than max_position_embeddings − 2, relative_attention_num_buckets < 32.
#include <cmath>
#include <string>
#include <vector>

#include "hf_family_fixture_support.h"
#include "relpos/error.h"
#include "relpos/positions.h"
#include "relpos/schemes.h"
#include "test_support.h"

namespace {

using relpos_test::family_fixture_dir;
using relpos_test::read_text;

// config.json of a case with one field replaced (a JSON number).
std::string with_field(const std::string& case_name, const std::string& key, int value) {
  auto j = relpos_test::read_json(family_fixture_dir(case_name) + "config.json");
  j[key] = value;
  return j.dump();
}

}  // namespace

TEST_CASE("hf family fixture mpnet-a", "[hf-fixture][mpnet]") { relpos_test::run_hf_family_fixture("mpnet-a"); }
TEST_CASE("hf family fixture mpnet-b", "[hf-fixture][mpnet]") { relpos_test::run_hf_family_fixture("mpnet-b"); }

TEST_CASE("mpnet position ids, buckets and position bias match the fixtures' aux tensors", "[hf-fixture][mpnet]") {
  for (const char* name : {"mpnet-a", "mpnet-b"}) {
    SECTION(name) {
      const std::string dir = family_fixture_dir(name);
      const auto batch = relpos_test::read_fixture_batch(dir);
      const auto expected = relpos::SafeTensors::read_file(dir + "expected.safetensors");
      const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
      const auto config = relpos::parse_model_config(read_text(dir + "config.json"));
      const int L = batch.L, heads = config.num_heads;

      const auto pos = relpos::padded_position_ids(batch.ids.data(), batch.B, L, 1);
      const auto want_pos = expected.to_i64("aux.position_ids");
      REQUIRE(want_pos.size() == pos.size());
      for (std::size_t i = 0; i < pos.size(); ++i) CHECK(pos[i] == want_pos[i]);

      const auto buckets = relpos::t5_bucket_table(L, true, 32, 128);
      const auto want_buckets = expected.to_i64("aux.relative_position_bucket");
      REQUIRE(want_buckets.size() == buckets.size());
      int bucket_mismatches = 0;
      for (std::size_t i = 0; i < buckets.size(); ++i) bucket_mismatches += buckets[i] != want_buckets[i];
      CHECK(bucket_mismatches == 0);

      // The scheme MPNet builds (mpnet.cpp), on random q, k: its "bias" term is aux.position_bias and its
      // content term q·k / sqrt(head_dim).
      const auto table = weights.to_f32("encoder.relative_attention_bias.weight");
      REQUIRE(static_cast<int>(table.size()) == config.relative_attention_num_buckets * heads);
      relpos::T5Params p;
      p.num_buckets = 32;
      p.max_distance = 128;
      p.bias_table = table.data();
      p.table_rows = config.relative_attention_num_buckets;
      p.scale_content = true;
      const auto scheme = relpos::make_scheme(p);
      const relpos::AttentionDims dims{1, heads, L, config.head_dim};
      const auto in = ts::make_inputs(dims, 5, false, false);
      const auto run = ts::run_attention(in, *scheme, false, true);
      REQUIRE(run.terms.size() == 2);
      const auto want_bias = expected.to_f32("aux.position_bias");
      REQUIRE(want_bias.size() == run.terms[1].size());
      double bias_err = 0, content_err = 0;
      for (std::size_t i = 0; i < want_bias.size(); ++i) bias_err = std::max(bias_err, std::fabs(double(run.terms[1][i]) - want_bias[i]));
      const int d = config.head_dim;
      for (int h = 0; h < heads; ++h)
        for (int i = 0; i < L; ++i)
          for (int j = 0; j < L; ++j) {
            double dot = 0;
            for (int e = 0; e < d; ++e)
              dot += double(in.q[(static_cast<std::size_t>(h) * L + i) * d + e]) * in.k[(static_cast<std::size_t>(h) * L + j) * d + e];
            const double got = run.terms[0][(static_cast<std::size_t>(h) * L + i) * L + j];
            content_err = std::max(content_err, std::fabs(got - dot / std::sqrt(double(d))));
          }
      INFO("position_bias max abs error " << bias_err << ", content term max abs error " << content_err);
      CHECK(bias_err == 0.0);
      CHECK(content_err <= 1e-5);
    }
  }
}

TEST_CASE("mpnet refuses inputs longer than max_position_embeddings - 2 tokens", "[mpnet]") {
  const std::string dir = family_fixture_dir("mpnet-a");  // max_position_embeddings 66
  const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
  auto model = relpos::load_model(read_text(dir + "config.json"), weights);
  CHECK(model->max_sequence() == 64);
  std::vector<std::int32_t> ids(65, 7);
  CHECK_NOTHROW(model->forward(1, 64, ids.data(), nullptr));  // positions 2 … 65: the table's last row
  try {
    model->forward(1, 65, ids.data(), nullptr);
    FAIL("no relpos::Error for 65 tokens");
  } catch (const relpos::Error& e) {
    const std::string m = e.what();
    INFO(m);
    CHECK(m.find("65") != std::string::npos);
    CHECK(m.find("64") != std::string::npos);
    CHECK(m.find("mpnet") != std::string::npos);
  }
}

TEST_CASE("mpnet refuses relative_attention_num_buckets below 32 and a table of the wrong size", "[mpnet]") {
  const std::string dir = family_fixture_dir("mpnet-a");
  const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
  try {
    relpos::load_model(with_field("mpnet-a", "relative_attention_num_buckets", 16), weights);
    FAIL("no relpos::Error for relative_attention_num_buckets 16");
  } catch (const relpos::Error& e) {
    const std::string m = e.what();
    INFO(m);
    CHECK(m.find("relative_attention_num_buckets is 16") != std::string::npos);
    CHECK(m.find("32") != std::string::npos);
  }
  // 40 rows asked for, 32 in the file: the tensor's shape is named.
  try {
    relpos::load_model(with_field("mpnet-a", "relative_attention_num_buckets", 40), weights);
    FAIL("no relpos::Error for a [32, heads] table under relative_attention_num_buckets 40");
  } catch (const relpos::Error& e) {
    const std::string m = e.what();
    INFO(m);
    CHECK(m.find("encoder.relative_attention_bias.weight") != std::string::npos);
  }
}

TEST_CASE("mpnet positions follow the token ids: id 1 anywhere is padding", "[mpnet]") {
  // create_position_ids_from_input_ids looks at ids only: a 1 inside the sequence takes position 1 and
  // does not advance the count; the mask is not consulted.
  const std::vector<std::int32_t> ids = {0, 5, 1, 9, 1, 1, 4, 2, 1, 1};
  const auto pos = relpos::padded_position_ids(ids.data(), 2, 5, 1);
  CHECK(pos == std::vector<std::int32_t>({2, 3, 1, 4, 1, 1, 2, 3, 1, 1}));
}
