// io/tensor_bytes.h: the readers' whole-tensor loops, compiled -O3 (CMakeLists.txt says why).
#include "io/tensor_bytes.h"

#include <cstring>

#include "io/dtype_convert.h"

namespace relpos::io {

void decode_floats(DType d, const std::uint8_t* p, std::size_t n, float* o) {
  switch (d) {
    case DType::F32:  // little-endian on a little-endian host: the bytes are the floats (wasm32, x86-64, arm64)
      if constexpr (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
        if (n > 0) std::memcpy(o, p, 4 * n);  // (an empty tensor's pointers may be null)
      } else {
        for (std::size_t i = 0; i < n; ++i) o[i] = bits_to_float(load_u32(p + 4 * i));
      }
      break;
    case DType::F16:
      for (std::size_t i = 0; i < n; ++i) o[i] = half_to_float(load_u16(p + 2 * i));
      break;
    case DType::BF16:
      for (std::size_t i = 0; i < n; ++i) o[i] = bits_to_float(static_cast<std::uint32_t>(load_u16(p + 2 * i)) << 16);
      break;
    default:
      break;
  }
}

std::vector<float> floats_of(DType d, const std::uint8_t* p, std::size_t n) {
  std::vector<float> out(n);
  decode_floats(d, p, n, out.data());
  return out;
}

std::vector<std::int64_t> ints_of(DType d, const std::uint8_t* p, std::size_t n) {
  std::vector<std::int64_t> out(n);
  std::int64_t* o = out.data();
  if (d == DType::I64)
    for (std::size_t i = 0; i < n; ++i) o[i] = static_cast<std::int64_t>(load_u64(p + 8 * i));
  else if (d == DType::I32)
    for (std::size_t i = 0; i < n; ++i) o[i] = static_cast<std::int32_t>(load_u32(p + 4 * i));
  return out;
}

std::vector<float> zeroed_floats(std::size_t n) { return std::vector<float>(n); }

void free_bytes(std::vector<std::uint8_t>& bytes) { std::vector<std::uint8_t>().swap(bytes); }

}  // namespace relpos::io
