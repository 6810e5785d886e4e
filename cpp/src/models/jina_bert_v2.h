// JinaBERT v2 from a GGUF file (llama.cpp arch `jina-bert-v2`): what a GGUF loader needs to build the
// jina_bert_v2 family (models/jina_bert_v2.cpp) through load_model — a config.json text and the Hugging Face
// name of each GGUF tensor. No second model description: the family reads the same weights either way.
#pragma once

#include <cstdint>
#include <string>

namespace relpos::models {

// GGUF metadata of a jina-bert-v2 file (keys under "jina-bert-v2."):
//   vocab_size          rows of token_embd.weight (= tokenizer.ggml.tokens length)
//   hidden_size         embedding_length
//   num_layers          block_count
//   num_heads           attention.head_count
//   intermediate_size   feed_forward_length (ffn_up has 2 × this many rows: [gated | linear])
//   norm_eps            attention.layer_norm_epsilon
//   type_vocab_size     rows of token_types.weight (tokenizer.ggml.token_type_count), 0 when absent
//   context_length      context_length (the trained length, 8192; ALiBi itself has no limit)
// llama.cpp hard-codes the ALiBi max bias 8 (no key), which is the slope rule this family uses.
struct JinaBertV2GgufShape {
  std::int64_t vocab_size = 0, hidden_size = 0, num_layers = 0, num_heads = 0, intermediate_size = 0;
  std::int64_t type_vocab_size = 2, context_length = 8192;
  double norm_eps = 1e-12;
};

// config.json text for load_model: model_type "jina_bert_v2", feed_forward_type "geglu" (llama.cpp's
// jina-bert-v2 graph is always GeGLU) and the fields above under their BERT names.
std::string jina_bert_v2_config_json(const JinaBertV2GgufShape& shape);

// The checkpoint name of a GGUF tensor (token_embd.weight → embeddings.word_embeddings.weight,
// blk.3.ffn_up.weight → encoder.layer.3.mlp.gated_layers.weight, …); "" for a name the family does not read
// (attn_q_norm / attn_k_norm of the qk-post-norm variant, anything else). GGUF shapes list ne[0] first: a
// [rows, cols] checkpoint tensor is [cols, rows] there, with the same bytes.
std::string jina_bert_v2_tensor_name(const std::string& gguf_name);

}  // namespace relpos::models
