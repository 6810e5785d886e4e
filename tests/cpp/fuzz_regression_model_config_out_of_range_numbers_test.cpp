// Fuzzing regression (fuzz/fuzz_model_config.cpp, fuzz/RESULTS.md): numbers outside int's range and
// deeply nested values in config.json raise relpos::Error. Before the fixes, parse_model_config
//   - cast a float field to long long / int before range-checking it (get_int: d_model 3.2e72,
//     hidden_size 1e19 or 3e9 — undefined behaviour, UBSan "outside the range of representable
//     values"; the fuzzer's input is embedded below);
//   - computed BLOOM's and MPT's 4 · hidden size in int (signed overflow for hidden ≥ 2^29);
//   - put json::dump() of the offending value into the message (stack overflow on [[[[…]]]]).
#include <catch2/catch.hpp>
#include <string>

#include "relpos/config.h"
#include "relpos/error.h"

using Catch::Matchers::Contains;

namespace {

std::string config_error(const std::string& text) {
  try {
    (void)relpos::parse_model_config(text);
  } catch (const relpos::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("model config rejects float sizes beyond int's range", "[config][fuzz]") {
  // build/fuzz/artifacts/fuzz_model_config-crash-d61942a44100ed8e7533c50d537da19f055540e0, verbatim.
  CHECK_THAT(config_error(
                 R"({"model_type":"mpt","d_model":3222222222222222222222222222222222222222222222222222222222222222222222222,)"
                 R"("n_seadh":4,"expansion_ratio":2,"attn_config":{"alibi":true,"alibi_bi_bias_kv":null,"softmax_scale":0.5}})"),
             Contains("d_model"));
  CHECK_THAT(config_error(R"({"model_type":"bert","hidden_size":1e19})"), Contains("hidden_size"));
  CHECK_THAT(config_error(R"({"model_type":"bert","hidden_size":3e9})"), Contains("hidden_size"));
  CHECK_THAT(config_error(R"({"model_type":"bert","hidden_size":-3e9})"), Contains("hidden_size"));
  CHECK_THAT(config_error(R"({"model_type":"bert","hidden_size":1e308,"num_attention_heads":1})"), Contains("hidden_size"));
  CHECK_THAT(config_error(R"({"model_type":"llama","num_attention_heads":2.5})"), Contains("num_attention_heads"));
}

TEST_CASE("model config still accepts integral floats within int's range", "[config][fuzz]") {
  const auto c = relpos::parse_model_config(R"({"model_type":"bert","hidden_size":64.0,"num_attention_heads":4})");
  CHECK(c.hidden_size == 64);
  CHECK(c.head_dim == 16);
}

TEST_CASE("model config rejects BLOOM and MPT hidden sizes whose 4x MLP width overflows int", "[config][fuzz]") {
  CHECK_THAT(config_error(R"({"model_type":"bloom","hidden_size":1073741824,"n_head":1})"), Contains("hidden size"));
  CHECK_THAT(config_error(R"({"model_type":"bloom","n_embed":-1073741824,"n_head":1})"), Contains("hidden size"));
  CHECK_THAT(config_error(R"({"model_type":"mpt","d_model":2147483647,"n_heads":1})"), Contains("hidden size"));
  // expansion_ratio · d_model overflowed int when the MLP width was computed from it; accepted or
  // rejected, it must not be undefined behaviour (the sanitizer build checks).
  CHECK_NOTHROW(config_error(R"({"model_type":"mpt","d_model":65536,"n_heads":1,"expansion_ratio":65536})"));
}

TEST_CASE("model config rejects deeply nested values without overflowing the stack", "[config][fuzz]") {
  std::string deep;
  for (int i = 0; i < 300000; ++i) deep += '[';
  for (int i = 0; i < 300000; ++i) deep += ']';
  CHECK_THAT(config_error(R"({"model_type":"bert","hidden_size":)" + deep + "}"), Contains("hidden_size"));
  CHECK_THAT(config_error(R"({"model_type":"deberta-v2","pos_att_type":[)" + deep + "]}"), Contains("pos_att_type"));
  CHECK_THAT(config_error(R"({"model_type":)" + deep + "}"), Contains("model_type"));
}
