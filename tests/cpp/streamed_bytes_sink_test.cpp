// A StreamedCheckpoint with a WeightSink that takes_bytes (web/webgpu/weight-sink.js writeBytes): float32 tensors bound
// for the sink go to it as the file's bytes — any split of the writes, a float split across two of them included,
// tensors at unaligned file offsets too — and nothing converts them; BF16 / F16 ones too where the sink takes those
// (the GPU's widens them itself), else, and for an odd number of 2-byte elements, as float32 rows.
// Direct bytes (direct_bytes / take_direct / bytes_before_direct, what web/weights.js drives from the chunk it read):
// the caller hands those tensors to the sink itself and write() receives only the rest, with the same result.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "gguf_support.h"
#include "io/dtype_convert.h"
#include "models/layers/streamed_checkpoint.h"
#include "plan/plan.h"
#include "relpos/checkpoint.h"
#include "relpos/error.h"
#include "relpos/model.h"
#include "relpos/safetensors.h"

using namespace relpos_test;

namespace {

// Records what arrives: bytes (byte sinks) or rows, per layer, and checks the order (each byte or row once, ascending).
// A sink that takes 2-byte floats (`half`) widens them into its float32 copy as the GPU's does.
struct Sink final : relpos::models::WeightSink {
  explicit Sink(bool bytes, bool half = false) : bytes_(bytes), half_(half) {}
  struct Layer {
    std::string name;
    int rows = 0, cols = 0;
    std::size_t received = 0;  // bytes (writeBytes) or rows
    int byte_calls = 0, row_calls = 0;
    std::vector<std::uint8_t> data;  // float32 bytes
    std::optional<relpos::DType> arrival;  // begin's: the bytes' dtype, or rows
  };
  std::vector<Layer> layers;
  int begin(const std::string& name, int rows, int cols, std::optional<relpos::DType> bytes) override {
    REQUIRE((!bytes || takes_bytes(*bytes)));
    layers.push_back({name, rows, cols, 0, 0, 0, std::vector<std::uint8_t>(4 * static_cast<std::size_t>(rows) * cols, 0xEE), bytes});
    return static_cast<int>(layers.size()) - 1 + 7;
  }
  void rows(int id, int first, int count, int cols, const float* values) override {
    Layer& l = layers.at(static_cast<std::size_t>(id - 7));
    REQUIRE(!l.arrival);
    REQUIRE(cols == l.cols);
    REQUIRE(static_cast<std::size_t>(first) == l.received);
    std::memcpy(l.data.data() + 4 * static_cast<std::size_t>(first) * l.cols, values, 4 * static_cast<std::size_t>(count) * l.cols);
    l.received += static_cast<std::size_t>(count);
    ++l.row_calls;
  }
  bool takes_bytes(relpos::DType source) const override {
    return bytes_ && (source == relpos::DType::F32 || (half_ && (source == relpos::DType::F16 || source == relpos::DType::BF16)));
  }
  void bytes(int id, std::size_t offset, const std::uint8_t* p, std::size_t n) override {
    Layer& l = layers.at(static_cast<std::size_t>(id - 7));
    REQUIRE(l.arrival);
    REQUIRE(offset == l.received);
    REQUIRE(offset % 4 == 0);
    REQUIRE(n % 4 == 0);
    const std::size_t size = relpos::io::dtype_size(*l.arrival);
    REQUIRE((offset + n) / size * 4 <= l.data.size());
    for (std::size_t i = 0; i < n; i += size) {  // as the GPU's sink widens them
      const float v = relpos::io::load_float(*l.arrival, p + i);
      std::memcpy(l.data.data() + (offset + i) / size * 4, &v, 4);
    }
    l.received += n;
    ++l.byte_calls;
  }
  const Layer& named(const std::string& name) const {
    for (const auto& l : layers)
      if (l.name == name) return l;
    FAIL("no layer " << name);
    return layers.front();
  }
  bool bytes_, half_;
};

void put_u64(std::vector<std::uint8_t>& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

// A decoder-named checkpoint (the "" rule: *_proj.weight linear): q_proj F32 [64, 12], k_proj BF16 [64, 12], v_proj F16
// [64, 12] (±0, a subnormal, ±inf among its values), o_proj BF16 [3, 5] (15 elements: 30 bytes, not whole 4-byte
// words), a norm gain F32 [12] (a float that stays), 6 bytes of padding before q_proj; the header is 1 byte longer than
// its JSON (odd): every tensor starts at an unaligned file offset.
struct Handmade {
  std::vector<std::uint8_t> file;
  std::vector<float> q, k, v, o, norm;
};
Handmade handmade() {
  Handmade h;
  for (int i = 0; i < 64 * 12; ++i) h.q.push_back(0.25f * static_cast<float>((i * 37) % 101) - 12.0f);
  for (int i = 0; i < 64 * 12; ++i) h.k.push_back(static_cast<float>((i * 13) % 17) - 8.0f);  // exact in BF16
  std::vector<std::uint16_t> v_bits;
  for (int i = 0; i < 64 * 12; ++i) v_bits.push_back(static_cast<std::uint16_t>((i * 40503u) & 0xFFFFu));
  for (std::uint16_t b : {0x0000, 0x8000, 0x0001, 0x7C00, 0xFC00}) v_bits[b % 97] = b;
  for (std::uint16_t& b : v_bits)
    if ((b & 0x7C00) == 0x7C00 && (b & 0x3FF) != 0) b &= 0xFC00;  // no NaN (one is not equal to itself)
  for (std::uint16_t b : v_bits) h.v.push_back(relpos::io::half_to_float(b));
  for (int i = 0; i < 15; ++i) h.o.push_back(static_cast<float>(i) - 7.0f);
  for (int i = 0; i < 12; ++i) h.norm.push_back(1.0f + 0.125f * static_cast<float>(i));
  const std::size_t norm_end = 48, q_begin = norm_end + 6, q_end = q_begin + 4 * h.q.size(), k_end = q_end + 2 * h.k.size(),
                    v_end = k_end + 2 * v_bits.size(), o_end = v_end + 2 * h.o.size();
  const auto entry = [](const std::string& name, const char* dtype, const std::string& shape, std::size_t a, std::size_t b) {
    return "\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":[" + std::to_string(a) + "," +
           std::to_string(b) + "]}";
  };
  std::string json = "{" + entry("model.norm.weight", "F32", "[12]", 0, norm_end) + "," +
                     entry("layers.0.self_attn.q_proj.weight", "F32", "[64,12]", q_begin, q_end) + "," +
                     entry("layers.0.self_attn.k_proj.weight", "BF16", "[64,12]", q_end, k_end) + "," +
                     entry("layers.0.self_attn.v_proj.weight", "F16", "[64,12]", k_end, v_end) + "," +
                     entry("layers.0.self_attn.o_proj.weight", "BF16", "[3,5]", v_end, o_end) + "}";
  if (json.size() % 2 == 0) json += ' ';
  put_u64(h.file, json.size());
  h.file.insert(h.file.end(), json.begin(), json.end());
  REQUIRE((8 + json.size()) % 4 != 0);
  const auto floats = [&](const std::vector<float>& v) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(v.data());
    h.file.insert(h.file.end(), p, p + 4 * v.size());
  };
  const auto bf16 = [&](const std::vector<float>& v) {
    for (float x : v) {
      std::uint32_t bits;
      std::memcpy(&bits, &x, 4);
      h.file.push_back(static_cast<std::uint8_t>(bits >> 16));
      h.file.push_back(static_cast<std::uint8_t>(bits >> 24));
    }
  };
  floats(h.norm);
  h.file.insert(h.file.end(), 6, 0);
  floats(h.q);
  bf16(h.k);
  for (std::uint16_t b : v_bits) {
    h.file.push_back(static_cast<std::uint8_t>(b & 0xFF));
    h.file.push_back(static_cast<std::uint8_t>(b >> 8));
  }
  bf16(h.o);
  return h;
}

std::vector<std::uint8_t> bytes_of(const std::vector<float>& v) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(v.data());
  return {p, p + 4 * v.size()};
}

// Feeds `file` in pieces of 1, 2, …, `longest` bytes (cycling; all of it at once when `longest` is its size); with `direct`, as web/weights.js does: direct bytes
// (whole floats) to the sink from the file's own buffer, the rest through write() up to the next direct byte.
// Returns the bytes write() received and the number of pieces.
struct Fed {
  std::size_t written, pieces;
};
Fed feed(relpos::models::StreamedCheckpoint& s, Sink& sink, const std::vector<std::uint8_t>& file, std::size_t longest,
         bool direct) {
  s.begin_file("model.safetensors", static_cast<double>(file.size()));
  std::size_t written = 0, piece = 0;
  for (std::size_t at = 0; at < file.size();) {
    const std::size_t chunk_end = std::min(file.size(), at + (longest >= file.size() ? longest : 1 + piece % longest));
    ++piece;
    while (at < chunk_end) {
      const std::size_t d = direct ? std::min(s.direct_bytes(), chunk_end - at) & ~std::size_t{3} : 0;
      if (d > 0) {
        const auto target = s.take_direct(d);
        sink.bytes(target.id, target.offset, file.data() + at, d);
        at += d;
        continue;
      }
      const std::size_t before = direct ? s.bytes_before_direct() : 0;
      const std::size_t n = std::min(chunk_end - at, before > 0 ? before : chunk_end - at);
      s.write(file.data() + at, n);
      written += n;
      at += n;
    }
  }
  s.end_file();
  s.finish();
  return {written, piece};
}

}  // namespace

