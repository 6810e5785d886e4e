// A StreamedCheckpoint with a WeightSink (the WebGPU load of web/webgpu/weight-sink.js): every linear layer's and
// embedding table's float32 rows go to the sink, block by block, bit for bit the checkpoint's values; nothing of them
// is converted into memory here, so the cannot-fit check counts only what stays (an fp32 model larger than the heap
// loads); the loaded model's linear layers and tables carry the sink's ids for the plan, and its CPU forward is an
// Error. Gemma3's table, which the family scales at load, stays here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <tuple>

#include "gguf_support.h"
#include "models/layers/streamed_checkpoint.h"
#include "plan/plan.h"
#include "relpos/error.h"
#include "relpos/model.h"
#include "relpos/safetensors.h"
#include "relpos/checkpoint.h"
#include "relpos/config.h"

using namespace relpos_test;

namespace {

struct RecordingSink final : relpos::models::WeightSink {
  struct Layer {
    std::string name;
    int rows = 0, cols = 0, received = 0;
    std::vector<float> values;
  };
  std::vector<Layer> layers;
  int begin(const std::string& name, int rows, int cols, std::optional<relpos::DType> bytes) override {
    REQUIRE_FALSE(bytes);  // a sink without takes_bytes gets rows
    layers.push_back({name, rows, cols, 0, std::vector<float>(static_cast<std::size_t>(rows) * cols, -1.0f)});
    return static_cast<int>(layers.size()) + 99;  // ids are the sink's to choose
  }
  void rows(int id, int first, int count, int cols, const float* values) override {
    Layer& l = layers.at(static_cast<std::size_t>(id - 100));
    REQUIRE(cols == l.cols);
    REQUIRE(first == l.received);  // in order, each row once
    std::memcpy(l.values.data() + static_cast<std::size_t>(first) * l.cols, values, sizeof(float) * count * l.cols);
    l.received += count;
  }
};

const std::string kCase = std::string(RELPOS_SHARED_DIR) + "/fixtures/hf-llm-embedders/qwen3-embed-left/";

void stream(relpos::models::StreamedCheckpoint& s, const std::vector<std::uint8_t>& bytes,
            const std::string& name = "model.safetensors") {
  s.begin_file(name, static_cast<double>(bytes.size()));
  for (std::size_t at = 0; at < bytes.size(); at += 3001) s.write(bytes.data() + at, std::min<std::size_t>(3001, bytes.size() - at));
  s.end_file();
  s.finish();
}

}  // namespace

TEST_CASE("a linear row sink receives every linear layer's and the embedding table's rows as the checkpoint holds them, and nothing stays") {
  const auto bytes = read_bytes(kCase + "model.safetensors");
  const std::string config = read_text(kCase + "config.json");
  const auto whole = relpos::SafeTensors::parse(bytes, "model.safetensors");
  relpos::LoadOptions options;
  relpos::models::StreamedCheckpoint plain(options), sunk(options);
  RecordingSink sink;
  sunk.set_weight_sink(&sink);
  stream(plain, bytes);
  stream(sunk, bytes);

  const auto sunk_name = [](const std::string& n) { return n.find("_proj.weight") != std::string::npos || n == "embed_tokens.weight"; };
  std::size_t linear_bytes = 0;
  for (const auto& l : sink.layers) {
    INFO(l.name);
    CHECK(sunk_name(l.name));
    CHECK(l.received == l.rows);
    const auto expected = whole.to_f32(l.name);
    REQUIRE(expected.size() == l.values.size());
    CHECK(std::memcmp(expected.data(), l.values.data(), 4 * expected.size()) == 0);
    linear_bytes += 4 * expected.size();
  }
  std::size_t projections = 0;
  for (const auto& n : whole.names()) projections += sunk_name(n);
  CHECK(sink.layers.size() == projections);
  REQUIRE(projections > 1);
  CHECK(sink.layers.front().name == "embed_tokens.weight");  // the table too
  // the plain stream converted them (as GEMM panels or table rows, at least their floats); the sunk one did not
  CHECK(plain.converted_bytes() >= sunk.converted_bytes() + linear_bytes);

  auto model = relpos::load_model(config, sunk, options);
  const auto plan = relpos::plan::build(*model, 1, 4, false, nullptr, 0);
  std::map<int, int> ids;  // sink id → plan weights naming it
  for (const auto& w : plan.weights)
    if (relpos::plan::gpu_buffer(w) >= 0) ++ids[relpos::plan::gpu_buffer(w)];
  CHECK(ids.size() == sink.layers.size());
  for (const auto& [id, count] : ids) CHECK((id >= 100 && id < 100 + static_cast<int>(sink.layers.size())));
  const std::vector<std::int32_t> tokens = {5, 6, 7, 8};
  CHECK_THROWS_AS(model->forward(1, 4, tokens.data(), nullptr), relpos::Error);
}

