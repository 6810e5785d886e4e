// config.json → ModelConfig (see relpos/config.h). Defaults are those of the transformers 4.34
// configuration classes (BertConfig, DebertaV2Config, T5Config, RoFormerConfig, DistilBertConfig,
// TransfoXLConfig, BloomConfig, MptConfig, LlamaConfig); JSON null counts as absent.
#include "relpos/config.h"

#include "io/json_text.h"

#include <cctype>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "relpos/error.h"

namespace relpos {
namespace {

using nlohmann::json;

const std::vector<std::string> kSupported = {"bert", "deberta-v2", "t5", "roformer", "distilbert",
                                             "transfo-xl", "bloom", "mpt", "llama", "mpnet", "modernbert",
                                             "nomic_bert", "qwen3", "gemma3_text", "roberta",
                                             "xlm-roberta", "camembert", "electra", "jina_bert_v2"};

[[noreturn]] void fail_field(const std::string& key, const std::string& what) {
  fail_value("config.json: field '" + key + "' " + what);
}

bool present(const json& j, const std::string& key) { return j.contains(key) && !j.at(key).is_null(); }

int get_int(const json& j, const std::string& key, int fallback) {
  if (!present(j, key)) return fallback;
  const json& v = j.at(key);
  if (!v.is_number_integer()) {
    // An integral float (12.0) is accepted; range-check before converting (casting 1e19 or 3e9 to
    // an integer type is undefined behaviour — found by fuzz/fuzz_model_config.cpp).
    if (v.is_number_float()) {
      const double d = v.get<double>();
      if (d >= -2147483647.0 && d <= 2147483647.0 && d == std::trunc(d)) return static_cast<int>(d);
      if (d == std::trunc(d)) fail_field(key, "is out of range: " + io::describe_json(v));
    }
    fail_field(key, "must be an integer, got " + io::describe_json(v));
  }
  const auto x = v.get<long long>();
  if (x < -2147483647LL || x > 2147483647LL) fail_field(key, "is out of range: " + io::describe_json(v));
  return static_cast<int>(x);
}

float get_float(const json& j, const std::string& key, float fallback) {
  if (!present(j, key)) return fallback;
  const json& v = j.at(key);
  if (!v.is_number()) fail_field(key, "must be a number, got " + io::describe_json(v));
  return v.get<float>();
}

bool get_bool(const json& j, const std::string& key, bool fallback) {
  if (!present(j, key)) return fallback;
  const json& v = j.at(key);
  if (!v.is_boolean()) fail_field(key, "must be true or false, got " + io::describe_json(v));
  return v.get<bool>();
}

std::string get_string(const json& j, const std::string& key, const std::string& fallback) {
  if (!present(j, key)) return fallback;
  const json& v = j.at(key);
  if (!v.is_string()) fail_field(key, "must be a string, got " + io::describe_json(v));
  return v.get<std::string>();
}

void require_positive(int value, const char* name) {
  if (value < 1) fail_range("config.json: " + std::string(name) + " must be ≥ 1, got " + std::to_string(value));
}

void split_heads(ModelConfig& c) {
  require_positive(c.num_heads, "the number of attention heads");
  if (c.hidden_size % c.num_heads != 0)
    fail_range("config.json: hidden size " + std::to_string(c.hidden_size) + " is not a multiple of the " +
               std::to_string(c.num_heads) + " attention heads");
  c.head_dim = c.hidden_size / c.num_heads;
}

// layer_types → c.layer_sliding: one "full_attention" / "sliding_attention" entry per layer.
void read_layer_types(const json& j, ModelConfig& c) {
  const json& lt = j.at("layer_types");
  if (!lt.is_array() || static_cast<int>(lt.size()) != c.num_layers)
    fail_field("layer_types", "must list one entry per layer (" + std::to_string(c.num_layers) + "), got " +
                                  (lt.is_array() ? std::to_string(lt.size()) + " entries" : io::describe_json(lt)));
  c.layer_sliding.assign(c.num_layers, false);
  for (int i = 0; i < c.num_layers; ++i) {
    const std::string kind = lt[i].is_string() ? lt[i].get<std::string>() : "";
    if (kind != "full_attention" && kind != "sliding_attention")
      fail_field("layer_types", "entry " + std::to_string(i) + " is " + io::describe_json(lt[i]) +
                                    " (expected 'full_attention' or 'sliding_attention')");
    c.layer_sliding[i] = kind == "sliding_attention";
  }
}

// rope_scaling / rope_parameters of a decoder family: only the default RoPE (no YaRN, linear, dynamic, llama3
// scaling). rope_parameters (transformers ≥ 5) is either one set { rope_type, rope_theta } or one per layer kind
// { full_attention: {…}, sliding_attention: {…} }; a theta found there replaces rope_theta / local_rope_theta.
void read_rope_settings(const json& j, ModelConfig& c, const std::string& family) {
  if (present(j, "rope_scaling")) {
    const json& rs = j.at("rope_scaling");
    const std::string type = rs.is_object() ? get_string(rs, "rope_type", get_string(rs, "type", "?")) : "?";
    fail_field("rope_scaling", "is set (rope_type '" + type + "'): " + family +
                                   " runs the default RoPE only; YaRN, linear, dynamic and llama3 scaling are not supported");
  }
  if (!present(j, "rope_parameters")) return;
  const json& rp = j.at("rope_parameters");
  if (!rp.is_object()) fail_field("rope_parameters", "must be an object, got " + io::describe_json(rp));
  auto one = [&](const json& p, const std::string& where, float& theta) {
    if (!p.is_object()) fail_field("rope_parameters", where + " must be an object");
    const std::string type = get_string(p, "rope_type", "default");
    if (type != "default")
      fail_field("rope_parameters", where + "rope_type '" + type + "' is not supported (" + family + " runs 'default' only)");
    theta = get_float(p, "rope_theta", theta);
  };
  if (present(rp, "full_attention") || present(rp, "sliding_attention")) {
    if (present(rp, "full_attention")) one(rp.at("full_attention"), "'full_attention': ", c.rope_theta);
    if (present(rp, "sliding_attention")) one(rp.at("sliding_attention"), "'sliding_attention': ", c.local_rope_theta);
  } else {
    one(rp, "", c.rope_theta);
  }
}

// Qwen3 / Gemma3: explicit head_dim and grouped-query heads.
void check_gqa(ModelConfig& c) {
  require_positive(c.num_heads, "num_attention_heads");
  require_positive(c.num_kv_heads, "num_key_value_heads");
  require_positive(c.head_dim, "head_dim");
  if (c.num_heads % c.num_kv_heads != 0)
    fail_range("config.json: num_attention_heads " + std::to_string(c.num_heads) +
               " is not a multiple of num_key_value_heads " + std::to_string(c.num_kv_heads));
  if (c.head_dim % 2 != 0) fail_range("config.json: head_dim must be even for RoPE, got " + std::to_string(c.head_dim));
}

}  // namespace

std::vector<std::string> supported_model_types() { return kSupported; }

ModelConfig parse_model_config(const std::string& text) {
  json j;
  try {
    j = io::parse_json(text);
  } catch (const json::exception& e) {
    fail_value(std::string("config.json is not valid JSON: ") + e.what());
  }
  if (!j.is_object()) fail_value("config.json must be a JSON object");
  if (!present(j, "model_type")) fail_value("config.json: missing required field 'model_type'");
  ModelConfig c;
  c.model_type = get_string(j, "model_type", "");
  const std::string& t = c.model_type;

  // JinaBERT v2 (jina-embeddings-v2; the authors' remote code, JinaBertConfig) ships config.json with model_type
  // "bert" and position_embedding_type "alibi", which BertModel does not have: that pair selects the jina_bert_v2
  // family. "jina_bert_v2" itself is accepted too (what a GGUF `jina-bert-v2` architecture maps to).
  // (t is c.model_type: after this line it reads "jina_bert_v2" for such a config.)
  const bool jina_from_bert = t == "bert" && get_string(j, "position_embedding_type", "absolute") == "alibi";
  if (jina_from_bert) c.model_type = "jina_bert_v2";
  const bool jina = t == "jina_bert_v2";

  if (t == "bert" || t == "roformer" || t == "deberta-v2" || jina) {
    const bool roformer = t == "roformer", deberta = t == "deberta-v2";
    c.vocab_size = get_int(j, "vocab_size", roformer ? 50000 : deberta ? 128100 : 30522);
    c.hidden_size = get_int(j, "hidden_size", deberta ? 1536 : 768);
    c.num_layers = get_int(j, "num_hidden_layers", deberta ? 24 : 12);
    c.num_heads = get_int(j, "num_attention_heads", deberta ? 24 : 12);
    c.intermediate_size = get_int(j, "intermediate_size", deberta ? 6144 : 3072);
    c.hidden_act = get_string(j, "hidden_act", "gelu");
    c.max_position_embeddings = get_int(j, "max_position_embeddings", roformer ? 1536 : jina ? 8192 : 512);
    c.type_vocab_size = get_int(j, "type_vocab_size", deberta ? 0 : 2);
    c.norm_eps = get_float(j, "layer_norm_eps", deberta ? 1e-7f : 1e-12f);
    c.embedding_size = get_int(j, "embedding_size", c.hidden_size);
    if (t == "bert") c.position_embedding_type = get_string(j, "position_embedding_type", "absolute");
    if (jina) {
      // JinaBertConfig's default is "original" (a plain BERT MLP), which relpos does not run; "jina_bert_v2"
      // written by hand (or from GGUF, whose jina-bert-v2 is always GeGLU) defaults to "geglu".
      c.position_embedding_type = "alibi";
      c.feed_forward_type = get_string(j, "feed_forward_type", jina_from_bert ? "original" : "geglu");
      if (c.feed_forward_type != "geglu" && c.feed_forward_type != "reglu")
        fail_field("feed_forward_type", "'" + c.feed_forward_type + "' is not supported for JinaBERT v2 (supported: geglu, "
                                        "reglu: the gated MLP of jina-embeddings-v2)");
    }
    if (roformer) c.rotary_value = get_bool(j, "rotary_value", false);
    if (deberta) {
      c.relative_attention = get_bool(j, "relative_attention", false);
      c.max_relative_positions = get_int(j, "max_relative_positions", -1);
      if (c.max_relative_positions < 1) c.max_relative_positions = c.max_position_embeddings;
      c.position_buckets = get_int(j, "position_buckets", -1);
      c.share_att_key = get_bool(j, "share_att_key", false);
      c.position_biased_input = get_bool(j, "position_biased_input", true);
      c.norm_rel_ebd = get_string(j, "norm_rel_ebd", "none");
      if (present(j, "pos_att_type")) {
        const json& v = j.at("pos_att_type");
        if (v.is_string()) {  // HF also accepts "p2c|c2p"
          std::string s = v.get<std::string>();
          for (std::size_t start = 0; start <= s.size();) {
            std::size_t bar = s.find('|', start);
            if (bar == std::string::npos) bar = s.size();
            if (bar > start) c.pos_att_type.push_back(s.substr(start, bar - start));
            start = bar + 1;
          }
        } else if (v.is_array()) {
          for (const auto& e : v) {
            if (!e.is_string()) fail_field("pos_att_type", "must list strings, got " + io::describe_json(v));
            c.pos_att_type.push_back(e.get<std::string>());
          }
        } else {
          fail_field("pos_att_type", "must be a list of strings, got " + io::describe_json(v));
        }
        for (auto& s : c.pos_att_type) {
          for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
          if (s != "c2p" && s != "p2c") fail_field("pos_att_type", "entry '" + s + "' is not supported (c2p, p2c)");
        }
      }
    }
    split_heads(c);
  } else if (t == "roberta" || t == "xlm-roberta" || t == "camembert" || t == "electra") {
    // RobertaConfig / XLMRobertaConfig / CamembertConfig / ElectraConfig (transformers 4.34): BertConfig's fields;
    // the RoBERTa family counts positions from the ids (pad_token_id 1), ELECTRA embeds in embedding_size (128)
    // and projects to hidden_size when they differ (embeddings_project).
    const bool electra = t == "electra";
    c.vocab_size = get_int(j, "vocab_size", t == "roberta" ? 50265 : 30522);
    c.hidden_size = get_int(j, "hidden_size", electra ? 256 : 768);
    c.num_layers = get_int(j, "num_hidden_layers", 12);
    c.num_heads = get_int(j, "num_attention_heads", electra ? 4 : 12);
    c.intermediate_size = get_int(j, "intermediate_size", electra ? 1024 : 3072);
    c.hidden_act = get_string(j, "hidden_act", "gelu");
    c.max_position_embeddings = get_int(j, "max_position_embeddings", 512);
    c.type_vocab_size = get_int(j, "type_vocab_size", 2);
    c.norm_eps = get_float(j, "layer_norm_eps", 1e-12f);
    c.pad_token_id = get_int(j, "pad_token_id", electra ? 0 : 1);
    c.embedding_size = electra ? get_int(j, "embedding_size", 128) : c.hidden_size;
    c.position_embedding_type = get_string(j, "position_embedding_type", "absolute");
    c.positions_from_ids = !electra;
    require_positive(c.embedding_size, "embedding_size");
    if (c.positions_from_ids && c.position_embedding_type == "absolute" &&
        (c.pad_token_id < 0 || c.pad_token_id > c.max_position_embeddings - 2))
      fail_range("config.json: pad_token_id " + std::to_string(c.pad_token_id) + " leaves no position rows for tokens: " +
                 t + " reads rows pad_token_id + 1 … of the position table (max_position_embeddings " +
                 std::to_string(c.max_position_embeddings) + "), so pad_token_id must be in [0, " +
                 std::to_string(std::max(0, c.max_position_embeddings - 2)) + "]");
    split_heads(c);
  } else if (t == "t5") {
    c.vocab_size = get_int(j, "vocab_size", 32128);
    c.hidden_size = get_int(j, "d_model", 512);
    c.head_dim = get_int(j, "d_kv", 64);
    c.intermediate_size = get_int(j, "d_ff", 2048);
    c.num_layers = get_int(j, "num_layers", 6);
    c.num_heads = get_int(j, "num_heads", 8);
    c.relative_attention_num_buckets = get_int(j, "relative_attention_num_buckets", 32);
    c.relative_attention_max_distance = get_int(j, "relative_attention_max_distance", 128);
    c.norm_eps = get_float(j, "layer_norm_epsilon", 1e-6f);
    c.feed_forward_proj = get_string(j, "feed_forward_proj", "relu");
    // T5Config: "gated-<act>" or "<act>"; "gated-gelu" means gelu_new for backwards compatibility.
    const std::string& ff = c.feed_forward_proj;
    const auto dash = ff.find('-');
    c.is_gated_act = dash != std::string::npos && ff.substr(0, dash) == "gated";
    c.dense_act_fn = dash == std::string::npos ? ff : ff.substr(dash + 1);
    if ((dash != std::string::npos && !c.is_gated_act) || ff.find('-', dash == std::string::npos ? 0 : dash + 1) != std::string::npos)
      fail_field("feed_forward_proj", "'" + ff + "' is not of the form '[gated-]<activation>'");
    if (ff == "gated-gelu") c.dense_act_fn = "gelu_new";
    c.hidden_act = c.dense_act_fn;
    require_positive(c.num_heads, "num_heads");
    require_positive(c.head_dim, "d_kv");
  } else if (t == "distilbert") {
    c.vocab_size = get_int(j, "vocab_size", 30522);
    c.max_position_embeddings = get_int(j, "max_position_embeddings", 512);
    c.sinusoidal_pos_embds = get_bool(j, "sinusoidal_pos_embds", false);
    c.num_layers = get_int(j, "n_layers", 6);
    c.num_heads = get_int(j, "n_heads", 12);
    c.hidden_size = get_int(j, "dim", 768);
    c.intermediate_size = get_int(j, "hidden_dim", 3072);
    c.hidden_act = get_string(j, "activation", "gelu");
    c.norm_eps = 1e-12f;  // hard-coded in modeling_distilbert.py
    split_heads(c);
  } else if (t == "transfo-xl") {
    c.vocab_size = get_int(j, "vocab_size", 267735);
    c.hidden_size = get_int(j, "d_model", 1024);
    c.d_embed = get_int(j, "d_embed", 1024);
    c.num_heads = get_int(j, "n_head", 16);
    c.head_dim = get_int(j, "d_head", 64);
    c.intermediate_size = get_int(j, "d_inner", 4096);
    c.div_val = get_int(j, "div_val", 4);
    c.pre_lnorm = get_bool(j, "pre_lnorm", false);
    c.num_layers = get_int(j, "n_layer", 18);
    c.mem_len = get_int(j, "mem_len", 1600);
    c.clamp_len = get_int(j, "clamp_len", 1000);
    c.same_length = get_bool(j, "same_length", true);
    c.attn_type = get_int(j, "attn_type", 0);
    c.untie_r = get_bool(j, "untie_r", true);
    c.adaptive = get_bool(j, "adaptive", true);
    c.norm_eps = get_float(j, "layer_norm_epsilon", 1e-5f);
    if (present(j, "cutoffs")) {
      const json& v = j.at("cutoffs");
      if (!v.is_array()) fail_field("cutoffs", "must be a list of integers");
      for (const auto& e : v) {
        if (!e.is_number_integer()) fail_field("cutoffs", "must be a list of integers");
        c.cutoffs.push_back(e.get<int>());
      }
    } else {
      c.cutoffs = {20000, 40000, 200000};
    }
    c.hidden_act = "relu";
    require_positive(c.num_heads, "n_head");
    require_positive(c.head_dim, "d_head");
  } else if (t == "bloom") {
    c.vocab_size = get_int(j, "vocab_size", 250880);
    c.hidden_size = get_int(j, "n_embed", get_int(j, "hidden_size", 64));
    c.num_layers = get_int(j, "n_layer", 2);
    c.num_heads = get_int(j, "n_head", 8);
    c.norm_eps = get_float(j, "layer_norm_epsilon", 1e-5f);
    c.apply_residual_connection_post_layernorm = get_bool(j, "apply_residual_connection_post_layernorm", false);
    if (c.hidden_size > 2147483647 / 4 || c.hidden_size < -2147483647 / 4)  // 4·hidden must fit in int
      fail_range("config.json: hidden size " + std::to_string(c.hidden_size) + " is out of range (4 × it must fit in 32 bits)");
    c.intermediate_size = 4 * c.hidden_size;
    c.hidden_act = "gelu_new";  // bloom_gelu_forward: the tanh approximation
    split_heads(c);
  } else if (t == "mpt") {
    c.hidden_size = get_int(j, "d_model", 2048);
    c.num_heads = get_int(j, "n_heads", 16);
    c.num_layers = get_int(j, "n_layers", 24);
    (void)get_int(j, "expansion_ratio", 4);  // type-checked but unused: transformers 4.34's MptMLP is 4·d_model wide
    if (c.hidden_size > 2147483647 / 4 || c.hidden_size < -2147483647 / 4)  // 4·hidden must fit in int
      fail_range("config.json: hidden size " + std::to_string(c.hidden_size) + " is out of range (4 × it must fit in 32 bits)");
    c.intermediate_size = 4 * c.hidden_size;
    c.max_position_embeddings = get_int(j, "max_seq_len", 2048);
    c.vocab_size = get_int(j, "vocab_size", 50368);
    c.norm_eps = get_float(j, "layer_norm_epsilon", 1e-5f);
    c.no_bias = get_bool(j, "no_bias", true);
    c.hidden_act = "gelu";
    if (present(j, "attn_config")) {
      const json& a = j.at("attn_config");
      if (!a.is_object()) fail_field("attn_config", "must be an object");
      c.alibi = get_bool(a, "alibi", true);
      c.alibi_bias_max = get_float(a, "alibi_bias_max", 8.0f);
      c.qk_ln = get_bool(a, "qk_ln", false);
      c.has_clip_qkv = present(a, "clip_qkv");
      c.has_softmax_scale = present(a, "softmax_scale");
      if (c.has_softmax_scale) c.softmax_scale = get_float(a, "softmax_scale", 0.0f);
    }
    split_heads(c);
  } else if (t == "llama") {
    c.vocab_size = get_int(j, "vocab_size", 32000);
    c.hidden_size = get_int(j, "hidden_size", 4096);
    c.intermediate_size = get_int(j, "intermediate_size", 11008);
    c.num_layers = get_int(j, "num_hidden_layers", 32);
    c.num_heads = get_int(j, "num_attention_heads", 32);
    c.num_kv_heads = get_int(j, "num_key_value_heads", c.num_heads);
    c.hidden_act = get_string(j, "hidden_act", "silu");
    c.max_position_embeddings = get_int(j, "max_position_embeddings", 2048);
    c.norm_eps = get_float(j, "rms_norm_eps", 1e-6f);
    c.rope_theta = get_float(j, "rope_theta", 10000.0f);
    c.attention_bias = get_bool(j, "attention_bias", false);
    c.has_rope_scaling = present(j, "rope_scaling");
    split_heads(c);
    require_positive(c.num_kv_heads, "num_key_value_heads");
    if (c.num_heads % c.num_kv_heads != 0)
      fail_range("config.json: num_attention_heads " + std::to_string(c.num_heads) +
                 " is not a multiple of num_key_value_heads " + std::to_string(c.num_kv_heads));
  } else if (t == "mpnet") {
    c.vocab_size = get_int(j, "vocab_size", 30527);
    c.hidden_size = get_int(j, "hidden_size", 768);
    c.num_layers = get_int(j, "num_hidden_layers", 12);
    c.num_heads = get_int(j, "num_attention_heads", 12);
    c.intermediate_size = get_int(j, "intermediate_size", 3072);
    c.hidden_act = get_string(j, "hidden_act", "gelu");
    c.max_position_embeddings = get_int(j, "max_position_embeddings", 512);  // MPNetConfig default (checkpoints say 514)
    c.norm_eps = get_float(j, "layer_norm_eps", 1e-12f);
    c.relative_attention_num_buckets = get_int(j, "relative_attention_num_buckets", 32);
    c.pad_token_id = get_int(j, "pad_token_id", 1);
    c.type_vocab_size = 0;
    c.embedding_size = c.hidden_size;
    split_heads(c);
  } else if (t == "modernbert") {
    c.vocab_size = get_int(j, "vocab_size", 50368);
    c.hidden_size = get_int(j, "hidden_size", 768);
    c.intermediate_size = get_int(j, "intermediate_size", 1152);
    c.num_layers = get_int(j, "num_hidden_layers", 22);
    c.num_heads = get_int(j, "num_attention_heads", 12);
    c.hidden_act = get_string(j, "hidden_activation", "gelu");
    c.max_position_embeddings = get_int(j, "max_position_embeddings", 8192);
    c.norm_eps = get_float(j, "norm_eps", 1e-5f);
    c.norm_bias = get_bool(j, "norm_bias", false);
    c.attention_bias = get_bool(j, "attention_bias", false);
    c.mlp_bias = get_bool(j, "mlp_bias", false);
    c.pad_token_id = get_int(j, "pad_token_id", 50283);
    c.global_attn_every_n_layers = get_int(j, "global_attn_every_n_layers", 3);
    c.local_attention = get_int(j, "local_attention", 128);
    c.global_rope_theta = get_float(j, "global_rope_theta", 160000.0f);
    // ModernBertAttention: a null local_rope_theta leaves the local layers on global_rope_theta.
    c.local_rope_theta = j.contains("local_rope_theta") && j.at("local_rope_theta").is_null()
                             ? c.global_rope_theta
                             : get_float(j, "local_rope_theta", 10000.0f);
    c.classifier_pooling = get_string(j, "classifier_pooling", "cls");
    c.classifier_activation = get_string(j, "classifier_activation", "gelu");
    c.classifier_bias = get_bool(j, "classifier_bias", false);
    c.decoder_bias = get_bool(j, "decoder_bias", true);
    c.type_vocab_size = 0;
    c.embedding_size = c.hidden_size;
    require_positive(c.global_attn_every_n_layers, "global_attn_every_n_layers");
    if (c.local_attention < 0) fail_range("config.json: local_attention must be ≥ 0, got " + std::to_string(c.local_attention));
    if (c.classifier_pooling != "cls" && c.classifier_pooling != "mean")
      fail_field("classifier_pooling", "'" + c.classifier_pooling + "' is not supported (cls, mean)");
    // Configs written by transformers ≥ 5 keep the thetas in rope_parameters {full_attention, sliding_attention}
    // and list layer_types; read them, and refuse what the v4.48 model cannot do (other RoPE types, another pattern).
    if (present(j, "rope_parameters")) {
      const json& rp = j.at("rope_parameters");
      if (!rp.is_object()) fail_field("rope_parameters", "must be an object, got " + io::describe_json(rp));
      for (const char* kind : {"full_attention", "sliding_attention"}) {
        if (!present(rp, kind)) continue;
        const json& p = rp.at(kind);
        if (!p.is_object()) fail_field("rope_parameters", std::string("'") + kind + "' must be an object");
        const std::string type = get_string(p, "rope_type", "default");
        if (type != "default")
          fail_field("rope_parameters", std::string("'") + kind + "': rope_type '" + type + "' is not supported (default only)");
        float& theta = std::string(kind) == "full_attention" ? c.global_rope_theta : c.local_rope_theta;
        theta = get_float(p, "rope_theta", theta);
      }
    }
    if (present(j, "rope_scaling")) fail_field("rope_scaling", "is not supported for modernbert");
    if (present(j, "layer_types")) {
      const json& lt = j.at("layer_types");
      if (!lt.is_array() || static_cast<int>(lt.size()) != c.num_layers)
        fail_field("layer_types", "must list one entry per layer (" + std::to_string(c.num_layers) + ")");
      for (int i = 0; i < c.num_layers; ++i) {
        const char* want = i % c.global_attn_every_n_layers == 0 ? "full_attention" : "sliding_attention";
        if (!lt[i].is_string() || lt[i].get<std::string>() != want)
          fail_field("layer_types", "entry " + std::to_string(i) + " must be '" + want +
                                        "' (layer i is full_attention iff i % global_attn_every_n_layers == 0; "
                                        "other patterns are not supported)");
      }
    }
    split_heads(c);
  } else if (t == "nomic_bert") {
    // NomicBertConfig (configuration_hf_nomic_bert.py) over GPT2Config: GPT-2 keys n_embd, n_head, n_layer,
    // n_inner, n_positions; hidden_size, num_attention_heads, num_hidden_layers, max_position_embeddings
    // are GPT2Config's attribute_map aliases, applied after the GPT-2 keys (so an alias wins when both
    // are present). Defaults: GPT2Config (vocab 50257, 1024 positions, "gelu_new", eps 1e-5) and
    // NomicBertConfig (rotary_emb_fraction 0, base 10000, biases on, type_vocab_size 2).
    c.vocab_size = get_int(j, "vocab_size", 50257);
    c.hidden_size = get_int(j, "hidden_size", get_int(j, "n_embd", 768));
    c.num_heads = get_int(j, "num_attention_heads", get_int(j, "n_head", 12));
    c.num_layers = get_int(j, "num_hidden_layers", get_int(j, "n_layer", 12));
    c.intermediate_size = get_int(j, "n_inner", 0);  // null: the MLP's default width; the weights decide
    c.hidden_act = get_string(j, "activation_function", "gelu_new");
    c.max_position_embeddings = get_int(j, "max_position_embeddings", get_int(j, "n_positions", 1024));
    c.norm_eps = get_float(j, "layer_norm_epsilon", 1e-5f);
    c.type_vocab_size = get_int(j, "type_vocab_size", 2);
    c.pad_token_id = get_int(j, "pad_token_id", 0);
    c.rotary_emb_fraction = get_float(j, "rotary_emb_fraction", 0.0f);
    c.rotary_emb_base = get_float(j, "rotary_emb_base", 10000.0f);
    c.rotary_emb_interleaved = get_bool(j, "rotary_emb_interleaved", false);
    // The remote code tests `if config.rotary_scaling_factor:` — 0 counts as unset there too.
    c.rotary_scaling_factor = get_float(j, "rotary_scaling_factor", 0.0f);
    c.has_rotary_scaling_factor = c.rotary_scaling_factor != 0.0f;
    c.max_trained_positions = get_int(j, "max_trained_positions", 2048);
    c.prenorm = get_bool(j, "prenorm", false);
    c.qkv_proj_bias = get_bool(j, "qkv_proj_bias", true);
    c.mlp_fc1_bias = get_bool(j, "mlp_fc1_bias", true);
    c.mlp_fc2_bias = get_bool(j, "mlp_fc2_bias", true);
    // NomicBertModel rounds vocab_size up to a multiple of pad_vocab_size_multiple before it builds the
    // word embeddings (the checkpoint's table has the rounded size).
    const int multiple = get_int(j, "pad_vocab_size_multiple", 1);
    require_positive(multiple, "pad_vocab_size_multiple");
    if (c.vocab_size > 0 && c.vocab_size % multiple != 0) {
      const long long rounded = (static_cast<long long>(c.vocab_size) / multiple + 1) * multiple;
      if (rounded > 2147483647LL) fail_field("pad_vocab_size_multiple", "rounds vocab_size out of range");
      c.vocab_size = static_cast<int>(rounded);
    }
    // Settings of the remote code that build another model; relpos runs none of them.
    if (get_int(j, "moe_every_n_layers", 0) > 0)
      fail_field("moe_every_n_layers", "> 0 (mixture-of-experts layers, nomic-embed-text-v2-moe) is not supported");
    if (get_bool(j, "norm_mlp", false)) fail_field("norm_mlp", "= true (LayerNorm inside the MLP) is not supported");
    if (get_bool(j, "rotary_head_dim", false))
      fail_field("rotary_head_dim", "= true (rotary applied along the head axis) is not supported");
    c.embedding_size = c.hidden_size;
    split_heads(c);
    if (present(j, "num_heads_kv") && get_int(j, "num_heads_kv", 0) != c.num_heads)
      fail_field("num_heads_kv", "must equal n_head " + std::to_string(c.num_heads) +
                                     " (the fused Wqkv of NomicBertAttention has as many key/value heads as query heads)");
  } else if (t == "qwen3") {
    // Qwen3Config (transformers 4.51+): layer i slides iff layer_types[i] == "sliding_attention"; when layer_types
    // is absent, layers ≥ max_window_layers slide if use_sliding_window (HF's derivation). Always causal.
    c.vocab_size = get_int(j, "vocab_size", 151936);
    c.hidden_size = get_int(j, "hidden_size", 4096);
    c.intermediate_size = get_int(j, "intermediate_size", 22016);
    c.num_layers = get_int(j, "num_hidden_layers", 32);
    c.num_heads = get_int(j, "num_attention_heads", 32);
    c.num_kv_heads = get_int(j, "num_key_value_heads", 32);
    c.head_dim = get_int(j, "head_dim", 128);
    c.hidden_act = get_string(j, "hidden_act", "silu");
    c.max_position_embeddings = get_int(j, "max_position_embeddings", 32768);
    c.norm_eps = get_float(j, "rms_norm_eps", 1e-6f);
    c.rope_theta = get_float(j, "rope_theta", 10000.0f);
    c.attention_bias = get_bool(j, "attention_bias", false);
    c.tie_word_embeddings = get_bool(j, "tie_word_embeddings", false);
    c.pad_token_id = get_int(j, "pad_token_id", 0);
    const bool sliding = get_bool(j, "use_sliding_window", false);
    c.sliding_window = sliding ? get_int(j, "sliding_window", 4096) : -1;
    require_positive(c.num_layers, "num_hidden_layers");
    if (c.num_layers > 100000) fail_range("config.json: num_hidden_layers " + std::to_string(c.num_layers) + " is out of range (≤ 100000)");
    if (present(j, "layer_types")) {
      read_layer_types(j, c);
    } else {
      const int first = get_int(j, "max_window_layers", 28);
      c.layer_sliding.assign(c.num_layers, false);
      for (int i = 0; i < c.num_layers; ++i) c.layer_sliding[i] = c.sliding_window > 0 && i >= first;
    }
    for (int i = 0; i < c.num_layers; ++i)
      if (c.layer_sliding[i] && c.sliding_window < 1)
        fail_field("layer_types", "entry " + std::to_string(i) + " is 'sliding_attention' but sliding_window is " +
                                      (c.sliding_window < 0 ? std::string("unset (use_sliding_window false)") : std::to_string(c.sliding_window)));
    read_rope_settings(j, c, "qwen3");
    check_gqa(c);
  } else if (t == "gemma3_text") {
    // Gemma3TextConfig (transformers 4.57): sliding_window as written in config.json (the constructor's
    // bidirectional rule w // 2 + 1 is applied by the family, once); rope_local_base_freq for sliding layers.
    c.vocab_size = get_int(j, "vocab_size", 262208);
    c.hidden_size = get_int(j, "hidden_size", 2304);
    c.intermediate_size = get_int(j, "intermediate_size", 9216);
    c.num_layers = get_int(j, "num_hidden_layers", 26);
    c.num_heads = get_int(j, "num_attention_heads", 8);
    c.num_kv_heads = get_int(j, "num_key_value_heads", 4);
    c.head_dim = get_int(j, "head_dim", 256);
    c.hidden_act = get_string(j, "hidden_activation", "gelu_pytorch_tanh");
    c.max_position_embeddings = get_int(j, "max_position_embeddings", 131072);
    c.norm_eps = get_float(j, "rms_norm_eps", 1e-6f);
    c.rope_theta = get_float(j, "rope_theta", 1000000.0f);
    c.local_rope_theta = get_float(j, "rope_local_base_freq", 10000.0f);
    c.attention_bias = get_bool(j, "attention_bias", false);
    c.query_pre_attn_scalar = get_float(j, "query_pre_attn_scalar", 256.0f);
    c.sliding_window = get_int(j, "sliding_window", 4096);
    c.bidirectional = get_bool(j, "use_bidirectional_attention", false);
    c.tie_word_embeddings = get_bool(j, "tie_word_embeddings", true);
    c.pad_token_id = get_int(j, "pad_token_id", 0);
    require_positive(c.num_layers, "num_hidden_layers");
    if (c.num_layers > 100000) fail_range("config.json: num_hidden_layers " + std::to_string(c.num_layers) + " is out of range (≤ 100000)");
    if (present(j, "layer_types")) {
      read_layer_types(j, c);
    } else {
      const int pattern = get_int(j, "sliding_window_pattern", get_int(j, "_sliding_window_pattern", 6));
      require_positive(pattern, "sliding_window_pattern");
      c.layer_sliding.assign(c.num_layers, false);
      for (int i = 0; i < c.num_layers; ++i) c.layer_sliding[i] = (i + 1) % pattern != 0;
    }
    if (c.sliding_window < 1) require_positive(c.sliding_window, "sliding_window");
    if (!(c.query_pre_attn_scalar > 0.0f))
      fail_range("config.json: query_pre_attn_scalar must be positive, got " + std::to_string(c.query_pre_attn_scalar));
    read_rope_settings(j, c, "gemma3_text");
    check_gqa(c);
  } else {
    std::string list;
    for (const auto& s : kSupported) list += (list.empty() ? "" : ", ") + s;
    fail_value("config.json: unsupported model_type '" + t + "' (supported: " + list + ")");
  }
  if (c.num_kv_heads == 0) c.num_kv_heads = c.num_heads;
  require_positive(c.vocab_size, "vocab_size");
  require_positive(c.hidden_size, "hidden size");
  require_positive(c.num_layers, "number of layers");
  return c;
}

}  // namespace relpos
