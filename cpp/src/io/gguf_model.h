// A GGUF file as a relpos checkpoint: general.architecture and its metadata keys become the config.json
// of the C++ family that already runs that architecture, and the GGUF tensor names become that family's
// Hugging Face names, so load_model and the task heads run unchanged (one model description).
// Internal header.
//
//   GgufCheckpoint g = open_gguf(bytes, "model-q8_0.gguf");
//   auto model = load_model(g.config_json, *g.weights, options);
//
// Architectures (llama.cpp name → relpos model_type):
//   bert → bert · nomic-bert → nomic_bert · modern-bert → modernbert · qwen3 → qwen3 ·
//   gemma-embedding → gemma3_text (bidirectional; norm weights stored as 1 + w are served as w, so the
//   family's own 1 + w gives back the stored value exactly; layer pattern from
//   attention.sliding_window_pattern (per-layer bools or a period), else llama.cpp's default period 6) ·
//   jina-bert-v2 → not yet (Error). Anything else: Error naming it and listing these.
// qwen3 with pooling_type RANK (4) and cls.output.weight: a Qwen3ForCausalLM whose lm_head is cls.output
// (rows = classifier.output_labels, e.g. yes / no), so logits are [yes, no].
// Tensors the family does not read under a Hugging Face name keep their GGUF names (dense_2.weight, …).
// Errors (relpos::Error naming the file): everything parse_gguf_header reports; a missing or non-string
// general.architecture; a required metadata key absent or not a number (named); token_embd missing or
// its width ≠ embedding_length; tokenizer.ggml.tokens holding a different count than token_embd's rows.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/gguf.h"
#include "relpos/weights.h"

namespace relpos::io {

struct GgufCheckpoint {
  std::string config_json;           // the family's config.json
  std::string architecture;          // general.architecture
  std::unique_ptr<Weights> weights;  // Hugging Face names; to_f32 decodes the blocks
  const GgufHeader* header = nullptr;  // owned by weights
};

GgufCheckpoint open_gguf(std::vector<std::uint8_t> bytes, const std::string& file_name);

// The mapping alone, from a parsed header (StreamedCheckpoint converts a GGUF file as it streams in with it):
// the config, and per header tensor (same order) its name for the family and whether its values are served
// less one (gemma-embedding norm gains). Same Errors as open_gguf.
struct GgufMapping {
  std::string config_json, architecture;
  std::vector<std::string> names;
  std::vector<bool> minus_one;
};
GgufMapping map_gguf(const GgufHeader& header, const std::string& file_name);

// The architectures relpos maps ("bert, nomic-bert, …").
std::string gguf_supported_architectures();

}  // namespace relpos::io
