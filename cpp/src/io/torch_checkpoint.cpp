// PyTorch zip checkpoint reader (see torch_checkpoint.h).
//
// Checks, each a relpos::Error naming the file:
//   not a zip: the legacy (pre-1.6) pickle format, with advice on re-saving; anything else;
//   the zip directory (torch_zip.cpp); exactly one <root>/data.pkl; <root>/byteorder, when present,
//   "little"; the pickle (pickle.cpp); per storage: <root>/data/<key> present and holding at least
//   numel × dtype size bytes; per tensor: every element it views, offset + Σ (size_i − 1)·stride_i,
//   inside its storage (64-bit arithmetic, overflow checked), its byte size fitting size_t.
#include "io/torch_checkpoint.h"

#include <limits>
#include <map>

#include "io/dtype_convert.h"
#include "io/pickle.h"
#include "io/tensor_bytes.h"
#include "io/torch_zip.h"
#include "relpos/error.h"

namespace relpos::io {
namespace {

[[noreturn]] void fail(const std::string& file, const std::string& message) { fail_value(file + ": " + message); }

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

}  // namespace

TorchCheckpoint TorchCheckpoint::parse(std::vector<std::uint8_t> bytes, const std::string& file_name) {
  const std::string& f = file_name;
  const std::uint8_t* data = bytes.data();
  const std::size_t size = bytes.size();
  if (!is_zip(data, size)) {
    if (size >= 2 && data[0] == 0x80 && data[1] <= 5)
      fail(f, "this is the legacy PyTorch format (saved before PyTorch 1.6 or with _use_new_zipfile_serialization=False), "
              "which relpos does not read: re-save it with PyTorch ≥ 1.6 (torch.save(torch.load(path), path)) or convert "
              "it to model.safetensors");
    fail(f, "not a PyTorch checkpoint: expected a zip archive (torch.save format, PyTorch ≥ 1.6)");
  }
  const std::vector<ZipEntry> entries = read_zip(data, size, f);
  std::string root;
  const ZipEntry* pkl = nullptr;
  for (const auto& e : entries) {
    const std::size_t slash = e.name.find('/');
    if (slash != std::string::npos && e.name.compare(slash, std::string::npos, "/data.pkl") == 0) {
      if (pkl) fail(f, "two data.pkl entries ('" + pkl->name + "', '" + e.name + "')");
      pkl = &e;
      root = e.name.substr(0, slash + 1);
    }
  }
  if (!pkl) fail(f, "no <folder>/data.pkl entry: not a PyTorch checkpoint");
  std::map<std::string, std::size_t> by_name;  // entry name → index in entries
  for (std::size_t i = 0; i < entries.size(); ++i) by_name[entries[i].name] = i;
  auto bo = by_name.find(root + "byteorder");
  if (bo != by_name.end()) {
    const ZipEntry& e = entries[bo->second];
    const std::string order(reinterpret_cast<const char*>(data + e.offset), e.size);
    if (order != "little") fail(f, "byte order '" + order + "' is not supported (only little-endian checkpoints)");
  }
  const StateDict sd = unpickle_state_dict(data + pkl->offset, pkl->size, f + ": " + pkl->name);

  std::vector<const ZipEntry*> storage_entry;
  for (const auto& s : sd.storages) {
    auto it = by_name.find(root + "data/" + s.key);
    if (it == by_name.end()) fail(f, "storage '" + s.key + "' has no entry '" + root + "data/" + s.key + "' in the archive");
    const ZipEntry& e = entries[it->second];
    const std::uint64_t es = dtype_size(s.dtype);
    if (s.numel > kMax / es || s.numel * es > e.size)
      fail(f, "storage '" + s.key + "' holds " + std::to_string(e.size) + " bytes, but " + std::to_string(s.numel) +
                  " × " + dtype_name(s.dtype) + " elements were declared");
    storage_entry.push_back(&e);
  }

  TorchCheckpoint ck;
  ck.file_name_ = file_name;
  for (const auto& t : sd.tensors) {
    const PickledStorage& s = sd.storages[t.storage];
    const std::uint64_t es = dtype_size(s.dtype);
    std::uint64_t elements = 1, last = t.offset;  // last: index of the furthest element viewed
    bool empty = false;
    for (std::size_t d = 0; d < t.shape.size(); ++d) {
      const auto n = static_cast<std::uint64_t>(t.shape[d]), st = static_cast<std::uint64_t>(t.stride[d]);
      if (n == 0) empty = true;
      if (n != 0 && elements > kMax / n) fail(f, "tensor '" + t.name + "': element count overflows");
      elements *= n;
      if (n > 1) {
        if (st != 0 && n - 1 > (kMax - last) / st) fail(f, "tensor '" + t.name + "': strides overflow");
        last += (n - 1) * st;
      }
    }
    if (!empty && last >= s.numel)
      fail(f, "tensor '" + t.name + "' views element " + std::to_string(last) + " of storage '" + s.key + "', which holds " +
                  std::to_string(s.numel) + " elements (storage too small for the view)");
    if (empty && t.offset > s.numel) fail(f, "tensor '" + t.name + "': storage offset past the end of its storage");
    if (elements > std::numeric_limits<std::size_t>::max() / es)
      fail(f, "tensor '" + t.name + "': " + std::to_string(elements) + " elements do not fit in memory");
    View v;
    v.info.name = t.name;
    v.info.dtype = s.dtype;
    v.info.shape = t.shape;
    v.info.offset = storage_entry[t.storage]->offset + static_cast<std::size_t>(t.offset * es);  // ≤ entry end, checked above
    v.info.nbytes = static_cast<std::size_t>(elements * es);
    v.stride = t.stride;
    ck.views_.push_back(std::move(v));
  }
  ck.bytes_ = std::move(bytes);
  return ck;
}

const TorchCheckpoint::View& TorchCheckpoint::view(const std::string& name) const {
  for (const auto& v : views_)
    if (v.info.name == name) return v;
  fail(file_name_, "missing tensor '" + name + "'");
}

bool TorchCheckpoint::contains(const std::string& name) const {
  for (const auto& v : views_)
    if (v.info.name == name) return true;
  return false;
}

const TensorInfo& TorchCheckpoint::info(const std::string& name) const { return view(name).info; }

std::vector<std::string> TorchCheckpoint::names() const {
  std::vector<std::string> out;
  for (const auto& v : views_) out.push_back(v.info.name);
  return out;
}

// Row-major strides (what torch.save writes for every tensor that is not a view): one bulk conversion.
bool TorchCheckpoint::contiguous(const View& v) {
  std::int64_t expected = 1;
  for (std::size_t d = v.info.shape.size(); d-- > 0;) {
    if (v.info.shape[d] != 1 && v.stride[d] != expected) return false;
    expected *= v.info.shape[d];
  }
  return true;
}

// Row-major walk over the view: an odometer over the dimensions, one element load per step.
template <typename T, typename Load>
std::vector<T> TorchCheckpoint::gather(const View& v, Load load) const {
  const std::size_t n = v.info.elements();
  const std::size_t es = dtype_size(v.info.dtype);
  std::vector<T> out(n);
  if (n == 0) return out;
  const std::size_t dims = v.info.shape.size();
  std::vector<std::int64_t> index(dims, 0);
  const std::uint8_t* base = bytes_.data() + v.info.offset;
  std::size_t at = 0;  // element offset from base
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = load(base + at * es);
    for (std::size_t d = dims; d-- > 0;) {
      if (++index[d] < v.info.shape[d]) {
        at += static_cast<std::size_t>(v.stride[d]);
        break;
      }
      at -= static_cast<std::size_t>(v.stride[d]) * static_cast<std::size_t>(v.info.shape[d] - 1);
      index[d] = 0;
    }
  }
  return out;
}

