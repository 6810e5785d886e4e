// The forward as a plan (cpp/src/plan): while a plan is recorded the layer primitives append ops and
// compute nothing; the plan of BERT (absolute) is the layer sequence the family runs; weights come back
// exactly as the checkpoint holds them (a Linear unpacked from its GEMM panels); a family the plan
// cannot describe fails with its reason; and recording leaves the CPU forward bitwise unchanged.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "hf_fixture_support.h"
#include "kernels/gemm_f32.h"
#include "kernels/unpack_b_nk.h"
#include "plan/plan.h"
#include "relpos/error.h"

namespace {

double attr(const relpos::plan::Op& op, const std::string& key) {
  for (const auto& [k, v] : op.attrs)
    if (k == key) return v;
  FAIL("op " << op.name << " has no attr " << key);
  return 0;
}

}  // namespace

TEST_CASE("unpack_b_nk returns exactly the matrix pack_b_nk packed, ragged panels included", "[plan]") {
  for (const auto& [K, N] : {std::pair{5, 13}, std::pair{32, 8}, std::pair{1, 1}, std::pair{7, 33}}) {
    std::vector<float> w(static_cast<std::size_t>(K) * N);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i) * 0.25f - 3.0f;
    std::vector<float> packed(relpos::kernels::packed_b_floats(K, N));
    relpos::kernels::pack_b_nk(K, N, w.data(), static_cast<std::size_t>(K), packed.data());
    std::vector<float> back(w.size(), -1.0f);
    relpos::kernels::unpack_b_nk(K, N, packed.data(), back.data());
    CHECK(std::memcmp(back.data(), w.data(), sizeof(float) * w.size()) == 0);
  }
}

TEST_CASE("the plan of bert-absolute is its embedding and layer sequence, with exact weights", "[plan]") {
  const std::string dir = relpos_test::fixture_dir("bert-absolute");
  const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
  const auto batch = relpos_test::read_fixture_batch(dir);
  auto model = relpos::load_model(relpos_test::read_text(dir + "config.json"), weights);
  const auto& cfg = model->config();
  relpos::ForwardOptions options;
  options.output_hidden_states = true;
  const auto before = model->forward(batch.B, batch.L, batch.ids.data(), batch.mask.data(), options);

  const relpos::plan::Plan plan = relpos::plan::build(*model, batch.B, batch.L, true);
  std::map<std::string, int> count;
  for (const auto& op : plan.ops) ++count[op.name];
  const int layers = cfg.num_layers;
  CHECK(count["gather"] == 1);
  CHECK(count["add_rows"] == 2);  // token types, positions
  CHECK(count["gemm"] == 6 * layers + 1);  // + the pooler
  CHECK(count["attention"] == layers);
  CHECK(count["norm"] == 1 + 2 * layers);
  CHECK(count["add"] == 2 * layers);
  CHECK(count["activate"] == layers + 1);  // + the pooler's tanh
  CHECK(count["first_rows"] == 1);
  CHECK(count["output"] == layers + 3);  // hidden states 0..layers, the last hidden state, the pooler output
  CHECK(plan.ops.front().name == "gather");
  REQUIRE(plan.ops.size() >= 4);
  const auto tail = plan.ops.end() - 4;  // last hidden state, then the pooler: first rows, GEMM, tanh, output
  CHECK(attr(*(tail - 1), "kind") == 1);
  CHECK(tail[0].name == "first_rows");
  CHECK(tail[1].name == "gemm");
  CHECK(tail[2].name == "activate");
  CHECK(attr(tail[2], "act") == 4);
  CHECK(attr(tail[3], "kind") == 2);
  for (const auto& op : plan.ops) {
    if (op.name != "attention") continue;
    CHECK(op.kind == "none");
    CHECK(attr(op, "heads") == cfg.num_heads);
    CHECK(attr(op, "head_dim") == cfg.head_dim);
    CHECK(attr(op, "mask") == 1);
    CHECK(attr(op, "q_row") == cfg.hidden_size);
  }
  // the first layer's query projection: W [out, in] exactly as in the checkpoint, and its bias
  const auto& q = *std::find_if(plan.ops.begin(), plan.ops.end(), [](const auto& op) { return op.name == "gemm"; });
  const auto w = relpos::plan::weight_values(plan.weights[static_cast<std::size_t>(attr(q, "w"))]);
  const auto expected_w = weights.to_f32("encoder.layer.0.attention.self.query.weight");
  REQUIRE(w.size() == expected_w.size());
  CHECK(std::memcmp(w.data(), expected_w.data(), sizeof(float) * w.size()) == 0);
  const auto b = relpos::plan::weight_values(plan.weights[static_cast<std::size_t>(attr(q, "bias"))]);
  CHECK(b == weights.to_f32("encoder.layer.0.attention.self.query.bias"));

  // recording computed nothing the CPU path keeps: the forward after it is bitwise the one before
  const auto after = model->forward(batch.B, batch.L, batch.ids.data(), batch.mask.data(), options);
  CHECK(after.last_hidden_state.data == before.last_hidden_state.data);
  CHECK(after.pooler_output.data == before.pooler_output.data);
  REQUIRE(after.hidden_states.size() == before.hidden_states.size());
  for (std::size_t i = 0; i < after.hidden_states.size(); ++i) CHECK(after.hidden_states[i].data == before.hidden_states[i].data);
}

