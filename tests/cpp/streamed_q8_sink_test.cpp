// q8 loads with a sink that takes int8 rows (web/webgpu/weight-sink.js beginQ8 / q8Rows; WebGPU q8 loads): each
// linear layer's and table's block is quantized as the heap path quantizes it — kernels::quantize_qs8_rows gives the
// values unpack_qs8_nk gets back from pack_qs8_nk's panels, bit for bit; a table one scale per row — and handed to
// the sink, so the heap holds neither the float32 rows nor the int8 model; the plan names those layers q8 with the
// sink's ids. DeBERTa-v2 keeps its q8 linear layers (its relative embeddings are projected through them at load).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "kernels/gemm_qs8.h"
#include "models/layers/embedding_table.h"
#include "models/layers/linear_q8.h"
#include "models/layers/streamed_checkpoint.h"
#include "plan/plan.h"
#include "relpos/checkpoint.h"
#include "relpos/error.h"
#include "relpos/model.h"
#include "relpos/safetensors.h"
#include "gguf_support.h"

using namespace relpos_test;

namespace {

struct Q8Sink final : relpos::models::WeightSink {
  struct Layer {
    std::string name;
    int rows = 0, cols = 0, received = 0;
    bool table = false;
    std::vector<std::int8_t> q;
    std::vector<std::uint8_t> mult;
    std::vector<float> scales;
  };
  std::vector<Layer> layers;
  int float_layers = 0;
  int begin(const std::string&, int, int, std::optional<relpos::DType>) override { return ++float_layers, -1; }
  void rows(int, int, int, int, const float*) override { FAIL("float32 rows in a q8 load"); }
  bool takes_q8() const override { return true; }
  int begin_q8(const std::string& name, int rows, int cols) override {
    const std::size_t G = (static_cast<std::size_t>(cols) + 31) / 32;
    layers.push_back({name, rows, cols, 0, false, std::vector<std::int8_t>(static_cast<std::size_t>(rows) * cols),
                      std::vector<std::uint8_t>(rows * G), std::vector<float>(static_cast<std::size_t>(rows))});
    return static_cast<int>(layers.size()) + 49;
  }
  void q8_rows(int id, int first, int count, int cols, const std::int8_t* q, const std::uint8_t* mult, const float* scales) override {
    Layer& l = layers.at(static_cast<std::size_t>(id - 50));
    REQUIRE(cols == l.cols);
    REQUIRE(first == l.received);
    const std::size_t G = (static_cast<std::size_t>(cols) + 31) / 32;
    std::memcpy(l.q.data() + static_cast<std::size_t>(first) * cols, q, static_cast<std::size_t>(count) * cols);
    if (mult) std::memcpy(l.mult.data() + first * G, mult, count * G);
    l.table = mult == nullptr;
    std::memcpy(l.scales.data() + first, scales, sizeof(float) * count);
    l.received += count;
  }
};

std::vector<float> random_rows(int N, int K, unsigned seed) {
  std::vector<float> w(static_cast<std::size_t>(N) * K);
  unsigned s = seed;
  for (auto& v : w) {
    s = s * 1664525u + 1013904223u;
    v = (static_cast<float>(s >> 8) / 16777216.0f - 0.5f) * std::ldexp(1.0f, static_cast<int>((s >> 4) % 7) - 3);
  }
  return w;
}

void stream(relpos::models::StreamedCheckpoint& s, const std::vector<std::uint8_t>& bytes) {
  s.begin_file("model.safetensors", static_cast<double>(bytes.size()));
  for (std::size_t at = 0; at < bytes.size(); at += 5003) s.write(bytes.data() + at, std::min<std::size_t>(5003, bytes.size() - at));
  s.end_file();
  s.finish();
}

}  // namespace

TEST_CASE("quantize_qs8_rows gives the int8 values, multipliers and scales pack_qs8_nk's panels unpack to, bit for bit") {
  for (const int K : {1, 2, 31, 32, 33, 64, 95, 384, 1000}) {
    for (const int N : {1, 3, 17, 64}) {
      INFO("K " << K << ", N " << N);
      auto w = random_rows(N, K, static_cast<unsigned>(K * 131 + N));
      for (int k = 0; k < K; ++k) w[static_cast<std::size_t>(k)] = 0.0f;  // a zero row
      if (N > 2) w[static_cast<std::size_t>(2) * K] = 1e30f;                // one group far above the rest
      if (N > 2 && K > 40) w[static_cast<std::size_t>(2) * K + 40] = -0.0f;
      const std::size_t G = (static_cast<std::size_t>(K) + 31) / 32;
      std::vector<std::int8_t> packed(relpos::kernels::packed_qs8_bytes(K, N)), q(static_cast<std::size_t>(N) * K), q2(q.size());
      std::vector<std::uint8_t> m(N * G), m2(m.size());
      std::vector<float> scales(static_cast<std::size_t>(N)), scales2(scales.size());
      relpos::kernels::pack_qs8_nk(K, N, w.data(), static_cast<std::size_t>(K), packed.data(), scales.data());
      relpos::kernels::unpack_qs8_nk(K, N, packed.data(), q.data(), m.data());
      relpos::kernels::quantize_qs8_rows(K, N, w.data(), static_cast<std::size_t>(K), q2.data(), m2.data(), scales2.data());
      CHECK(q == q2);
      CHECK(m == m2);
      CHECK(std::memcmp(scales.data(), scales2.data(), sizeof(float) * scales.size()) == 0);
    }
  }
}