TEST_CASE("a sink that takes bytes receives float32 tensors as the file's bytes, any split, and BF16 ones as rows") {
  const Handmade h = handmade();
  const relpos::LoadOptions options;
  for (const std::size_t longest : {std::size_t{1}, std::size_t{3}, std::size_t{7}, std::size_t{4096}, h.file.size()}) {
    for (const bool direct : {false, true}) {
      INFO("pieces up to " << longest << " bytes, direct " << direct);
      relpos::models::StreamedCheckpoint s(options);
      Sink sink(true);
      s.set_weight_sink(&sink);
      const Fed fed = feed(s, sink, h.file, longest, direct);
      const Sink::Layer& q = sink.named("layers.0.self_attn.q_proj.weight");
      const Sink::Layer& k = sink.named("layers.0.self_attn.k_proj.weight");
      CHECK(q.data == bytes_of(h.q));
      CHECK(q.received == 4 * h.q.size());
      CHECK(q.row_calls == 0);
      CHECK(k.data == bytes_of(h.k));  // BF16 → float32 rows
      CHECK(k.byte_calls == 0);
      CHECK(k.received == 64);
      CHECK(sink.named("layers.0.self_attn.v_proj.weight").data == bytes_of(h.v));  // F16 → float32 rows
      CHECK(s.to_f32("model.norm.weight") == h.norm);  // stays, as float32
      // through write(): the rest of the file, and at most 3 + 3 bytes of each piece that splits a float of q
      if (direct) CHECK(fed.written <= h.file.size() - 4 * h.q.size() + 6 * fed.pieces);
      if (direct && longest == h.file.size()) CHECK(fed.written == h.file.size() - 4 * h.q.size());
      if (!direct) CHECK(fed.written == h.file.size());
    }
  }
}

