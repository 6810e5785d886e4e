// Hugging Face config.json, reduced to the fields relpos's model families use.
//
// parse_model_config reads the JSON text, applies Hugging Face's defaults (transformers 4.34) for
// every absent field, and normalises family-specific names (n_head, d_model, dim, …) into the
// common fields below. Errors (relpos::Error): text that is not a JSON object, a missing
// `model_type`, an unknown model_type (the message lists the supported ones), a field of the wrong
// JSON type (named), or inconsistent sizes (hidden_size not divisible by heads, …).
#pragma once

#include <string>
#include <vector>

namespace relpos {

struct ModelConfig {
  std::string model_type;  // one of supported_model_types()

  // Common shape (family names in parentheses).
  int vocab_size = 0;
  int hidden_size = 0;        // hidden_size / d_model (t5, mpt, transfo-xl) / dim (distilbert)
  int num_layers = 0;         // num_hidden_layers / num_layers / n_layer(s)
  int num_heads = 0;          // num_attention_heads / num_heads / n_head(s)
  int num_kv_heads = 0;       // llama num_key_value_heads; others = num_heads
  int head_dim = 0;           // hidden_size / num_heads, or d_kv (t5) / d_head (transfo-xl)
  int intermediate_size = 0;  // intermediate_size / d_ff / hidden_dim / d_inner / 4·hidden (bloom, mpt: HF ignores expansion_ratio)
  int max_position_embeddings = 0;
  int type_vocab_size = 0;
  int embedding_size = 0;     // deberta-v2 / roformer: word embedding width (defaults to hidden_size)
  float norm_eps = 1e-12f;    // layer_norm_eps / layer_norm_epsilon / rms_norm_eps
  std::string hidden_act;     // "gelu", "gelu_new", "relu", "silu", …

  // bert (and the families built on it: roberta, xlm-roberta, camembert, electra)
  std::string position_embedding_type = "absolute";  // absolute | relative_key | relative_key_query
  // roberta / xlm-roberta / camembert: absolute positions counted from the ids (create_position_ids_from_input_ids
  // with padding_idx = pad_token_id): a real token at l reads row pad_token_id + #{non-pad ids ≤ l}, a pad id reads
  // row pad_token_id, so n tokens need max_position_embeddings ≥ pad_token_id + n + 1.
  bool positions_from_ids = false;

  // jina_bert_v2 (JinaBertConfig of jina-embeddings-v2: model_type "bert" + position_embedding_type "alibi",
  // or model_type "jina_bert_v2"; BERT keys otherwise). position_embedding_type is "alibi".
  std::string feed_forward_type = "geglu";  // geglu (GELU gate) | reglu (ReLU gate)

  // deberta-v2
  bool relative_attention = false;
  int max_relative_positions = -1;  // resolved: < 1 → max_position_embeddings
  int position_buckets = -1;
  bool share_att_key = false;
  std::vector<std::string> pos_att_type;  // subset of {"c2p", "p2c"}
  std::string norm_rel_ebd = "none";
  bool position_biased_input = true;

  // t5
  int relative_attention_num_buckets = 32;
  int relative_attention_max_distance = 128;
  std::string feed_forward_proj = "relu";
  bool is_gated_act = false;  // derived from feed_forward_proj
  std::string dense_act_fn = "relu";  // derived: "gated-gelu" → gelu_new

  // roformer
  bool rotary_value = false;

  // distilbert
  bool sinusoidal_pos_embds = false;

  // transfo-xl
  int d_embed = 0;
  int mem_len = 0;
  int clamp_len = 0;
  bool same_length = false;
  bool untie_r = true;
  bool pre_lnorm = false;
  int div_val = 1;
  bool adaptive = false;
  std::vector<int> cutoffs;
  int attn_type = 0;

  // bloom
  bool apply_residual_connection_post_layernorm = false;

  // mpt
  bool alibi = true;
  float alibi_bias_max = 8.0f;
  bool no_bias = true;
  bool qk_ln = false;
  bool has_clip_qkv = false;
  bool has_softmax_scale = false;
  float softmax_scale = 0.0f;

  // llama
  float rope_theta = 10000.0f;
  bool attention_bias = false;
  bool has_rope_scaling = false;

  // qwen3 (Qwen3Config) and gemma3_text (Gemma3TextConfig): head_dim is read from config.json (not hidden / heads).
  //   layer_sliding[i]   layer_types[i] == "sliding_attention" (qwen3: derived from use_sliding_window and
  //                      max_window_layers when absent; gemma3_text: from sliding_window_pattern, default 6)
  //   sliding_window     config.json's value as written (before Gemma3's bidirectional rule); −1 = none
  //   bidirectional      gemma3_text use_bidirectional_attention (EmbeddingGemma); qwen3 is always causal
  //   query_pre_attn_scalar  gemma3_text: attention scale = query_pre_attn_scalar^−½ (not head_dim^−½)
  //   local_rope_theta   gemma3_text rope_local_base_freq (sliding layers); rope_theta for full layers
  //   tie_word_embeddings  the causal-LM head reads embed_tokens (qwen3 default false, gemma3_text true)
  std::vector<bool> layer_sliding;
  int sliding_window = -1;
  bool bidirectional = false;
  float query_pre_attn_scalar = 0.0f;
  bool tie_word_embeddings = true;

  // mpnet (MPNetConfig): positions from input_ids with padding_idx 1 (hard-coded in MPNetEmbeddings);
  // the bucketed relative bias shares t5's relative_attention_num_buckets (table rows; buckets are 32).
  int pad_token_id = 0;

  // modernbert (ModernBertConfig, transformers 4.48): layer i is global iff i % global_attn_every_n_layers == 0;
  // local layers attend to |i − j| ≤ local_attention / 2 (floor). norm_bias / attention_bias / mlp_bias.
  int global_attn_every_n_layers = 3;
  int local_attention = 128;
  float global_rope_theta = 160000.0f;
  float local_rope_theta = 10000.0f;
  bool norm_bias = false;
  bool mlp_bias = false;
  std::string classifier_pooling = "cls";  // cls | mean
  std::string classifier_activation = "gelu";
  bool classifier_bias = false;
  bool decoder_bias = true;

  // nomic_bert (NomicBertConfig, GPT-2 style keys; the model authors' remote code)
  float rotary_emb_fraction = 0.0f;
  float rotary_emb_base = 10000.0f;
  bool rotary_emb_interleaved = false;
  bool has_rotary_scaling_factor = false;  // set and ≠ 0 (dynamic NTK): load_model refuses it when rotary is on
  float rotary_scaling_factor = 0.0f;
  int max_trained_positions = 2048;         // where dynamic NTK would start rescaling (parsed, unused)
  bool prenorm = false;
  bool qkv_proj_bias = true;
  bool mlp_fc1_bias = true;
  bool mlp_fc2_bias = true;
};

std::vector<std::string> supported_model_types();
ModelConfig parse_model_config(const std::string& config_json_text);

}  // namespace relpos
