// What a model family reads its weights from: named tensors, converted to float32 (or int64) on
// request. One interface over every checkpoint format (safetensors.h; PyTorch zip checkpoints and
// sharded sets implement it too), so model families never know which file the bytes came from.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace relpos {

enum class DType { F32, F16, BF16, I64, I32 };
const char* dtype_name(DType dtype);

struct TensorInfo {
  std::string name;
  DType dtype = DType::F32;
  std::vector<std::int64_t> shape;
  std::size_t offset = 0;  // byte offset of the data within its file (format-specific)
  std::size_t nbytes = 0;
  std::size_t elements() const;
};

class Weights {
 public:
  virtual ~Weights() = default;
  virtual bool contains(const std::string& name) const = 0;
  virtual const TensorInfo& info(const std::string& name) const = 0;  // Error naming the file if missing
  virtual std::vector<std::string> names() const = 0;
  virtual std::vector<float> to_f32(const std::string& name) const = 0;         // F32/F16/BF16 → float32
  virtual std::vector<std::int64_t> to_i64(const std::string& name) const = 0;  // I64/I32 → int64
  // The file (or set of files) for error messages.
  virtual const std::string& file_name() const = 0;
};

}  // namespace relpos