TEST_CASE("a sink that takes BF16 and F16 bytes receives them as the file holds them, any split, direct or not") {
  const Handmade h = handmade();
  const relpos::LoadOptions options;
  const std::size_t words = 4 * h.q.size() + 2 * h.k.size() + 2 * h.v.size();  // what may skip write()
  for (const std::size_t longest : {std::size_t{1}, std::size_t{3}, std::size_t{7}, std::size_t{4096}, h.file.size()}) {
    for (const bool direct : {false, true}) {
      INFO("pieces up to " << longest << " bytes, direct " << direct);
      relpos::models::StreamedCheckpoint s(options);
      Sink sink(true, true);
      s.set_weight_sink(&sink);
      const Fed fed = feed(s, sink, h.file, longest, direct);
      const Sink::Layer& q = sink.named("layers.0.self_attn.q_proj.weight");
      const Sink::Layer& k = sink.named("layers.0.self_attn.k_proj.weight");
      const Sink::Layer& v = sink.named("layers.0.self_attn.v_proj.weight");
      const Sink::Layer& o = sink.named("layers.0.self_attn.o_proj.weight");
      CHECK(q.data == bytes_of(h.q));
      CHECK(k.arrival == relpos::DType::BF16);
      CHECK(k.data == bytes_of(h.k));
      CHECK(k.received == 2 * h.k.size());
      CHECK(k.row_calls == 0);
      CHECK(v.arrival == relpos::DType::F16);
      CHECK(v.data == bytes_of(h.v));
      CHECK(v.row_calls == 0);
      CHECK_FALSE(o.arrival);  // 30 bytes: not whole words, so rows
      CHECK(o.data == bytes_of(h.o));
      CHECK(o.byte_calls == 0);
      CHECK(s.to_f32("model.norm.weight") == h.norm);
      if (direct && longest == h.file.size()) CHECK(fed.written == h.file.size() - words);
      if (direct) CHECK(fed.written <= h.file.size() - words + 6 * fed.pieces);
      if (!direct) CHECK(fed.written == h.file.size());
    }
  }
}