std::vector<float> TorchCheckpoint::to_f32(const std::string& name) const {
  const View& v = view(name);
  if (!is_float_dtype(v.info.dtype))
    throw Error(ErrorKind::Type, file_name_ + ": tensor '" + name + "' is " + dtype_name(v.info.dtype) +
                                     ", not a floating-point tensor (F32, F16, BF16)");
  const DType d = v.info.dtype;
  if (contiguous(v)) return floats_of(d, bytes_.data() + v.info.offset, v.info.elements());
  return gather<float>(v, [d](const std::uint8_t* p) { return load_float(d, p); });
}

std::vector<std::int64_t> TorchCheckpoint::to_i64(const std::string& name) const {
  const View& v = view(name);
  if (is_float_dtype(v.info.dtype))
    throw Error(ErrorKind::Type, file_name_ + ": tensor '" + name + "' is " + dtype_name(v.info.dtype) +
                                     ", not an integer tensor (I64, I32)");
  const DType d = v.info.dtype;
  if (contiguous(v)) return ints_of(d, bytes_.data() + v.info.offset, v.info.elements());
  return gather<std::int64_t>(v, [d](const std::uint8_t* p) { return load_int(d, p); });
}

TorchCheckpoint::~TorchCheckpoint() { free_bytes(bytes_); }  // one free, not a destructor call per byte at -Oz

}  // namespace relpos::io
