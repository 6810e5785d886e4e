// Task heads on top of an encoder's outputs: Hugging Face *ForSequenceClassification checkpoints.
//
//   auto model = relpos::load_model(config_text, weights);
//   auto head = relpos::load_sequence_classifier(config_text, model->config(), weights);  // null: no head
//   std::vector<float> logits = head->logits(model->forward(B, L, ids, mask));           // [B, num_labels]
//
// Families (HF 4.34 class → what the head computes from the encoder outputs, h0 = h[b, 0, :]):
//   BertForSequenceClassification        classifier(pooler_output)      (pooler = tanh(dense(h0)), in the model)
//   DebertaV2ForSequenceClassification   classifier(act(pooler.dense(h0))), act = pooler_hidden_act ("gelu")
//   DistilBertForSequenceClassification  classifier(relu(pre_classifier(h0)))
//   RoFormerForSequenceClassification    classifier.out_proj(act(classifier.dense(h0))), act = hidden_act
// Dropout is the identity (eval mode). num_labels comes from the classifier weight's shape; label
// names from config.json's id2label (missing entries → "LABEL_i", as Hugging Face names them).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "relpos/config.h"
#include "relpos/model.h"
#include "relpos/weights.h"

namespace relpos {

class SequenceClassifier {
 public:
  virtual ~SequenceClassifier() = default;
  int num_labels() const { return static_cast<int>(labels_.size()); }
  const std::vector<std::string>& labels() const { return labels_; }
  // logits [batch, num_labels] from the encoder's outputs of one forward (last_hidden_state
  // [B, L, H], and pooler_output for BERT). Throws relpos::Error when an output it needs is absent.
  virtual std::vector<float> logits(const ModelOutput& outputs) const = 0;
  // Bytes of weights the head holds (as Model::weight_bytes).
  std::size_t weight_bytes() const { return weight_bytes_; }

 protected:
  std::vector<std::string> labels_;
  std::size_t weight_bytes_ = 0;
};

// The checkpoint's sequence-classification head, or null when it has none (no classifier weights,
// or a model family without a supported head). Errors (relpos::Error) for a head whose tensors
// are mis-shaped or whose config fields have the wrong JSON type, naming the file and tensor.
// options.dtype = Q8 quantizes the head's linear layers as load_model does the model's.
std::unique_ptr<SequenceClassifier> load_sequence_classifier(const std::string& config_json_text,
                                                             const ModelConfig& config, const Weights& weights,
                                                             const LoadOptions& options = {});

}  // namespace relpos
