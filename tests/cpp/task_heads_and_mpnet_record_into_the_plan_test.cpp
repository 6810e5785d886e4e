// Task heads and MPNet in the GPU plan (cpp/src/plan): plan::build(model, B, L, hs, head, P) records the
// head's logits after the model — through the layer primitives only — ending in an output op of kind 3
// of the head's shape; a masked-LM head at P positions reads them from a "positions" input (select_rows)
// and its tied decoder is a gemm over the word-embedding table the gather reads (one weight, no copy);
// recording leaves the CPU logits bitwise unchanged; the primitives the heads' hand loops became
// (select_rows, mean_rows) equal those loops bitwise and refuse bad input; MPNet's positions that follow
// the padding are an add_rows of source 2 (padding_idx 1) and its forward stays bitwise unchanged.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "fixture_files.h"
#include "hf_family_fixture_support.h"
#include "models/layers/embedding_table.h"
#include "models/layers/layers.h"
#include "plan/plan.h"
#include "relpos/error.h"
#include "relpos/heads.h"
#include "relpos/model.h"
#include "relpos/safetensors.h"

namespace {

using nlohmann::json;

std::string task_dir(const std::string& name) { return std::string(RELPOS_SHARED_DIR) + "/fixtures/hf-tasks/" + name + "/"; }

double attr(const relpos::plan::Op& op, const std::string& key) {
  for (const auto& [k, v] : op.attrs)
    if (k == key) return v;
  FAIL("op " << op.name << " has no attr " << key);
  return 0;
}

bool has_attr(const relpos::plan::Op& op, const std::string& key) {
  for (const auto& [k, v] : op.attrs)
    if (k == key) return true;
  return false;
}

struct Case {
  relpos::SafeTensors weights;
  std::unique_ptr<relpos::Model> model;
  std::unique_ptr<relpos::TaskHead> head;
  std::vector<std::int32_t> ids, mask, types;
  int B = 0, L = 0;
};

// The case's recorded entries as one right-padded batch (pad 0, mask 0).
Case load_case(const std::string& name) {
  Case c{relpos::SafeTensors::read_file(task_dir(name) + "model.safetensors"), nullptr, nullptr, {}, {}, {}};
  const std::string config = relpos_test::read_text(task_dir(name) + "config.json");
  c.model = relpos::load_model(config, c.weights);
  c.head = relpos::load_task_head(config, *c.model, c.weights);
  REQUIRE(c.head);
  const json entries = relpos_test::read_json(task_dir(name) + "expected.json")["logits"];
  c.B = std::min<int>(3, static_cast<int>(entries.size()));
  for (int b = 0; b < c.B; ++b) c.L = std::max(c.L, static_cast<int>(entries[b]["input_ids"].size()));
  c.ids.assign(static_cast<std::size_t>(c.B) * c.L, 0);
  c.mask.assign(c.ids.size(), 0);
  c.types.assign(c.ids.size(), 0);
  for (int b = 0; b < c.B; ++b) {
    const auto row = entries[b]["input_ids"].get<std::vector<std::int32_t>>();
    for (std::size_t i = 0; i < row.size(); ++i) {
      c.ids[b * c.L + i] = row[i];
      c.mask[b * c.L + i] = 1;
      if (entries[b].contains("token_type_ids") && entries[b]["token_type_ids"].is_array())
        c.types[b * c.L + i] = entries[b]["token_type_ids"][i].get<std::int32_t>();
    }
  }
  return c;
}

relpos::ModelOutput run(Case& c) { return c.model->forward(c.B, c.L, c.ids.data(), c.mask.data(), {}, c.types.data()); }

const relpos::plan::Op* find(const relpos::plan::Plan& p, const std::string& name) {
  for (const auto& op : p.ops)
    if (op.name == name) return &op;
  return nullptr;
}

}  // namespace

