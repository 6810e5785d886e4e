// Restricted unpickler for the data.pkl of a PyTorch checkpoint (torch.save of a state dict).
// Internal header; the opcode and global allow-lists are in pickle.cpp.
//
//   unpickle_state_dict(data, size, where) → StateDict
//     interprets the pickle as data only: a dict (or collections.OrderedDict) of name → tensor,
//     tensors rebuilt by torch._utils._rebuild_tensor_v2 / _rebuild_parameter over storages named
//     by persistent ids ('storage', torch.<Type>Storage, key, location, numel). Nothing is imported
//     or executed; any other global, opcode or shape of data raises relpos::Error naming it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "relpos/weights.h"

namespace relpos::io {

struct PickledStorage {
  std::string key;  // the archive entry <root>/data/<key>
  DType dtype = DType::F32;
  std::uint64_t numel = 0;
};

struct PickledTensor {
  std::string name;
  std::size_t storage = 0;  // index into StateDict::storages
  std::uint64_t offset = 0;  // storage offset, in elements
  std::vector<std::int64_t> shape, stride;  // non-negative
};

struct StateDict {
  std::vector<PickledStorage> storages;
  std::vector<PickledTensor> tensors;  // in pickle order, names unique
};

StateDict unpickle_state_dict(const std::uint8_t* data, std::size_t size, const std::string& where);

}  // namespace relpos::io
