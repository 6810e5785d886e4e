// Fuzzing regression (fuzz/fuzz_safetensors.cpp invariant "non-empty tensors pairwise disjoint",
// fuzz/RESULTS.md): an empty tensor sorted between two overlapping ones hid the overlap. The
// check compared each tensor only with its neighbour in offset order and skipped pairs involving
// an empty tensor, so a [0,16) · [4,4) · [8,12) file was accepted with 'c' aliasing 'a'.
#include <catch2/catch.hpp>
#include <string>

#include "relpos/error.h"
#include "relpos/safetensors.h"
#include "safetensors_builder.h"

using Catch::Matchers::Contains;
using relpos_test::raw_safetensors;

namespace {

std::string parse_error(const std::string& header, std::size_t data_bytes) {
  try {
    (void)relpos::SafeTensors::parse(raw_safetensors(header, std::vector<std::uint8_t>(data_bytes, 0)),
                                     "overlap.safetensors");
  } catch (const relpos::Error& e) {
    CHECK(e.kind() == relpos::ErrorKind::Value);
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("safetensors reader detects an overlap hidden behind an empty tensor", "[safetensors][fuzz]") {
  // The input found by the fuzz invariant (minimised).
  CHECK_THAT(parse_error(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                         R"("b":{"dtype":"F32","shape":[0],"data_offsets":[4,4]},)"
                         R"("c":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
                         16),
             Contains("overlap.safetensors") && Contains("'c'") && Contains("overlaps tensor 'a'"));
  // Several empty tensors in between, and a tensor overlapping only the far end.
  CHECK_THAT(parse_error(R"({"a":{"dtype":"I64","shape":[2],"data_offsets":[0,16]},)"
                         R"("e1":{"dtype":"F16","shape":[0,3],"data_offsets":[2,2]},)"
                         R"("e2":{"dtype":"BF16","shape":[5,0],"data_offsets":[9,9]},)"
                         R"("c":{"dtype":"I32","shape":[1],"data_offsets":[12,16]}})",
                         16),
             Contains("'c'") && Contains("overlaps tensor 'a'"));
}

TEST_CASE("safetensors reader still accepts empty tensors anywhere among disjoint ones", "[safetensors][fuzz]") {
  const auto st = relpos::SafeTensors::parse(
      raw_safetensors(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                      R"("e":{"dtype":"F32","shape":[0],"data_offsets":[4,4]},)"
                      R"("c":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
                      std::vector<std::uint8_t>(16, 0)),
      "ok.safetensors");
  CHECK(st.names().size() == 3);
  CHECK(st.to_f32("c").size() == 2);
  CHECK(st.to_f32("e").empty());
}
