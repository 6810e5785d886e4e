// ModelBase::forward (validation, key mask, outputs) and relpos::load_model (dispatch on model_type).
#include "models/model_base.h"
#include "models/layers/load_context.h"

#include <cstring>

#include "plan/plan.h"
#include "profile/profile.h"
#include "relpos/error.h"

namespace relpos {
namespace models {

float* grow(std::vector<float>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
  if (plan::Recorder* rec = plan::active()) rec->add_buffer(v.data(), n);
  return v.data();
}

std::string detect_prefix(const Weights& weights, const std::string& probe, const std::vector<std::string>& prefixes) {
  if (weights.contains(probe)) return "";
  for (const auto& p : prefixes)
    if (weights.contains(p + probe)) return p;
  return "";
}

ModelOutput ModelBase::forward(int batch, int seq, const std::int32_t* input_ids, const std::int32_t* attention_mask,
                               const ForwardOptions& options, const std::int32_t* token_type_ids) {
  RELPOS_PROFILE_SCOPE(Other);  // bench-only (profile/profile.h); nothing in the package
  if (batch < 1) fail_range("forward: batch must be ≥ 1, got " + std::to_string(batch));
  if (seq < 1) fail_range("forward: sequence length must be ≥ 1, got " + std::to_string(seq));
  if (!input_ids) throw Error(ErrorKind::Type, "forward: input_ids are required");
  if (static_cast<long long>(batch) * seq > (1LL << 28)) fail_range("forward: batch × sequence length is too large");
  const int limit = max_sequence();
  if (limit > 0 && seq > limit)
    fail_value("forward: sequence length " + std::to_string(seq) + " exceeds the model's " + std::to_string(limit) +
               " positions (" + cfg_.model_type + ")");
  const std::size_t rows = static_cast<std::size_t>(batch) * seq;
  for (std::size_t r = 0; r < rows; ++r)
    if (input_ids[r] < 0 || input_ids[r] >= cfg_.vocab_size)
      fail_range("forward: input_ids[" + std::to_string(r / seq) + "][" + std::to_string(r % seq) + "] = " +
                 std::to_string(input_ids[r]) + " is outside the vocabulary [0, " + std::to_string(cfg_.vocab_size) + ")");
  if (token_type_ids && cfg_.type_vocab_size > 0)
    for (std::size_t r = 0; r < rows; ++r)
      if (token_type_ids[r] < 0 || token_type_ids[r] >= cfg_.type_vocab_size)
        fail_range("forward: token_type_ids[" + std::to_string(r / seq) + "][" + std::to_string(r % seq) + "] = " +
                   std::to_string(token_type_ids[r]) + " is outside [0, " + std::to_string(cfg_.type_vocab_size) +
                   ") (type_vocab_size)");
  ModelOutput out;
  Run r;
  if (cfg_.type_vocab_size > 0) r.token_types = token_type_ids;
  r.batch = batch;
  r.seq = seq;
  r.ids = input_ids;
  r.options = options;
  r.out = &out;
  if (attention_mask) {
    key_mask_.resize(rows);
    for (std::size_t i = 0; i < rows; ++i) key_mask_[i] = attention_mask[i] != 0;
    r.key_mask = key_mask_.data();
    out.token_mask = key_mask_;
  }
  run(r);
  return out;
}

plan::Plan ModelBase::plan(int batch, int seq, bool hidden_states, const TaskHead* head, int positions) {
  if (batch < 1 || seq < 1) fail_range("plan: batch and sequence length must be ≥ 1");
  const int limit = max_sequence();
  if (limit > 0 && seq > limit)
    fail_value("plan: sequence length " + std::to_string(seq) + " exceeds the model's " + std::to_string(limit) +
               " positions (" + cfg_.model_type + ")");
  const std::size_t rows = static_cast<std::size_t>(batch) * seq;
  // Placeholders: the plan depends on which inputs exist, not on their values.
  std::vector<std::int32_t> ids(rows, 0), types(rows, 0);
  key_mask_.assign(rows, 1);
  plan::Recorder recorder(batch, seq);
  recorder.add_input(ids.data(), rows, rows * sizeof(std::int32_t), "ids");
  recorder.add_input(key_mask_.data(), rows, rows, "mask");
  if (cfg_.type_vocab_size > 0) recorder.add_input(types.data(), rows, rows * sizeof(std::int32_t), "token_types");
  ModelOutput out;
  Run r;
  r.batch = batch;
  r.seq = seq;
  r.ids = ids.data();
  r.key_mask = key_mask_.data();
  if (cfg_.type_vocab_size > 0) r.token_types = types.data();
  r.options.output_hidden_states = hidden_states;
  r.out = &out;
  {
    plan::Scope scope(&recorder);
    run(r);
    if (head) record_head(recorder, *head, batch, seq, positions);
  }
  return std::move(recorder.plan());
}

// The head's logits over the outputs run() recorded: placeholder tensors aliased to the plan's buffers
// (last hidden state, pooler output, the attention mask as token_mask), positions as the input
// buffer "positions", then an output op of kind 3 over the logits the head returns.
void ModelBase::record_head(plan::Recorder& rec, const TaskHead& head, int batch, int seq, int positions) {
  if (positions < 0) fail_range("plan: positions must be ≥ 0");
  if (positions > 0 && !vocabulary_head(head.task()))
    fail_value(std::string("plan: logits at positions are for masked-LM and causal-LM heads; this head is ") + head_task_name(head.task()));
  const std::size_t rows = static_cast<std::size_t>(batch) * seq;
  ModelOutput o;
  const plan::Recorder::Output last = rec.output(1), pooled = rec.output(2);
  if (!last.data) fail_value("plan: the family recorded no last hidden state for its head to read");
  o.last_hidden_state.shape = {batch, seq, last.width};
  o.last_hidden_state.data.resize(rows * last.width);
  rec.add_alias(o.last_hidden_state.data.data(), sizeof(float) * o.last_hidden_state.data.size(), rec.ref(last.data));
  if (pooled.data) {
    o.pooler_output.shape = {batch, pooled.width};
    o.pooler_output.data.resize(static_cast<std::size_t>(batch) * pooled.width);
    rec.add_alias(o.pooler_output.data.data(), sizeof(float) * o.pooler_output.data.size(), rec.ref(pooled.data));
  }
  o.token_mask = key_mask_;
  rec.add_alias(o.token_mask.data(), o.token_mask.size(), rec.ref(key_mask_.data()));
  std::vector<int> at(static_cast<std::size_t>(positions), 0);
  if (positions > 0) rec.add_input(at.data(), at.size(), sizeof(int) * at.size(), "positions");
  const std::vector<float> logits = head.logits(o, at);
  plan::Op& op = rec.op("output");
  rec.ref_attr(op, "x", logits.data());
  op.set("rows", static_cast<double>(logits.size() / head.outputs()));
  op.set("width", head.outputs());
  op.set("kind", 3);
}

bool ModelBase::Run::planning() const { return plan::active() != nullptr; }

void ModelBase::Run::record_hidden(const float* h, int width) const {
  if (!options.output_hidden_states) return;
  if (plan::Recorder* rec = plan::active()) {
    plan::Op& op = rec->op("output");
    rec->ref_attr(op, "x", h);
    op.set("rows", rows());
    op.set("width", width);
    op.set("kind", 0);
    return;
  }
  Tensor t;
  t.shape = {batch, seq, width};
  t.data.assign(h, h + static_cast<std::size_t>(rows()) * width);
  out->hidden_states.push_back(std::move(t));
}

float* ModelBase::Run::attention_probs(int heads) const {
  if (!options.output_attentions) return nullptr;
  Tensor t;
  t.shape = {batch, heads, seq, seq};
  t.data.resize(static_cast<std::size_t>(batch) * heads * seq * seq);
  out->attentions.push_back(std::move(t));
  return out->attentions.back().data.data();
}

void ModelBase::Run::set_pooler_output(const float* pooled, int width) const {
  if (plan::Recorder* rec = plan::active()) {
    plan::Op& op = rec->op("output");
    rec->ref_attr(op, "x", pooled);
    op.set("rows", batch);
    op.set("width", width);
    op.set("kind", 2);
    rec->set_output(2, pooled, width);
    return;
  }
  out->pooler_output.shape = {batch, width};
  out->pooler_output.data.assign(pooled, pooled + static_cast<std::size_t>(batch) * width);
}

void ModelBase::Run::set_last_hidden(const float* h, int width) const {
  if (plan::Recorder* rec = plan::active()) {
    plan::Op& op = rec->op("output");
    rec->ref_attr(op, "x", h);
    op.set("rows", rows());
    op.set("width", width);
    op.set("kind", 1);
    rec->set_output(1, h, width);
    return;
  }
  out->last_hidden_state.shape = {batch, seq, width};
  out->last_hidden_state.data.assign(h, h + static_cast<std::size_t>(rows()) * width);
}

}  // namespace models

namespace {

std::unique_ptr<Model> make_model(const ModelConfig& c, const Weights& weights) {
  const std::string& t = c.model_type;
  if (t == "bert" || t == "roberta" || t == "xlm-roberta" || t == "camembert" || t == "electra")
    return models::make_bert(c, weights);  // the RoBERTa family and ELECTRA: BERT with their position / embedding rules
  if (t == "distilbert") return models::make_distilbert(c, weights);
  if (t == "roformer") return models::make_roformer(c, weights);
  if (t == "deberta-v2") return models::make_deberta_v2(c, weights);
  if (t == "t5") return models::make_t5_encoder(c, weights);
  if (t == "transfo-xl") return models::make_transfo_xl(c, weights);
  if (t == "bloom") return models::make_bloom(c, weights);
  if (t == "mpt") return models::make_mpt(c, weights);
  if (t == "llama") return models::make_llama(c, weights);
  if (t == "mpnet") return models::make_mpnet(c, weights);
  if (t == "modernbert") return models::make_modernbert(c, weights);
  if (t == "nomic_bert") return models::make_nomic_bert(c, weights);
  if (t == "qwen3") return models::make_qwen3(c, weights);
  if (t == "gemma3_text") return models::make_gemma3_text(c, weights);
  if (t == "jina_bert_v2") return models::make_jina_bert_v2(c, weights);
  fail_value("load_model: model_type '" + t + "' has no implementation");
}

}  // namespace

std::unique_ptr<Model> load_model(const std::string& config_json_text, const Weights& weights, const LoadOptions& options) {
  const ModelConfig c = parse_model_config(config_json_text);
  const models::LoadContext context(weights, options);
  std::unique_ptr<Model> model = make_model(c, context);
  static_cast<models::ModelBase&>(*model).set_weights_held(options.dtype, context.held_bytes());
  return model;
}

}  // namespace relpos
