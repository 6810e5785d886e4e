// Transformer encoders (and decoder stacks run over a whole sequence) loaded from Hugging Face
// checkpoints: config.json text + weights (relpos/weights.h: safetensors, PyTorch, sharded sets).
//
//   auto model = relpos::load_model(config_json_text, relpos::SafeTensors::read_file(path));
//   relpos::ModelOutput out = model->forward(batch, seq, input_ids, attention_mask, {true, true});
//
// Inputs are row-major [batch, seq]: token ids (int32, < vocab_size), an attention mask (nonzero =
// real token; nullptr = every token real) and token type ids (segment of a text pair, < the
// model's type_vocab_size; nullptr = all 0; ignored by families without token types). Position
// ids are 0 … seq−1 for every row.
// Outputs follow Hugging Face's conventions (see model families in cpp/src/models/):
//   last_hidden_state [B, L, H];  hidden_states: n_layers + 1 tensors [B, L, H] (embeddings first;
//   the last one after the final norm for T5 / BLOOM / MPT / LLaMA);  attentions: n_layers tensors
//   [B, heads, L, L] of probabilities;  pooler_output [B, H] (BERT only, else empty).
// Values at padded positions are unspecified. Weights are converted to float32 and packed at load
// (LoadOptions::dtype = Q8: the linear layers' weights are quantized to int8 instead, see below);
// forward() reuses the model's scratch memory, so one Model must not run two forwards at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "relpos/config.h"
#include "relpos/safetensors.h"

namespace relpos {

struct Tensor {
  std::vector<int> shape;  // empty when absent
  std::vector<float> data;
};

struct ForwardOptions {
  bool output_hidden_states = false;
  bool output_attentions = false;
};

struct ModelOutput {
  Tensor last_hidden_state;
  std::vector<Tensor> hidden_states;
  std::vector<Tensor> attentions;
  Tensor pooler_output;
  // [B, L]: 1 where forward() was given a real token (attention_mask nonzero), 0 at padding; empty when no
  // mask was given (every token real). Heads that pool over the real tokens read it (ModernBERT "mean").
  std::vector<std::uint8_t> token_mask;
};

// How a model holds its weights. F32 ("fp32"): float32, as in the checkpoint. Q8 ("q8"): every linear
// layer's weight as symmetric int8 with one float32 scale per output channel times a 4-bit multiplier
// per group of 32 inputs (kernels/gemm_qs8.h), the word embeddings (and BERT's absolute position table)
// as int8 with one scale per row, quantized tensor by tensor as it is read (biases, norms and the other
// position tables stay float32); at every forward the linear layers quantize their input per row to
// int16 and multiply in exact integer sums.
enum class WeightFormat { F32, Q8 };
const char* weight_format_name(WeightFormat format);  // "fp32" | "q8"
// "fp32" → F32, "q8" → Q8; RangeError naming the allowed values otherwise.
WeightFormat parse_weight_format(const std::string& name);

struct LoadOptions {
  WeightFormat dtype = WeightFormat::F32;
};

class Model {
 public:
  virtual ~Model() = default;
  virtual const ModelConfig& config() const = 0;
  virtual WeightFormat dtype() const = 0;
  // Bytes of weights the model holds: 4 per float32 value, 1 per int8 weight + 4 per scale (+ ½ per
  // group multiplier).
  virtual std::size_t weight_bytes() const = 0;
  // Longest sequence the model's position tables allow (max_position_embeddings for absolute
  // positions), 0 when relative positions put no limit on it; forward() refuses longer inputs.
  virtual int max_sequence() const { return 0; }
  // Throws relpos::Error (RangeError: bad sizes, token or token type ids; Error: sequence longer than
  // the model's tables).
  virtual ModelOutput forward(int batch, int seq, const std::int32_t* input_ids, const std::int32_t* attention_mask,
                              const ForwardOptions& options = {}, const std::int32_t* token_type_ids = nullptr) = 0;
};

// Parses config.json and builds the model named by its model_type. Throws relpos::Error on an
// unsupported model_type or setting, and on a missing or mis-shaped weight (naming the tensor).
std::unique_ptr<Model> load_model(const std::string& config_json_text, const Weights& weights,
                                  const LoadOptions& options = {});

}  // namespace relpos
