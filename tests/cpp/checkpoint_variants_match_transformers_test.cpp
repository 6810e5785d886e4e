// Every Hugging Face fixture re-saved as PyTorch checkpoints and sharded sets
// (scripts/make-checkpoint-variants.py → build/checkpoint-variants) and opened with
// relpos::read_checkpoint reproduces Transformers 4.34.1 with the tolerances of
// hf_fixture_models_match_transformers_test.cpp: pytorch_model.bin (f32), sharded .bin + index,
// sharded safetensors + index, transposed (non-contiguous) tensors, tensors sharing one storage, a
// custom archive root folder and ZIP64 records. The f16 .bin gives exactly the outputs of the same
// F16 weights read from safetensors.
#include "hf_fixture_support.h"
#include "relpos/checkpoint.h"

namespace {

const char* kCases[] = {"deberta-v2-a-v2like", "deberta-v2-b-v3like", "deberta-v2-c-c2p-only", "bert-absolute",
                        "bert-relative-key", "bert-relative-key-query", "distilbert-sinusoidal", "roformer-rotary",
                        "t5-a-classic", "t5-b-v1_1-gated-gelu", "bloom-alibi", "mpt-alibi", "llama-rope", "transfo-xl"};

std::string variant_dir(const std::string& c, const std::string& v) {
  return std::string(RELPOS_CHECKPOINT_DIR) + "/" + c + "/" + v;
}

std::vector<std::string> shards(const std::string& stem, const std::string& ext, const std::string& index) {
  std::vector<std::string> out;
  for (int i = 1; i <= 3; ++i) out.push_back(stem + "-0000" + std::to_string(i) + "-of-00003" + ext);
  out.push_back(index);
  return out;
}

void check_variant(const std::string& c, const std::string& v, const std::vector<std::string>& files) {
  INFO(c << " / " << v);
  const auto weights = relpos::read_checkpoint(variant_dir(c, v), files);
  relpos_test::run_hf_fixture(c, weights.get());
}

}  // namespace

TEST_CASE("pytorch_model.bin variants of every fixture match transformers", "[checkpoint]") {
  for (const char* c : kCases)
    for (const char* v : {"bin-f32", "bin-noncontiguous", "bin-shared-storage", "bin-custom-root", "bin-zip64"})
      check_variant(c, v, {"pytorch_model.bin"});
}

TEST_CASE("sharded .bin and safetensors sets of every fixture match transformers", "[checkpoint]") {
  for (const char* c : kCases) {
    check_variant(c, "bin-sharded", shards("pytorch_model", ".bin", "pytorch_model.bin.index.json"));
    check_variant(c, "safetensors-sharded", shards("model", ".safetensors", "model.safetensors.index.json"));
  }
}

TEST_CASE("f16 pytorch_model.bin gives exactly the outputs of the same f16 safetensors", "[checkpoint]") {
  for (const char* c : kCases) {
    INFO(c);
    const auto bin = relpos::read_checkpoint(variant_dir(c, "bin-f16"), {"pytorch_model.bin"});
    const auto st = relpos::read_checkpoint(variant_dir(c, "safetensors-f16"), {"model.safetensors"});
    REQUIRE(bin->info(bin->names().front()).dtype == relpos::DType::F16);
    const auto a = relpos_test::run_fixture_batch(c, *bin), b = relpos_test::run_fixture_batch(c, *st);
    REQUIRE(a.hidden_states.size() == b.hidden_states.size());
    CHECK(a.last_hidden_state.data == b.last_hidden_state.data);
    for (std::size_t i = 0; i < a.hidden_states.size(); ++i) CHECK(a.hidden_states[i].data == b.hidden_states[i].data);
    // f16 weights are not the f32 reference: the outputs must differ from the f32 .bin's.
    const auto f32 = relpos::read_checkpoint(variant_dir(c, "bin-f32"), {"pytorch_model.bin"});
    CHECK(relpos_test::run_fixture_batch(c, *f32).last_hidden_state.data != a.last_hidden_state.data);
  }
}

TEST_CASE("a non-contiguous tensor is gathered in row-major order", "[checkpoint]") {
  const std::string c = "bert-absolute";
  const auto nc = relpos::read_checkpoint(variant_dir(c, "bin-noncontiguous"), {"pytorch_model.bin"});
  const auto ref = relpos::SafeTensors::read_file(relpos_test::fixture_dir(c) + "model.safetensors");
  for (const auto& name : ref.names()) {
    INFO(name);
    if (ref.info(name).dtype == relpos::DType::F32)
      CHECK(nc->to_f32(name) == ref.to_f32(name));
    else
      CHECK(nc->to_i64(name) == ref.to_i64(name));
  }
}
