// libFuzzer target: the GGUF reader (cpp/src/io/gguf.cpp), its block decoders (gguf_blocks.cpp) and the
// GGUF → family mapping (gguf_model.cpp) on arbitrary bytes.
//
// Contract checked (io/gguf.h, io/gguf_model.h): malformed input raises relpos::Error and nothing else; a
// header parse_gguf_header accepts satisfies the documented invariants (every tensor inside the file and
// after the header, byte size = blocks × block bytes, offsets aligned, non-empty tensors pairwise disjoint)
// and every tensor decodes; the same bytes read as a stream (file size unknown) give either "more bytes
// needed" or the same header for every prefix; open_gguf either refuses with relpos::Error or serves
// every tensor through Weights::to_f32. Any other exception, sanitizer report, broken invariant, timeout
// or allocation past -rss_limit_mb is a finding.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "io/gguf.h"
#include "io/gguf_blocks.h"
#include "io/gguf_model.h"
#include "relpos/error.h"

namespace {

[[noreturn]] void invariant_broken(const char* what, const std::string& tensor) {
  std::fprintf(stderr, "fuzz_gguf: accepted file breaks an invariant: %s (tensor '%s')\n", what, tensor.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace relpos::io;
  std::optional<GgufHeader> h;
  try {
    h = parse_gguf_header(data, size, size, "fuzz.gguf");
  } catch (const relpos::Error&) {
    return 0;  // rejected: the expected outcome for most inputs
  }
  if (!h) invariant_broken("a whole file gave 'more bytes needed'", "");
  // The same bytes as a stream: a prefix is either not enough or parses to the same header.
  for (std::size_t n : {size / 3, size / 2, h->data_start}) {
    std::optional<GgufHeader> part;
    try {
      part = parse_gguf_header(data, std::min(n, size), kGgufSizeUnknown, "fuzz.gguf");
    } catch (const relpos::Error&) {
      invariant_broken("a prefix of an accepted file was refused", "");
    }
    if (part && (part->tensors.size() != h->tensors.size() || part->metadata.size() != h->metadata.size()))
      invariant_broken("a prefix parsed to another header", "");
  }
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  std::vector<float> values;
  for (const auto& t : h->tensors) {
    if (t.offset < h->data_start || t.offset % h->alignment != h->data_start % h->alignment)
      invariant_broken("tensor not aligned after the header", t.name);
    if (t.offset > size || t.nbytes > size - t.offset) invariant_broken("tensor runs past the end of the file", t.name);
    if (t.elements % ggml_block_size(t.type) != 0 || t.elements / ggml_block_size(t.type) * ggml_type_size(t.type) != t.nbytes)
      invariant_broken("nbytes != blocks × block bytes", t.name);
    if (t.nbytes) ranges.emplace_back(t.offset, t.offset + t.nbytes);
    if (t.elements <= (std::size_t(1) << 22)) {
      values.resize(t.elements);
      decode_ggml_blocks(t.type, data + t.offset, t.elements, values.data());
    }
  }
  std::sort(ranges.begin(), ranges.end());
  std::size_t covered = 0;
  for (const auto& r : ranges) {
    if (r.first < covered) invariant_broken("two non-empty tensors overlap", "");
    covered = r.second;
  }
  try {
    GgufCheckpoint g = open_gguf(std::vector<std::uint8_t>(data, data + size), "fuzz.gguf");
    if (g.config_json.empty() || g.config_json.front() != '{') invariant_broken("config is not a JSON object", "");
    for (const auto& name : g.weights->names())
      if (g.weights->info(name).elements() <= (std::size_t(1) << 22) && g.weights->to_f32(name).size() != g.weights->info(name).elements())
        invariant_broken("to_f32 size", name);
  } catch (const relpos::Error&) {
  }
  return 0;
}
