// The GGUF reader (io/gguf.h) against gguf-py's reading of every fixture file (gguf-meta-<type>.json: metadata
// key by key, tensor types, shapes and absolute offsets, alignment, data start), and against hostile headers:
// each a relpos::Error naming the problem, nothing allocated for counts the file cannot hold.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>

#include "gguf_support.h"
#include "io/gguf.h"
#include "io/gguf_model.h"
#include "relpos/error.h"

using namespace relpos_test;
using relpos::io::GgufValueType;

namespace {

const char* kValueTypeNames[] = {"UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32", "FLOAT32",
                                 "BOOL", "STRING", "ARRAY", "UINT64", "INT64", "FLOAT64"};

void check_value(const std::string& key, const relpos::io::GgufValue& v, const nlohmann::json& want) {
  INFO("metadata " << key);
  const std::string type = want.at("type").get<std::string>();
  if (type == "ARRAY") {
    REQUIRE(v.type == GgufValueType::Array);
    CHECK(kValueTypeNames[static_cast<int>(v.element)] == want.at("element_type").get<std::string>());
    CHECK(v.count == want.at("length").get<std::uint64_t>());
    const auto& first = want.at("first");
    for (std::size_t k = 0; k < first.size(); ++k) {
      if (v.element == GgufValueType::String) CHECK(v.strings.at(k) == first[k].get<std::string>());
      else if (first[k].is_boolean()) CHECK(v.numbers.at(k) == (first[k].get<bool>() ? 1.0 : 0.0));
      else CHECK(v.numbers.at(k) == first[k].get<double>());
    }
    return;
  }
  CHECK(kValueTypeNames[static_cast<int>(v.type)] == type);
  const auto& value = want.at("value");
  if (v.type == GgufValueType::String) CHECK(v.s == value.get<std::string>());
  else if (v.type == GgufValueType::Bool) CHECK(v.b == value.get<bool>());
  else CHECK(v.number() == value.get<double>());
}

// A GGUF byte string built field by field.
struct Builder {
  std::vector<std::uint8_t> b;
  Builder& u32(std::uint32_t v) { return raw(&v, 4); }
  Builder& u64(std::uint64_t v) { return raw(&v, 8); }
  Builder& str(const std::string& s) { return u64(s.size()).raw(s.data(), s.size()); }
  Builder& raw(const void* p, std::size_t n) {
    const auto* q = static_cast<const std::uint8_t*>(p);
    b.insert(b.end(), q, q + n);
    return *this;
  }
  Builder& header(std::uint64_t tensors, std::uint64_t kv, std::uint32_t version = 3) {
    return raw("GGUF", 4).u32(version).u64(tensors).u64(kv);
  }
  Builder& pad(std::size_t to) {
    while (b.size() % to) b.push_back(0);
    return *this;
  }
};

std::string error_of(const std::vector<std::uint8_t>& b) {
  try {
    relpos::io::parse_gguf_header(b.data(), b.size(), b.size(), "t.gguf");
  } catch (const relpos::Error& e) {
    return e.what();
  }
  return "";
}

// One F32 tensor 'w' of n elements at offset `offset`, data of `data` bytes.
std::vector<std::uint8_t> one_tensor(std::uint64_t n, std::uint32_t type, std::uint64_t offset, std::size_t data) {
  Builder g;
  g.header(1, 0).str("w").u32(1).u64(n).u32(type).u64(offset).pad(32);
  g.b.resize(g.b.size() + data);
  return g.b;
}

}  // namespace

TEST_CASE("the GGUF reader reads every fixture file as gguf-py does") {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(RELPOS_SHARED_DIR) + "/fixtures/gguf")) {
    if (!entry.is_directory()) continue;
    for (const auto& f : std::filesystem::directory_iterator(entry.path())) {
      const std::string name = f.path().filename().string();
      if (name.rfind("gguf-meta-", 0) != 0) continue;
      const auto meta = read_json(f.path().string());
      const std::string gguf = entry.path().string() + "/" + meta.at("file").get<std::string>();
      INFO(gguf);
      const auto bytes = read_bytes(gguf);
      const auto h = relpos::io::parse_gguf_header(bytes.data(), bytes.size(), bytes.size(), gguf);
      REQUIRE(h);
      ++files;
      CHECK(h->alignment == meta.at("alignment").get<std::size_t>());
      CHECK(h->data_start == meta.at("data_offset").get<std::size_t>());
      for (const auto& [key, want] : meta.at("metadata").items()) {
        if (key == "GGUF.version") CHECK(h->version == want.at("value").get<std::uint32_t>());
        else if (key == "GGUF.tensor_count") CHECK(h->tensors.size() == want.at("value").get<std::size_t>());
        else if (key == "GGUF.kv_count") CHECK(h->metadata.size() == want.at("value").get<std::size_t>());
        else {
          const auto* v = h->find(key);
          REQUIRE(v);
          check_value(key, *v, want);
        }
      }
      CHECK(h->metadata.size() + 3 == meta.at("metadata").size());
      REQUIRE(h->tensors.size() == meta.at("tensors").size());
      for (const auto& [tname, want] : meta.at("tensors").items()) {
        REQUIRE(h->tensor(tname));
        const auto& t = *h->tensor(tname);
        INFO("tensor " << tname);
        CHECK(t.name == tname);
        CHECK(relpos::io::ggml_type_name(static_cast<std::uint32_t>(t.type)) == want.at("ggml_type").get<std::string>());
        CHECK(t.ne == want.at("shape").get<std::vector<std::uint64_t>>());
        CHECK(t.elements == want.at("n_elements").get<std::size_t>());
        CHECK(t.nbytes == want.at("n_bytes").get<std::size_t>());
        CHECK(t.offset == want.at("data_offset").get<std::size_t>());
      }
    }
  }
  CHECK(files == 54);
}

