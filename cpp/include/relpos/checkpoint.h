// Opening a Hugging Face checkpoint's weight files as one relpos::Weights:
//   - one model.safetensors;
//   - one pytorch_model.bin (torch.save zip format, PyTorch ≥ 1.6; read by a restricted unpickler
//     that never imports or runs anything);
//   - a sharded set: the index (model.safetensors.index.json or pytorch_model.bin.index.json,
//     {"metadata": …, "weight_map": {tensor: shard file}}) plus every shard it names.
//
//   std::vector<relpos::CheckpointFile> files = {{"model.safetensors", bytes}};
//   std::unique_ptr<relpos::Weights> w = relpos::open_checkpoint(std::move(files));
//   auto model = relpos::load_model(config_text, *w);
//
// Files are told apart by name: "*.index.json" is an index, "*.safetensors" a safetensors file,
// anything else a PyTorch checkpoint. Every problem raises relpos::Error naming the file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "relpos/weights.h"

namespace relpos {

struct CheckpointFile {
  std::string name;  // plain file name, e.g. "model-00001-of-00002.safetensors"
  std::vector<std::uint8_t> bytes;
};

std::unique_ptr<Weights> open_checkpoint(std::vector<CheckpointFile> files);

// Reads `names` from `folder` and opens them (native tools and tests).
std::unique_ptr<Weights> read_checkpoint(const std::string& folder, const std::vector<std::string>& names);

}  // namespace relpos
