// A StreamedCheckpoint with a LinearRowSink (the WebGPU load of web/webgpu/weight-sink.js): every linear layer's and
// embedding table's float32 rows go to the sink, block by block, bit for bit the checkpoint's values; nothing of them
// is converted into memory here, so the cannot-fit check counts only what stays (an fp32 model larger than the heap
// loads); the loaded model's linear layers and tables carry the sink's ids for the plan, and its CPU forward is an
// Error. Gemma3's table, which the family scales at load, stays here.
#include <catch2/catch.hpp>

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

struct RecordingSink final : relpos::models::LinearRowSink {
  struct Layer {
    std::string name;
    int rows = 0, cols = 0, received = 0;
    std::vector<float> values;
  };
  std::vector<Layer> layers;
  int begin(const std::string& name, int rows, int cols) override {
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
  sunk.set_linear_sink(&sink);
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
    if (with_sink) s.set_linear_sink(&sink);
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

// The plan of `streamed` (loaded through `sink`) holds the weights of `whole`, bit for bit, and `sunk_weights` of them
// (linear layers and tables) are the sink's.
void same_plan_weights(const std::unique_ptr<relpos::Model>& streamed, const std::unique_ptr<relpos::Model>& whole, const RecordingSink& sink, int sunk_weights) {
  const auto a = relpos::plan::build(*streamed, 1, 6, false, nullptr, 0);
  const auto b = relpos::plan::build(*whole, 1, 6, false, nullptr, 0);
  REQUIRE(a.weights.size() == b.weights.size());
  int sunk = 0;
  for (std::size_t i = 0; i < a.weights.size(); ++i) {
    const std::vector<float> expected = relpos::plan::weight_values(b.weights[i]);
    const int id = relpos::plan::gpu_buffer(a.weights[i]);
    const std::vector<float> got = id >= 0 ? sink.layers.at(static_cast<std::size_t>(id - 100)).values
                                           : relpos::plan::weight_values(a.weights[i]);
    sunk += id >= 0;
    REQUIRE(got.size() == expected.size());
    CHECK(std::memcmp(got.data(), expected.data(), 4 * got.size()) == 0);
  }
  CHECK(sunk == sunk_weights);
  CHECK(sink.layers.size() == static_cast<std::size_t>(sunk));
  for (const auto& l : sink.layers) CHECK(l.received == l.rows);
}

}  // namespace

TEST_CASE("DeBERTa, MPNet, ModernBERT, NomicBERT and Gemma3 checkpoints stream to a linear row sink: the plan's weights "
          "are the whole-file load's, DeBERTa's query/key projections also stay packed for the relative-embedding "
          "projection, Gemma3's scaled table stays") {
  const std::string shared = std::string(RELPOS_SHARED_DIR) + "/fixtures/";
  // fixture, linear layers per encoder layer (DeBERTa's relative projections are float tables), embedding tables sunk
  for (const auto& [dir, per_layer, tables] : std::vector<std::tuple<const char*, int, int>>{
           {"hf/deberta-v2-a-v2like", 6, 1}, {"hf/deberta-v2-b-v3like", 6, 1}, {"hf/deberta-v2-c-c2p-only", 6, 1},
           {"hf-tasks/deberta-v2-fill-mask", 6, 1}, {"hf-families/mpnet-a", 6, 2}, {"hf-families/mpnet-b", 6, 2},
           {"hf-families/modernbert-a", 4, 1}, {"hf-families/modernbert-b", 4, 1}, {"hf-families/nomic-bert-a", 5, 1},
           {"hf-families/nomic-bert-b", 5, 1}, {"hf-llm-embedders/gemma3-bidir-a", 7, 0}}) {
    INFO(dir);
    const std::string c = shared + dir + "/";
    const auto bytes = read_bytes(c + "model.safetensors");
    const std::string config = read_text(c + "config.json");
    const relpos::LoadOptions options;
    const std::string type = relpos::parse_model_config(config).model_type;
    REQUIRE(relpos::models::streams_family(type));
    relpos::models::StreamedCheckpoint sunk(options, type);
    RecordingSink sink;
    sunk.set_linear_sink(&sink);
    stream(sunk, bytes);
    std::vector<relpos::CheckpointFile> files;
    files.push_back({"model.safetensors", bytes});
    const auto weights = relpos::open_checkpoint(std::move(files));
    same_plan_weights(relpos::load_model(config, sunk, options), relpos::load_model(config, *weights, options), sink,
                      per_layer * relpos::parse_model_config(config).num_layers + tables);
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
    sunk.set_linear_sink(&sink);
    stream(plain, bytes, "model.gguf");
    stream(sunk, bytes, "model.gguf");
    const std::string config = sunk.gguf_config();
    same_plan_weights(relpos::load_model(config, sunk, options), relpos::load_model(config, plain, options), sink,
                      per_layer * relpos::parse_model_config(config).num_layers + 1);  // + token_embd
  }
}
