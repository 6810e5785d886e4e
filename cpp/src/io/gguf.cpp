// GGUF header reader (see io/gguf.h for the layout and every check).
#include "io/gguf.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "io/dtype_convert.h"
#include "relpos/error.h"

namespace relpos::io {
namespace {

struct NeedMore {};  // the bytes so far end inside the header

constexpr std::size_t kMaxDims = 4;

struct TypeInfo {
  std::uint32_t id;
  const char* name;
  std::size_t block, size;  // 0: a ggml type relpos does not decode
};

// Every ggml type (ggml.h, ggml 0.25), with block and byte sizes for the ones relpos decodes.
constexpr TypeInfo kTypes[] = {
    {0, "F32", 1, 4},      {1, "F16", 1, 2},       {2, "Q4_0", 32, 18},    {3, "Q4_1", 32, 20},
    {6, "Q5_0", 32, 22},   {7, "Q5_1", 32, 24},    {8, "Q8_0", 32, 34},    {9, "Q8_1", 0, 0},
    {10, "Q2_K", 0, 0},    {11, "Q3_K", 0, 0},     {12, "Q4_K", 256, 144}, {13, "Q5_K", 256, 176},
    {14, "Q6_K", 256, 210}, {15, "Q8_K", 0, 0},    {16, "IQ2_XXS", 0, 0},  {17, "IQ2_XS", 0, 0},
    {18, "IQ3_XXS", 0, 0}, {19, "IQ1_S", 0, 0},    {20, "IQ4_NL", 0, 0},   {21, "IQ3_S", 0, 0},
    {22, "IQ2_S", 0, 0},   {23, "IQ4_XS", 0, 0},   {24, "I8", 0, 0},       {25, "I16", 0, 0},
    {26, "I32", 0, 0},     {27, "I64", 0, 0},      {28, "F64", 0, 0},      {29, "IQ1_M", 0, 0},
    {30, "BF16", 1, 2},    {34, "TQ1_0", 0, 0},    {35, "TQ2_0", 0, 0},    {39, "MXFP4", 0, 0},
};

const TypeInfo* type_info(std::uint32_t id) {
  for (const auto& t : kTypes)
    if (t.id == id) return &t;
  return nullptr;
}

class Cursor {
 public:
  Cursor(const std::uint8_t* p, std::size_t n, std::size_t file_size, const std::string& file)
      : p_(p), n_(n), size_(file_size), file_(file) {}

  [[noreturn]] void fail(const std::string& m) const { fail_value(file_ + ": " + m); }

  // Bytes the file may still hold after the cursor (for bounding counts), SIZE_MAX when unknown.
  std::size_t remaining_in_file() const { return size_ == kGgufSizeUnknown ? kGgufSizeUnknown : size_ - at_; }
  std::size_t at() const { return at_; }

  void need(std::size_t k, const char* what) {
    if (k <= n_ - at_) return;
    if (size_ != kGgufSizeUnknown && (n_ >= size_ || k > size_ - at_))
      fail("truncated file: " + std::string(what) + " at byte " + std::to_string(at_) + " needs " + std::to_string(k) +
           " bytes, the file has " + std::to_string(size_ - at_) + " left");
    if (at_ + k > kGgufMaxHeaderBytes)
      fail("the header runs past " + std::to_string(kGgufMaxHeaderBytes) + " bytes (" + what + " at byte " +
           std::to_string(at_) + ")");
    throw NeedMore{};
  }
  const std::uint8_t* take(std::size_t k, const char* what) {
    need(k, what);
    const std::uint8_t* q = p_ + at_;
    at_ += k;
    return q;
  }
  std::uint8_t u8(const char* w) { return *take(1, w); }
  std::uint16_t u16(const char* w) { return load_u16(take(2, w)); }
  std::uint32_t u32(const char* w) { return load_u32(take(4, w)); }
  std::uint64_t u64(const char* w) { return load_u64(take(8, w)); }

  // A count of items each at least `min_bytes` long: Error when the file cannot hold them.
  std::uint64_t count(const char* what, std::size_t min_bytes) {
    const std::uint64_t c = u64(what);
    const std::size_t room = std::min(remaining_in_file(), kGgufMaxHeaderBytes);
    if (c > room / min_bytes)
      fail(std::string(what) + " " + std::to_string(c) + " is more than the " +
           (size_ == kGgufSizeUnknown ? "header limit could hold (" : "file could hold (truncated or corrupt file: ") +
           std::to_string(room) + " bytes left, ≥ " + std::to_string(min_bytes) + " per item)");
    return c;
  }