TEST_CASE("a q8 load with a sink that takes int8 rows sends every linear layer and table there, as the heap path quantizes them") {
  const std::string dir = std::string(RELPOS_SHARED_DIR) + "/fixtures/hf-llm-embedders/qwen3-embed-left/";
  const auto bytes = read_bytes(dir + "model.safetensors");
  const std::string config = read_text(dir + "config.json");
  const auto whole = relpos::SafeTensors::parse(bytes, "model.safetensors");
  relpos::LoadOptions q8;
  q8.dtype = relpos::WeightFormat::Q8;
  relpos::models::StreamedCheckpoint plain(q8, "qwen3"), sunk(q8, "qwen3");
  Q8Sink sink;
  sunk.set_weight_sink(&sink);
  stream(plain, bytes);
  stream(sunk, bytes);
  CHECK(sink.float_layers == 0);
  REQUIRE(sink.layers.size() > 2);
  CHECK(sunk.converted_bytes() < plain.converted_bytes() / 4);  // norms only: the int8 model went to the sink
  for (const auto& l : sink.layers) {
    INFO(l.name);
    CHECK(l.received == l.rows);
    const auto w = whole.to_f32(l.name);
    if (l.table) {  // a scale per row
      std::vector<std::int8_t> q(w.size());
      std::vector<float> scales(static_cast<std::size_t>(l.rows));
      relpos::models::EmbeddingTable::quantize_rows(l.rows, l.cols, w.data(), q.data(), scales.data());
      CHECK(q == l.q);
      CHECK(std::memcmp(scales.data(), l.scales.data(), sizeof(float) * scales.size()) == 0);
      continue;
    }
    const relpos::models::QuantizedMatrix m(l.cols, l.rows, w.data());  // what the heap path holds
    std::vector<std::int8_t> q;
    std::vector<std::uint8_t> mult;
    m.unpack(q, mult);
    CHECK(q == l.q);
    CHECK(mult == l.mult);
    CHECK(std::memcmp(m.scales().data(), l.scales.data(), sizeof(float) * l.scales.size()) == 0);
  }
  CHECK(sink.layers.front().name == "embed_tokens.weight");

  auto model = relpos::load_model(config, sunk, q8);
  const auto plan = relpos::plan::build(*model, 1, 4, false, nullptr, 0);
  std::size_t named = 0;
  for (const auto& w : plan.weights) {
    if (relpos::plan::gpu_buffer(w) < 0) continue;
    ++named;
    CHECK(relpos::plan::is_q8(w));  // the executor reads its q8 words from the sink's buffers
    CHECK_THROWS_AS(relpos::plan::q8_values(w), relpos::Error);  // nothing of it here
  }
  CHECK(named >= sink.layers.size());
  const std::vector<std::int32_t> tokens = {5, 6, 7, 8};
  CHECK_THROWS_AS(model->forward(1, 4, tokens.data(), nullptr), relpos::Error);  // its weights live on the GPU
}

TEST_CASE("a q8 DeBERTa-v2 keeps its linear layers for the projection of its relative embeddings; its table goes to the sink") {
  const std::string dir = std::string(RELPOS_SHARED_DIR) + "/fixtures/hf/deberta-v2-b-v3like/";
  const auto bytes = read_bytes(dir + "model.safetensors");
  relpos::LoadOptions q8;
  q8.dtype = relpos::WeightFormat::Q8;
  relpos::models::StreamedCheckpoint sunk(q8, "deberta-v2");
  Q8Sink sink;
  sunk.set_weight_sink(&sink);
  stream(sunk, bytes);
  REQUIRE(!sink.layers.empty());
  for (const auto& l : sink.layers) CHECK(l.table);
  auto model = relpos::load_model(read_text(dir + "config.json"), sunk, q8);
  const auto plan = relpos::plan::build(*model, 1, 4, false, nullptr, 0);
  std::size_t q8_held = 0;
  for (const auto& w : plan.weights)
    if (relpos::plan::is_q8(w) && relpos::plan::gpu_buffer(w) < 0) q8_held += !relpos::plan::q8_values(w).q.empty();
  CHECK(q8_held > 0);
}
