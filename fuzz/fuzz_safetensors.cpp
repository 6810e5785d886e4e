// libFuzzer target: relpos::SafeTensors::parse on arbitrary bytes, then every tensor read back.
//
// Contract checked (relpos/safetensors.h, cpp/src/io/safetensors.cpp): malformed input raises
// relpos::Error and nothing else; a file that parse() accepts must satisfy the reader's documented
// invariants (every tensor inside the data buffer, byte size = elements × dtype size, non-empty
// tensors pairwise disjoint), and to_f32 / to_i64 must succeed for the matching dtypes and raise
// relpos::Error for the others. Any other exception, sanitizer report, broken invariant, timeout or
// allocation past -rss_limit_mb is a finding.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <utility>
#include <vector>

#include "relpos/error.h"
#include "relpos/safetensors.h"

namespace {

[[noreturn]] void invariant_broken(const char* what, const std::string& tensor) {
  std::fprintf(stderr, "fuzz_safetensors: accepted file breaks an invariant: %s (tensor '%s')\n", what,
               tensor.c_str());
  std::abort();
}

std::size_t dtype_size(relpos::DType d) {
  switch (d) {
    case relpos::DType::F32: return 4;
    case relpos::DType::F16: return 2;
    case relpos::DType::BF16: return 2;
    case relpos::DType::I64: return 8;
    case relpos::DType::I32: return 4;
  }
  return 0;
}

bool is_float(relpos::DType d) {
  return d == relpos::DType::F32 || d == relpos::DType::F16 || d == relpos::DType::BF16;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::optional<relpos::SafeTensors> parsed;
  try {
    parsed = relpos::SafeTensors::parse(std::vector<std::uint8_t>(data, data + size), "fuzz.safetensors");
  } catch (const relpos::Error&) {
    return 0;  // rejected: the expected outcome for most inputs
  }
  const relpos::SafeTensors& st = *parsed;

  std::uint64_t header_len = 0;
  for (int i = 0; i < 8; ++i) header_len |= static_cast<std::uint64_t>(data[i]) << (8 * i);
  const std::size_t data_start = 8 + static_cast<std::size_t>(header_len);

  std::vector<std::pair<std::size_t, std::size_t>> ranges;  // [begin, end) of non-empty tensors
  for (const std::string& name : st.names()) {
    const relpos::TensorInfo& t = st.info(name);
    // Element count recomputed here with overflow checks, independent of TensorInfo::elements().
    std::size_t n = 1;
    for (std::int64_t d : t.shape) {
      if (d < 0) invariant_broken("negative shape entry", name);
      if (d != 0 && n > SIZE_MAX / static_cast<std::size_t>(d)) invariant_broken("element count overflows", name);
      n *= static_cast<std::size_t>(d);
    }
    if (n != t.elements()) invariant_broken("elements() disagrees with shape", name);
    if (n > SIZE_MAX / dtype_size(t.dtype) || n * dtype_size(t.dtype) != t.nbytes)
      invariant_broken("nbytes != elements × dtype size", name);
    if (t.offset < data_start) invariant_broken("tensor starts inside the header", name);
    if (t.offset > size || t.nbytes > size - t.offset) invariant_broken("tensor runs past the end of the file", name);
    if (t.nbytes != 0) ranges.emplace_back(t.offset, t.offset + t.nbytes);

    try {
      if (is_float(t.dtype)) {
        const std::vector<float> v = st.to_f32(name);
        if (v.size() != n) invariant_broken("to_f32 size", name);
      } else {
        const std::vector<std::int64_t> v = st.to_i64(name);
        if (v.size() != n) invariant_broken("to_i64 size", name);
      }
    } catch (const relpos::Error&) {
      invariant_broken("reading a tensor of a matching dtype threw relpos::Error", name);
    }
    // The mismatching accessor must refuse with relpos::Error (an uncaught exception of any other
    // type aborts the fuzzer and is reported).
    try {
      if (is_float(t.dtype))
        (void)st.to_i64(name);
      else
        (void)st.to_f32(name);
      invariant_broken("dtype-mismatched accessor did not throw", name);
    } catch (const relpos::Error&) {
    }
  }
  std::sort(ranges.begin(), ranges.end());
  std::size_t covered = 0;
  for (const auto& r : ranges) {
    if (r.first < covered) invariant_broken("two non-empty tensors overlap", "(see names() order)");
    covered = r.second;
  }
  try {
    (void)st.info("\x01 surely not a tensor name");
    invariant_broken("info() of a missing name did not throw", "");
  } catch (const relpos::Error&) {
  }
  return 0;
}
