// libFuzzer target: relpos::load_model on fixture configs and mutated checkpoints, then a small
// forward pass.
//
// Input: byte 0 picks the fixture case ((byte 0 & 0x7F) modulo the number of cases, folders sorted
// by name), the weight format (LoadOptions::dtype = Q8 when (byte 0 & 0x7F) / cases is odd) and the mode:
//   byte 0 < 0x80, "raw":    bytes 1… are the safetensors file, the case's config.json is used;
//   byte 0 ≥ 0x80, "header": bytes 1… are a safetensors header (JSON text), optionally followed by
//     a NUL byte and a config.json text replacing the case's. The target lays the data out itself:
//     every well-formed entry (known dtype, shape of small non-negative integers) gets fresh
//     consecutive data_offsets and deterministic values, so mutations reach the loader's checks
//     of names, dtypes and shapes (and config/weight mismatches) instead of dying in the reader's
//     offset checks. Ill-formed entries are passed through unchanged for the reader to reject.
// Seeds (fuzz/make_seeds.cpp): per case, the raw model.safetensors; its header alone; its header +
// NUL + config.json. Fixtures are read once from $RELPOS_FUZZ_FIXTURES, else the compiled-in
// ../shared/fixtures/hf.
//
// Contract (relpos/model.h): a bad config or a missing or mis-shaped weight raises relpos::Error;
// an accepted model runs forward() on valid ids and mask or raises relpos::Error; so does the task head
// it carries (relpos/heads.h), then its logits. Anything else —
// other exceptions, sanitizer reports, timeouts, > -rss_limit_mb — is a finding.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "relpos/error.h"
#include "relpos/heads.h"
#include "relpos/model.h"
#include "relpos/safetensors.h"

#ifndef RELPOS_FUZZ_FIXTURES
#define RELPOS_FUZZ_FIXTURES "../shared/fixtures/hf"
#endif

