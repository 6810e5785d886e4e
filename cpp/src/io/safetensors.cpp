// safetensors reader (see relpos/safetensors.h).
//
// File layout: u64 little-endian header length N | N bytes of UTF-8 JSON | data buffer.
// Tensor `name` occupies bytes [8 + N + begin, 8 + N + end) of the file, row-major little-endian.
// Validation, in order, each failure a relpos::Error (kind Value) naming the file and the tensor:
//   file shorter than 8 bytes; N past the end of the file; header not JSON or not an object;
//   per tensor: entry not an object, dtype not a string or not one of F32/F16/BF16/I64/I32,
//   shape not an array of non-negative integers, data_offsets not [begin, end] integers with
//   begin ≤ end ≤ buffer size, element count × dtype size overflowing or ≠ end − begin;
//   two tensors' byte ranges overlapping. All arithmetic is checked against size_t overflow
//   (size_t is 32-bit in WASM, so 64-bit offsets that do not fit are rejected too).
#include "relpos/safetensors.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "io/dtype_convert.h"
#include "io/json_text.h"
#include "io/safetensors_header.h"
#include "io/tensor_bytes.h"
#include "relpos/error.h"

namespace relpos {
namespace {

using io::dtype_size;
using io::load_u64;

[[noreturn]] void fail_file(const std::string& file, const std::string& message) {
  fail_value(file + ": " + message);
}

[[noreturn]] void fail_tensor(const std::string& file, const std::string& tensor, const std::string& message) {
  fail_value(file + ": tensor '" + tensor + "': " + message);
}

// A JSON value that must be a non-negative integer fitting in size_t.
std::size_t to_size(const nlohmann::json& value, const std::string& file, const std::string& tensor,
                    const char* what) {
  if (!value.is_number_integer())
    fail_tensor(file, tensor, std::string(what) + " must be a non-negative integer, got " + io::describe_json(value));
  if (value.is_number_unsigned()) {
    const auto v = value.get<std::uint64_t>();
    if (v > std::numeric_limits<std::size_t>::max())
      fail_tensor(file, tensor, std::string(what) + " " + std::to_string(v) + " does not fit in memory");
    return static_cast<std::size_t>(v);
  }
  const auto v = value.get<std::int64_t>();
  if (v < 0) fail_tensor(file, tensor, std::string(what) + " must be non-negative, got " + std::to_string(v));
  if (static_cast<std::uint64_t>(v) > std::numeric_limits<std::size_t>::max())
    fail_tensor(file, tensor, std::string(what) + " " + std::to_string(v) + " does not fit in memory");
  return static_cast<std::size_t>(v);
}

DType parse_dtype(const nlohmann::json& value, const std::string& file, const std::string& tensor) {
  if (!value.is_string()) fail_tensor(file, tensor, "dtype must be a string, got " + io::describe_json(value));
  const auto s = value.get<std::string>();
  if (s == "F32") return DType::F32;
  if (s == "F16") return DType::F16;
  if (s == "BF16") return DType::BF16;
  if (s == "I64") return DType::I64;
  if (s == "I32") return DType::I32;
  fail_tensor(file, tensor, "unsupported dtype '" + s + "' (supported: F32, F16, BF16, I64, I32)");
}

}  // namespace

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::F32: return "F32";
    case DType::F16: return "F16";
    case DType::BF16: return "BF16";
    case DType::I64: return "I64";
    case DType::I32: return "I32";
  }
  return "?";
}

std::size_t TensorInfo::elements() const {
  std::size_t n = 1;
  for (auto d : shape) n *= static_cast<std::size_t>(d);
  return n;
}

