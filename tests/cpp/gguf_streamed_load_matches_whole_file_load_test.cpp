// A GGUF file converted as it streams in (StreamedCheckpoint, chunks of any size, file size known or not)
// gives the same model as the whole file read at once (io/gguf_model.h): every output bit equal, fp32 and
// q8, for every family; a file cut short is an Error naming the tensor that runs past its end.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>

#include "gguf_support.h"
#include "io/gguf_model.h"
#include "models/layers/streamed_checkpoint.h"
#include "relpos/error.h"
#include "relpos/model.h"

using namespace relpos_test;

namespace {

void stream(relpos::models::StreamedCheckpoint& s, const std::vector<std::uint8_t>& bytes, std::size_t cut, bool sized,
            unsigned seed) {
  s.begin_file("model.gguf", sized ? static_cast<double>(cut) : -1.0);
  std::mt19937 rng(seed);
  for (std::size_t at = 0; at < cut;) {
    const std::size_t n = std::min<std::size_t>(cut - at, 1 + rng() % 5000);
    s.write(bytes.data() + at, n);
    at += n;
  }
  s.end_file();
}

}  // namespace

TEST_CASE("a GGUF file streamed in chunks loads the same model as the whole file") {
  const std::vector<std::pair<const char*, const char*>> files = {
      {"qwen3-embed-left", "q4_k_m"}, {"qwen3-reranker", "q8_0"}, {"gemma3-st-embed", "dense-q8_0"},
      {"gemma3-bidir-a", "bf16"},     {"bert-absolute", "q8_0"},  {"nomic-bert-a", "f16"},
      {"modernbert-a", "q8_0"},       {"qwen3-kquant", "q4_k_m"}};
  unsigned seed = 1;
  for (const auto& [c, type] : files)
    for (const auto dtype : {relpos::WeightFormat::F32, relpos::WeightFormat::Q8}) {
      INFO(c << " " << type << " " << relpos::weight_format_name(dtype));
      const auto bytes = read_bytes(gguf_dir(c) + "model-" + type + ".gguf");
      relpos::LoadOptions options;
      options.dtype = dtype;
      const auto whole = relpos::io::open_gguf(bytes, type);
      auto a = relpos::load_model(whole.config_json, *whole.weights, options);
      relpos::models::StreamedCheckpoint s(options);
      stream(s, bytes, bytes.size(), seed % 2 == 0, seed);
      ++seed;
      s.finish();
      REQUIRE(s.gguf_header());
      CHECK(s.gguf_config() == whole.config_json);
      auto b = relpos::load_model(s.gguf_config(), s, options);
      const std::vector<std::int32_t> ids = {5, 17, 33, 2, 9, 41, 60, 7};
      const auto x = a->forward(1, 8, ids.data(), nullptr), y = b->forward(1, 8, ids.data(), nullptr);
      REQUIRE(x.last_hidden_state.data.size() == y.last_hidden_state.data.size());
      CHECK(std::memcmp(x.last_hidden_state.data.data(), y.last_hidden_state.data.data(), 4 * x.last_hidden_state.data.size()) == 0);
    }
}

TEST_CASE("a GGUF file cut short while streaming is an Error naming the tensor past the end") {
  using Catch::Matchers::Contains;
  const auto bytes = read_bytes(gguf_dir("bert-absolute") + "model-q8_0.gguf");
  for (bool sized : {true, false}) {
    relpos::models::StreamedCheckpoint s({});
    try {
      stream(s, bytes, bytes.size() - 100, sized, 3);
      FAIL("no Error");
    } catch (const relpos::Error& e) {
      CHECK_THAT(e.what(), Contains("runs past the end of the file"));
    }
    relpos::models::StreamedCheckpoint t({});
    try {
      stream(t, bytes, 200, sized, 4);
      FAIL("no Error");
    } catch (const relpos::Error& e) {
      CHECK_THAT(e.what(), Contains("tensor count 37 is more than the file could hold"));
    }
  }
}
