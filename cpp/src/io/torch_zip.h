// Zip archive directory for PyTorch checkpoints (torch.save ≥ 1.6 writes an uncompressed zip).
// Internal header; see torch_zip.cpp for the checks.
//
//   read_zip(data, size, file) → entries   every entry of the central directory, with the byte range
//                                          of its stored data inside [data, data + size)
//   is_zip(data, size)                     starts with a local file header ("PK\3\4")
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace relpos::io {

struct ZipEntry {
  std::string name;
  std::size_t offset = 0;  // first byte of the entry's data in the archive
  std::size_t size = 0;    // bytes of data (stored: compressed size = uncompressed size)
};

bool is_zip(const std::uint8_t* data, std::size_t size);

// Parses the end-of-central-directory record (ZIP64 when present), the central directory and each
// entry's local header. Every entry must be stored (method 0), unencrypted, with its data inside
// the archive; names unique. Anything else raises relpos::Error naming `file` and the entry.
std::vector<ZipEntry> read_zip(const std::uint8_t* data, std::size_t size, const std::string& file);

}  // namespace relpos::io
