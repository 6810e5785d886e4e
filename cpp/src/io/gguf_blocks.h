// ggml block decoders: a run of whole blocks of one GGUF tensor type → float32, the same values as
// ggml's own dequantize_row_* (ggml-quants.c) and gguf-py's numpy reference (bit-exact: this file is
// compiled with -ffp-contract=off, so no multiply-add is fused where ggml's reference rounds twice).
// Internal header.
//
//   decode_ggml_blocks(type, src, n, dst)   n elements (a multiple of the type's block size) from the
//                                           bytes at src (n / block · type_size bytes) into dst[n]
//
// Types and block layouts (fp16 = IEEE half, d = scale, m = min):
//   F32, F16, BF16                 one element per "block"
//   Q8_0  34 B / 32: d, int8 q[32]                          x = d·q
//   Q4_0  18 B / 32: d, 16 B of nibbles                     x = d·(q − 8)   (low nibbles: elements 0-15, high: 16-31)
//   Q4_1  20 B / 32: d, m, 16 B of nibbles                  x = d·q + m
//   Q5_0  22 B / 32: d, u32 high bits, 16 B of nibbles      x = d·(q5 − 16)
//   Q5_1  24 B / 32: d, m, u32 high bits, 16 B of nibbles   x = d·q5 + m
//   Q4_K  144 B / 256: d, dmin, 12 B of 6-bit scales/mins, 128 B nibbles; 8 sub-blocks of 32: x = d·sc·q − dmin·mn
//   Q5_K  176 B / 256: as Q4_K + 32 B of fifth bits
//   Q6_K  210 B / 256: 128 B low nibbles, 64 B high 2 bits, int8 scales[16], d; x = d·sc·(q6 − 32)
#pragma once

#include <cstddef>
#include <cstdint>

#include "io/gguf.h"

namespace relpos::io {

void decode_ggml_blocks(GgmlType type, const std::uint8_t* src, std::size_t n, float* dst);

}  // namespace relpos::io
