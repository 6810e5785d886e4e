// libFuzzer target: a PyTorch zip checkpoint (io::TorchCheckpoint::parse: zip directory, ZIP64,
// data.pkl through the restricted unpickler, storages, strided views) on arbitrary bytes, then every
// tensor read back.
//
// Contract checked (cpp/src/io/torch_checkpoint.cpp, torch_zip.cpp, pickle.cpp): malformed input
// raises relpos::Error and nothing else; an accepted file's tensors have nbytes = elements × dtype
// size, lie inside the file, and to_f32 / to_i64 succeed for the matching dtype and raise
// relpos::Error for the other. Any other exception, sanitizer report or broken invariant is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

#include "io/dtype_convert.h"
#include "io/torch_checkpoint.h"
#include "relpos/error.h"

namespace {
[[noreturn]] void invariant_broken(const char* what, const std::string& tensor) {
  std::fprintf(stderr, "fuzz_torch_zip: accepted file breaks an invariant: %s (tensor '%s')\n", what, tensor.c_str());
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::optional<relpos::io::TorchCheckpoint> parsed;
  try {
    parsed = relpos::io::TorchCheckpoint::parse(std::vector<std::uint8_t>(data, data + size), "fuzz.bin");
  } catch (const relpos::Error&) {
    return 0;
  }
  for (const std::string& name : parsed->names()) {
    const relpos::TensorInfo& t = parsed->info(name);
    const std::size_t n = t.elements();
    if (n * relpos::io::dtype_size(t.dtype) != t.nbytes) invariant_broken("nbytes != elements × dtype size", name);
    if (n > 0 && t.offset >= size) invariant_broken("first element outside the file", name);
    const bool f = relpos::io::is_float_dtype(t.dtype);
    try {
      if (f ? parsed->to_f32(name).size() != n : parsed->to_i64(name).size() != n) invariant_broken("read size", name);
    } catch (const relpos::Error&) {
      invariant_broken("reading a tensor of a matching dtype threw", name);
    }
    try {
      if (f) (void)parsed->to_i64(name); else (void)parsed->to_f32(name);
      invariant_broken("dtype-mismatched accessor did not throw", name);
    } catch (const relpos::Error&) {
    }
  }
  return 0;
}
