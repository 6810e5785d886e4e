// GGUF reader (llama.cpp's file format, versions 2 and 3): the header — metadata and tensor infos —
// parsed from the file's first bytes, bounded against hostile input. Internal header.
//
// File layout (little-endian): "GGUF" | u32 version | u64 tensor_count | u64 kv_count |
//   kv_count × (string key | u32 value type | value) |
//   tensor_count × (string name | u32 n_dims | n_dims × u64 ne (ne0 = row length first) | u32 ggml type | u64 offset) |
//   padding to general.alignment (default 32) | tensor data (each tensor at data_start + offset).
// A string is u64 length + bytes; an array is u32 element type + u64 count + count values.
//
//   parse_gguf_header(p, n, file_size, file)
//     p, n: the file's first n bytes; file_size: the whole file's size, or kGgufSizeUnknown while
//     streaming. → the header, or nullopt when the n bytes end before the header does and more may
//     come (n < file_size, or the size is unknown; a streaming caller tries again with more bytes).
//     relpos::Error (Value, naming the file) on: bad magic, version other than 2/3, a count that the
//     file cannot hold (each kv takes ≥ 13 bytes, each tensor info ≥ 24, each array element ≥ 1: checked
//     before anything is allocated, so a 2^40 count allocates nothing), a header longer than
//     kGgufMaxHeaderBytes, an unknown value type, arrays of arrays, a duplicate key or tensor name, an
//     alignment that is not a power of two, more than 4 dimensions, an element count or byte size that
//     overflows, an unknown ggml type (named by number), a type relpos does not decode (named, the
//     supported ones listed), a row length that is not a multiple of the type's block, a tensor
//     offset not aligned, a tensor past the end of the file, two tensors' data overlapping; a file
//     that ends inside the header when its size is known ("truncated").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace relpos::io {

constexpr std::size_t kGgufSizeUnknown = static_cast<std::size_t>(-1);
constexpr std::size_t kGgufMaxHeaderBytes = std::size_t(256) << 20;  // metadata + tensor infos

enum class GgufValueType : std::uint32_t {
  U8 = 0, I8 = 1, U16 = 2, I16 = 3, U32 = 4, I32 = 5, F32 = 6, Bool = 7, String = 8, Array = 9, U64 = 10, I64 = 11, F64 = 12,
};
const char* gguf_value_type_name(GgufValueType t);

// ggml tensor types relpos decodes (ggml.h numbering).
enum class GgmlType : std::uint32_t {
  F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8, Q4_K = 12, Q5_K = 13, Q6_K = 14, BF16 = 30,
};
const char* ggml_type_name(std::uint32_t type);  // every ggml type's name, "?" for unknown numbers
std::size_t ggml_block_size(GgmlType t);         // elements per block
std::size_t ggml_type_size(GgmlType t);          // bytes per block
std::string ggml_supported_types();              // "F32, F16, BF16, Q8_0, …"

// One metadata value. Scalars: `type` and one of u (unsigned), i (signed), f (floats), b, s.
// Arrays: type Array, `element` the element type, `count`, and the elements in `numbers` (every numeric
// and bool element, as double) or `strings`.
struct GgufValue {
  GgufValueType type = GgufValueType::U8;
  GgufValueType element = GgufValueType::U8;
  std::uint64_t u = 0;
  std::int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string s;
  std::uint64_t count = 0;
  std::vector<double> numbers;
  std::vector<std::string> strings;
  bool is_integer() const;
  bool is_number() const;  // integer, float or bool scalar
  double number() const;   // a numeric scalar as double
};

struct GgufTensor {
  std::string name;
  GgmlType type = GgmlType::F32;
  std::vector<std::uint64_t> ne;  // ne[0] = row length (innermost)
  std::size_t offset = 0;         // absolute: from the start of the file
  std::size_t nbytes = 0;
  std::size_t elements = 0;
  std::size_t rows() const { return ne.empty() || ne[0] == 0 ? 0 : elements / ne[0]; }
};

struct GgufHeader {
  std::uint32_t version = 0;
  std::vector<std::pair<std::string, GgufValue>> metadata;  // file order
  std::vector<GgufTensor> tensors;                          // file order
  std::size_t alignment = 32;
  std::size_t data_start = 0;
  const GgufValue* find(const std::string& key) const;
  const GgufTensor* tensor(const std::string& name) const;
};

std::optional<GgufHeader> parse_gguf_header(const std::uint8_t* p, std::size_t n, std::size_t file_size,
                                            const std::string& file);

// True when the bytes start with the GGUF magic.
bool is_gguf(const std::uint8_t* p, std::size_t n);

}  // namespace relpos::io
