// libFuzzer target: relpos::parse_model_config on arbitrary text.
//
// Contract checked (relpos/config.h): bad text raises relpos::Error and nothing else; an accepted
// config has the sizes the reader promises to validate (vocab, hidden size, layers, heads ≥ 1,
// head_dim ≥ 1, heads dividing the hidden size where head_dim is derived from it, heads a multiple of
// kv heads; Qwen3 and Gemma3 read head_dim on its own — Qwen3-0.6B has 16 × 128 = 2048 against a hidden
// size of 1024 — so there head_dim must only be even, for RoPE's pairs). Any other exception, sanitizer report (signed overflow and out-of-range
// float→int casts included), broken invariant or timeout is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "relpos/config.h"
#include "relpos/error.h"

namespace {

[[noreturn]] void invariant_broken(const char* what, const relpos::ModelConfig& c) {
  std::fprintf(stderr,
               "fuzz_model_config: accepted config breaks an invariant: %s (model_type '%s', hidden %d, heads %d, "
               "kv heads %d, head_dim %d, layers %d, vocab %d)\n",
               what, c.model_type.c_str(), c.hidden_size, c.num_heads, c.num_kv_heads, c.head_dim, c.num_layers,
               c.vocab_size);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  relpos::ModelConfig c;
  try {
    c = relpos::parse_model_config(text);
  } catch (const relpos::Error&) {
    return 0;
  }
  bool supported = false;
  for (const auto& t : relpos::supported_model_types()) supported |= t == c.model_type;
  if (!supported) invariant_broken("unsupported model_type accepted", c);
  if (c.vocab_size < 1) invariant_broken("vocab_size < 1", c);
  if (c.hidden_size < 1) invariant_broken("hidden_size < 1", c);
  if (c.num_layers < 1) invariant_broken("num_layers < 1", c);
  if (c.num_heads < 1) invariant_broken("num_heads < 1", c);
  if (c.num_kv_heads < 1) invariant_broken("num_kv_heads < 1", c);
  if (c.head_dim < 1) invariant_broken("head_dim < 1", c);
  const bool own_head_dim = c.model_type == "t5" || c.model_type == "transfo-xl" || c.model_type == "qwen3" ||
                            c.model_type == "gemma3_text";
  const bool derived_head_dim = !own_head_dim;
  if (derived_head_dim && static_cast<long long>(c.head_dim) * c.num_heads != c.hidden_size)
    invariant_broken("head_dim × num_heads != hidden_size", c);
  if ((c.model_type == "qwen3" || c.model_type == "gemma3_text") && c.head_dim % 2 != 0)
    invariant_broken("odd head_dim accepted for a RoPE family", c);
  if (c.num_heads % c.num_kv_heads != 0) invariant_broken("num_heads not a multiple of num_kv_heads", c);
  for (const auto& p : c.pos_att_type)
    if (p != "c2p" && p != "p2c") invariant_broken("pos_att_type entry other than c2p/p2c", c);
  return 0;
}
