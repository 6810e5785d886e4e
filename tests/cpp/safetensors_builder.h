// Test helper: builds safetensors files in memory, well-formed or deliberately broken.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace relpos_test {

// 8-byte little-endian length + header text + data bytes, exactly as given (no validation).
inline std::vector<std::uint8_t> raw_safetensors(const std::string& header, const std::vector<std::uint8_t>& data,
                                                 std::uint64_t header_len_override = ~0ull) {
  const std::uint64_t n = header_len_override != ~0ull ? header_len_override : header.size();
  std::vector<std::uint8_t> out(8 + header.size() + data.size());
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(n >> (8 * i));
  if (!header.empty()) std::memcpy(out.data() + 8, header.data(), header.size());
  if (!data.empty()) std::memcpy(out.data() + 8 + header.size(), data.data(), data.size());
  return out;
}

inline std::vector<std::uint8_t> f32_bytes(const std::vector<float>& values) {
  std::vector<std::uint8_t> out(values.size() * 4);
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());  // hosts and WASM are little-endian
  return out;
}

// Builds a well-formed F32 file tensor by tensor.
class SafeTensorsBuilder {
 public:
  SafeTensorsBuilder& add(const std::string& name, const std::vector<std::int64_t>& shape,
                          const std::vector<float>& values) {
    const auto bytes = f32_bytes(values);
    if (!header_.empty()) header_ += ",";
    header_ += "\"" + name + "\":{\"dtype\":\"F32\",\"shape\":[";
    for (std::size_t i = 0; i < shape.size(); ++i) header_ += (i ? "," : "") + std::to_string(shape[i]);
    header_ += "],\"data_offsets\":[" + std::to_string(data_.size()) + "," + std::to_string(data_.size() + bytes.size()) + "]}";
    data_.insert(data_.end(), bytes.begin(), bytes.end());
    return *this;
  }
  std::vector<std::uint8_t> bytes() const { return raw_safetensors("{" + header_ + "}", data_); }

 private:
  std::string header_;
  std::vector<std::uint8_t> data_;
};

}  // namespace relpos_test
