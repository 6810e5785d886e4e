// The ggml block decoders (io/gguf_blocks.h) against gguf-py's numpy dequantization of every tensor of the
// qwen3-kquant files (expected-dequant-<type>.safetensors; bit-identical to ggml's own to_float): F32, Q8_0,
// Q4_0, Q4_K, Q5_K and Q6_K blocks, every float32 bit pattern equal. The tiny cases' Q5_0 / F16 / BF16 tensors
// are checked against the F32 file of their case at each type's rounding bound.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <map>

#include "gguf_support.h"
#include "io/gguf.h"
#include "io/gguf_blocks.h"
#include "relpos/safetensors.h"

using namespace relpos_test;

namespace {

std::vector<float> decode(const std::vector<std::uint8_t>& bytes, const relpos::io::GgufTensor& t) {
  std::vector<float> out(t.elements);
  relpos::io::decode_ggml_blocks(t.type, bytes.data() + t.offset, out.size(), out.data());
  return out;
}

}  // namespace

TEST_CASE("GGUF block decoders give gguf-py's float32 values bit for bit") {
  std::map<std::string, int> seen;
  for (const char* type : {"q8_0", "q4_0", "q4_k_m", "q5_k_m", "q6_k"}) {
    const std::string dir = gguf_dir("qwen3-kquant");
    const auto bytes = read_bytes(dir + "model-" + type + ".gguf");
    const auto h = relpos::io::parse_gguf_header(bytes.data(), bytes.size(), bytes.size(), type);
    REQUIRE(h);
    const auto expected = relpos::SafeTensors::read_file(dir + "expected-dequant-" + type + ".safetensors");
    for (const auto& t : h->tensors) {
      INFO(type << " " << t.name << " " << relpos::io::ggml_type_name(static_cast<std::uint32_t>(t.type)));
      const auto got = decode(bytes, t);
      const auto want = expected.to_f32(t.name);
      REQUIRE(got.size() == want.size());
      std::size_t differing = 0;
      for (std::size_t i = 0; i < got.size(); ++i) differing += std::memcmp(&got[i], &want[i], 4) != 0;
      CHECK(differing == 0);
      ++seen[relpos::io::ggml_type_name(static_cast<std::uint32_t>(t.type))];
    }
  }
  for (const char* t : {"F32", "Q8_0", "Q4_0", "Q4_K", "Q5_K", "Q6_K"}) CHECK(seen[t] > 0);
}

TEST_CASE("F16, BF16 and Q5_0 tensors decode to their F32 originals within the type's rounding") {
  const std::string dir = gguf_dir("qwen3-embed-right");
  const auto f32b = read_bytes(dir + "model-f32.gguf");
  const auto f32 = relpos::io::parse_gguf_header(f32b.data(), f32b.size(), f32b.size(), "f32");
  REQUIRE(f32);
  std::map<std::string, int> seen;
  for (const char* type : {"f16", "bf16", "q4_k_m"}) {  // q4_k_m of a tiny case: Q5_0 (rows < 256)
    const auto bytes = read_bytes(dir + "model-" + type + ".gguf");
    const auto h = relpos::io::parse_gguf_header(bytes.data(), bytes.size(), bytes.size(), type);
    REQUIRE(h);
    for (const auto& t : h->tensors) {
      const std::string tn = relpos::io::ggml_type_name(static_cast<std::uint32_t>(t.type));
      INFO(type << " " << t.name << " " << tn);
      const auto got = decode(bytes, t);
      const auto want = decode(f32b, *f32->tensor(t.name));
      // relative bound per element for F16 (2^-11) and BF16 (2^-8); Q5_0 / Q8_0: one step of the block's scale
      // (max |x| / 16, / 127; the step, not half of it: ggml clamps the far end of the signed range)
      float amax = 0;
      for (float x : want) amax = std::max(amax, std::fabs(x));
      double worst = 0;
      for (std::size_t i = 0; i < got.size(); ++i) {
        const double e = std::fabs(static_cast<double>(got[i]) - want[i]);
        const double bound = tn == "F16" ? std::fabs(want[i]) * 0x1p-11 + 1e-7 : tn == "BF16" ? std::fabs(want[i]) * 0x1p-8
                           : tn == "Q5_0" ? amax / 16.0 : tn == "Q8_0" ? amax / 127.0 : 0.0;
        if (e > bound) worst = std::max(worst, e - bound);
      }
      CHECK(worst == 0);
      ++seen[tn];
    }
  }
  for (const char* t : {"F16", "BF16", "Q5_0"}) CHECK(seen[t] > 0);
}

// Q4_1, Q5_0 and Q5_1 have no fixture file with its dequantized values: known answers worked out by hand from ggml's
// block definitions (ggml-common.h: d and m as fp16, then qh as 4 little-endian bytes, then 16 bytes of nibbles —
// low nibbles are elements 0-15, high nibbles 16-31; qh bit j is the fifth bit of element j).
TEST_CASE("Q4_1, Q5_0 and Q5_1 blocks decode to their known answers") {
  using relpos::io::GgmlType;
  auto run = [](GgmlType t, std::vector<std::uint8_t> block) {
    std::vector<float> y(32);
    relpos::io::decode_ggml_blocks(t, block.data(), 32, y.data());
    return y;
  };
  const std::uint8_t one[2] = {0x00, 0x3C}, half[2] = {0x00, 0x38}, two[2] = {0x00, 0x40};  // fp16 1, 0.5, 2
  std::vector<std::uint8_t> q41 = {one[0], one[1], half[0], half[1]};
  for (int j = 0; j < 16; ++j) q41.push_back(static_cast<std::uint8_t>((j << 4) | (15 - j)));
  const auto a = run(GgmlType::Q4_1, q41);  // d · q + m
  for (int j = 0; j < 16; ++j) {
    CHECK(a[j] == static_cast<float>(15 - j) + 0.5f);
    CHECK(a[j + 16] == static_cast<float>(j) + 0.5f);
  }
  std::vector<std::uint8_t> q50 = {two[0], two[1], 0x01, 0x00, 0x01, 0x00};  // qh bits 0 and 16
  for (int j = 0; j < 16; ++j) q50.push_back(0x21);
  const auto b = run(GgmlType::Q5_0, q50);  // d · (q5 − 16)
  CHECK(b[0] == 2.0f * (17 - 16));
  CHECK(b[16] == 2.0f * (18 - 16));
  for (int j = 1; j < 16; ++j) {
    CHECK(b[j] == 2.0f * (1 - 16));
    CHECK(b[j + 16] == 2.0f * (2 - 16));
  }
  std::vector<std::uint8_t> q51 = {one[0], one[1], half[0], half[1], 0x00, 0x80, 0x00, 0x80};  // qh bits 15 and 31
  for (int j = 0; j < 16; ++j) q51.push_back(0xF0);
  const auto c = run(GgmlType::Q5_1, q51);  // d · q5 + m
  for (int j = 0; j < 15; ++j) {
    CHECK(c[j] == 0.5f);
    CHECK(c[j + 16] == 15.5f);
  }
  CHECK(c[15] == 16.5f);
  CHECK(c[31] == 31.5f);
}
