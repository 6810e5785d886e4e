// MPNet task heads (Transformers 4.34.1 MPNetFor…): no Hugging Face head fixtures exist, so each head is
// built from the mpnet-a MPNetModel weights (renamed "mpnet.…" as in a task checkpoint) plus small
// deterministic head weights written to a safetensors here, and its logits are checked against a
// float64 re-derivation of the head from relpos's own last_hidden_state (which the fixture test checks
// against Transformers): max |relpos − float64| ≤ 1e-4 · max(1, max |float64|).
//   masked LM (MPNetLMHead)       decoder(LayerNorm(gelu(lm_head.dense(h)))) + lm_head.bias, decoder = the
//                                 word embeddings (tied) or lm_head.decoder.weight (tie_word_embeddings false)
//   sequence classification       classifier.out_proj(tanh(classifier.dense(h[:, 0])))   (MPNetClassificationHead)
//   token classification          classifier(h) at every token
//   question answering            qa_outputs(h) = (start, end) at every token
// Also: with no architectures entry the head tensors pick the task (lm_head → fill-mask,
// classifier.out_proj → text classification).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "hf_family_fixture_support.h"
#include "relpos/heads.h"
#include "relpos/model.h"
#include "relpos/safetensors.h"
#include "safetensors_builder.h"
#include "test_support.h"

namespace {

using nlohmann::json;

struct HeadTensor {
  std::string name;
  std::vector<std::int64_t> shape;
  std::vector<float> values;
};

constexpr int kLabels = 3;

struct Case {
  std::string config;
  relpos::SafeTensors weights;
};

// mpnet-a's MPNetModel weights under "mpnet.", the given head tensors, and config.json with
// `architecture` (empty: none) and three named labels.
Case make_case(const std::vector<HeadTensor>& head, const std::string& architecture, bool tied = true) {
  const std::string dir = relpos_test::family_fixture_dir("mpnet-a");
  const auto base = relpos::SafeTensors::read_file(dir + "model.safetensors");
  relpos_test::SafeTensorsBuilder builder;
  for (const auto& name : base.names()) builder.add("mpnet." + name, base.info(name).shape, base.to_f32(name));
  for (const auto& t : head) builder.add(t.name, t.shape, t.values);
  auto config = relpos_test::read_json(dir + "config.json");
  config.erase("architectures");
  if (!architecture.empty()) config["architectures"] = json::array({architecture});
  config["id2label"] = {{"0", "negative"}, {"1", "neutral"}, {"2", "positive"}};
  config["label2id"] = {{"negative", 0}, {"neutral", 1}, {"positive", 2}};
  config["tie_word_embeddings"] = tied;
  return {config.dump(), relpos::SafeTensors::parse(builder.bytes(), "mpnet-heads.safetensors")};
}

HeadTensor tensor(const std::string& name, std::vector<std::int64_t> shape, unsigned seed, float scale, float offset = 0) {
  std::size_t n = 1;
  for (auto d : shape) n *= static_cast<std::size_t>(d);
  auto v = ts::random_vector(n, seed, scale);
  for (auto& x : v) x += offset;
  return {name, std::move(shape), std::move(v)};
}

// y[r, o] = Σ_i W[o, i] x[r, i] + b[o] in float64.
std::vector<double> linear(const std::vector<double>& x, int rows, int in, const HeadTensor& w, const HeadTensor& b) {
  const int out = static_cast<int>(w.shape[0]);
  std::vector<double> y(static_cast<std::size_t>(rows) * out);
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < out; ++o) {
      double s = b.values[o];
      for (int i = 0; i < in; ++i) s += double(w.values[static_cast<std::size_t>(o) * in + i]) * x[static_cast<std::size_t>(r) * in + i];
      y[static_cast<std::size_t>(r) * out + o] = s;
    }
  return y;
}

double check_close(const std::vector<float>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  double err = 0, scale = 1;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double e = std::fabs(got[i] - want[i]);
    err = std::isnan(e) ? 1e30 : std::max(err, e);
    scale = std::max(scale, std::fabs(want[i]));
  }
  INFO("max abs error " << err << " (largest logit " << scale << ")");
  CHECK(err <= 1e-4 * scale);
  return err;
}

struct Run {
  std::unique_ptr<relpos::Model> model;
  std::unique_ptr<relpos::TaskHead> head;
  relpos::ModelOutput out;
  std::vector<double> h;  // last_hidden_state in float64, [B·L, H]
  int B = 0, L = 0, H = 0;
};

Run run(const Case& c) {
  const auto batch = relpos_test::read_fixture_batch(relpos_test::family_fixture_dir("mpnet-a"));
  Run r;
  r.model = relpos::load_model(c.config, c.weights);
  r.head = relpos::load_task_head(c.config, *r.model, c.weights);
  REQUIRE(r.head);
  r.out = r.model->forward(batch.B, batch.L, batch.ids.data(), batch.mask.data());
  r.B = batch.B;
  r.L = batch.L;
  r.H = r.model->config().hidden_size;
  r.h.assign(r.out.last_hidden_state.data.begin(), r.out.last_hidden_state.data.end());
  return r;
}

}  // namespace

