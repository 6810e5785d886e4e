// Task heads on top of an encoder's outputs, from Hugging Face …For<Task> checkpoints.
//
//   auto model = relpos::load_model(config_text, weights);
//   auto head = relpos::load_task_head(config_text, *model, weights);  // null: the checkpoint has none
//   relpos::ModelOutput out = model->forward(B, L, ids, mask);
//   std::vector<float> logits = head->logits(out);                     // shape by task, see logits()
//   head->logits(out, {3, 17});   // masked LM: vocabulary logits at flat positions b·L + l only
//
// Which head: config.json's architectures[0] (…ForSequenceClassification, …ForTokenClassification,
// …ForQuestionAnswering, …ForMaskedLM); without one, the head tensors present decide. A head named by
// `architectures` whose tensors are missing or mis-shaped is an Error naming the tensor.
// Families: bert, deberta-v2, distilbert, roformer (HF 4.34 parameter names; dropout = identity):
//   sequence classification  bert: classifier(pooler_output);  deberta-v2: classifier(act(pooler.dense(h0)));
//                            distilbert: classifier(relu(pre_classifier(h0)));
//                            roformer: classifier.out_proj(act(classifier.dense(h0)))      (h0 = first token)
//   token classification     classifier(h) at every token
//   question answering       qa_outputs(h) = (start, end) logits at every token
//   masked LM                decoder(LayerNorm(act(dense(h)))) + bias, the decoder tied to the word
//                            embeddings (bert, roformer, deberta-v2: cls.predictions.transform.dense /
//                            .LayerNorm, cls.predictions.bias; distilbert: vocab_transform,
//                            vocab_layer_norm, vocab_projector.bias); an untied checkpoint
//                            (tie_word_embeddings false) reads cls.predictions.decoder / vocab_projector.
// modernbert (transformers 4.48 names): t = head.norm(act(head.dense(x))), act = classifier_activation;
//   sequence classification classifier(t(h0 or the mean over real tokens: classifier_pooling cls / mean));
//   token classification classifier(t(h)) per token; masked LM decoder(t(h)) + decoder.bias (tied).
// mpnet: classifier.out_proj(tanh(classifier.dense(h0))); token / QA heads as above; masked LM lm_head.dense →
//   exact gelu → lm_head.layer_norm → tied decoder (or lm_head.decoder) + lm_head.bias.
// qwen3 (Qwen3ForCausalLM): causal LM lm_head(h), tied to embed_tokens when tie_word_embeddings, at asked rows.
// Labels: config.json's id2label in id order ("LABEL_i" when it has none, or only HF's placeholder
// LABEL_0, LABEL_1); an id2label of real names that does not name exactly the head's outputs is an Error. The masked-LM head reads the model's embedding table:
// keep the model alive while its head is used.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "relpos/config.h"
#include "relpos/model.h"
#include "relpos/weights.h"

namespace relpos {

enum class HeadTask { SequenceClassification, TokenClassification, QuestionAnswering, MaskedLM, CausalLM };
// The pipeline task of a head: "text-classification", "token-classification", "question-answering", "fill-mask",
// "text-generation" (a causal LM: relpos reads its logits, e.g. a reranker's "yes" / "no", and generates nothing).
const char* head_task_name(HeadTask task);
// Heads whose outputs are the vocabulary and which can be asked for some rows only (masked LM, causal LM).
inline bool vocabulary_head(HeadTask task) { return task == HeadTask::MaskedLM || task == HeadTask::CausalLM; }

class TaskHead {
 public:
  virtual ~TaskHead() = default;
  HeadTask task() const { return task_; }
  // Label names in id order for classification heads; empty for question answering and masked LM.
  const std::vector<std::string>& labels() const { return labels_; }
  int num_labels() const { return static_cast<int>(labels_.size()); }
  // Logits per row: the labels, 2 (question answering: start, end) or the vocabulary (masked LM).
  int outputs() const { return outputs_; }
  // Bytes of weights the head holds (as Model::weight_bytes; a tied decoder holds none).
  std::size_t weight_bytes() const { return weight_bytes_; }
  // Sequence classification [B, labels]; token classification [B, L, labels]; question answering
  // [B, L, 2]; masked LM and causal LM [P, vocab] at `positions` (flat b·L + l, in that order) or [B·L, vocab] when
  // `positions` is empty. Other heads ignore `positions`. RangeError: a position outside [0, B·L).
  virtual std::vector<float> logits(const ModelOutput& outputs, const std::vector<int>& positions = {}) const = 0;
  void set_weight_bytes(std::size_t bytes) { weight_bytes_ = bytes; }  // by the loader

 protected:
  HeadTask task_ = HeadTask::SequenceClassification;
  std::vector<std::string> labels_;
  int outputs_ = 0;
  std::size_t weight_bytes_ = 0;
};

// The checkpoint's task head for `model` (loaded from the same config and weights), or null.
// options.dtype = Q8 quantizes the head's linear layers as load_model does the model's.
std::unique_ptr<TaskHead> load_task_head(const std::string& config_json_text, const Model& model,
                                         const Weights& weights, const LoadOptions& options = {});

// The head when it is a sequence classifier, else null.
using SequenceClassifier = TaskHead;
std::unique_ptr<SequenceClassifier> load_sequence_classifier(const std::string& config_json_text,
                                                             const ModelConfig& config, const Weights& weights,
                                                             const LoadOptions& options = {});

}  // namespace relpos