  std::string str(const char* what) {
    const std::uint64_t len = u64(what);
    if (len > std::min(remaining_in_file(), kGgufMaxHeaderBytes))
      fail(std::string(what) + ": string length " + std::to_string(len) + " runs past the end of the " +
           (size_ == kGgufSizeUnknown ? "header limit" : "file"));
    const std::uint8_t* q = take(static_cast<std::size_t>(len), what);
    return std::string(reinterpret_cast<const char*>(q), static_cast<std::size_t>(len));
  }

 private:
  const std::uint8_t* p_;
  std::size_t n_, size_;
  const std::string& file_;
  std::size_t at_ = 0;
};

std::size_t scalar_bytes(GgufValueType t) {
  switch (t) {
    case GgufValueType::U8: case GgufValueType::I8: case GgufValueType::Bool: return 1;
    case GgufValueType::U16: case GgufValueType::I16: return 2;
    case GgufValueType::U32: case GgufValueType::I32: case GgufValueType::F32: return 4;
    case GgufValueType::U64: case GgufValueType::I64: case GgufValueType::F64: return 8;
    case GgufValueType::String: return 8;  // at least its length
    case GgufValueType::Array: return 12;  // at least its element type and count
  }
  return 1;
}

GgufValueType value_type(Cursor& c, const std::string& key) {
  const std::uint32_t t = c.u32("value type");
  if (t > 12) c.fail("metadata '" + key + "': unknown value type " + std::to_string(t) + " (GGUF defines 0-12)");
  return static_cast<GgufValueType>(t);
}

// One scalar of type t into v (u/i/f/b/s); returns it as double for arrays.
double read_scalar(Cursor& c, GgufValueType t, GgufValue& v, bool keep_string) {
  switch (t) {
    case GgufValueType::U8: v.u = c.u8("u8"); v.i = static_cast<std::int64_t>(v.u); return static_cast<double>(v.u);
    case GgufValueType::I8: v.i = static_cast<std::int8_t>(c.u8("i8")); return static_cast<double>(v.i);
    case GgufValueType::U16: v.u = c.u16("u16"); v.i = static_cast<std::int64_t>(v.u); return static_cast<double>(v.u);
    case GgufValueType::I16: v.i = static_cast<std::int16_t>(c.u16("i16")); return static_cast<double>(v.i);
    case GgufValueType::U32: v.u = c.u32("u32"); v.i = static_cast<std::int64_t>(v.u); return static_cast<double>(v.u);
    case GgufValueType::I32: v.i = static_cast<std::int32_t>(c.u32("i32")); return static_cast<double>(v.i);
    case GgufValueType::U64:
      v.u = c.u64("u64");
      v.i = v.u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ? std::numeric_limits<std::int64_t>::max()
                                                                                      : static_cast<std::int64_t>(v.u);
      return static_cast<double>(v.u);
    case GgufValueType::I64: v.i = static_cast<std::int64_t>(c.u64("i64")); return static_cast<double>(v.i);
    case GgufValueType::F32: v.f = bits_to_float(c.u32("f32")); return v.f;
    case GgufValueType::F64: {
      const std::uint64_t bits = c.u64("f64");
      std::memcpy(&v.f, &bits, sizeof v.f);
      return v.f;
    }
    case GgufValueType::Bool: {
      const std::uint8_t b = c.u8("bool");
      if (b > 1) c.fail("bool value " + std::to_string(b) + " at byte " + std::to_string(c.at() - 1) + " is not 0 or 1");
      v.b = b != 0;
      return v.b ? 1.0 : 0.0;
    }
    case GgufValueType::String:
      if (keep_string) v.s = c.str("string value");
      else (void)c.str("string value");
      return 0;
    case GgufValueType::Array: break;
  }
  return 0;
}

GgufValue read_value(Cursor& c, GgufValueType t, const std::string& key) {
  GgufValue v;
  v.type = t;
  if (t != GgufValueType::Array) {
    read_scalar(c, t, v, true);
    return v;
  }
  v.element = value_type(c, key);
  if (v.element == GgufValueType::Array) c.fail("metadata '" + key + "': arrays of arrays are not supported");
  v.count = c.count(("metadata '" + key + "': array length").c_str(), scalar_bytes(v.element));
  GgufValue e;
  for (std::uint64_t k = 0; k < v.count; ++k) {
    const double x = read_scalar(c, v.element, e, true);
    if (v.element == GgufValueType::String) v.strings.push_back(std::move(e.s));
    else v.numbers.push_back(x);
  }
  return v;
}

std::size_t checked_mul(std::size_t a, std::size_t b, Cursor& c, const std::string& what) {
  if (a != 0 && b > std::numeric_limits<std::size_t>::max() / a) c.fail(what + " overflows");
  return a * b;
}

// The first name that appears twice in `names` (sorted copies of pointers: n log n, for hostile counts too), or null.
const std::string* repeated(std::vector<const std::string*> names) {
  std::sort(names.begin(), names.end(), [](const std::string* a, const std::string* b) { return *a < *b; });
  for (std::size_t k = 1; k < names.size(); ++k)
    if (*names[k] == *names[k - 1]) return names[k];
  return nullptr;
}

GgufHeader parse(Cursor& c) {
  GgufHeader h;
  const std::uint8_t* magic = c.take(4, "magic");
  if (std::memcmp(magic, "GGUF", 4) != 0) c.fail("not a GGUF file (the first 4 bytes are not \"GGUF\")");
  h.version = c.u32("version");
  if (h.version != 2 && h.version != 3)
    c.fail("GGUF version " + std::to_string(h.version) + " is not supported (versions 2 and 3 are)");
  const std::uint64_t n_tensors = c.count("tensor count", 24);
  const std::uint64_t n_kv = c.count("metadata count", 13);
  for (std::uint64_t k = 0; k < n_kv; ++k) {
    std::string key = c.str("metadata key");
    const GgufValueType t = value_type(c, key);
    GgufValue v = read_value(c, t, key);
    h.metadata.emplace_back(std::move(key), std::move(v));
  }
  {
    std::vector<const std::string*> keys;
    for (const auto& kv : h.metadata) keys.push_back(&kv.first);
    if (const std::string* k = repeated(std::move(keys))) c.fail("metadata key '" + *k + "' appears twice");
  }
  if (const GgufValue* a = h.find("general.alignment")) {
    if (a->type != GgufValueType::U32) c.fail("general.alignment must be a u32, got " + std::string(gguf_value_type_name(a->type)));
    if (a->u == 0 || (a->u & (a->u - 1)) != 0) c.fail("general.alignment " + std::to_string(a->u) + " is not a power of two");
    h.alignment = static_cast<std::size_t>(a->u);
  }
  std::vector<std::uint64_t> relative;
  for (std::uint64_t k = 0; k < n_tensors; ++k) {
    GgufTensor t;
    t.name = c.str("tensor name");
    const std::string what = "tensor '" + t.name + "'";
    const std::uint32_t n_dims = c.u32("tensor dimension count");
    if (n_dims == 0 || n_dims > kMaxDims) c.fail(what + ": " + std::to_string(n_dims) + " dimensions (1 to 4 are allowed)");
    t.elements = 1;
    for (std::uint32_t d = 0; d < n_dims; ++d) {
      const std::uint64_t ne = c.u64("tensor dimension");
      if (ne > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
          ne > std::numeric_limits<std::size_t>::max())
        c.fail(what + ": dimension " + std::to_string(ne) + " is too large");
      t.ne.push_back(ne);
      t.elements = checked_mul(t.elements, static_cast<std::size_t>(ne), c, what + ": element count");
    }
    const std::uint32_t type = c.u32("tensor type");
    const TypeInfo* info = type_info(type);
    if (!info) c.fail(what + ": unknown ggml type " + std::to_string(type) + " (supported: " + ggml_supported_types() + ")");
    if (info->block == 0)
      c.fail(what + ": ggml type " + info->name + " is not supported (supported: " + ggml_supported_types() + ")");
    t.type = static_cast<GgmlType>(type);
    if (t.ne[0] % info->block != 0)
      c.fail(what + ": row length " + std::to_string(t.ne[0]) + " is not a multiple of the " + info->name + " block (" +
             std::to_string(info->block) + ")");
    t.nbytes = checked_mul(t.elements / info->block, info->size, c, what + ": byte size");
    const std::uint64_t off = c.u64("tensor offset");
    if (off % h.alignment != 0)
      c.fail(what + ": offset " + std::to_string(off) + " is not a multiple of the alignment " + std::to_string(h.alignment));
    relative.push_back(off);
    h.tensors.push_back(std::move(t));
  }
  {
    std::vector<const std::string*> names;
    for (const auto& t : h.tensors) names.push_back(&t.name);
    if (const std::string* n = repeated(std::move(names))) c.fail("tensor '" + *n + "' appears twice");
  }
  const std::size_t end = c.at();
  h.data_start = (end + h.alignment - 1) / h.alignment * h.alignment;
  if (h.data_start < end) c.fail("data start overflows");
  const std::size_t size = c.remaining_in_file() == kGgufSizeUnknown ? kGgufSizeUnknown : end + c.remaining_in_file();
  std::vector<std::size_t> order(h.tensors.size());
  for (std::size_t k = 0; k < h.tensors.size(); ++k) {
    GgufTensor& t = h.tensors[k];
    const std::uint64_t off = relative[k];
    order[k] = k;
    const std::uint64_t limit = std::numeric_limits<std::size_t>::max() - h.data_start;
    if (off > limit || t.nbytes > limit - off)
      c.fail("tensor '" + t.name + "': offset " + std::to_string(off) + " does not fit in memory");
    t.offset = h.data_start + static_cast<std::size_t>(off);
    if (size != kGgufSizeUnknown && t.offset + t.nbytes > size)
      c.fail("tensor '" + t.name + "': data [" + std::to_string(t.offset) + ", " + std::to_string(t.offset + t.nbytes) +
             ") runs past the end of the file (" + std::to_string(size) + " bytes)");
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return h.tensors[a].offset < h.tensors[b].offset; });
  const GgufTensor* prev = nullptr;
  for (std::size_t k : order) {
    const GgufTensor& t = h.tensors[k];
    if (t.nbytes == 0) continue;
    if (prev && t.offset < prev->offset + prev->nbytes)
      c.fail("tensor '" + t.name + "': data overlaps tensor '" + prev->name + "'");
    prev = &t;
  }
  return h;
}

}  // namespace