namespace {

std::vector<std::string> load_configs() {
  const char* env = std::getenv("RELPOS_FUZZ_FIXTURES");
  const std::string root = env && *env ? env : RELPOS_FUZZ_FIXTURES;
  std::vector<std::string> cases;
  if (DIR* dir = opendir(root.c_str())) {
    while (dirent* e = readdir(dir))
      if (e->d_name[0] != '.') cases.push_back(e->d_name);
    closedir(dir);
  }
  std::sort(cases.begin(), cases.end());
  std::vector<std::string> configs;
  for (const auto& c : cases) {
    std::ifstream in(root + "/" + c + "/config.json");
    if (!in) continue;
    std::ostringstream text;
    text << in.rdbuf();
    configs.push_back(text.str());
  }
  if (configs.empty()) {
    std::fprintf(stderr, "fuzz_model_load: no config.json under %s (set RELPOS_FUZZ_FIXTURES)\n", root.c_str());
    std::abort();
  }
  return configs;
}

std::size_t dtype_size(const std::string& d) {
  if (d == "F32" || d == "I32") return 4;
  if (d == "F16" || d == "BF16") return 2;
  if (d == "I64") return 8;
  return 0;
}

// Header mode: a complete file from a header whose well-formed entries get fresh offsets and data.
// Returns false (input skipped) when the header is not a JSON object or the data would exceed 16 MB.
bool synthesize(const std::string& header_text, std::vector<std::uint8_t>& file) {
  nlohmann::json header = nlohmann::json::parse(header_text, nullptr, /*allow_exceptions=*/false);
  if (!header.is_object()) return false;
  constexpr std::size_t kMaxData = 16u << 20;
  std::vector<std::uint8_t> data;
  for (auto it = header.begin(); it != header.end(); ++it) {
    auto& e = it.value();
    if (it.key() == "__metadata__" || !e.is_object() || !e.contains("dtype") || !e["dtype"].is_string() ||
        !e.contains("shape") || !e["shape"].is_array())
      continue;
    const std::string dtype = e["dtype"].get<std::string>();
    const std::size_t esize = dtype_size(dtype);
    if (esize == 0) continue;
    std::size_t n = 1;
    bool ok = true;
    for (const auto& d : e["shape"]) {
      if (!d.is_number_unsigned() || d.get<std::uint64_t>() > kMaxData) {
        ok = false;
        break;
      }
      n *= static_cast<std::size_t>(d.get<std::uint64_t>());
      if (n > kMaxData) return false;
    }
    if (!ok) continue;
    const std::size_t begin = data.size(), nbytes = n * esize;
    if (nbytes > kMaxData - begin) return false;
    data.resize(begin + nbytes);
    for (std::size_t i = 0; i < n; ++i) {
      std::uint8_t* p = data.data() + begin + i * esize;
      const std::uint32_t h = static_cast<std::uint32_t>((begin + i) * 2654435761u);
      if (dtype == "I64" || dtype == "I32") {
        const std::int64_t v = static_cast<std::int64_t>(i % 7);  // small ids/positions
        std::memcpy(p, &v, esize);                               // little-endian host
      } else {
        const float v = (static_cast<float>(h >> 8) / 16777216.0f - 0.5f) * 0.5f;
        std::uint32_t bits;
        std::memcpy(&bits, &v, 4);
        if (esize == 4)
          std::memcpy(p, &bits, 4);
        else {  // BF16 bits (also plausible, if odd, F16 values)
          p[0] = static_cast<std::uint8_t>(bits >> 16);
          p[1] = static_cast<std::uint8_t>(bits >> 24);
        }
      }
    }
    e["data_offsets"] = {begin, begin + nbytes};
  }
  const std::string text = header.dump();
  file.assign(8, 0);
  for (int i = 0; i < 8; ++i) file[i] = static_cast<std::uint8_t>(static_cast<std::uint64_t>(text.size()) >> (8 * i));
  file.insert(file.end(), text.begin(), text.end());
  file.insert(file.end(), data.begin(), data.end());
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<std::string> configs = load_configs();
  if (size < 1) return 0;
  std::string config = configs[(data[0] & 0x7F) % configs.size()];
  std::vector<std::uint8_t> file;
  if (data[0] < 0x80) {
    file.assign(data + 1, data + size);
  } else {
    const std::string rest(reinterpret_cast<const char*>(data + 1), size - 1);
    const std::size_t nul = rest.find('\0');
    if (nul != std::string::npos) config = rest.substr(nul + 1);
    if (!synthesize(rest.substr(0, nul), file)) return 0;
  }
  try {
    const relpos::SafeTensors weights = relpos::SafeTensors::parse(std::move(file), "fuzz.safetensors");
    // 8-bit weights when (byte 0 & 0x7F) / cases is odd (seeds: 0 → fp32; the fuzzer reaches q8)
    relpos::LoadOptions options;
    if (((data[0] & 0x7F) / configs.size()) & 1) options.dtype = relpos::WeightFormat::Q8;
    std::unique_ptr<relpos::Model> model = relpos::load_model(config, weights, options);
    const relpos::ModelConfig& c = model->config();
    const int batch = 2, seq = 5;
    std::vector<std::int32_t> ids(batch * seq), mask(batch * seq, 1);
    for (int i = 0; i < batch * seq; ++i) ids[i] = static_cast<std::int32_t>((i * 7 + 3) % std::max(1, c.vocab_size));
    mask[batch * seq - 1] = 0;  // right padding on the second row
    const relpos::ModelOutput out = model->forward(batch, seq, ids.data(), mask.data(), {true, true});
    // The task head the (mutated) config and weights name, if any: loads or raises relpos::Error,
    // and its logits come out at every token and at two chosen positions.
    if (std::unique_ptr<relpos::TaskHead> head = relpos::load_task_head(config, *model, weights, options)) {
      (void)head->logits(out);
      (void)head->logits(out, {1, batch * seq - 2});
    }
  } catch (const relpos::Error&) {
  }
  return 0;
}