namespace io {

std::vector<TensorInfo> parse_safetensors_header(const std::uint8_t* json, std::size_t json_bytes, std::size_t data_start,
                                                 std::size_t buffer_size, const std::string& f) {
  nlohmann::json header;
  try {
    header = io::parse_json(std::string(reinterpret_cast<const char*>(json), json_bytes));
  } catch (const nlohmann::json::exception& e) {
    fail_file(f, std::string("header is not valid JSON: ") + e.what());
  }
  if (!header.is_object()) fail_file(f, std::string("header must be a JSON object, got ") + header.type_name());

  std::vector<TensorInfo> tensors;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const auto& entry = it.value();
    if (name == "__metadata__") {
      if (!entry.is_object() && !entry.is_null()) fail_file(f, "__metadata__ must be a JSON object");
      continue;
    }
    if (!entry.is_object()) fail_tensor(f, name, "entry must be a JSON object");
    if (!entry.contains("dtype")) fail_tensor(f, name, "missing 'dtype'");
    if (!entry.contains("shape")) fail_tensor(f, name, "missing 'shape'");
    if (!entry.contains("data_offsets")) fail_tensor(f, name, "missing 'data_offsets'");
    TensorInfo info;
    info.name = name;
    info.dtype = parse_dtype(entry["dtype"], f, name);
    const auto& shape = entry["shape"];
    if (!shape.is_array()) fail_tensor(f, name, "shape must be an array, got " + io::describe_json(shape));
    std::size_t elements = 1;
    for (const auto& dim : shape) {
      const std::size_t d = to_size(dim, f, name, "shape entry");
      if (d > static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max()))
        fail_tensor(f, name, "shape entry " + std::to_string(d) + " is too large");
      if (d != 0 && elements > std::numeric_limits<std::size_t>::max() / d)
        fail_tensor(f, name, "element count of shape " + io::describe_json(shape) + " overflows");
      elements *= d;
      info.shape.push_back(static_cast<std::int64_t>(d));
    }
    const std::size_t esize = dtype_size(info.dtype);
    if (elements > std::numeric_limits<std::size_t>::max() / esize)
      fail_tensor(f, name, "byte size of shape " + io::describe_json(shape) + " × " + dtype_name(info.dtype) + " overflows");
    const std::size_t nbytes = elements * esize;
    const auto& offsets = entry["data_offsets"];
    if (!offsets.is_array() || offsets.size() != 2)
      fail_tensor(f, name, "data_offsets must be [begin, end], got " + io::describe_json(offsets));
    const std::size_t begin = to_size(offsets[0], f, name, "data_offsets begin");
    const std::size_t end = to_size(offsets[1], f, name, "data_offsets end");
    if (begin > end)
      fail_tensor(f, name, "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + ") begin after end");
    if (end > buffer_size)
      fail_tensor(f, name, "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                               ") out of range: the data buffer holds " + std::to_string(buffer_size) + " bytes");
    if (end - begin != nbytes)
      fail_tensor(f, name, "data_offsets span " + std::to_string(end - begin) + " bytes but " + dtype_name(info.dtype) +
                               " × shape " + io::describe_json(shape) + " needs " + std::to_string(nbytes));
    if (begin > std::numeric_limits<std::size_t>::max() - data_start)
      fail_tensor(f, name, "data_offsets begin " + std::to_string(begin) + " does not fit in memory");
    info.offset = data_start + begin;
    info.nbytes = nbytes;
    tensors.push_back(std::move(info));
  }

  std::sort(tensors.begin(), tensors.end(), [](const TensorInfo& a, const TensorInfo& b) {
    return a.offset != b.offset ? a.offset < b.offset : a.name < b.name;
  });
  // Empty tensors occupy no bytes and cannot overlap anything, but must not hide an overlap either:
  // compare each non-empty tensor with the last non-empty one before it (in offset order, the one
  // reaching furthest), not with its neighbour ([0,16) · [4,4) · [8,12) overlaps).
  const TensorInfo* prev = nullptr;
  for (const auto& cur : tensors) {
    if (cur.nbytes == 0) continue;
    if (prev && cur.offset < prev->offset + prev->nbytes)
      fail_tensor(f, cur.name, "data overlaps tensor '" + prev->name + "'");
    prev = &cur;
  }
  return tensors;
}

}  // namespace io

SafeTensors SafeTensors::parse(std::vector<std::uint8_t> bytes, const std::string& file_name) {
  const std::string& f = file_name;
  const std::size_t size = bytes.size();
  if (size < 8)
    fail_file(f, "truncated file: " + std::to_string(size) + " bytes, the 8-byte header length is incomplete");
  const std::uint64_t header_len = load_u64(bytes.data());
  if (header_len > size - 8)
    fail_file(f, "header length " + std::to_string(header_len) + " runs past the end of the file (" +
                     std::to_string(size) + " bytes)");
  const std::size_t data_start = 8 + static_cast<std::size_t>(header_len);
  SafeTensors st;
  st.file_name_ = file_name;
  st.tensors_ = io::parse_safetensors_header(bytes.data() + 8, static_cast<std::size_t>(header_len), data_start,
                                             size - data_start, f);
  st.bytes_ = std::move(bytes);
  return st;
}

SafeTensors SafeTensors::read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_value(path + ": cannot open file");
  in.seekg(0, std::ios::end);
  const std::streamoff length = in.tellg();
  if (length < 0) fail_value(path + ": cannot determine the file size");
  if (static_cast<std::uint64_t>(length) > std::numeric_limits<std::size_t>::max())
    fail_value(path + ": file too large for this address space");
  in.seekg(0, std::ios::beg);
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(length));
  if (length > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), length))
    fail_value(path + ": read error");
  return parse(std::move(bytes), path);
}

bool SafeTensors::contains(const std::string& name) const {
  for (const auto& t : tensors_)
    if (t.name == name) return true;
  return false;
}

const TensorInfo& SafeTensors::info(const std::string& name) const {
  for (const auto& t : tensors_)
    if (t.name == name) return t;
  fail_value(file_name_ + ": missing tensor '" + name + "'");
}

std::vector<std::string> SafeTensors::names() const {
  std::vector<std::string> out;
  out.reserve(tensors_.size());
  for (const auto& t : tensors_) out.push_back(t.name);
  return out;
}

std::vector<float> SafeTensors::to_f32(const std::string& name) const {
  const TensorInfo& t = info(name);
  if (!io::is_float_dtype(t.dtype))
    throw Error(ErrorKind::Type, file_name_ + ": tensor '" + name + "' is " + dtype_name(t.dtype) +
                                     ", not a floating-point tensor (F32, F16, BF16)");
  return io::floats_of(t.dtype, bytes_.data() + t.offset, t.elements());
}

std::vector<std::int64_t> SafeTensors::to_i64(const std::string& name) const {
  const TensorInfo& t = info(name);
  if (t.dtype != DType::I64 && t.dtype != DType::I32)
    throw Error(ErrorKind::Type, file_name_ + ": tensor '" + name + "' is " + dtype_name(t.dtype) +
                                     ", not an integer tensor (I64, I32)");
  return io::ints_of(t.dtype, bytes_.data() + t.offset, t.elements());
}

SafeTensors::~SafeTensors() { io::free_bytes(bytes_); }  // one free, not a destructor call per byte at -Oz

}  // namespace relpos