TEST_CASE("with a linear row sink, the cannot-fit check counts only what stays in memory") {
  const auto bytes = read_bytes(kCase + "model.safetensors");
  const relpos::LoadOptions options;
  // streams the file with `available` bytes allowed; true when it fit
  const auto fits = [&](std::size_t available, bool with_sink) {
    relpos::models::StreamedCheckpoint s(options);
    RecordingSink sink;
    if (with_sink) s.set_weight_sink(&sink);
    s.set_memory_available(available);
    try {
      stream(s, bytes);
      return true;
    } catch (const relpos::Error&) {
      return false;
    }
  };
  // the least room the sunk stream needs (bisection: it grows monotonically with what is counted)
  std::size_t lo = 0, hi = std::size_t{1} << 30;
  REQUIRE(fits(hi, true));
  REQUIRE(!fits(lo, true));
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    (fits(mid, true) ? hi : lo) = mid;
  }
  CHECK(fits(hi, true));
  CHECK(!fits(hi, false));  // the same room is too little once the linear layers count
  CHECK(fits(std::size_t{1} << 30, false));
}

namespace {

const std::vector<const char*> kWeightAttrs = {"w", "bias", "gamma", "beta", "table", "scheme_table", "scheme_table2"};

// The float32 values of weight `id` of a plan loaded through `sink`: the sink's rows for a sunk one, the table the
// executor derives (R · Wᵀ + b laid out per head, computed here in double) for a derived one.
std::vector<float> values_of(const relpos::plan::Plan& plan, int id, const RecordingSink& sink) {
  const relpos::plan::Weight& w = plan.weights.at(static_cast<std::size_t>(id));
  if (const int gpu = relpos::plan::gpu_buffer(w); gpu >= 0) return sink.layers.at(static_cast<std::size_t>(gpu - 100)).values;
  if (w.kind != relpos::plan::Weight::Kind::Derived) return relpos::plan::weight_values(w);
  REQUIRE((w.from < id && w.linear < id && w.bias < id));  // its sources come first: the executor has them by then
  CHECK_THROWS_AS(relpos::plan::weight_values(w), relpos::Error);  // the executor's to compute
  const std::vector<float> R = values_of(plan, w.from, sink), W = values_of(plan, w.linear, sink);
  const std::vector<float> b = w.bias >= 0 ? values_of(plan, w.bias, sink) : std::vector<float>();
  const std::size_t rows = static_cast<std::size_t>(w.rows), in = R.size() / rows, out = W.size() / in;
  const std::size_t d = out / static_cast<std::size_t>(w.heads);
  REQUIRE(w.elements == rows * out);
  std::vector<float> t(rows * out);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t n = 0; n < out; ++n) {
      double sum = b.empty() ? 0.0 : b[n];
      for (std::size_t k = 0; k < in; ++k) sum += static_cast<double>(R[r * in + k]) * W[n * in + k];
      t[((n / d) * rows + r) * d + n % d] = static_cast<float>(sum);
    }
  return t;
}

// The plan of `streamed` (loaded through `sink`) reads the weights of `whole` op by op, bit for bit (a derived table
// within float rounding of the one `whole` projected at load), and `sunk_weights` of them (linear layers and tables)
// are the sink's; `derived` tables are left to the executor.
void same_plan_weights(const std::unique_ptr<relpos::Model>& streamed, const std::unique_ptr<relpos::Model>& whole,
                       const RecordingSink& sink, int sunk_weights, int derived = 0) {
  const auto a = relpos::plan::build(*streamed, 1, 6, false, nullptr, 0);
  const auto b = relpos::plan::build(*whole, 1, 6, false, nullptr, 0);
  REQUIRE(a.ops.size() == b.ops.size());
  for (std::size_t i = 0; i < a.ops.size(); ++i) {
    REQUIRE(a.ops[i].name == b.ops[i].name);
    REQUIRE(a.ops[i].attrs.size() == b.ops[i].attrs.size());
    for (std::size_t j = 0; j < a.ops[i].attrs.size(); ++j) {
      const auto& [key, ia] = a.ops[i].attrs[j];
      const int ib = static_cast<int>(b.ops[i].attrs[j].second);
      REQUIRE(key == b.ops[i].attrs[j].first);
      if (std::find(kWeightAttrs.begin(), kWeightAttrs.end(), key) == kWeightAttrs.end() || ib < 0) continue;
      INFO(a.ops[i].name << " " << key);
      const std::vector<float> expected = relpos::plan::weight_values(b.weights[static_cast<std::size_t>(ib)]);
      const std::vector<float> got = values_of(a, static_cast<int>(ia), sink);
      REQUIRE(got.size() == expected.size());
      if (a.weights[static_cast<std::size_t>(ia)].kind != relpos::plan::Weight::Kind::Derived) {
        CHECK(std::memcmp(got.data(), expected.data(), 4 * got.size()) == 0);
        continue;
      }
      float worst = 0.0f;
      for (std::size_t e = 0; e < got.size(); ++e) worst = std::max(worst, std::abs(got[e] - expected[e]));
      CHECK(worst < 1e-5f);
    }
  }
  int sunk = 0, tables = 0;
  for (const auto& w : a.weights) {
    sunk += relpos::plan::gpu_buffer(w) >= 0;
    tables += w.kind == relpos::plan::Weight::Kind::Derived;
  }
  CHECK(sunk == sunk_weights);
  CHECK(tables == derived);
  CHECK(sink.layers.size() == static_cast<std::size_t>(sunk));
  for (const auto& l : sink.layers) CHECK(l.received == l.rows);
}

}  // namespace