const char* gguf_value_type_name(GgufValueType t) {
  static const char* names[] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64"};
  const auto k = static_cast<std::uint32_t>(t);
  return k < 13 ? names[k] : "?";
}

const char* ggml_type_name(std::uint32_t type) {
  const TypeInfo* t = type_info(type);
  return t ? t->name : "?";
}

std::size_t ggml_block_size(GgmlType t) { return type_info(static_cast<std::uint32_t>(t))->block; }
std::size_t ggml_type_size(GgmlType t) { return type_info(static_cast<std::uint32_t>(t))->size; }

std::string ggml_supported_types() {
  std::string out;
  for (const auto& t : kTypes)
    if (t.block) out += (out.empty() ? "" : ", ") + std::string(t.name);
  return out;
}

bool GgufValue::is_integer() const {
  switch (type) {
    case GgufValueType::U8: case GgufValueType::I8: case GgufValueType::U16: case GgufValueType::I16:
    case GgufValueType::U32: case GgufValueType::I32: case GgufValueType::U64: case GgufValueType::I64: return true;
    default: return false;
  }
}
bool GgufValue::is_number() const {
  return is_integer() || type == GgufValueType::F32 || type == GgufValueType::F64 || type == GgufValueType::Bool;
}
double GgufValue::number() const {
  if (type == GgufValueType::F32 || type == GgufValueType::F64) return f;
  if (type == GgufValueType::Bool) return b ? 1 : 0;
  if (type == GgufValueType::U64) return static_cast<double>(u);
  return static_cast<double>(i);
}

const GgufValue* GgufHeader::find(const std::string& key) const {
  for (const auto& [k, v] : metadata)
    if (k == key) return &v;
  return nullptr;
}

const GgufTensor* GgufHeader::tensor(const std::string& name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

bool is_gguf(const std::uint8_t* p, std::size_t n) { return n >= 4 && std::memcmp(p, "GGUF", 4) == 0; }

std::optional<GgufHeader> parse_gguf_header(const std::uint8_t* p, std::size_t n, std::size_t file_size,
                                            const std::string& file) {
  if (file_size != kGgufSizeUnknown && n > file_size) n = file_size;
  Cursor c(p, n, file_size, file);
  try {
    return parse(c);
  } catch (const NeedMore&) {
    return std::nullopt;
  }
}

}  // namespace relpos::io
