// Little-endian element loads and dtype conversions shared by the checkpoint readers
// (safetensors.cpp, torch_checkpoint.cpp). Internal header.
//
//   dtype_size(d)            bytes per element of d
//   load_u16/u32/u64(p)      little-endian loads from unaligned bytes
//   half_to_float(h)         IEEE binary16 → binary32, exact (subnormals, ±inf, NaN)
//   load_float(d, p)         one F32/F16/BF16 element at p as float32 (d must be a float dtype)
//   load_int(d, p)           one I64/I32 element at p as int64 (d must be an integer dtype)
#pragma once

#include <cstdint>
#include <cstring>

#include "relpos/weights.h"

namespace relpos::io {

inline std::size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::F32: return 4;
    case DType::F16: return 2;
    case DType::BF16: return 2;
    case DType::I64: return 8;
    case DType::I32: return 4;
  }
  return 0;
}

inline bool is_float_dtype(DType d) { return d == DType::F32 || d == DType::F16 || d == DType::BF16; }

inline std::uint16_t load_u16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] | (p[1] << 8)); }
inline std::uint32_t load_u32(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
         (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}
inline std::uint64_t load_u64(const std::uint8_t* p) {
  return static_cast<std::uint64_t>(load_u32(p)) | (static_cast<std::uint64_t>(load_u32(p + 4)) << 32);
}
inline float bits_to_float(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1Fu;
  std::uint32_t mantissa = h & 0x3FFu;
  if (exponent == 0x1F) return bits_to_float(sign | 0x7F800000u | (mantissa << 13));  // inf / NaN
  if (exponent == 0) {
    if (mantissa == 0) return bits_to_float(sign);  // ±0
    // Subnormal: value = mantissa · 2^−24; normalise.
    int shift = 0;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      ++shift;
    }
    mantissa &= 0x3FFu;
    exponent = static_cast<std::uint32_t>(127 - 15 + 1 - shift);
    return bits_to_float(sign | (exponent << 23) | (mantissa << 13));
  }
  return bits_to_float(sign | ((exponent + 127 - 15) << 23) | (mantissa << 13));
}

inline float load_float(DType d, const std::uint8_t* p) {
  switch (d) {
    case DType::F16: return half_to_float(load_u16(p));
    case DType::BF16: return bits_to_float(static_cast<std::uint32_t>(load_u16(p)) << 16);
    default: return bits_to_float(load_u32(p));
  }
}

inline std::int64_t load_int(DType d, const std::uint8_t* p) {
  return d == DType::I32 ? static_cast<std::int64_t>(static_cast<std::int32_t>(load_u32(p)))
                         : static_cast<std::int64_t>(load_u64(p));
}

}  // namespace relpos::io
