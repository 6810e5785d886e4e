// GGUF → the C++ families' config.json and tensor names (see io/gguf_model.h).
#include "io/gguf_model.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <algorithm>

#include "io/gguf_blocks.h"
#include "io/tensor_bytes.h"
#include "relpos/error.h"

namespace relpos::io {
namespace {

// GGUF tensor base name (without .weight / .bias) → Hugging Face base name, as {gguf, hf, gguf, hf, …, nullptr}
// lists (constant data: no start-up code). Block tensors are "blk.N.<gguf>" → "<block prefix>N.<hf>"; an
// architecture's block names are its `block` list then its `extra` list.
using Names = const char* const*;

struct Architecture {
  const char* gguf;  // general.architecture
  const char* model_type;
  const char* block_prefix;
  Names top, block, extra;
};

constexpr const char* kNone[] = {nullptr};
constexpr const char* kBertTop[] = {"token_embd", "embeddings.word_embeddings", "position_embd", "embeddings.position_embeddings",
                                    "token_types", "embeddings.token_type_embeddings", "token_embd_norm", "embeddings.LayerNorm", nullptr};
constexpr const char* kBertAttention[] = {"attn_q", "attention.self.query", "attn_k", "attention.self.key", "attn_v", "attention.self.value",
                                          "attn_output", "attention.output.dense", "attn_output_norm", "attention.output.LayerNorm", nullptr};
constexpr const char* kBertMlp[] = {"ffn_up", "intermediate.dense", "ffn_down", "output.dense", "layer_output_norm", "output.LayerNorm", nullptr};
constexpr const char* kNomicTop[] = {"token_embd", "embeddings.word_embeddings", "token_types", "embeddings.token_type_embeddings",
                                     "token_embd_norm", "emb_ln", nullptr};
constexpr const char* kNomicBlock[] = {"attn_qkv", "attn.Wqkv", "attn_output", "attn.out_proj", "ffn_up", "mlp.fc11", "ffn_gate", "mlp.fc12",
                                       "ffn_down", "mlp.fc2", "attn_output_norm", "norm1", "layer_output_norm", "norm2", nullptr};
constexpr const char* kModernTop[] = {"token_embd", "embeddings.tok_embeddings", "token_embd_norm", "embeddings.norm", "output_norm", "final_norm", nullptr};
constexpr const char* kModernBlock[] = {"attn_norm", "attn_norm", "attn_qkv", "attn.Wqkv", "attn_output", "attn.Wo", "ffn_norm", "mlp_norm",
                                        "ffn_up", "mlp.Wi", "ffn_down", "mlp.Wo", nullptr};
constexpr const char* kDecoderTop[] = {"token_embd", "embed_tokens", "output_norm", "norm", "output", "lm_head", "cls.output", "lm_head", nullptr};
constexpr const char* kDecoderBlock[] = {"attn_norm", "input_layernorm", "attn_q", "self_attn.q_proj", "attn_k", "self_attn.k_proj",
                                         "attn_v", "self_attn.v_proj", "attn_output", "self_attn.o_proj", "attn_q_norm", "self_attn.q_norm",
                                         "attn_k_norm", "self_attn.k_norm", "ffn_gate", "mlp.gate_proj", "ffn_up", "mlp.up_proj",
                                         "ffn_down", "mlp.down_proj", nullptr};
constexpr const char* kQwen3Norms[] = {"ffn_norm", "post_attention_layernorm", nullptr};
constexpr const char* kGemmaNorms[] = {"post_attention_norm", "post_attention_layernorm", "ffn_norm", "pre_feedforward_layernorm",
                                       "post_ffw_norm", "post_feedforward_layernorm", nullptr};
constexpr const char* kJinaMlp[] = {"ffn_up", "mlp.gated_layers", "ffn_down", "mlp.wo", "layer_output_norm", "mlp.layernorm", nullptr};

constexpr Architecture kArchitectures[] = {
    {"bert", "bert", "encoder.layer.", kBertTop, kBertAttention, kBertMlp},
    {"nomic-bert", "nomic_bert", "encoder.layers.", kNomicTop, kNomicBlock, kNone},
    {"modern-bert", "modernbert", "layers.", kModernTop, kModernBlock, kNone},
    {"qwen3", "qwen3", "layers.", kDecoderTop, kDecoderBlock, kQwen3Norms},  // output / cls.output: the first present
    {"gemma-embedding", "gemma3_text", "layers.", kDecoderTop, kDecoderBlock, kGemmaNorms},
    // jina-bert-v2 (models/jina_bert_v2.cpp: ALiBi encoder, fused GeGLU MLP; BERT's embeddings, no position table)
{"jina-bert-v2", "jina_bert_v2", "encoder.layer.", kBertTop, kBertAttention, kJinaMlp},
};

// The hf name of `name` in a {gguf, hf, …, nullptr} list, or nullptr.
const char* lookup(Names list, const std::string& name) {
  for (; *list; list += 2)
    if (name == list[0]) return list[1];
  return nullptr;
}

std::string format_float(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

// config.json text, written key by key.
class ConfigWriter {
 public:
  void raw(const std::string& key, const std::string& json) { out_ += (out_.empty() ? "{" : ", ") + quote(key) + ": " + json; }
  void str(const std::string& key, const std::string& v) { raw(key, quote(v)); }
  void integer(const std::string& key, long long v) { raw(key, std::to_string(v)); }
  void number(const std::string& key, double v) { raw(key, format_float(v)); }
  void boolean(const std::string& key, bool v) { raw(key, v ? "true" : "false"); }
  std::string text() const { return out_ + "}"; }
  static std::string quote(const std::string& s) {
    std::string q = "\"";
    for (char ch : s) {
      if (ch == '"' || ch == '\\') q += '\\';
      if (static_cast<unsigned char>(ch) >= 0x20) q += ch;
    }
    return q + "\"";
  }

 private:
  std::string out_;
};

class Meta {
 public:
  Meta(const GgufHeader& h, std::string arch, const std::string& file) : h_(h), arch_(std::move(arch)), file_(file) {}
  const GgufValue* find(const std::string& key) const { return h_.find(arch_ + "." + key); }
  bool has(const std::string& key) const { return find(key) != nullptr; }
  double number(const std::string& key) const {
    const GgufValue* v = find(key);
    if (!v) fail_value(file_ + ": missing metadata '" + arch_ + "." + key + "' (a " + arch_ + " model needs it)");
    if (!v->is_number()) fail_value(file_ + ": metadata '" + arch_ + "." + key + "' must be a number, got " + gguf_value_type_name(v->type));
    return v->number();
  }
  double number(const std::string& key, double fallback) const { return has(key) ? number(key) : fallback; }
  long long integer(const std::string& key) const {
    const double d = number(key);
    if (!(d >= 0 && d <= 2147483647.0) || d != std::floor(d))
      fail_value(file_ + ": metadata '" + arch_ + "." + key + "' = " + format_float(d) + " is not a count in [0, 2^31)");
    return static_cast<long long>(d);
  }
  long long integer(const std::string& key, long long fallback) const { return has(key) ? integer(key) : fallback; }

 private:
  const GgufHeader& h_;
  std::string arch_;
  const std::string& file_;
};

// One "sliding_attention" / "full_attention" entry per layer: sliding[i].
std::string layer_types(const std::vector<bool>& sliding) {
  std::string s = "[";
  for (std::size_t i = 0; i < sliding.size(); ++i) s += std::string(i ? ", " : "") + (sliding[i] ? "\"sliding_attention\"" : "\"full_attention\"");
  return s + "]";
}

// attention.sliding_window_pattern: per-layer bools (true = sliding) or a period n (layer il slides iff
// il % n < n − 1, llama.cpp's set_swa_pattern); `fallback` period when absent.
std::vector<bool> sliding_layers(const Meta& m, long long layers, long long fallback, const std::string& file) {
  std::vector<bool> out(static_cast<std::size_t>(layers));
  const GgufValue* p = m.find("attention.sliding_window_pattern");
  if (p && p->type == GgufValueType::Array) {
    if (p->element != GgufValueType::Bool || p->count != static_cast<std::uint64_t>(layers))
      fail_value(file + std::string(": attention.sliding_window_pattern must list one bool per layer (") + std::to_string(layers) + ")");
    for (long long i = 0; i < layers; ++i) out[i] = p->numbers[i] != 0;
    return out;
  }
  const long long n = p ? m.integer("attention.sliding_window_pattern") : fallback;
  if (n < 1) fail_value(file + ": attention.sliding_window_pattern must be ≥ 1");
  for (long long i = 0; i < layers; ++i) out[i] = i % n < n - 1;
  return out;
}

class GgufWeights final : public Weights {
 public:
  struct Entry {
    TensorInfo info;
    const GgufTensor* tensor;
    bool minus_one = false;  // gemma norm gains stored as 1 + w
  };

  GgufWeights(std::vector<std::uint8_t> bytes, GgufHeader header, std::string file)
      : bytes_(std::move(bytes)), header_(std::move(header)), file_(std::move(file)) {}
  ~GgufWeights() override { free_bytes(bytes_); }  // one free, not a destructor call per byte at -Oz

  void add(const std::string& name, const GgufTensor& t, bool minus_one) {
    Entry e;
    e.info.name = name;
    e.info.dtype = t.type == GgmlType::F16 ? DType::F16 : t.type == GgmlType::BF16 ? DType::BF16 : DType::F32;
    for (auto it = t.ne.rbegin(); it != t.ne.rend(); ++it) e.info.shape.push_back(static_cast<std::int64_t>(*it));
    e.info.offset = t.offset;
    e.info.nbytes = t.nbytes;
    e.tensor = &t;
    e.minus_one = minus_one;
    names_.push_back(name);
    entries_.emplace(name, std::move(e));
  }

  const GgufHeader& header() const { return header_; }

  bool contains(const std::string& name) const override { return entries_.count(name) != 0; }
  const TensorInfo& info(const std::string& name) const override { return entry(name).info; }
  std::vector<std::string> names() const override { return names_; }
  std::vector<float> to_f32(const std::string& name) const override {
    const Entry& e = entry(name);
    std::vector<float> out = zeroed_floats(e.tensor->elements);
    decode_ggml_blocks(e.tensor->type, bytes_.data() + e.tensor->offset, out.size(), out.data());
    if (e.minus_one)
      for (float& x : out) x -= 1.0f;  // exact: (1 + w) − 1 for the |w| < 1 gains a norm holds
    return out;
  }
  std::vector<std::int64_t> to_i64(const std::string& name) const override {
    throw Error(ErrorKind::Type, file_ + ": tensor '" + name + "' is a float tensor, not an integer one");
  }
  const std::string& file_name() const override { return file_; }

 private:
  const Entry& entry(const std::string& name) const {
    auto it = entries_.find(name);
    if (it == entries_.end()) fail_value(file_ + ": missing tensor '" + name + "'");
    return it->second;
  }
  std::vector<std::uint8_t> bytes_;
  GgufHeader header_;
  std::string file_;
  std::map<std::string, Entry> entries_;
  std::vector<std::string> names_;
};

// The Hugging Face name of a GGUF tensor, or "" when the architecture has none for it.
std::string hf_name(const Architecture& a, const std::string& name) {
  std::string base = name, suffix;
  for (const char* s : {".weight", ".bias"}) {
    const std::string sfx = s;
    if (name.size() > sfx.size() && name.compare(name.size() - sfx.size(), sfx.size(), sfx) == 0) {
      base = name.substr(0, name.size() - sfx.size());
      suffix = sfx;
    }
  }
  if (suffix.empty()) return "";
  if (base.rfind("blk.", 0) == 0) {
    const std::size_t dot = base.find('.', 4);
    if (dot == std::string::npos || dot == 4) return "";
    const std::string layer = base.substr(4, dot - 4);
    for (char ch : layer)
      if (ch < '0' || ch > '9') return "";
    const std::string rest = base.substr(dot + 1);
    const char* hf = lookup(a.block, rest);
    if (!hf) hf = lookup(a.extra, rest);
    return hf ? a.block_prefix + layer + "." + hf + suffix : "";
  }
  const char* hf = lookup(a.top, base);
  return hf ? hf + suffix : "";
}

std::string build_config(const Architecture& a, const GgufHeader& h, const GgufTensor& embd, const std::string& file) {
  const Meta m(h, a.gguf, file);
  const std::string t = a.model_type;
  ConfigWriter c;
  c.str("model_type", t);
  const long long hidden = m.integer("embedding_length"), layers = m.integer("block_count");
  // every block has tensors of its own: a larger count is a corrupt header, refused before anything per layer is built
  if (static_cast<unsigned long long>(layers) > h.tensors.size())
    fail_value(file + ": metadata '" + a.gguf + ".block_count' = " + std::to_string(layers) + " is more than the file's " +
               std::to_string(h.tensors.size()) + " tensors (every block has its own)");
  const long long heads = m.integer("attention.head_count");
  if (embd.ne.size() != 2 || embd.ne[0] != static_cast<std::uint64_t>(hidden))
    fail_value(file + ": token_embd.weight has rows of " + std::to_string(embd.ne[0]) + " values but embedding_length is " +
               std::to_string(hidden));
  const long long vocab = static_cast<long long>(embd.ne[1]);
  if (vocab > 2147483647LL) fail_value(file + ": token_embd.weight has more than 2^31 rows");
  c.integer("vocab_size", vocab);
  c.integer("num_hidden_layers", layers);
  c.integer("num_attention_heads", heads);
  c.integer("hidden_size", hidden);
  c.integer("intermediate_size", m.integer("feed_forward_length"));
  c.integer("max_position_embeddings", m.integer("context_length", 512));
  const double eps = m.number("attention.layer_norm_epsilon", m.number("attention.layer_norm_rms_epsilon", 1e-12));
  const auto type_rows = [&](long long fallback) {
    const GgufTensor* tt = h.tensor("token_types.weight");
    return tt && tt->ne.size() == 2 ? static_cast<long long>(tt->ne[1]) : fallback;
  };
  if (t == "bert") {
    c.integer("type_vocab_size", type_rows(0));
    c.number("layer_norm_eps", eps);
    c.str("hidden_act", "gelu");
    c.str("position_embedding_type", "absolute");
  } else if (t == "jina_bert_v2") {
    // llama.cpp's jina-bert-v2 graph: GeGLU (ffn_up holds [gated | linear]), ALiBi with max bias 8 (no key; the
    // family's slope rule), post-LN; context_length is the trained length (ALiBi itself has no limit)
    c.integer("type_vocab_size", type_rows(2));
    c.number("layer_norm_eps", eps);
    c.str("feed_forward_type", "geglu");
  } else if (t == "nomic_bert") {
    c.integer("type_vocab_size", type_rows(0));
    c.number("layer_norm_epsilon", eps);
    c.str("activation_function", h.tensor("blk.0.ffn_gate.weight") ? "swiglu" : "gelu");
    c.number("rotary_emb_fraction", 1.0);
    c.number("rotary_emb_base", m.number("rope.freq_base", 10000.0));
    c.boolean("qkv_proj_bias", h.tensor("blk.0.attn_qkv.bias") != nullptr);
    c.boolean("mlp_fc1_bias", h.tensor("blk.0.ffn_up.bias") != nullptr);
    c.boolean("mlp_fc2_bias", h.tensor("blk.0.ffn_down.bias") != nullptr);
    c.boolean("prenorm", false);
  } else if (t == "modernbert") {
    c.number("norm_eps", eps);
    c.str("hidden_activation", "gelu");
    c.number("global_rope_theta", m.number("rope.freq_base", 160000.0));
    c.number("local_rope_theta", m.number("rope.freq_base_swa", 10000.0));
    c.integer("local_attention", m.integer("attention.sliding_window", 128));
    // llama.cpp's modern-bert: pattern n with the first layer dense → layer i global iff i % n == 0
    const GgufValue* p = m.find("attention.sliding_window_pattern");
    if (p && p->type == GgufValueType::Array) fail_value(file + ": modern-bert attention.sliding_window_pattern as a per-layer array is not supported (a period is)");
    c.integer("global_attn_every_n_layers", m.integer("attention.sliding_window_pattern", 3));
    c.boolean("norm_bias", h.tensor("token_embd_norm.bias") != nullptr);
    c.boolean("attention_bias", h.tensor("blk.0.attn_qkv.bias") != nullptr);
    c.boolean("mlp_bias", h.tensor("blk.0.ffn_up.bias") != nullptr);
  } else {  // qwen3, gemma3_text
    const long long kv = m.integer("attention.head_count_kv", heads);
    c.integer("num_key_value_heads", kv);
    const long long head_dim = m.integer("attention.key_length", heads > 0 ? hidden / heads : 0);
    c.integer("head_dim", head_dim);
    c.number("rms_norm_eps", m.number("attention.layer_norm_rms_epsilon", 1e-6));
    c.number("rope_theta", m.number("rope.freq_base", 10000.0));
    const bool has_output = h.tensor("output.weight") || h.tensor("cls.output.weight");
    c.boolean("tie_word_embeddings", !has_output);
    if (t == "qwen3") {
      const bool rank = m.number("pooling_type", 0) == 4 && h.tensor("cls.output.weight");
      c.raw("architectures", rank || h.tensor("output.weight") ? "[\"Qwen3ForCausalLM\"]" : "[\"Qwen3Model\"]");
      c.str("hidden_act", "silu");
      c.raw("layer_types", layer_types(std::vector<bool>(static_cast<std::size_t>(layers), false)));
    } else {
      c.raw("architectures", "[\"Gemma3TextModel\"]");
      c.boolean("use_bidirectional_attention", true);
      c.str("hidden_activation", "gelu_pytorch_tanh");
      c.number("rope_local_base_freq", m.number("rope.freq_base_swa", 10000.0));
      // llama.cpp's gemma-embedding scales attention by head_dim^−½ (it has no query_pre_attn_scalar)
      c.integer("query_pre_attn_scalar", head_dim);
      c.integer("sliding_window", m.integer("attention.sliding_window", 512));
      c.raw("layer_types", layer_types(sliding_layers(m, layers, 6, file)));
    }
  }
  return c.text();
}

}  // namespace

std::string gguf_supported_architectures() {
  std::string out;
  for (const auto& a : kArchitectures)
    if (a.model_type) out += (out.empty() ? "" : ", ") + std::string(a.gguf);
  return out;
}

GgufMapping map_gguf(const GgufHeader& h, const std::string& file) {
  const GgufValue* av = h.find("general.architecture");
  if (!av || av->type != GgufValueType::String)
    fail_value(file + ": missing metadata 'general.architecture' (a string naming the model, e.g. 'bert')");
  const std::string arch = av->s;
  const Architecture* a = nullptr;
  for (const auto& x : kArchitectures)
    if (arch == x.gguf) a = &x;
  if (!a || !a->model_type)
    fail_value(file + ": architecture '" + arch + "' is not supported" + (a ? " yet" : "") + " (supported: " +
               gguf_supported_architectures() + ")");
  const GgufTensor* embd = h.tensor("token_embd.weight");
  if (!embd) fail_value(file + ": missing tensor 'token_embd.weight' (the token embeddings)");
  if (const GgufValue* tokens = h.find("tokenizer.ggml.tokens"))
    if (tokens->count != embd->ne.back())
      fail_value(file + ": tokenizer.ggml.tokens lists " + std::to_string(tokens->count) + " tokens but token_embd.weight has " +
                 std::to_string(embd->ne.back()) + " rows");
  GgufMapping out;
  out.architecture = arch;
  out.config_json = build_config(*a, h, *embd, file);
  const bool gemma = std::string(a->model_type) == "gemma3_text";
  for (const GgufTensor& t : h.tensors) {
    const std::string hf = hf_name(*a, t.name);
    const std::string sfx = "norm.weight";
    const bool norm = t.name.size() >= sfx.size() && t.name.compare(t.name.size() - sfx.size(), sfx.size(), sfx) == 0;
    const bool taken = std::find(out.names.begin(), out.names.end(), hf) != out.names.end();
    out.names.push_back(hf.empty() || taken ? t.name : hf);
    out.minus_one.push_back(gemma && norm);
  }
  return out;
}

GgufCheckpoint open_gguf(std::vector<std::uint8_t> bytes, const std::string& file) {
  std::optional<GgufHeader> parsed = parse_gguf_header(bytes.data(), bytes.size(), bytes.size(), file);
  if (!parsed) fail_value(file + ": truncated file: it ends inside the header");  // unreachable: size is known
  GgufMapping m = map_gguf(*parsed, file);
  GgufCheckpoint out;
  out.architecture = m.architecture;
  out.config_json = std::move(m.config_json);
  auto weights = std::make_unique<GgufWeights>(std::move(bytes), std::move(*parsed), file);
  const auto& tensors = weights->header().tensors;
  for (std::size_t k = 0; k < tensors.size(); ++k) weights->add(m.names[k], tensors[k], m.minus_one[k]);
  out.header = &weights->header();
  out.weights = std::move(weights);
  return out;
}

}  // namespace relpos::io