TEST_CASE("a family the plan cannot describe fails with its reason", "[plan]") {
  const auto reason = [](const std::string& name) {
    const std::string dir = relpos_test::fixture_dir(name);
    const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
    auto model = relpos::load_model(relpos_test::read_text(dir + "config.json"), weights);
    try {
      (void)relpos::plan::build(*model, 1, 4, false);
    } catch (const relpos::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(reason("transfo-xl"), Catch::Contains("position scheme 'transformer_xl' has no GPU description"));
}

TEST_CASE("DeBERTa and BERT relative_key(_query) plans describe their relative vectors: row per distance, tables, scale", "[plan]") {
  struct Case {
    const char* fixture;
    bool table, table2, per_head;
  };
  for (const Case& c : {Case{"deberta-v2-a-v2like", true, true, true}, Case{"deberta-v2-c-c2p-only", true, false, true},
                        Case{"bert-relative-key", true, false, false}, Case{"bert-relative-key-query", true, true, false}}) {
    INFO(c.fixture);
    const std::string dir = relpos_test::fixture_dir(c.fixture);
    const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
    auto model = relpos::load_model(relpos_test::read_text(dir + "config.json"), weights);
    const auto& cfg = model->config();
    const auto batch = relpos_test::read_fixture_batch(dir);
    const auto before = model->forward(batch.B, batch.L, batch.ids.data(), batch.mask.data(), relpos::ForwardOptions{});
    const int seq = 9;
    const relpos::plan::Plan plan = relpos::plan::build(*model, 2, seq, false);
    // recording (DeBERTa's masked embedding rows included) computed nothing the CPU path keeps
    CHECK(model->forward(batch.B, batch.L, batch.ids.data(), batch.mask.data(), relpos::ForwardOptions{}).last_hidden_state.data ==
          before.last_hidden_state.data);
    int attentions = 0;
    for (const auto& op : plan.ops) {
      if (op.name != "attention") continue;
      ++attentions;
      CHECK(op.kind == "relative_vectors");
      CHECK((attr(op, "scheme_table") >= 0) == c.table);
      CHECK((attr(op, "scheme_table2") >= 0) == c.table2);
      const auto rows = plan.constants[static_cast<std::size_t>(attr(op, "scheme_ints"))].ints;
      REQUIRE(rows.size() == 2u * seq - 1);
      const double head = attr(op, "scheme_table_head");
      if (!c.per_head) {
        CHECK(head == 0);
        // BERT: row i − j + M − 1, stored at (j − i) + seq − 1
        for (int delta = 1 - seq; delta < seq; ++delta) CHECK(rows[delta + seq - 1] == cfg.max_position_embeddings - 1 - delta);
      } else {
        CHECK(head > 0);
        CHECK(attr(op, "scheme_table2_head") == head);
        // DeBERTa: idx(i, j) = clamp(bucket(i − j) + span), non-increasing in j − i, within [0, 2·span)
        for (int t = 1; t < 2 * seq - 1; ++t) CHECK(rows[t] <= rows[t - 1]);
        for (const int r : rows) CHECK((r >= 0 && r < head / cfg.head_dim));
      }
      const float expected = 1.0f / std::sqrt(static_cast<float>(cfg.head_dim) * (c.per_head ? 1.0f + c.table + c.table2 : 1.0f));
      CHECK(attr(op, "scheme_term_scale") == static_cast<double>(expected));
      CHECK(attr(op, "scale") == static_cast<double>(expected));
    }
    CHECK(attentions == cfg.num_layers);
  }
}