TEST_CASE("DeBERTa, MPNet, ModernBERT, NomicBERT and Gemma3 checkpoints stream to a linear row sink: the plan's weights "
          "are the whole-file load's, DeBERTa's projected relative embeddings are derived by the executor from R and "
          "the sunk projections (nothing of them kept here), Gemma3's scaled table stays") {
  const std::string shared = std::string(RELPOS_SHARED_DIR) + "/fixtures/";
  // fixture, linear layers per encoder layer (DeBERTa's with pos_key_proj / pos_query_proj when share_att_key is
  // false), embedding tables sunk, relative tables derived per layer
  for (const auto& [dir, per_layer, tables, derived] : std::vector<std::tuple<const char*, int, int, int>>{
           {"hf/deberta-v2-a-v2like", 8, 1, 2}, {"hf/deberta-v2-b-v3like", 6, 1, 2}, {"hf/deberta-v2-c-c2p-only", 7, 1, 1},
           {"hf-tasks/deberta-v2-fill-mask", 6, 1, 2}, {"hf-families/mpnet-a", 6, 2, 0}, {"hf-families/mpnet-b", 6, 2, 0},
           {"hf-families/modernbert-a", 4, 1, 0}, {"hf-families/modernbert-b", 4, 1, 0}, {"hf-families/nomic-bert-a", 5, 1, 0},
           {"hf-families/nomic-bert-b", 5, 1, 0}, {"hf-llm-embedders/gemma3-bidir-a", 7, 0, 0}}) {
    INFO(dir);
    const std::string c = shared + dir + "/";
    const auto bytes = read_bytes(c + "model.safetensors");
    const std::string config = read_text(c + "config.json");
    const relpos::LoadOptions options;
    const std::string type = relpos::parse_model_config(config).model_type;
    REQUIRE(relpos::models::streams_family(type));
    relpos::models::StreamedCheckpoint sunk(options, type);
    RecordingSink sink;
    sunk.set_weight_sink(&sink);
    stream(sunk, bytes);
    std::vector<relpos::CheckpointFile> files;
    files.push_back({"model.safetensors", bytes});
    const auto weights = relpos::open_checkpoint(std::move(files));
    const int layers = relpos::parse_model_config(config).num_layers;
    const auto model = relpos::load_model(config, sunk, options);
    const auto cpu = relpos::load_model(config, *weights, options);
    same_plan_weights(model, cpu, sink, per_layer * layers + tables, derived * layers);
    if (derived) {  // nothing of q/k held: R once ([2·span, hidden] floats) instead of the projected tables
      CHECK(model->weight_bytes() < cpu->weight_bytes());
      const std::vector<std::int32_t> tokens = {1, 2, 3};
      CHECK_THROWS_WITH(model->forward(1, 3, tokens.data(), nullptr), Catch::Contains("live on the GPU"));
    }
  }
}

TEST_CASE("GGUF NomicBERT and ModernBERT files stream their linear layers to a sink by their family's naming rule") {
  for (const auto& [file, per_layer] : std::vector<std::pair<std::string, int>>{
           {gguf_dir("nomic-bert-a") + "model-q8_0.gguf", 5}, {gguf_dir("modernbert-a") + "model-f16.gguf", 4}}) {
    INFO(file);
    const auto bytes = read_bytes(file);
    const relpos::LoadOptions options;
    relpos::models::StreamedCheckpoint plain(options), sunk(options);
    RecordingSink sink;
    sunk.set_weight_sink(&sink);
    stream(plain, bytes, "model.gguf");
    stream(sunk, bytes, "model.gguf");
    const std::string config = sunk.gguf_config();
    same_plan_weights(relpos::load_model(config, sunk, options), relpos::load_model(config, plain, options), sink,
                      per_layer * relpos::parse_model_config(config).num_layers + 1);  // + token_embd
  }
}
