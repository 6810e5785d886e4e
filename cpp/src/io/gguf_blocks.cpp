// ggml block decoders (see io/gguf_blocks.h). The arithmetic follows ggml-quants.c's dequantize_row_*
// operation by operation (products in float32, in the same order) so that results are bit-identical.
#include "io/gguf_blocks.h"

#include "io/dtype_convert.h"
#include "io/tensor_bytes.h"

namespace relpos::io {
namespace {

inline float f16(const std::uint8_t* p) { return half_to_float(load_u16(p)); }

void q8_0(const std::uint8_t* b, float* y) {
  const float d = f16(b);
  for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(static_cast<std::int8_t>(b[2 + j])) * d;
}

void q4_0(const std::uint8_t* b, float* y) {
  const float d = f16(b);
  const std::uint8_t* qs = b + 2;
  for (int j = 0; j < 16; ++j) {
    y[j] = static_cast<float>((qs[j] & 0x0F) - 8) * d;
    y[j + 16] = static_cast<float>((qs[j] >> 4) - 8) * d;
  }
}

void q4_1(const std::uint8_t* b, float* y) {
  const float d = f16(b), m = f16(b + 2);
  const std::uint8_t* qs = b + 4;
  for (int j = 0; j < 16; ++j) {
    const float x0 = static_cast<float>(qs[j] & 0x0F) * d;
    const float x1 = static_cast<float>(qs[j] >> 4) * d;
    y[j] = x0 + m;
    y[j + 16] = x1 + m;
  }
}

void q5_0(const std::uint8_t* b, float* y) {
  const float d = f16(b);
  const std::uint32_t qh = load_u32(b + 2);
  const std::uint8_t* qs = b + 6;
  for (int j = 0; j < 16; ++j) {
    const std::uint8_t xh0 = static_cast<std::uint8_t>(((qh >> j) << 4) & 0x10);
    const std::uint8_t xh1 = static_cast<std::uint8_t>((qh >> (j + 12)) & 0x10);
    y[j] = static_cast<float>(((qs[j] & 0x0F) | xh0) - 16) * d;
    y[j + 16] = static_cast<float>(((qs[j] >> 4) | xh1) - 16) * d;
  }
}

void q5_1(const std::uint8_t* b, float* y) {
  const float d = f16(b), m = f16(b + 2);
  const std::uint32_t qh = load_u32(b + 4);
  const std::uint8_t* qs = b + 8;
  for (int j = 0; j < 16; ++j) {
    const std::uint8_t xh0 = static_cast<std::uint8_t>(((qh >> j) << 4) & 0x10);
    const std::uint8_t xh1 = static_cast<std::uint8_t>((qh >> (j + 12)) & 0x10);
    const float x0 = static_cast<float>((qs[j] & 0x0F) | xh0) * d;
    const float x1 = static_cast<float>((qs[j] >> 4) | xh1) * d;
    y[j] = x0 + m;
    y[j + 16] = x1 + m;
  }
}

// The 6-bit scale and min of sub-block j of a Q4_K / Q5_K block (ggml's get_scale_min_k4).
inline void scale_min_k4(int j, const std::uint8_t* q, std::uint8_t& d, std::uint8_t& m) {
  if (j < 4) {
    d = q[j] & 63;
    m = q[j + 4] & 63;
  } else {
    d = static_cast<std::uint8_t>((q[j + 4] & 0x0F) | ((q[j - 4] >> 6) << 4));
    m = static_cast<std::uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
  }
}

// Q4_K (hi = nullptr) and Q5_K (hi = the 32 bytes of fifth bits).
void q45_k(const std::uint8_t* b, const std::uint8_t* hi, const std::uint8_t* ql, float* y) {
  const float d = f16(b), dmin = f16(b + 2);
  const std::uint8_t* scales = b + 4;
  std::uint8_t sc, mn;
  std::uint8_t u1 = 1, u2 = 2;
  for (int j = 0, is = 0; j < 256; j += 64, is += 2) {
    scale_min_k4(is, scales, sc, mn);
    const float d1 = d * static_cast<float>(sc), m1 = dmin * static_cast<float>(mn);
    scale_min_k4(is + 1, scales, sc, mn);
    const float d2 = d * static_cast<float>(sc), m2 = dmin * static_cast<float>(mn);
    for (int l = 0; l < 32; ++l) {
      const int q = (ql[l] & 0x0F) + (hi && (hi[l] & u1) ? 16 : 0);
      const float x = d1 * static_cast<float>(q);
      *y++ = x - m1;
    }
    for (int l = 0; l < 32; ++l) {
      const int q = (ql[l] >> 4) + (hi && (hi[l] & u2) ? 16 : 0);
      const float x = d2 * static_cast<float>(q);
      *y++ = x - m2;
    }
    ql += 32;
    u1 = static_cast<std::uint8_t>(u1 << 2);
    u2 = static_cast<std::uint8_t>(u2 << 2);
  }
}

void q6_k(const std::uint8_t* b, float* y) {
  const std::uint8_t* ql = b;
  const std::uint8_t* qh = b + 128;
  const auto* sc = reinterpret_cast<const std::int8_t*>(b + 192);
  const float d = f16(b + 208);
  for (int n = 0; n < 256; n += 128) {
    for (int l = 0; l < 32; ++l) {
      const int is = l / 16;
      const int q1 = static_cast<std::int8_t>((ql[l] & 0x0F) | (((qh[l] >> 0) & 3) << 4)) - 32;
      const int q2 = static_cast<std::int8_t>((ql[l + 32] & 0x0F) | (((qh[l] >> 2) & 3) << 4)) - 32;
      const int q3 = static_cast<std::int8_t>((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
      const int q4 = static_cast<std::int8_t>((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
      y[l] = d * static_cast<float>(sc[is + 0]) * static_cast<float>(q1);
      y[l + 32] = d * static_cast<float>(sc[is + 2]) * static_cast<float>(q2);
      y[l + 64] = d * static_cast<float>(sc[is + 4]) * static_cast<float>(q3);
      y[l + 96] = d * static_cast<float>(sc[is + 6]) * static_cast<float>(q4);
    }
    y += 128;
    ql += 64;
    qh += 32;
    sc += 8;
  }
}

}  // namespace

void decode_ggml_blocks(GgmlType type, const std::uint8_t* src, std::size_t n, float* dst) {
  switch (type) {  // the plain float types as the safetensors readers convert them (io/tensor_bytes.h)
    case GgmlType::F32: return decode_floats(DType::F32, src, n, dst);
    case GgmlType::F16: return decode_floats(DType::F16, src, n, dst);
    case GgmlType::BF16: return decode_floats(DType::BF16, src, n, dst);
    default: break;
  }
  const std::size_t block = ggml_block_size(type), bytes = ggml_type_size(type);
  for (std::size_t k = 0; k < n / block; ++k, src += bytes, dst += block) {
    switch (type) {
      case GgmlType::Q8_0: q8_0(src, dst); break;
      case GgmlType::Q4_0: q4_0(src, dst); break;
      case GgmlType::Q4_1: q4_1(src, dst); break;
      case GgmlType::Q5_0: q5_0(src, dst); break;
      case GgmlType::Q5_1: q5_1(src, dst); break;
      case GgmlType::Q4_K: q45_k(src, nullptr, src + 16, dst); break;
      case GgmlType::Q5_K: q45_k(src, src + 16, src + 48, dst); break;
      case GgmlType::Q6_K: q6_k(src, dst); break;
      default: break;
    }
  }
}

}  // namespace relpos::io
