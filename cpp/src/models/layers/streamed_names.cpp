// The streaming families' naming rules (streamed_names.h).
#include "models/layers/streamed_names.h"

#include <initializer_list>

namespace relpos::models {
namespace {

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }
bool ends_with(const std::string& s, const char* p) {
  const std::string suffix(p);
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
std::string without(const std::string& n, std::initializer_list<const char*> prefixes) {
  for (const char* p : prefixes)
    if (starts_with(n, p)) return n.substr(std::string(p).size());
  return n;
}
// `encoder.layer.N.<one of suffixes>`
bool layer_tensor(const std::string& n, std::initializer_list<const char*> suffixes) {
  if (!starts_with(n, "encoder.layer.")) return false;
  for (const char* s : suffixes)
    if (ends_with(n, s)) return true;
  return false;
}

StreamForm decoder_or_bert(const std::string& name) {
  if (name == "embed_tokens.weight" || name == "model.embed_tokens.weight") return StreamForm::Table;
  if ((starts_with(name, "layers.") || starts_with(name, "model.layers.")) && ends_with(name, "_proj.weight"))
    return StreamForm::Linear;
  const std::string n = without(name, {"bert.", "roberta.", "electra."});
  if (n == "embeddings.word_embeddings.weight" || n == "embeddings.position_embeddings.weight") return StreamForm::Table;
  if (layer_tensor(n, {".attention.self.query.weight", ".attention.self.key.weight", ".attention.self.value.weight",
                       ".attention.output.dense.weight", ".intermediate.dense.weight", ".output.dense.weight"}))
    return StreamForm::Linear;
  return StreamForm::Float;
}

StreamForm deberta_v2(const std::string& name) {
  const std::string n = without(name, {"deberta."});
  if (n == "embeddings.word_embeddings.weight") return StreamForm::Table;
  if (layer_tensor(n, {".attention.self.query_proj.weight", ".attention.self.key_proj.weight"})) return StreamForm::LinearKept;
  if (layer_tensor(n, {".attention.self.value_proj.weight", ".attention.output.dense.weight", ".intermediate.dense.weight",
                       ".output.dense.weight"}))
    return StreamForm::Linear;
  return StreamForm::Float;
}

StreamForm mpnet(const std::string& name) {
  const std::string n = without(name, {"mpnet."});
  if (n == "embeddings.word_embeddings.weight" || n == "embeddings.position_embeddings.weight") return StreamForm::Table;
  if (layer_tensor(n, {".attention.attn.q.weight", ".attention.attn.k.weight", ".attention.attn.v.weight",
                       ".attention.attn.o.weight", ".intermediate.dense.weight", ".output.dense.weight"}))
    return StreamForm::Linear;
  return StreamForm::Float;
}

StreamForm modernbert(const std::string& name) {
  const std::string n = without(name, {"model."});
  if (n == "embeddings.tok_embeddings.weight") return StreamForm::Table;
  if (starts_with(n, "layers.") && (ends_with(n, ".attn.Wqkv.weight") || ends_with(n, ".attn.Wo.weight") ||
                                    ends_with(n, ".mlp.Wi.weight") || ends_with(n, ".mlp.Wo.weight")))
    return StreamForm::Linear;
  return StreamForm::Float;
}

StreamForm nomic_bert(const std::string& name) {
  const std::string n = without(name, {"bert.", "model."});
  if (n == "embeddings.word_embeddings.weight" || n == "embeddings.position_embeddings.weight") return StreamForm::Table;
  if (!starts_with(n, "encoder.layers.")) return StreamForm::Float;
  for (const char* s : {".attn.Wqkv.weight", ".attn.out_proj.weight", ".mlp.fc11.weight", ".mlp.fc12.weight", ".mlp.fc1.weight",
                        ".mlp.fc2.weight"})
    if (ends_with(n, s)) return StreamForm::Linear;
  return StreamForm::Float;
}

}  // namespace

bool streams_family(const std::string& t) {
  return t == "llama" || t == "qwen3" || t == "gemma3_text" || t == "bert" || t == "roberta" || t == "xlm-roberta" ||
         t == "camembert" || t == "electra" || t == "deberta-v2" || t == "mpnet" || t == "modernbert" || t == "nomic_bert";
}

StreamForm stream_form(const std::string& model_type, const std::string& name) {
  if (model_type == "deberta-v2") return deberta_v2(name);
  if (model_type == "mpnet") return mpnet(name);
  if (model_type == "modernbert") return modernbert(name);
  if (model_type == "nomic_bert") return nomic_bert(name);
  return decoder_or_bert(name);
}

}  // namespace relpos::models
