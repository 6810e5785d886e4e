// open_checkpoint (relpos/checkpoint.h): one safetensors file, one PyTorch checkpoint, or a sharded
// set described by an index file.
//
// Sharded sets: the index is {"metadata": …, "weight_map": {tensor: shard}}. Checks, each a
// relpos::Error naming the index: JSON object with an object weight_map of strings; shard names plain
// file names (no '/', '\\', '..', not empty); every named shard among the given files and every given
// file named by the index; every tensor of weight_map present in its shard; no tensor in two shards.
#include "relpos/checkpoint.h"

#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "io/json_text.h"
#include "io/name_match.h"
#include "io/torch_checkpoint.h"
#include "relpos/error.h"
#include "relpos/safetensors.h"

namespace relpos {
namespace {

using io::ends_with;

std::unique_ptr<Weights> open_single(CheckpointFile file) {
  if (ends_with(file.name, ".safetensors"))
    return std::make_unique<SafeTensors>(SafeTensors::parse(std::move(file.bytes), file.name));
  return std::make_unique<io::TorchCheckpoint>(io::TorchCheckpoint::parse(std::move(file.bytes), file.name));
}

class ShardedWeights final : public Weights {
 public:
  ShardedWeights(std::string name, std::vector<std::unique_ptr<Weights>> shards, std::map<std::string, std::size_t> where)
      : name_(std::move(name)), shards_(std::move(shards)), where_(std::move(where)) {}

  bool contains(const std::string& name) const override { return where_.count(name) != 0; }
  const TensorInfo& info(const std::string& name) const override { return shard(name).info(name); }
  std::vector<std::string> names() const override {
    std::vector<std::string> out;
    for (const auto& s : shards_)
      for (auto& n : s->names()) out.push_back(std::move(n));
    return out;
  }
  std::vector<float> to_f32(const std::string& name) const override { return shard(name).to_f32(name); }
  std::vector<std::int64_t> to_i64(const std::string& name) const override { return shard(name).to_i64(name); }
  const std::string& file_name() const override { return name_; }

 private:
  const Weights& shard(const std::string& name) const {
    auto it = where_.find(name);
    if (it == where_.end()) fail_value(name_ + ": missing tensor '" + name + "'");
    return *shards_[it->second];
  }
  std::string name_;
  std::vector<std::unique_ptr<Weights>> shards_;
  std::map<std::string, std::size_t> where_;  // tensor → shard
};

std::unique_ptr<Weights> open_sharded(const CheckpointFile& index, std::vector<CheckpointFile> files) {
  const std::string& f = index.name;
  auto fail = [&](const std::string& m) -> void { fail_value(f + ": " + m); };
  const std::string text(index.bytes.begin(), index.bytes.end());
  nlohmann::json json;
  try {
    json = io::parse_json(text);
  } catch (const nlohmann::json::exception& e) {
    fail(std::string("not valid JSON: ") + e.what());
  }
  if (!json.is_object()) fail("must be a JSON object with a \"weight_map\"");
  if (!json.contains("weight_map") || !json["weight_map"].is_object()) fail("missing \"weight_map\" object {tensor: shard file}");
  // One map type (string → size_t) across the readers keeps the WASM binary small.
  std::vector<std::pair<std::string, std::string>> map;  // tensor → shard file
  std::map<std::string, std::size_t> shard_names;
  for (auto it = json["weight_map"].begin(); it != json["weight_map"].end(); ++it) {
    if (!it.value().is_string()) fail("weight_map['" + it.key() + "'] must be a shard file name (a string)");
    const std::string shard = it.value().get<std::string>();
    if (shard.empty() || shard == "." || shard.find('/') != std::string::npos || shard.find('\\') != std::string::npos ||
        shard.find("..") != std::string::npos)
      fail("weight_map['" + it.key() + "']: shard '" + shard + "' must be a plain file name in the same folder (no '/', '\\', '..')");
    map.emplace_back(it.key(), shard);
    shard_names.emplace(shard, 0);
  }
  if (map.empty()) fail("weight_map is empty");

  std::vector<std::unique_ptr<Weights>> shards;
  std::map<std::string, std::size_t> shard_index;
  for (auto& file : files) {
    if (!shard_names.count(file.name)) fail("file '" + file.name + "' is not a shard named by weight_map");
    if (shard_index.count(file.name)) fail("shard '" + file.name + "' given twice");
    shard_index[file.name] = shards.size();
    shards.push_back(open_single(std::move(file)));
  }
  for (const auto& [s, unused] : shard_names)
    if (!shard_index.count(s)) fail("shard '" + s + "' named by weight_map is missing");

  std::map<std::string, std::size_t> where;
  for (std::size_t i = 0; i < shards.size(); ++i)
    for (const auto& name : shards[i]->names()) {
      auto [it, fresh] = where.emplace(name, i);
      if (!fresh)
        fail("tensor '" + name + "' is in two shards ('" + shards[it->second]->file_name() + "' and '" + shards[i]->file_name() + "')");
    }
  for (const auto& [tensor, shard] : map) {
    auto it = where.find(tensor);
    if (it == where.end() || shards[it->second]->file_name() != shard)
      fail("tensor '" + tensor + "' is listed in shard '" + shard + "' but that shard does not hold it");
  }
  return std::make_unique<ShardedWeights>(f, std::move(shards), std::move(where));
}

}  // namespace

std::unique_ptr<Weights> open_checkpoint(std::vector<CheckpointFile> files) {
  if (files.empty()) fail_value("open_checkpoint: no weight files given");
  for (std::size_t i = 0; i < files.size(); ++i)
    if (ends_with(files[i].name, ".index.json")) {
      CheckpointFile index = std::move(files[i]);
      files.erase(files.begin() + static_cast<std::ptrdiff_t>(i));
      for (const auto& other : files)
        if (ends_with(other.name, ".index.json")) fail_value(index.name + ": a second index '" + other.name + "' was given");
      return open_sharded(index, std::move(files));
    }
  if (files.size() != 1)
    fail_value("open_checkpoint: " + std::to_string(files.size()) + " weight files given without an index (*.index.json)");
  return open_single(std::move(files[0]));
}

std::unique_ptr<Weights> read_checkpoint(const std::string& folder, const std::vector<std::string>& names) {
  std::vector<CheckpointFile> files;
  for (const auto& name : names) {
    const std::string path = folder + "/" + name;
    std::ifstream in(path, std::ios::binary);
    if (!in) fail_value(path + ": cannot open file");
    std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    files.push_back({name, std::move(bytes)});
  }
  return open_checkpoint(std::move(files));
}

}  // namespace relpos
