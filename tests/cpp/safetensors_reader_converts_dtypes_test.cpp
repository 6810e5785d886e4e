// SafeTensors reads F32/F16/BF16 as float32 and I64/I32 as int64, with shapes and offsets intact.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "relpos/error.h"
#include "relpos/safetensors.h"
#include "safetensors_builder.h"

using relpos::SafeTensors;
using relpos_test::raw_safetensors;

namespace {

std::vector<std::uint8_t> u16_bytes(const std::vector<std::uint16_t>& v) {
  std::vector<std::uint8_t> out;
  for (auto x : v) {
    out.push_back(static_cast<std::uint8_t>(x & 0xFF));
    out.push_back(static_cast<std::uint8_t>(x >> 8));
  }
  return out;
}

std::vector<std::uint8_t> le_bytes(std::uint64_t x, int n) {
  std::vector<std::uint8_t> out;
  for (int i = 0; i < n; ++i) out.push_back(static_cast<std::uint8_t>(x >> (8 * i)));
  return out;
}

}  // namespace

TEST_CASE("safetensors reader returns F32 tensors with their shapes", "[safetensors]") {
  auto bytes = relpos_test::SafeTensorsBuilder()
                   .add("a", {2, 3}, {1, 2, 3, 4, 5, 6})
                   .add("b", {}, {-7.5f})
                   .add("empty", {0, 4}, {})
                   .bytes();
  auto st = SafeTensors::parse(bytes, "mem.safetensors");
  REQUIRE(st.file_name() == "mem.safetensors");
  REQUIRE(st.contains("a"));
  REQUIRE_FALSE(st.contains("c"));
  CHECK(st.info("a").shape == std::vector<std::int64_t>{2, 3});
  CHECK(st.info("a").elements() == 6);
  CHECK(st.info("a").nbytes == 24);
  CHECK(st.to_f32("a") == std::vector<float>{1, 2, 3, 4, 5, 6});
  CHECK(st.to_f32("b") == std::vector<float>{-7.5f});
  CHECK(st.info("b").shape.empty());
  CHECK(st.to_f32("empty").empty());
}

TEST_CASE("safetensors reader converts F16 exactly, including subnormals, infinities and NaN", "[safetensors]") {
  // 1, −2, 65504 (max), 2^−24 (smallest subnormal), 2^−14 (smallest normal), +inf, −0, NaN, 0.333251953125
  auto data = u16_bytes({0x3C00, 0xC000, 0x7BFF, 0x0001, 0x0400, 0x7C00, 0x8000, 0x7E00, 0x3555});
  auto bytes = raw_safetensors(R"({"h":{"dtype":"F16","shape":[9],"data_offsets":[0,18]}})", data);
  auto v = SafeTensors::parse(bytes, "h.safetensors").to_f32("h");
  REQUIRE(v.size() == 9);
  CHECK(v[0] == 1.0f);
  CHECK(v[1] == -2.0f);
  CHECK(v[2] == 65504.0f);
  CHECK(v[3] == std::ldexp(1.0f, -24));
  CHECK(v[4] == std::ldexp(1.0f, -14));
  CHECK(v[5] == std::numeric_limits<float>::infinity());
  CHECK(v[6] == 0.0f);
  CHECK(std::signbit(v[6]));
  CHECK(std::isnan(v[7]));
  CHECK(v[8] == 0.333251953125f);
}

TEST_CASE("safetensors reader converts BF16 by widening the top 16 bits", "[safetensors]") {
  auto data = u16_bytes({0x3F80, 0xC040, 0x4049, 0xFF80});
  auto bytes = raw_safetensors(R"({"b":{"dtype":"BF16","shape":[2,2],"data_offsets":[0,8]}})", data);
  auto v = SafeTensors::parse(bytes, "b.safetensors").to_f32("b");
  CHECK(v[0] == 1.0f);
  CHECK(v[1] == -3.0f);
  CHECK(v[2] == 3.140625f);
  CHECK(v[3] == -std::numeric_limits<float>::infinity());
}

TEST_CASE("safetensors reader widens I32 and I64 to int64 with sign", "[safetensors]") {
  std::vector<std::uint8_t> data;
  for (std::int64_t x : {std::int64_t{5}, std::int64_t{-1}, std::int64_t{1} << 40}) {
    auto b = le_bytes(static_cast<std::uint64_t>(x), 8);
    data.insert(data.end(), b.begin(), b.end());
  }
  for (std::int32_t x : {7, -3}) {
    auto b = le_bytes(static_cast<std::uint32_t>(x), 4);
    data.insert(data.end(), b.begin(), b.end());
  }
  auto bytes = raw_safetensors(
      R"({"__metadata__":{"format":"pt"},"l":{"dtype":"I64","shape":[3],"data_offsets":[0,24]},)"
      R"("i":{"dtype":"I32","shape":[2],"data_offsets":[24,32]}})",
      data);
  auto st = SafeTensors::parse(bytes, "ints.safetensors");
  CHECK(st.to_i64("l") == std::vector<std::int64_t>{5, -1, std::int64_t{1} << 40});
  CHECK(st.to_i64("i") == std::vector<std::int64_t>{7, -3});
  CHECK(st.names() == std::vector<std::string>{"l", "i"});  // data-offset order, metadata skipped
  CHECK(st.info("i").dtype == relpos::DType::I32);
  CHECK(std::string(relpos::dtype_name(relpos::DType::BF16)) == "BF16");
}

TEST_CASE("safetensors reader refuses to read an integer tensor as float and vice versa", "[safetensors]") {
  auto bytes = raw_safetensors(R"({"i":{"dtype":"I32","shape":[1],"data_offsets":[0,4]}})", le_bytes(1, 4));
  auto st = SafeTensors::parse(bytes, "i.safetensors");
  CHECK_THROWS_AS(st.to_f32("i"), relpos::Error);
  auto f = SafeTensors::parse(relpos_test::SafeTensorsBuilder().add("f", {1}, {1.0f}).bytes(), "f.safetensors");
  CHECK_THROWS_AS(f.to_i64("f"), relpos::Error);
}

TEST_CASE("safetensors reader reads the shared Hugging Face fixture files", "[safetensors]") {
  const std::string dir = std::string(RELPOS_SHARED_DIR) + "/fixtures/hf/t5-a-classic/";
  auto model = SafeTensors::read_file(dir + "model.safetensors");
  CHECK(model.info("encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight").shape ==
        std::vector<std::int64_t>{8, 4});
  CHECK(model.to_f32("shared.weight") == model.to_f32("encoder.embed_tokens.weight"));
  auto expected = SafeTensors::read_file(dir + "expected.safetensors");
  auto buckets = expected.to_i64("aux.relative_position_bucket");
  REQUIRE(buckets.size() == 40u * 40u);
  CHECK(buckets[0] == 0);  // distance 0 → bucket 0
}