TEST_CASE("a sink without bytes, a q8 load or a file without float32 linear tensors sends no direct bytes") {
  const Handmade h = handmade();
  relpos::LoadOptions q8;
  q8.dtype = relpos::WeightFormat::Q8;
  for (const bool takes : {false, true}) {
    relpos::models::StreamedCheckpoint s(takes ? q8 : relpos::LoadOptions{});
    Sink sink(takes);
    s.set_weight_sink(&sink);
    s.begin_file("model.safetensors", static_cast<double>(h.file.size()));
    for (std::size_t at = 0; at < h.file.size(); ++at) {
      CHECK(s.direct_bytes() == 0);
      CHECK(s.bytes_before_direct() == static_cast<std::size_t>(-1));
      s.write(h.file.data() + at, 1);
    }
    s.end_file();
    if (!takes) CHECK(sink.named("layers.0.self_attn.q_proj.weight").data == bytes_of(h.q));  // as rows
  }
}

TEST_CASE("take_direct refuses what direct_bytes does not offer: a Error, and the stream goes on") {
  const Handmade h = handmade();
  relpos::models::StreamedCheckpoint s{relpos::LoadOptions{}};
  Sink sink(true);
  s.set_weight_sink(&sink);
  s.begin_file("model.safetensors", static_cast<double>(h.file.size()));
  CHECK_THROWS_AS(s.take_direct(4), relpos::Error);  // before the header
  CHECK(s.bytes_before_direct() == 8);  // the header's length, then the header
  s.write(h.file.data(), 3);
  CHECK(s.bytes_before_direct() == 5);
  std::size_t at = 8 + 100;
  s.write(h.file.data() + 3, at - 3);
  const std::size_t header = s.bytes_before_direct();
  CHECK(header + at == 8 + std::size_t{h.file[0]} + 256 * std::size_t{h.file[1]});
  s.write(h.file.data() + at, header);
  at += header;
  const std::size_t before = s.bytes_before_direct();
  CHECK(s.direct_bytes() == 0);
  s.write(h.file.data() + at, before);  // the norm gain and the padding
  at += before;
  REQUIRE(s.direct_bytes() == 4 * h.q.size());
  CHECK_THROWS_AS(s.take_direct(6), relpos::Error);
  CHECK_THROWS_AS(s.take_direct(4 * h.q.size() + 4), relpos::Error);
  CHECK_THROWS_AS(s.take_direct(0), relpos::Error);
  s.write(h.file.data() + at, 2);  // half a float through write: it waits for the rest
  at += 2;
  CHECK(s.direct_bytes() == 0);
  CHECK(s.bytes_before_direct() == 2);
  s.write(h.file.data() + at, 2);
  at += 2;
  const std::size_t rest = s.direct_bytes();
  CHECK(rest == 4 * h.q.size() - 4);
  const auto target = s.take_direct(rest);
  CHECK(target.offset == 4);
  sink.bytes(target.id, target.offset, h.file.data() + at, rest);
  at += rest;
  CHECK(s.bytes_before_direct() == static_cast<std::size_t>(-1));  // no float32 tensor for the sink follows
  s.write(h.file.data() + at, h.file.size() - at);
  s.end_file();
  CHECK(sink.named("layers.0.self_attn.q_proj.weight").data == bytes_of(h.q));
  CHECK(sink.named("layers.0.self_attn.k_proj.weight").data == bytes_of(h.k));
}