TEST_CASE("a GGUF file read in pieces asks for more bytes until its header is whole") {
  const auto bytes = read_bytes(gguf_dir("bert-absolute") + "model-q8_0.gguf");
  const auto whole = relpos::io::parse_gguf_header(bytes.data(), bytes.size(), bytes.size(), "f");
  REQUIRE(whole);
  for (std::size_t n : {std::size_t(0), std::size_t(3), std::size_t(100), whole->data_start / 2})
    CHECK_FALSE(relpos::io::parse_gguf_header(bytes.data(), n, relpos::io::kGgufSizeUnknown, "f"));
  const auto part = relpos::io::parse_gguf_header(bytes.data(), whole->data_start, relpos::io::kGgufSizeUnknown, "f");
  REQUIRE(part);
  CHECK(part->tensors.size() == whole->tensors.size());
}

TEST_CASE("hostile GGUF headers are Errors that name the problem") {
  using Catch::Matchers::Contains;
  CHECK_THAT(error_of({'G', 'G', 'U'}), Contains("truncated file"));
  CHECK_THAT(error_of(Builder().raw("GGML", 4).u32(3).u64(0).u64(0).b), Contains("not a GGUF file"));
  CHECK_THAT(error_of(Builder().header(0, 0, 1).b), Contains("version 1 is not supported"));
  // a 2^40 metadata count in a 24-byte file: refused before anything is read or allocated
  CHECK_THAT(error_of(Builder().header(0, std::uint64_t(1) << 40).b), Contains("metadata count 1099511627776 is more than the file could hold"));
  CHECK_THAT(error_of(Builder().header(std::uint64_t(1) << 40, 0).b), Contains("tensor count"));
  CHECK_THAT(error_of(Builder().header(0, 1).str("k").u32(9).u32(0).u64(std::uint64_t(1) << 40).b), Contains("array length"));
  CHECK_THAT(error_of(Builder().header(0, 1).u64(std::uint64_t(1) << 50).u64(0).b), Contains("string length"));
  CHECK_THAT(error_of(Builder().header(0, 1).str("k").u32(13).u32(0).b), Contains("unknown value type 13"));
  CHECK_THAT(error_of(Builder().header(0, 1).str("k").u32(9).u32(9).u64(1).b), Contains("arrays of arrays"));
  CHECK_THAT(error_of(Builder().header(0, 2).str("k").u32(4).u32(1).str("k").u32(4).u32(1).b), Contains("'k' appears twice"));
  CHECK_THAT(error_of(Builder().header(0, 1).str("general.alignment").u32(4).u32(24).b), Contains("not a power of two"));
  {
    Builder d;  // two tensors with one name
    d.header(2, 0).str("w").u32(1).u64(8).u32(0).u64(0).str("w").u32(1).u64(8).u32(0).u64(32).pad(32);
    d.b.resize(d.b.size() + 64);
    CHECK_THAT(error_of(d.b), Contains("tensor 'w' appears twice"));
  }
  CHECK_THAT(error_of(Builder().header(0, 1).str("k").u32(7).raw("\x02", 1).b), Contains("bool value 2"));
  CHECK_THAT(error_of(one_tensor(32, 99, 0, 128)), Contains("unknown ggml type 99"));
  CHECK_THAT(error_of(one_tensor(256, 10, 0, 128)), Contains("ggml type Q2_K is not supported (supported: F32, F16, Q4_0"));
  CHECK_THAT(error_of(one_tensor(33, 8, 0, 128)), Contains("row length 33 is not a multiple of the Q8_0 block (32)"));
  CHECK_THAT(error_of(one_tensor(8, 0, 0, 16)), Contains("tensor 'w': data [64, 96) runs past the end of the file (80 bytes)"));
  CHECK_THAT(error_of(one_tensor(8, 0, 4, 64)), Contains("offset 4 is not a multiple of the alignment 32"));
  CHECK_THAT(error_of(Builder().header(1, 0).str("w").u32(5).u64(0).u64(0).b), Contains("5 dimensions"));
  // 64-bit size_t: the element count overflows; WebAssembly's 32-bit size_t refuses the first dimension already
  CHECK_THAT(error_of(Builder().header(1, 0).str("w").u32(2).u64(std::uint64_t(1) << 62).u64(std::uint64_t(1) << 62).u32(0).u64(0).b),
             Contains("overflows") || Contains("dimension 4611686018427387904 is too large"));
  {
    Builder g;  // two tensors over the same bytes
    g.header(2, 0).str("a").u32(1).u64(16).u32(0).u64(0).str("b").u32(1).u64(16).u32(0).u64(64).pad(32);
    g.b.resize(g.b.size() + 128);
    INFO(error_of(g.b));
    CHECK(error_of(g.b).empty());
    Builder x;
    x.header(2, 0).str("a").u32(1).u64(16).u32(0).u64(0).str("b").u32(1).u64(16).u32(0).u64(32).pad(32);
    x.b.resize(x.b.size() + 128);
    CHECK_THAT(error_of(x.b), Contains("overlaps"));
  }
}

TEST_CASE("GGUF architectures relpos does not run are Errors listing the ones it does") {
  using Catch::Matchers::Contains;
  auto arch = [](const std::string& name) {
    Builder g;
    g.header(0, 1).str("general.architecture").u32(8).str(name);
    try {
      relpos::io::open_gguf(g.b, "t.gguf");
    } catch (const relpos::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_THAT(arch("llama"), Contains("architecture 'llama' is not supported (supported: bert, nomic-bert, modern-bert, qwen3, gemma-embedding, jina-bert-v2)"));
}
