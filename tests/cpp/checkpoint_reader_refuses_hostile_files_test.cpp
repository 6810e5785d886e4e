// Hostile and malformed PyTorch checkpoints (scripts/make-checkpoint-variants.py → hostile/) and
// sharded indexes are refused with a relpos::Error naming the global, opcode or problem; nothing in
// a pickle is imported or executed.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "io/pickle.h"
#include "relpos/checkpoint.h"
#include "relpos/error.h"

namespace {

std::string refusal(const std::string& folder, const std::vector<std::string>& files) {
  try {
    relpos::read_checkpoint(folder, files);
  } catch (const relpos::Error& e) {
    return e.what();
  }
  FAIL("accepted: " << folder << "/" << files.front());
  return "";
}

std::string hostile(const std::string& name) { return refusal(std::string(RELPOS_CHECKPOINT_DIR) + "/hostile", {name}); }

std::string unpickle_error(const std::string& bytes) {
  try {
    relpos::io::unpickle_state_dict(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), "t.pkl");
  } catch (const relpos::Error& e) {
    return e.what();
  }
  FAIL("accepted pickle");
  return "";
}

std::vector<std::uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

}  // namespace

using Catch::Matchers::Contains;
using namespace std::string_literals;

TEST_CASE("pickles naming dangerous or unknown globals are refused by name", "[checkpoint]") {
  CHECK_THAT(hostile("os-system.bin"), Contains("refused global 'os.system'"));
  CHECK_THAT(hostile("posix-system.bin"), Contains("refused global 'posix.system'"));
  CHECK_THAT(hostile("builtins-eval.bin"), Contains("refused global 'builtins.eval'"));
  CHECK_THAT(hostile("builtin-eval-reduce.bin"), Contains("refused global '__builtin__.eval'"));
  CHECK_THAT(hostile("unknown-global.bin"), Contains("refused global 'mylib.layers.CustomTensor'"));
  CHECK_THAT(hostile("os-system.bin"), Contains("never imports or runs code"));
}

TEST_CASE("malformed archives and storages are refused with the problem named", "[checkpoint]") {
  CHECK_THAT(hostile("truncated.bin"), Contains("no end-of-central-directory record"));
  CHECK_THAT(hostile("compressed.bin"), Contains("is compressed (method 8)"));
  CHECK_THAT(hostile("bad-persistent-id.bin"), Contains("bad persistent id"));
  CHECK_THAT(hostile("storage-too-small.bin"), Contains("storage too small for the view"));
  CHECK_THAT(hostile("unsupported-dtype.bin"), Contains("'torch.DoubleStorage' is not supported"));
  CHECK_THAT(hostile("legacy.bin"), Contains("legacy PyTorch format"));
  CHECK_THAT(hostile("legacy.bin"), Contains("PyTorch ≥ 1.6"));
}

TEST_CASE("the unpickler refuses opcodes outside a state dict and broken stacks", "[checkpoint]") {
  CHECK_THAT(unpickle_error("\x80\x02" "cbuiltins\nexec\n."), Contains("refused global 'builtins.exec'"));
  CHECK_THAT(unpickle_error("\x80\x02" "I1\n."), Contains("unsupported pickle opcode 0x49 (INT)"));
  CHECK_THAT(unpickle_error("\x80\x02" "}("), Contains("truncated pickle"));
  CHECK_THAT(unpickle_error("\x80\x02" "t."), Contains("MARK missing"));
  CHECK_THAT(unpickle_error("\x80\x02" "R."), Contains("stack underflow"));
  CHECK_THAT(unpickle_error("\x80\x02" "h\x05."), Contains("memo entry 5 used before"));
  CHECK_THAT(unpickle_error("\x80\x02" "]."), Contains("holds a list, not a state dict"));
  CHECK_THAT(unpickle_error("\x80\x02" "}X\x01\x00\x00\x00" "aK\x01s."s), Contains("entry 'a' is a int, not a tensor"));
  // An OrderedDict instance passed to REDUCE as a callable is data, not a function.
  CHECK_THAT(unpickle_error("\x80\x02" "ccollections\nOrderedDict\n)R)R."), Contains("REDUCE of a dict is not allowed"));
  // A self-containing dict (a cycle) is harmless data: refused only because it is not a tensor.
  CHECK_THAT(unpickle_error("\x80\x02" "}q\x00X\x01\x00\x00\x00" "ah\x00s."s), Contains("entry 'a' is a dict"));
}

TEST_CASE("sharded indexes are validated against their shards", "[checkpoint]") {
  const std::string dir = std::string(RELPOS_CHECKPOINT_DIR) + "/bert-absolute/safetensors-sharded";
  const std::string shard1 = "model-00001-of-00003.safetensors";
  auto shard = [&](const std::string& name) {
    std::ifstream in(dir + "/" + name, std::ios::binary);
    return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  auto open = [&](const std::string& index, std::vector<relpos::CheckpointFile> files) -> std::string {
    files.push_back({"model.safetensors.index.json", bytes_of(index)});
    try {
      relpos::open_checkpoint(std::move(files));
    } catch (const relpos::Error& e) {
      return e.what();
    }
    return "accepted";
  };
  const auto s1 = shard(shard1);
  CHECK_THAT(open(R"({"weight_map": {"a": "../secret.safetensors"}})", {}), Contains("must be a plain file name"));
  CHECK_THAT(open(R"({"weight_map": {"a": "sub/x.safetensors"}})", {}), Contains("must be a plain file name"));
  CHECK_THAT(open(R"({"weight_map": {"a": "x.safetensors"}})", {}), Contains("shard 'x.safetensors' named by weight_map is missing"));
  CHECK_THAT(open(R"({"weight_map": {"nope": ")" + shard1 + "\"}}", {{shard1, s1}}), Contains("tensor 'nope' is listed in shard"));
  CHECK_THAT(open(R"({"metadata": {}})", {}), Contains("missing \"weight_map\""));
  CHECK_THAT(open("[1", {}), Contains("not valid JSON"));
  // The same shard under two names: every tensor is in two shards.
  const std::string both = R"({"weight_map": {"x": "a.safetensors", "y": "b.safetensors"}})";
  CHECK_THAT(open(both, {{"a.safetensors", s1}, {"b.safetensors", s1}}), Contains("is in two shards"));
  CHECK_THAT(open(R"({"weight_map": {"x": "a.safetensors"}})", {{"a.safetensors", s1}, {"c.bin", s1}}),
             Contains("'c.bin' is not a shard named by weight_map"));
}