TEST_CASE("every head of the hf-tasks families the plan covers records its logits after the model", "[plan][heads]") {
  for (const char* name : {"bert-token-classification", "bert-question-answering", "bert-fill-mask", "roformer-fill-mask",
                           "distilbert-fill-mask", "bert-text-pair-classification"}) {
    CAPTURE(name);
    Case c = load_case(name);
    const relpos::ModelOutput out = run(c);
    const std::vector<float> before = c.head->logits(out);
    const int W = c.head->outputs();

    const relpos::plan::Plan model_only = relpos::plan::build(*c.model, c.B, c.L, false);
    const relpos::plan::Plan p = relpos::plan::build(*c.model, c.B, c.L, false, c.head.get());
    REQUIRE(p.ops.size() > model_only.ops.size());
    for (std::size_t i = 0; i < model_only.ops.size(); ++i) CHECK(p.ops[i].name == model_only.ops[i].name);  // the model first
    const relpos::plan::Op& last = p.ops.back();
    CHECK(last.name == "output");
    CHECK(attr(last, "kind") == 3);
    CHECK(attr(last, "width") == W);
    const int rows = c.head->task() == relpos::HeadTask::SequenceClassification ? c.B : c.B * c.L;
    CHECK(attr(last, "rows") == rows);
    CHECK(static_cast<std::size_t>(rows) * W == before.size());
    CHECK(p.buffers[static_cast<std::size_t>(attr(last, "x"))].elements >= before.size());
    // every op after the model's is one the executor knows (no hand loop left outside the primitives)
    for (std::size_t i = model_only.ops.size(); i < p.ops.size(); ++i) {
      const std::string& n = p.ops[i].name;
      CHECK((n == "gemm" || n == "activate" || n == "norm" || n == "first_rows" || n == "select_rows" || n == "output"));
    }

    if (c.head->task() == relpos::HeadTask::MaskedLM) {
      // at 2 positions: a "positions" input of 2, select_rows from the last hidden state, then the chain
      const relpos::plan::Plan at = relpos::plan::build(*c.model, c.B, c.L, false, c.head.get(), 2);
      const relpos::plan::Op* select = find(at, "select_rows");
      REQUIRE(select);
      CHECK(attr(*select, "rows") == 2);
      CHECK(attr(*select, "limit") == c.B * c.L);
      CHECK(at.buffers[static_cast<std::size_t>(attr(*select, "x"))].elements >= static_cast<std::size_t>(c.B) * c.L * attr(*select, "width"));
      int inputs = 0;
      for (const auto& b : at.buffers) inputs += b.kind == "positions" && b.elements == 2;
      CHECK(inputs == 1);
      CHECK(attr(at.ops.back(), "rows") == 2);
      // the tied decoder: the last gemm reads the table the embedding gather reads, [V, E] as [N, K]
      const relpos::plan::Op* gather = find(at, "gather");
      REQUIRE(gather);
      const relpos::plan::Op& decoder = at.ops[at.ops.size() - 2];
      CHECK(decoder.name == "gemm");
      CHECK(attr(decoder, "w") == attr(*gather, "table"));
      CHECK(attr(decoder, "N") == W);
      CHECK(attr(decoder, "bias") >= 0);
      CHECK_THROWS_AS(relpos::plan::build(*c.model, c.B, c.L, false, c.head.get(), -1), relpos::Error);
    } else {
      CHECK_THROWS_WITH(relpos::plan::build(*c.model, c.B, c.L, false, c.head.get(), 2),
                        Catch::Contains("logits at positions are for masked-LM and causal-LM heads"));
    }

    // recording computed nothing: the CPU logits after it are bitwise those before
    const relpos::ModelOutput again = run(c);
    CHECK(c.head->logits(again) == before);
  }
}

TEST_CASE("the heads' arithmetic is the primitives': BERT's classifier over the pooler, fill-mask at positions", "[plan][heads]") {
  {
    Case c = load_case("bert-text-pair-classification");
    const relpos::ModelOutput out = run(c);
    const int H = c.model->config().hidden_size, n = c.head->outputs();
    const auto classifier = relpos::models::Linear::load(c.weights, "classifier", H, n, true);
    std::vector<float> want(static_cast<std::size_t>(c.B) * n);
    classifier.forward(c.B, out.pooler_output.data.data(), want.data());
    CHECK(c.head->logits(out) == want);
  }
  {
    Case c = load_case("bert-fill-mask");
    const relpos::ModelOutput out = run(c);
    const auto& cfg = c.model->config();
    const int H = cfg.hidden_size, V = cfg.vocab_size;
    const std::vector<int> at = {c.L + 1, 0, 2};
    std::vector<float> x(at.size() * H), t(at.size() * H), want(at.size() * V);
    for (std::size_t i = 0; i < at.size(); ++i)
      std::memcpy(x.data() + i * H, out.last_hidden_state.data.data() + static_cast<std::size_t>(at[i]) * H, sizeof(float) * H);
    const auto dense = relpos::models::Linear::load(c.weights, "cls.predictions.transform.dense", H, H, true);
    const auto norm = relpos::models::LayerNorm::load(c.weights, "cls.predictions.transform.LayerNorm", H, cfg.norm_eps);
    const auto table = relpos::models::EmbeddingTable::load(c.weights, "bert.embeddings.word_embeddings.weight", V, H);
    const auto bias = c.weights.to_f32("cls.predictions.bias");
    dense.forward(static_cast<int>(at.size()), x.data(), t.data());
    relpos::models::activate(relpos::models::parse_activation(cfg.hidden_act), t.size(), t.data());
    norm.forward(static_cast<int>(at.size()), t.data(), t.data());
    table.project(static_cast<int>(at.size()), t.data(), want.data(), bias.data());
    CHECK(c.head->logits(out, at) == want);
  }
}

