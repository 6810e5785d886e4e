// The safetensors header check shared by SafeTensors::parse (a whole file in memory) and
// StreamedCheckpoint (a file converted as it streams in, models/layers/streamed_checkpoint.h).
// Internal header.
//
//   parse_safetensors_header(json, n, data_start, buffer_size, file)
//     json: the n header bytes after the 8-byte length; data_start = 8 + n; buffer_size: bytes of
//     the data section (SIZE_MAX when not known yet: the caller checks every tensor's end later).
//     → the tensors, offsets from the start of the file, sorted by offset; relpos::Error (the
//     messages listed in safetensors.cpp) on any malformed entry or overlap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "relpos/weights.h"

namespace relpos::io {

std::vector<TensorInfo> parse_safetensors_header(const std::uint8_t* json, std::size_t json_bytes, std::size_t data_start,
                                                 std::size_t buffer_size, const std::string& file);

}  // namespace relpos::io
