// The streaming families' naming rules (streamed_names.h), as data: one Rule per family.
#include "models/layers/streamed_names.h"

#include "io/name_match.h"

namespace relpos::models {
namespace {

using io::ends_with;
using io::starts_with;

// Lists end at the first null (constant data: no static constructors in the WebAssembly module).
struct Rule {
  const char* prefixes[4];  // task prefixes, stripped first (at most one)
  const char* tables[3];    // embedding tables (EmbeddingTable::load)
  const char* layers;       // the root every linear layer's name starts with
  const char* linears[9];   // their suffixes (Linear::load)
};

StreamForm form_of(const Rule& r, const std::string& name) {
  std::string n = name;
  for (const char* const* p = r.prefixes; *p; ++p)
    if (starts_with(n, *p)) {
      n = n.substr(std::char_traits<char>::length(*p));
      break;
    }
  for (const char* const* t = r.tables; *t; ++t)
    if (n == *t) return StreamForm::Table;
  if (!starts_with(n, r.layers)) return StreamForm::Float;
  for (const char* const* s = r.linears; *s; ++s)
    if (ends_with(n, *s)) return StreamForm::Linear;
  return StreamForm::Float;
}

constexpr Rule kDecoder{{"model."}, {"embed_tokens.weight"}, "layers.", {"_proj.weight"}};
constexpr Rule kBert{{"bert.", "roberta.", "electra."},
                 {"embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight"},
                 "encoder.layer.",
                 {".attention.self.query.weight", ".attention.self.key.weight", ".attention.self.value.weight",
                  ".attention.output.dense.weight", ".intermediate.dense.weight", ".output.dense.weight"}};
constexpr Rule kDeberta{{"deberta."},
                    {"embeddings.word_embeddings.weight"},
                    "encoder.layer.",
                    {".attention.self.query_proj.weight", ".attention.self.key_proj.weight",
                     ".attention.self.value_proj.weight", ".attention.self.pos_key_proj.weight",
                     ".attention.self.pos_query_proj.weight", ".attention.output.dense.weight", ".intermediate.dense.weight",
                     ".output.dense.weight"}};
constexpr Rule kMpnet{{"mpnet."},
                  {"embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight"},
                  "encoder.layer.",
                  {".attention.attn.q.weight", ".attention.attn.k.weight", ".attention.attn.v.weight",
                   ".attention.attn.o.weight", ".intermediate.dense.weight", ".output.dense.weight"}};
constexpr Rule kModernBert{{"model."},
                       {"embeddings.tok_embeddings.weight"},
                       "layers.",
                       {".attn.Wqkv.weight", ".attn.Wo.weight", ".mlp.Wi.weight", ".mlp.Wo.weight"}};
constexpr Rule kNomicBert{{"bert.", "model."},
                      {"embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight"},
                      "encoder.layers.",
                      {".attn.Wqkv.weight", ".attn.out_proj.weight", ".mlp.fc11.weight", ".mlp.fc12.weight",
                       ".mlp.fc1.weight", ".mlp.fc2.weight"}};

// every list keeps its null end
constexpr bool ends_in_null(const Rule& r) { return !r.prefixes[3] && !r.tables[2] && !r.linears[8]; }
static_assert(ends_in_null(kDecoder) && ends_in_null(kBert) && ends_in_null(kDeberta) && ends_in_null(kMpnet) &&
                  ends_in_null(kModernBert) && ends_in_null(kNomicBert),
              "a Rule list needs its null end: make the array one longer");

}  // namespace

bool streams_family(const std::string& t) {
  return t == "llama" || t == "qwen3" || t == "gemma3_text" || t == "bert" || t == "roberta" || t == "xlm-roberta" ||
         t == "camembert" || t == "electra" || t == "deberta-v2" || t == "mpnet" || t == "modernbert" || t == "nomic_bert";
}

bool tables_stream_to_sink(const std::string& model_type) { return model_type != "gemma3_text"; }  // EmbeddingTable::scale
bool q8_linears_stream_to_sink(const std::string& model_type) { return model_type != "deberta-v2"; }  // deberta_v2.cpp

StreamForm stream_form(const std::string& model_type, const std::string& name) {
  if (model_type == "deberta-v2") return form_of(kDeberta, name);
  if (model_type == "mpnet") return form_of(kMpnet, name);
  if (model_type == "modernbert") return form_of(kModernBert, name);
  if (model_type == "nomic_bert") return form_of(kNomicBert, name);
  const StreamForm decoder = form_of(kDecoder, name);  // the decoders' and BERT's names together
  return decoder != StreamForm::Float ? decoder : form_of(kBert, name);
}

}  // namespace relpos::models
