// A PyTorch zip checkpoint (pytorch_model.bin) as relpos::Weights. Internal header.
//
//   TorchCheckpoint::parse(bytes, file)   archive <root>/data.pkl + <root>/data/<key> storages
//                                         (+ optional <root>/version, <root>/byteorder)
// Tensors are views of storages (offset, size, stride), possibly sharing one storage; to_f32 /
// to_i64 gather them in row-major order whatever their strides.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "relpos/weights.h"

namespace relpos::io {

class TorchCheckpoint final : public Weights {
 public:
  static TorchCheckpoint parse(std::vector<std::uint8_t> bytes, const std::string& file_name);
  TorchCheckpoint(TorchCheckpoint&&) noexcept = default;
  TorchCheckpoint& operator=(TorchCheckpoint&&) noexcept = default;
  ~TorchCheckpoint() override;

  bool contains(const std::string& name) const override;
  const TensorInfo& info(const std::string& name) const override;
  std::vector<std::string> names() const override;
  std::vector<float> to_f32(const std::string& name) const override;
  std::vector<std::int64_t> to_i64(const std::string& name) const override;
  const std::string& file_name() const override { return file_name_; }

 private:
  struct View {
    TensorInfo info;             // offset = first element's byte in the file; nbytes = elements × size
    std::vector<std::int64_t> stride;  // in elements
  };
  TorchCheckpoint() = default;
  const View& view(const std::string& name) const;
  static bool contiguous(const View& v);
  template <typename T, typename Load>
  std::vector<T> gather(const View& v, Load load) const;

  std::string file_name_;
  std::vector<std::uint8_t> bytes_;
  std::vector<View> views_;
};

}  // namespace relpos::io
