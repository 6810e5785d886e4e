// Plumbing every model family shares: input validation, the key mask, output collection, the
// weight-name prefix of task checkpoints ("bert." …) and the per-family factories.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "relpos/heads.h"
#include "relpos/model.h"

namespace relpos::plan {
struct Plan;
class Recorder;
}

namespace relpos::models {

class EmbeddingTable;

// Grows v to at least n floats (never shrinks, so repeated forwards allocate nothing) and returns it.
// While a plan is recorded (plan/plan.h), [data, data + n) becomes one of the plan's buffers.
float* grow(std::vector<float>& v, std::size_t n);

// "" if `probe` is present, else the first prefix p with p + probe present (e.g. "bert."), else "".
std::string detect_prefix(const Weights& weights, const std::string& probe, const std::vector<std::string>& prefixes);

class ModelBase : public Model {
 public:
  explicit ModelBase(ModelConfig config) : cfg_(std::move(config)) {}
  const ModelConfig& config() const override { return cfg_; }
  WeightFormat dtype() const override { return dtype_; }
  std::size_t weight_bytes() const override { return weight_bytes_; }
  // Set by load_model once the family is built (models/layers/load_context.h counts the bytes).
  void set_weights_held(WeightFormat dtype, std::size_t bytes) {
    dtype_ = dtype;
    weight_bytes_ = bytes;
  }
  ModelOutput forward(int batch, int seq, const std::int32_t* input_ids, const std::int32_t* attention_mask,
                      const ForwardOptions& options = {}, const std::int32_t* token_type_ids = nullptr) final;
  // The word-embedding table [vocab_size, embedding width] a tied masked-LM decoder reads
  // (heads/masked_lm.cpp); null for families without such a head.
  virtual const EmbeddingTable* word_embeddings() const { return nullptr; }
  // The forward as a plan (plan/plan.h): run() in record-only mode over placeholder inputs; with
  // `head`, then head->logits in record-only mode over the recorded outputs (plan::build).
  plan::Plan plan(int batch, int seq, bool hidden_states, const TaskHead* head = nullptr, int positions = 0);

 protected:
  // One forward call as a family sees it.
  struct Run {
    int batch = 0, seq = 0;
    const std::int32_t* ids = nullptr;
    const std::uint8_t* key_mask = nullptr;  // [B, L], null = every key valid
    const std::int32_t* token_types = nullptr;  // [B, L], null = all 0; checked < type_vocab_size
    ForwardOptions options;
    ModelOutput* out = nullptr;
    int rows() const { return batch * seq; }
    bool planning() const;                                 // run() is recording a plan (plan/plan.h)
    void record_hidden(const float* h, int width) const;   // appends to hidden_states if requested
    float* attention_probs(int heads) const;               // new [B, heads, L, L] tensor, or null
    void set_last_hidden(const float* h, int width) const;
    void set_pooler_output(const float* pooled, int width) const;  // [batch, width]
  };
  virtual void run(const Run& run) = 0;

  ModelConfig cfg_;

 private:
  void record_head(plan::Recorder& rec, const TaskHead& head, int batch, int seq, int positions);
  std::vector<std::uint8_t> key_mask_;
  WeightFormat dtype_ = WeightFormat::F32;
  std::size_t weight_bytes_ = 0;
};

std::unique_ptr<Model> make_bert(const ModelConfig&, const Weights&);
std::unique_ptr<Model> make_distilbert(const ModelConfig&, const Weights&);
std::unique_ptr<Model> make_roformer(const ModelConfig&, const Weights&);
std::unique_ptr<Model> make_deberta_v2(const ModelConfig&, const Weights&);
std::unique_ptr<Model> make_t5_encoder(const ModelConfig&, const Weights&);
std::unique_ptr<Model> make_transfo_xl(const ModelConfig&, const Weights&);
std::unique_ptr<Model> make_bloom(const ModelConfig&, const Weights&);
std::unique_ptr<Model> make_mpt(const ModelConfig&, const Weights&);
std::unique_ptr<Model> make_llama(const ModelConfig&, const Weights&);
std::unique_ptr<Model> make_mpnet(const ModelConfig&, const Weights&);
std::unique_ptr<Model> make_modernbert(const ModelConfig&, const Weights&);
std::unique_ptr<Model> make_nomic_bert(const ModelConfig&, const Weights&);
std::unique_ptr<Model> make_qwen3(const ModelConfig&, const Weights&);
std::unique_ptr<Model> make_gemma3_text(const ModelConfig&, const Weights&);
std::unique_ptr<Model> make_jina_bert_v2(const ModelConfig&, const Weights&);

}  // namespace relpos::models
