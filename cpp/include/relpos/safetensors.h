// Reader for the safetensors format: 8-byte little-endian header length N, N bytes of JSON
// {name: {dtype, shape, data_offsets: [begin, end)}, "__metadata__": {...}}, then the data buffer.
// Every malformed file raises relpos::Error naming the file (and the tensor where relevant).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "relpos/weights.h"

namespace relpos {

class SafeTensors final : public Weights {
 public:
  // Parses a whole file held in memory; `file_name` is used in error messages.
  static SafeTensors parse(std::vector<std::uint8_t> bytes, const std::string& file_name);
  static SafeTensors read_file(const std::string& path);
  SafeTensors(SafeTensors&&) noexcept = default;
  SafeTensors& operator=(SafeTensors&&) noexcept = default;
  ~SafeTensors() override;

  bool contains(const std::string& name) const override;
  const TensorInfo& info(const std::string& name) const override;  // Error if missing
  std::vector<std::string> names() const override;                  // in file order of data offsets

  std::vector<float> to_f32(const std::string& name) const override;         // F32/F16/BF16 → float32
  std::vector<std::int64_t> to_i64(const std::string& name) const override;  // I64/I32 → int64
  const std::string& file_name() const override { return file_name_; }

 private:
  SafeTensors() = default;
  std::string file_name_;
  std::vector<std::uint8_t> bytes_;
  std::vector<TensorInfo> tensors_;
};

}  // namespace relpos
