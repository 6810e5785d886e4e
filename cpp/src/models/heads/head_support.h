// What every task head reads from config.json and the checkpoint (heads/*.cpp). Internal header.
//   HeadSource       config.json parsed once, the model config, the weights (a LoadContext: load
//                    options attached, held bytes counted) and the model (null: no tied decoder).
//   label_names      id2label in id order, checked against the head's outputs.
//   rows_of          rows of a 2-D head weight (its number of outputs).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "relpos/heads.h"

namespace relpos::models::heads {

struct HeadSource {
  nlohmann::json config_json;
  const ModelConfig& config;
  const Weights& weights;
  const Model* model = nullptr;
};

// id2label names for `n` outputs of `tensor`, in id order; "LABEL_i" when config.json has no id2label
// or only Hugging Face's placeholder names ("LABEL_0", "LABEL_1", … under their own ids). Error when
// id2label is not an object of "id": "name", or does not name exactly the ids 0 … n − 1.
std::vector<std::string> label_names(const nlohmann::json& config, int n, const std::string& tensor);

// A string field of config.json, or `fallback` when absent / null; Error when it is not a string.
std::string string_field(const nlohmann::json& config, const char* key, const std::string& fallback);

// Rows of the 2-D tensor `name` (Error naming it when absent or not 2-D).
int rows_of(const Weights& weights, const std::string& name);

// The first tensor of `names` the checkpoint lacks, or "" when it has them all.
std::string first_missing(const Weights& weights, const std::vector<std::string>& names);

// The rows a vocabulary head (masked LM, causal LM) reads from the model's last_hidden_state [B, L, H]: every token
// in place (positions empty), or the flat positions b·L + l gathered into `gathered` (select_rows, so a recorded plan
// sees them). *rows and *width are set; RangeError naming `head` for a position outside [0, B·L), Error when the
// output has no last_hidden_state.
const float* vocabulary_head_rows(const ModelOutput& outputs, const std::vector<int>& positions, const char* head,
                                  std::vector<float>& gathered, int* rows, int* width);

// Per-family factories (null when the family has no such head).
std::unique_ptr<TaskHead> make_sequence_classifier(const HeadSource& source);
std::unique_ptr<TaskHead> make_token_classifier(const HeadSource& source);
std::unique_ptr<TaskHead> make_question_answering(const HeadSource& source);
std::unique_ptr<TaskHead> make_masked_lm(const HeadSource& source);
std::unique_ptr<TaskHead> make_causal_lm(const HeadSource& source);  // causal_lm.cpp (qwen3)
// ModernBERT (modernbert_heads.cpp): head.dense → act → head.norm → classifier, pooled (cls / mean) or per token.
std::unique_ptr<TaskHead> make_modernbert_sequence_classifier(const HeadSource& source);
std::unique_ptr<TaskHead> make_modernbert_token_classifier(const HeadSource& source);

}  // namespace relpos::models::heads