TEST_CASE("mpnet masked-LM head matches a float64 re-derivation, tied and untied decoder", "[heads][mpnet]") {
  const int H = 32, V = 100;
  const HeadTensor dense_w = tensor("lm_head.dense.weight", {H, H}, 11, 0.35f), dense_b = tensor("lm_head.dense.bias", {H}, 12, 0.1f);
  const HeadTensor ln_w = tensor("lm_head.layer_norm.weight", {H}, 13, 0.1f, 1.0f), ln_b = tensor("lm_head.layer_norm.bias", {H}, 14, 0.1f);
  const HeadTensor bias = tensor("lm_head.bias", {V}, 15, 0.5f);
  const HeadTensor own_decoder = tensor("lm_head.decoder.weight", {V, H}, 16, 1.0f);
  for (const bool tied : {true, false}) {
    SECTION(tied ? "tied" : "untied") {
      std::vector<HeadTensor> head = {dense_w, dense_b, ln_w, ln_b, bias};
      if (!tied) head.push_back(own_decoder);
      const Run r = run(make_case(head, "MPNetForMaskedLM", tied));
      REQUIRE(r.head->task() == relpos::HeadTask::MaskedLM);
      REQUIRE(r.head->outputs() == V);
      const int rows = r.B * r.L;
      // Word embeddings of the base checkpoint (tied decoder).
      const auto base = relpos::SafeTensors::read_file(relpos_test::family_fixture_dir("mpnet-a") + "model.safetensors");
      const auto words = base.to_f32("embeddings.word_embeddings.weight");
      const std::vector<float>& decoder = tied ? words : own_decoder.values;
      std::vector<double> t = linear(r.h, rows, H, dense_w, dense_b);
      for (double& x : t) x = 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));  // exact gelu
      std::vector<double> want(static_cast<std::size_t>(rows) * V);
      for (int row = 0; row < rows; ++row) {
        double* x = t.data() + static_cast<std::size_t>(row) * H;
        double mean = 0, var = 0;
        for (int e = 0; e < H; ++e) mean += x[e];
        mean /= H;
        for (int e = 0; e < H; ++e) var += (x[e] - mean) * (x[e] - mean);
        var /= H;
        for (int e = 0; e < H; ++e) x[e] = (x[e] - mean) / std::sqrt(var + 1e-12) * ln_w.values[e] + ln_b.values[e];
        for (int v = 0; v < V; ++v) {
          double s = bias.values[v];
          for (int e = 0; e < H; ++e) s += double(decoder[static_cast<std::size_t>(v) * H + e]) * x[e];
          want[static_cast<std::size_t>(row) * V + v] = s;
        }
      }
      check_close(r.head->logits(r.out), want);
      // Chosen positions give the same rows as the every-token call.
      const std::vector<int> picks = {3, r.L + 7};
      std::vector<double> picked;
      for (int p : picks) picked.insert(picked.end(), want.begin() + std::size_t(p) * V, want.begin() + std::size_t(p + 1) * V);
      check_close(r.head->logits(r.out, picks), picked);
    }
  }
}

TEST_CASE("mpnet sequence-classification head matches a float64 re-derivation", "[heads][mpnet]") {
  const int H = 32;
  const HeadTensor dense_w = tensor("classifier.dense.weight", {H, H}, 21, 0.35f), dense_b = tensor("classifier.dense.bias", {H}, 22, 0.1f);
  const HeadTensor out_w = tensor("classifier.out_proj.weight", {kLabels, H}, 23, 0.35f), out_b = tensor("classifier.out_proj.bias", {kLabels}, 24, 0.1f);
  for (const std::string arch : {"MPNetForSequenceClassification", ""}) {
    SECTION(arch.empty() ? "chosen by its tensors" : arch) {
      const Run r = run(make_case({dense_w, dense_b, out_w, out_b}, arch));
      REQUIRE(r.head->task() == relpos::HeadTask::SequenceClassification);
      CHECK(r.head->labels() == std::vector<std::string>({"negative", "neutral", "positive"}));
      std::vector<double> first;
      for (int b = 0; b < r.B; ++b)
        first.insert(first.end(), r.h.begin() + std::size_t(b) * r.L * H, r.h.begin() + (std::size_t(b) * r.L + 1) * H);
      std::vector<double> x = linear(first, r.B, H, dense_w, dense_b);
      for (double& v : x) v = std::tanh(v);
      check_close(r.head->logits(r.out), linear(x, r.B, H, out_w, out_b));
    }
  }
}

TEST_CASE("mpnet token-classification and question-answering heads match a float64 re-derivation", "[heads][mpnet]") {
  const int H = 32;
  SECTION("token classification") {
    const HeadTensor w = tensor("classifier.weight", {kLabels, H}, 31, 0.35f), b = tensor("classifier.bias", {kLabels}, 32, 0.1f);
    const Run r = run(make_case({w, b}, "MPNetForTokenClassification"));
    REQUIRE(r.head->task() == relpos::HeadTask::TokenClassification);
    check_close(r.head->logits(r.out), linear(r.h, r.B * r.L, H, w, b));
  }
  SECTION("question answering") {
    const HeadTensor w = tensor("qa_outputs.weight", {2, H}, 33, 0.35f), b = tensor("qa_outputs.bias", {2}, 34, 0.1f);
    const Run r = run(make_case({w, b}, "MPNetForQuestionAnswering"));
    REQUIRE(r.head->task() == relpos::HeadTask::QuestionAnswering);
    check_close(r.head->logits(r.out), linear(r.h, r.B * r.L, H, w, b));
  }
}

TEST_CASE("an mpnet checkpoint without architectures gets its masked-LM head from lm_head", "[heads][mpnet]") {
  const int H = 32, V = 100;
  const Run r = run(make_case({tensor("lm_head.dense.weight", {H, H}, 41, 0.35f), tensor("lm_head.dense.bias", {H}, 42, 0.1f),
                               tensor("lm_head.layer_norm.weight", {H}, 43, 0.1f, 1.0f),
                               tensor("lm_head.layer_norm.bias", {H}, 44, 0.1f), tensor("lm_head.bias", {V}, 45, 0.5f)},
                              ""));
  CHECK(r.head->task() == relpos::HeadTask::MaskedLM);
}
