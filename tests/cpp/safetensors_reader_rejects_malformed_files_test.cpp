// Every malformed safetensors file raises relpos::Error naming the file (and tensor where relevant).
#include <catch2/catch.hpp>
#include <string>

#include "relpos/error.h"
#include "relpos/safetensors.h"
#include "safetensors_builder.h"

using relpos::SafeTensors;
using relpos_test::raw_safetensors;

namespace {

// The error message parse() raises, or "" if it does not throw.
std::string parse_error(const std::vector<std::uint8_t>& bytes) {
  try {
    (void)SafeTensors::parse(bytes, "bad.safetensors");
  } catch (const relpos::Error& e) {
    CHECK(e.kind() == relpos::ErrorKind::Value);
    return e.what();
  }
  return "";
}

std::string tensor(const std::string& dtype, const std::string& shape, const std::string& offsets) {
  return R"("t":{"dtype":")" + dtype + R"(","shape":)" + shape + R"(,"data_offsets":)" + offsets + "}";
}

const std::vector<std::uint8_t> kData16(16, 0);

}  // namespace

using Catch::Matchers::Contains;

TEST_CASE("safetensors reader rejects a file shorter than the header length field", "[safetensors]") {
  CHECK_THAT(parse_error({}), Contains("bad.safetensors") && Contains("truncated"));
  CHECK_THAT(parse_error({1, 0, 0}), Contains("truncated"));
}

TEST_CASE("safetensors reader rejects a header length past the end of the file", "[safetensors]") {
  auto bytes = raw_safetensors("{}", {}, 3);
  CHECK_THAT(parse_error(bytes), Contains("bad.safetensors") && Contains("header length 3"));
  CHECK_THAT(parse_error(raw_safetensors("{}", {}, ~0ull - 1)), Contains("past the end"));
}

TEST_CASE("safetensors reader rejects a header that is not JSON or not an object", "[safetensors]") {
  CHECK_THAT(parse_error(raw_safetensors("{\"t\": [", {})), Contains("bad.safetensors") && Contains("not valid JSON"));
  CHECK_THAT(parse_error(raw_safetensors("[1, 2]", {})), Contains("must be a JSON object"));
  CHECK_THAT(parse_error(raw_safetensors("{\"t\": 3}", {})), Contains("'t'") && Contains("entry must be a JSON object"));
  CHECK_THAT(parse_error(raw_safetensors("{\"t\": {\"dtype\": \"F32\", \"shape\": [1]}}", kData16)),
             Contains("'t'") && Contains("data_offsets"));
}

TEST_CASE("safetensors reader rejects data offsets outside the data buffer", "[safetensors]") {
  CHECK_THAT(parse_error(raw_safetensors("{" + tensor("F32", "[5]", "[0,20]") + "}", kData16)),
             Contains("bad.safetensors") && Contains("'t'") && Contains("out of range"));
  CHECK_THAT(parse_error(raw_safetensors("{" + tensor("F32", "[0]", "[8,4]") + "}", kData16)),
             Contains("'t'") && Contains("begin after end"));
  CHECK_THAT(parse_error(raw_safetensors("{" + tensor("F32", "[1]", "[-4,0]") + "}", kData16)),
             Contains("'t'") && Contains("non-negative"));
  CHECK_THAT(parse_error(raw_safetensors("{" + tensor("F32", "[1]", "[0]") + "}", kData16)),
             Contains("'t'") && Contains("[begin, end]"));
  CHECK_THAT(parse_error(raw_safetensors("{" + tensor("F32", "[1]", "[0, 1.5]") + "}", kData16)),
             Contains("'t'") && Contains("integer"));
}

TEST_CASE("safetensors reader rejects overlapping tensors", "[safetensors]") {
  const std::string header = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                             R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})";
  CHECK_THAT(parse_error(raw_safetensors(header, kData16)),
             Contains("bad.safetensors") && Contains("'b'") && Contains("overlaps tensor 'a'"));
}

TEST_CASE("safetensors reader rejects offsets that do not match dtype times shape", "[safetensors]") {
  CHECK_THAT(parse_error(raw_safetensors("{" + tensor("F32", "[3]", "[0,8]") + "}", kData16)),
             Contains("'t'") && Contains("needs 12"));
  CHECK_THAT(parse_error(raw_safetensors("{" + tensor("F16", "[2,2]", "[0,16]") + "}", kData16)),
             Contains("'t'") && Contains("needs 8"));
  CHECK_THAT(parse_error(raw_safetensors("{" + tensor("F32", "[2,-1]", "[0,8]") + "}", kData16)),
             Contains("'t'") && Contains("shape entry"));
  CHECK_THAT(parse_error(raw_safetensors("{" + tensor("F32", "2", "[0,8]") + "}", kData16)),
             Contains("'t'") && Contains("shape must be an array"));
}

TEST_CASE("safetensors reader rejects sizes and offsets that overflow", "[safetensors]") {
  // 2^64 elements overflow size_t on every platform; 2^62 F32 elements overflow the byte count.
  CHECK_THAT(parse_error(raw_safetensors("{" + tensor("F32", "[65536,65536,65536,65536]", "[0,16]") + "}", kData16)),
             Contains("'t'") && Contains("overflow"));
  CHECK_THAT(parse_error(raw_safetensors("{" + tensor("F32", "[4611686018427387904]", "[0,16]") + "}", kData16)),
             Contains("'t'"));
  CHECK_THAT(parse_error(raw_safetensors("{" + tensor("F32", "[1]", "[18446744073709551612,18446744073709551616]") + "}",
                                         kData16)),
             Contains("'t'"));
  CHECK_THAT(parse_error(raw_safetensors("{" + tensor("F32", "[1]", "[18446744073709551612,18446744073709551615]") + "}",
                                         kData16)),
             Contains("'t'"));
}

TEST_CASE("safetensors reader rejects unsupported dtypes", "[safetensors]") {
  CHECK_THAT(parse_error(raw_safetensors("{" + tensor("F64", "[2]", "[0,16]") + "}", kData16)),
             Contains("bad.safetensors") && Contains("'t'") && Contains("unsupported dtype 'F64'"));
  CHECK_THAT(parse_error(raw_safetensors(R"({"t":{"dtype":7,"shape":[1],"data_offsets":[0,4]}})", kData16)),
             Contains("'t'") && Contains("dtype must be a string"));
}

TEST_CASE("safetensors reader names the file and tensor when a tensor is missing", "[safetensors]") {
  auto st = SafeTensors::parse(relpos_test::SafeTensorsBuilder().add("present", {1}, {1.0f}).bytes(), "bad.safetensors");
  try {
    (void)st.to_f32("absent");
    FAIL("no error");
  } catch (const relpos::Error& e) {
    CHECK_THAT(std::string(e.what()), Contains("bad.safetensors") && Contains("missing tensor 'absent'"));
  }
  CHECK_THROWS_AS(st.info("absent"), relpos::Error);
}

TEST_CASE("safetensors reader names the path when a file cannot be opened", "[safetensors]") {
  CHECK_THROWS_WITH(SafeTensors::read_file("/nonexistent/dir/x.safetensors"),
                    Contains("/nonexistent/dir/x.safetensors"));
}
