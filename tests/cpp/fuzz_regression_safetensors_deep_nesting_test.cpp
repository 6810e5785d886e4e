// Fuzzing regression (fuzz/fuzz_safetensors.cpp, fuzz/RESULTS.md): a header value nested hundreds
// of thousands of levels deep ("shape": [[[[…]]]]) is rejected with relpos::Error. Before the fix,
// SafeTensors::parse put value.dump() into the error message, and nlohmann's serializer recursed
// once per level: stack overflow (ASan: stack-overflow in serializer::dump) instead of an Error.
// The parse itself is iterative; only the message building recursed.
#include <catch2/catch.hpp>
#include <string>

#include "relpos/error.h"
#include "relpos/safetensors.h"
#include "safetensors_builder.h"

using Catch::Matchers::Contains;
using relpos_test::raw_safetensors;

namespace {

// The fuzzer's input, scaled up: {"a":{"dtype":"F32","shape":[[[…]]],"data_offsets":[0,0]}} with
// `depth` levels of brackets (20 000 already passed; 200 000 overflowed the 8 MB stack under ASan).
std::string nested(const std::string& open, const std::string& close, int depth, const std::string& inner = "") {
  std::string s;
  s.reserve(static_cast<std::size_t>(depth) * (open.size() + close.size()) + inner.size());
  for (int i = 0; i < depth; ++i) s += open;
  s += inner;
  for (int i = 0; i < depth; ++i) s += close;
  return s;
}

std::string parse_error(const std::string& header) {
  try {
    (void)relpos::SafeTensors::parse(raw_safetensors(header, {}), "deep.safetensors");
  } catch (const relpos::Error& e) {
    return e.what();
  }
  return "";
}

constexpr int kDepth = 300000;

}  // namespace

TEST_CASE("safetensors reader rejects a deeply nested shape entry without overflowing the stack",
          "[safetensors][fuzz]") {
  const std::string header =
      R"({"a":{"dtype":"F32","shape":)" + nested("[", "]", kDepth) + R"(,"data_offsets":[0,0]}})";
  CHECK_THAT(parse_error(header), Contains("deep.safetensors") && Contains("'a'") && Contains("shape entry"));
}

TEST_CASE("safetensors reader rejects deeply nested data_offsets, dtype and shape values without overflowing the stack",
          "[safetensors][fuzz]") {
  const std::string deep_object = nested(R"({"x":)", "}", kDepth / 2, "0");
  CHECK_THAT(parse_error(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":)" + nested("[", "]", kDepth) + "}}"),
             Contains("'a'") && Contains("data_offsets"));
  CHECK_THAT(parse_error(R"({"a":{"dtype":)" + deep_object + R"(,"shape":[1],"data_offsets":[0,4]}})"),
             Contains("'a'") && Contains("dtype must be a string"));
  CHECK_THAT(parse_error(R"({"a":{"dtype":"F32","shape":)" + deep_object + R"(,"data_offsets":[0,4]}})"),
             Contains("'a'") && Contains("shape must be an array"));
  // A huge shape whose overflow is detected before its deep last entry is looked at.
  CHECK_THAT(parse_error(R"({"a":{"dtype":"F32","shape":[4294967295,4294967295,4294967295,)" + nested("[", "]", kDepth) +
                         R"(],"data_offsets":[0,4]}})"),
             Contains("'a'") && Contains("overflows"));
}
