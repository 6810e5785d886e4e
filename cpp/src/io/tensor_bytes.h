// Whole-tensor loops of the checkpoint readers (safetensors.cpp, torch_checkpoint.cpp, gguf_model.cpp), in one
// file that CMakeLists.txt keeps at -O3 while the readers themselves are compiled for size (-Oz). Why: at -Oz
// clang leaves std::vector's value-initialisation and destruction as one call per element and the dtype loops as
// one call per load — DeBERTa-v3-base's 735 MB file took 2.5 s to zero, 1 s to free and 0.8 s to convert in the
// WebAssembly build; here they are memset, free and vector loops. Internal header.
//
//   decode_floats(d, p, n, out)  n little-endian F32/F16/BF16 elements at p → float32 into out (exact); also what the
//                        streamed checkpoint and the GGUF block decoders use for those types
//   floats_of(d, p, n)   the same into a new vector (d must be a float dtype)
//   ints_of(d, p, n)     n little-endian I64/I32 elements at p → int64 (d must be an integer dtype)
//   zeroed_floats(n)     n floats, 0 (a decoder's output buffer)
//   free_bytes(bytes)    releases a file's bytes; the -Oz destructor that runs next then walks an empty vector
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "relpos/weights.h"

namespace relpos::io {

void decode_floats(DType d, const std::uint8_t* p, std::size_t n, float* out);
std::vector<float> floats_of(DType d, const std::uint8_t* p, std::size_t n);
std::vector<std::int64_t> ints_of(DType d, const std::uint8_t* p, std::size_t n);
std::vector<float> zeroed_floats(std::size_t n);
void free_bytes(std::vector<std::uint8_t>& bytes);

}  // namespace relpos::io