TEST_CASE("a fixture checkpoint streamed with direct bytes gives the sink the checkpoint's floats and a plan naming them") {
  const std::string dir = std::string(RELPOS_SHARED_DIR) + "/fixtures/hf-llm-embedders/qwen3-embed-left/";
  const auto file = read_bytes(dir + "model.safetensors");
  const auto whole = relpos::SafeTensors::parse(file, "model.safetensors");
  const relpos::LoadOptions options;
  relpos::models::StreamedCheckpoint s(options, "qwen3");
  Sink sink(true);
  s.set_weight_sink(&sink);
  const Fed fed = feed(s, sink, file, 65536, true);
  std::size_t sunk = 0;
  for (const auto& l : sink.layers) {
    INFO(l.name);
    CHECK(l.data == bytes_of(whole.to_f32(l.name)));
    if (l.arrival) sunk += l.received;
  }
  REQUIRE(sunk > file.size() / 2);
  CHECK(fed.written <= file.size() - sunk + 6 * fed.pieces);  // only the rest (and split floats) through write()
  auto model = relpos::load_model(read_text(dir + "config.json"), s, options);
  const auto plan = relpos::plan::build(*model, 1, 4, false, nullptr, 0);
  std::size_t named = 0;
  for (const auto& w : plan.weights) named += relpos::plan::gpu_buffer(w) >= 0;
  CHECK(named >= sink.layers.size());
}

// Found by fuzz/fuzz_streamed_checkpoint.cpp while this change was made: an empty F32 tensor's bytes (a null pointer)
// reached memcpy, which UBSan reports. Empty tensors, next to a scalar F16 one, read back empty with every sink.
TEST_CASE("empty float32 tensors stream with and without a sink and read back empty") {
  std::vector<std::uint8_t> file;
  const std::string json = R"({"e":{"dtype":"F32","shape":[0,4],"data_offsets":[0,0]},"s":{"dtype":"F16","shape":[],"data_offsets":[0,2]}})";
  put_u64(file, json.size());
  file.insert(file.end(), json.begin(), json.end());
  file.push_back(0x00);
  file.push_back(0x3C);  // 1.0 in F16
  for (const int mode : {0, 1, 2}) {
    relpos::models::StreamedCheckpoint s(relpos::LoadOptions{}, "");
    Sink sink(mode == 2);
    if (mode > 0) s.set_weight_sink(&sink);
    feed(s, sink, file, 3, mode == 2);
    CHECK(s.to_f32("e").empty());
    CHECK(s.to_f32("s") == std::vector<float>{1.0f});
  }
}
