// Causal-LM heads (relpos/heads.h): logits = lm_head(h) at the asked rows, no transform, no bias.
//   qwen3  Qwen3ForCausalLM: lm_head [V, H] is embed_tokens when tie_word_embeddings (Qwen3-0.6B, Qwen3-Reranker-0.6B;
//          the checkpoint then has no lm_head.weight), else lm_head.weight.
// Read in place through EmbeddingTable::project like the tied masked-LM decoder (masked_lm.cpp): no second copy of a
// 151,669 × 1024 table, q8 rows shared. Only the rows asked for are projected (a reranker reads the last token's
// "yes" / "no" logits: one row of V·H multiply-adds per sequence, never [B, L, V]). Every step is a layer
// primitive (select_rows, EmbeddingTable::project), so a recorded plan sees the head too.
#include "models/heads/head_support.h"
#include "models/layers/embedding_table.h"
#include "models/layers/layers.h"
#include "models/model_base.h"
#include "relpos/error.h"

namespace relpos::models::heads {
namespace {

class CausalLmHead final : public TaskHead {
 public:
  CausalLmHead(EmbeddingTable own, const EmbeddingTable* tied) : own_(std::move(own)) {
    decoder_ = tied ? tied : &own_;
    task_ = HeadTask::CausalLM;
    outputs_ = decoder_->rows();
  }

  std::vector<float> logits(const ModelOutput& o, const std::vector<int>& positions) const override {
    std::vector<float> gathered, out;  // grow(): buffers of a recorded plan
    int rows = 0, H = 0;
    const float* x = vocabulary_head_rows(o, positions, "causal-LM", gathered, &rows, &H);
    grow(out, static_cast<std::size_t>(rows) * outputs_);
    decoder_->project(rows, x, out.data(), nullptr);
    return out;
  }

 private:
  EmbeddingTable own_;
  const EmbeddingTable* decoder_ = nullptr;
};

}  // namespace

std::unique_ptr<TaskHead> make_causal_lm(const HeadSource& s) {
  const ModelConfig& c = s.config;
  if (c.model_type != "qwen3") return nullptr;
  const int V = c.vocab_size, H = c.hidden_size;
  if (c.tie_word_embeddings) {
    const auto* base = dynamic_cast<const ModelBase*>(s.model);
    const EmbeddingTable* table = base ? base->word_embeddings() : nullptr;
    if (!table) fail_value("causal-LM head: the model's embed_tokens are not available to the tied lm_head");
    return std::make_unique<CausalLmHead>(EmbeddingTable(), table);
  }
  if (!s.weights.contains("lm_head.weight"))
    fail_value(s.weights.file_name() + ": missing causal-LM head tensor 'lm_head.weight' (tie_word_embeddings is false)");
  // A GGUF reranker's lm_head holds only its answer rows (cls.output: yes, no; io/gguf_model.h): as many rows as it has.
  const auto& shape = s.weights.info("lm_head.weight").shape;
  const int rows = shape.size() == 2 && shape[0] >= 1 && shape[0] < V && shape[1] == H ? static_cast<int>(shape[0]) : V;
  return std::make_unique<CausalLmHead>(EmbeddingTable::load(s.weights, "lm_head.weight", rows, H), nullptr);
}

}  // namespace relpos::models::heads