TEST_CASE("select_rows and mean_rows are the heads' former loops, bitwise, and refuse bad input", "[plan][heads]") {
  const int B = 3, L = 5, W = 7;
  std::vector<float> x(static_cast<std::size_t>(B) * L * W);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 37) % 101) * 0.173f - 8.1f;
  const std::vector<std::int32_t> rows = {14, 0, 7, 7};
  std::vector<float> got(rows.size() * W, -1.0f);
  relpos::models::select_rows(static_cast<int>(rows.size()), rows.data(), B * L, W, x.data(), got.data());
  for (std::size_t i = 0; i < rows.size(); ++i)
    CHECK(std::memcmp(got.data() + i * W, x.data() + static_cast<std::size_t>(rows[i]) * W, sizeof(float) * W) == 0);
  const std::vector<std::int32_t> bad = {0, B * L};
  CHECK_THROWS_AS(relpos::models::select_rows(2, bad.data(), B * L, W, x.data(), got.data()), relpos::Error);

  const std::vector<std::uint8_t> mask = {1, 1, 0, 1, 0, /**/ 1, 1, 1, 1, 1, /**/ 0, 0, 0, 0, 1};
  for (const std::uint8_t* m : {mask.data(), static_cast<const std::uint8_t*>(nullptr)}) {
    std::vector<float> mean(static_cast<std::size_t>(B) * W), want(mean.size());
    relpos::models::mean_rows(B, L, W, x.data(), m, mean.data());
    for (int b = 0; b < B; ++b) {  // the ModernBERT head's loop: double sums in l order, then / count
      std::vector<double> sum(W, 0.0);
      int count = 0;
      for (int l = 0; l < L; ++l) {
        if (m && !m[b * L + l]) continue;
        ++count;
        for (int c = 0; c < W; ++c) sum[c] += x[(static_cast<std::size_t>(b) * L + l) * W + c];
      }
      for (int c = 0; c < W; ++c) want[static_cast<std::size_t>(b) * W + c] = static_cast<float>(sum[c] / count);
    }
    CHECK(mean == want);
  }
  std::vector<std::uint8_t> empty = mask;
  for (int l = 0; l < L; ++l) empty[L + l] = 0;
  std::vector<float> out(static_cast<std::size_t>(B) * W);
  CHECK_THROWS_WITH(relpos::models::mean_rows(B, L, W, x.data(), empty.data(), out.data()),
                    Catch::Contains("sequence 1 has no real token"));
}

TEST_CASE("mpnet's positions that follow the padding are an add_rows op of the plan; the CPU forward is unchanged", "[plan][mpnet]") {
  for (const char* name : {"mpnet-a", "mpnet-b"}) {
    CAPTURE(name);
    const std::string dir = relpos_test::family_fixture_dir(name);
    const auto weights = relpos::SafeTensors::read_file(dir + "model.safetensors");
    auto model = relpos::load_model(relpos_test::read_text(dir + "config.json"), weights);
    const auto batch = relpos_test::read_fixture_batch(dir);
    relpos::ForwardOptions options;
    options.output_hidden_states = true;
    const auto before = model->forward(batch.B, batch.L, batch.ids.data(), batch.mask.data(), options);

    const relpos::plan::Plan p = relpos::plan::build(*model, batch.B, batch.L, true);
    std::map<std::string, int> count;
    for (const auto& op : p.ops) ++count[op.name];
    CHECK(count["gather"] == 1);
    CHECK(count["add_rows"] == 1);
    CHECK(count["attention"] == model->config().num_layers);
    const relpos::plan::Op& positions = p.ops[1];
    REQUIRE(positions.name == "add_rows");
    CHECK(attr(positions, "source") == 2);
    CHECK(attr(positions, "padding_idx") == 1);
    CHECK(attr(positions, "rows") == batch.B * batch.L);
    CHECK(relpos::plan::weight_values(p.weights[static_cast<std::size_t>(attr(positions, "table"))]) ==
          weights.to_f32("embeddings.position_embeddings.weight"));
    for (const auto& op : p.ops) {
      if (op.name != "attention") continue;
      CHECK(op.kind == "bucket");  // T5 buckets, MPNet's content scale 1/sqrt(head_dim)
      CHECK(attr(op, "scale") == Approx(1.0 / std::sqrt(static_cast<double>(model->config().head_dim))));
      CHECK(has_attr(op, "scheme_table"));
    }

    const auto after = model->forward(batch.B, batch.L, batch.ids.data(), batch.mask.data(), options);
    CHECK(after.last_hidden_state.data == before.last_hidden_state.data);
    REQUIRE(after.hidden_states.size() == before.hidden_states.size());
    for (std::size_t i = 0; i < after.hidden_states.size(); ++i) CHECK(after.hidden_states[i].data == before.hidden_states[i].data);
  }
}
