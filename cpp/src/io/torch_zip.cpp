// Zip directory reader (see torch_zip.h).
//
// Layout read (APPNOTE 6.3): … local headers + data … | central directory | [zip64 EOCD record |
// zip64 EOCD locator] | EOCD record (22 bytes + comment ≤ 65535). Values 0xFFFF / 0xFFFFFFFF in the
// EOCD or a central entry mean "see the ZIP64 record / the 0x0001 extra field". All offsets and sizes
// are read as 64-bit and checked against the archive size before any pointer is formed, so nothing
// overflows where size_t is 32-bit (WebAssembly). Compressed or encrypted entries are refused: torch
// never writes them, and relpos has no inflater.
#include "io/torch_zip.h"

#include <map>

#include "io/dtype_convert.h"
#include "relpos/error.h"

namespace relpos::io {
namespace {

constexpr std::uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEocdSig = 0x06054b50,
                        kEocd64Sig = 0x06064b50, kLocator64Sig = 0x07064b50;

[[noreturn]] void fail(const std::string& file, const std::string& message) {
  fail_value(file + ": " + message);
}

// [offset, offset + length) lies inside an archive of `size` bytes.
bool inside(std::uint64_t offset, std::uint64_t length, std::size_t size) {
  return offset <= size && length <= size - offset;
}

}  // namespace

bool is_zip(const std::uint8_t* data, std::size_t size) { return size >= 4 && load_u32(data) == kLocalSig; }

std::vector<ZipEntry> read_zip(const std::uint8_t* data, std::size_t size, const std::string& file) {
  if (size < 22) fail(file, "truncated zip archive: " + std::to_string(size) + " bytes, no end-of-central-directory record");
  // The EOCD record: the last "PK\5\6" whose comment length reaches exactly the end of the file.
  std::size_t eocd = size;
  const std::size_t lowest = size - 22 > 65535 ? size - 22 - 65535 : 0;
  for (std::size_t at = size - 22 + 1; at-- > lowest;) {
    if (load_u32(data + at) == kEocdSig && at + 22 + load_u16(data + at + 20) == size) {
      eocd = at;
      break;
    }
  }
  if (eocd == size) fail(file, "not a complete zip archive: no end-of-central-directory record (truncated download?)");
  std::uint64_t entries = load_u16(data + eocd + 10);
  std::uint64_t cd_size = load_u32(data + eocd + 12);
  std::uint64_t cd_offset = load_u32(data + eocd + 16);
  if (eocd >= 20 && load_u32(data + eocd - 20) == kLocator64Sig) {
    const std::uint64_t rec = load_u64(data + eocd - 20 + 8);
    if (!inside(rec, 56, size) || load_u32(data + rec) != kEocd64Sig)
      fail(file, "ZIP64 end-of-central-directory record missing at offset " + std::to_string(rec));
    entries = load_u64(data + rec + 32);
    cd_size = load_u64(data + rec + 40);
    cd_offset = load_u64(data + rec + 48);
  }
  if (!inside(cd_offset, cd_size, size))
    fail(file, "central directory [" + std::to_string(cd_offset) + ", +" + std::to_string(cd_size) +
                   ") runs past the end of the archive (" + std::to_string(size) + " bytes)");
  if (entries > cd_size / 46) fail(file, "central directory claims " + std::to_string(entries) + " entries in " + std::to_string(cd_size) + " bytes");

  std::vector<ZipEntry> out;
  std::map<std::string, std::size_t> names;  // (one map type across the readers: WASM size)
  std::uint64_t at = cd_offset;
  const std::uint64_t cd_end = cd_offset + cd_size;
  for (std::uint64_t i = 0; i < entries; ++i) {
    if (at + 46 > cd_end || load_u32(data + at) != kCentralSig)
      fail(file, "central directory entry " + std::to_string(i) + " is malformed (bad signature or truncated)");
    const std::uint8_t* c = data + at;
    const std::uint16_t flags = load_u16(c + 8), method = load_u16(c + 10);
    std::uint64_t compressed = load_u32(c + 20), uncompressed = load_u32(c + 24);
    const std::uint16_t name_len = load_u16(c + 28), extra_len = load_u16(c + 30), comment_len = load_u16(c + 32);
    std::uint64_t local = load_u32(c + 42);
    if (at + 46 + name_len + extra_len + comment_len > cd_end)
      fail(file, "central directory entry " + std::to_string(i) + " runs past the directory");
    std::string name(reinterpret_cast<const char*>(c + 46), name_len);
    // ZIP64 extended information: the 64-bit values of the fields set to 0xFFFFFFFF, in this order.
    for (std::uint64_t e = 0; e + 4 <= extra_len;) {
      const std::uint8_t* x = c + 46 + name_len + e;
      const std::uint16_t tag = load_u16(x), len = load_u16(x + 2);
      if (e + 4 + len > extra_len) fail(file, "entry '" + name + "': extra field runs past its record");
      if (tag == 0x0001) {
        std::uint16_t used = 0;
        auto next = [&](std::uint64_t& field) {
          if (field != 0xFFFFFFFFu) return;
          if (used + 8 > len) fail(file, "entry '" + name + "': ZIP64 extra field too short");
          field = load_u64(x + 4 + used);
          used += 8;
        };
        next(uncompressed);
        next(compressed);
        next(local);
      }
      e += 4 + len;
    }
    if (flags & 1u) fail(file, "entry '" + name + "' is encrypted");
    if (method != 0)
      fail(file, "entry '" + name + "' is compressed (method " + std::to_string(method) +
                     "); PyTorch checkpoints store entries uncompressed — re-save the file with torch.save");
    if (compressed != uncompressed)
      fail(file, "entry '" + name + "': stored sizes disagree (" + std::to_string(compressed) + " vs " + std::to_string(uncompressed) + ")");
    if (!inside(local, 30, size) || load_u32(data + local) != kLocalSig)
      fail(file, "entry '" + name + "': local header missing at offset " + std::to_string(local));
    const std::uint64_t start = local + 30 + load_u16(data + local + 26) + load_u16(data + local + 28);
    if (!inside(start, uncompressed, size))
      fail(file, "entry '" + name + "': data [" + std::to_string(start) + ", +" + std::to_string(uncompressed) +
                     ") runs past the end of the archive (" + std::to_string(size) + " bytes; truncated?)");
    if (!names.emplace(name, out.size()).second) fail(file, "entry '" + name + "' appears twice");
    out.push_back({std::move(name), static_cast<std::size_t>(start), static_cast<std::size_t>(uncompressed)});
    at += 46 + name_len + extra_len + comment_len;
  }
  return out;
}

}  // namespace relpos::io
