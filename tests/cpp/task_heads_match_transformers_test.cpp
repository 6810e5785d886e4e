// Every task-head fixture of ../shared/fixtures/hf-tasks (Transformers 4.34.1): the raw head outputs
// relpos computes for the ids Hugging Face fed its model (expected.json "logits") — token
// classification [tokens][labels], question answering start/end [tokens], masked-LM logits at the
// mask token, text-pair classification [labels] with token_type_ids — within 1e-4, one sequence at a
// time and as one right-padded batch. Also: masked-LM logits at chosen positions equal those of the
// every-token call, and heads named by config.json but missing their tensors are refused by name.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "fixture_files.h"
#include "relpos/checkpoint.h"
#include "relpos/error.h"
#include "relpos/heads.h"
#include "relpos/model.h"
#include "relpos/safetensors.h"

namespace {

using nlohmann::json;

std::string task_dir(const std::string& name) { return std::string(RELPOS_SHARED_DIR) + "/fixtures/hf-tasks/" + name + "/"; }

const char* kCases[] = {"bert-token-classification",     "deberta-v2-token-classification",
                        "bert-question-answering",       "deberta-v2-question-answering",
                        "bert-fill-mask",                "deberta-v2-fill-mask",
                        "roformer-fill-mask",            "distilbert-fill-mask",
                        "bert-text-pair-classification", "deberta-v2-text-pair-classification"};

struct Loaded {
  std::unique_ptr<relpos::Model> model;
  std::unique_ptr<relpos::TaskHead> head;
};

Loaded load(const std::string& name, const std::string& config_text, relpos::WeightFormat dtype = relpos::WeightFormat::F32) {
  const auto weights = relpos::SafeTensors::read_file(task_dir(name) + "model.safetensors");
  relpos::LoadOptions options;
  options.dtype = dtype;
  Loaded l;
  l.model = relpos::load_model(config_text, weights, options);
  l.head = relpos::load_task_head(config_text, *l.model, weights, options);
  return l;
}

// The reference rows of one logits entry, flattened, per task: what head->logits returns for it.
std::vector<float> reference(const json& entry, relpos::HeadTask task) {
  std::vector<float> out;
  if (task == relpos::HeadTask::QuestionAnswering) {
    const auto& s = entry["start_logits"];
    const auto& e = entry["end_logits"];
    for (std::size_t i = 0; i < s.size(); ++i) {
      out.push_back(s[i].get<float>());
      out.push_back(e[i].get<float>());
    }
  } else if (task == relpos::HeadTask::MaskedLM) {
    out = entry["mask_logits"].get<std::vector<float>>();
  } else if (task == relpos::HeadTask::TokenClassification) {
    for (const auto& row : entry["logits"])
      for (const auto& v : row) out.push_back(v.get<float>());
  } else {
    out = entry["logits"].get<std::vector<float>>();
  }
  return out;
}

// token_type_ids of an entry (all 0 when the model takes none: DistilBERT).
std::vector<std::int32_t> types_of(const json& entry) {
  if (entry.contains("token_type_ids") && entry["token_type_ids"].is_array())
    return entry["token_type_ids"].get<std::vector<std::int32_t>>();
  return std::vector<std::int32_t>(entry["input_ids"].size(), 0);
}

double max_abs(const float* a, const std::vector<float>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    const double e = std::fabs(static_cast<double>(a[i]) - b[i]);
    worst = std::isnan(e) ? 1e30 : std::max(worst, e);
  }
  return worst;
}

// Rows of one batch element's logits that hold the reference: valid tokens (and the mask row).
double entry_error(const relpos::TaskHead& head, const std::vector<float>& logits, const json& entry, int b, int L, int B) {
  const std::vector<float> ref = reference(entry, head.task());
  const int n = static_cast<int>(entry["input_ids"].size());
  const int W = head.outputs();
  switch (head.task()) {
    case relpos::HeadTask::SequenceClassification:
      return max_abs(logits.data() + static_cast<std::size_t>(b) * W, ref);
    case relpos::HeadTask::TokenClassification:
    case relpos::HeadTask::QuestionAnswering:
      REQUIRE(ref.size() == static_cast<std::size_t>(n) * W);
      return max_abs(logits.data() + static_cast<std::size_t>(b) * L * W, ref);
    case relpos::HeadTask::MaskedLM: {
      REQUIRE(logits.size() == static_cast<std::size_t>(B) * L * W);  // every token
      const int m = entry["mask_index"].get<int>();
      return max_abs(logits.data() + (static_cast<std::size_t>(b) * L + m) * W, ref);
    }
  }
  return 1e30;
}

}  // namespace

TEST_CASE("task heads reproduce Hugging Face's head logits on every hf-tasks fixture, alone and batched") {
  for (const char* name : kCases) {
    CAPTURE(name);
    const std::string config_text = relpos_test::read_text(task_dir(name) + "config.json");
    const json expected = relpos_test::read_json(task_dir(name) + "expected.json");
    Loaded l = load(name, config_text);
    REQUIRE(l.head);
    const std::string task = expected["task"].get<std::string>();
    CHECK(task == relpos::head_task_name(l.head->task()));
    const json config = json::parse(config_text);
    if (config.contains("id2label") && l.head->num_labels() > 0)
      for (int i = 0; i < l.head->num_labels(); ++i) CHECK(l.head->labels()[i] == config["id2label"][std::to_string(i)]);
    const json& entries = expected["logits"];
    REQUIRE(entries.size() >= 1);

    // One sequence at a time.
    for (std::size_t k = 0; k < entries.size(); ++k) {
      CAPTURE(k);
      const auto ids = entries[k]["input_ids"].get<std::vector<std::int32_t>>();
      const auto types = types_of(entries[k]);
      const int L = static_cast<int>(ids.size());
      const relpos::ModelOutput out = l.model->forward(1, L, ids.data(), nullptr, {}, types.data());
      CHECK(entry_error(*l.head, l.head->logits(out), entries[k], 0, L, 1) <= 1e-4);
    }

    // All entries as one right-padded batch (pad id 0, mask 0).
    const int B = static_cast<int>(entries.size());
    int L = 0;
    for (const auto& e : entries) L = std::max(L, static_cast<int>(e["input_ids"].size()));
    std::vector<std::int32_t> ids(static_cast<std::size_t>(B) * L, 0), mask(ids.size(), 0), types(ids.size(), 0);
    for (int b = 0; b < B; ++b) {
      const auto row = entries[b]["input_ids"].get<std::vector<std::int32_t>>();
      const auto trow = types_of(entries[b]);
      for (std::size_t i = 0; i < row.size(); ++i) {
        ids[b * L + i] = row[i];
        types[b * L + i] = trow[i];
        mask[b * L + i] = 1;
      }
    }
    const relpos::ModelOutput out = l.model->forward(B, L, ids.data(), mask.data(), {}, types.data());
    const std::vector<float> logits = l.head->logits(out);
    for (int b = 0; b < B; ++b) {
      CAPTURE(b);
      CHECK(entry_error(*l.head, logits, entries[b], b, L, B) <= 1e-4);
    }

    if (l.head->task() == relpos::HeadTask::MaskedLM) {
      // Logits at the mask positions only (reversed order) = the same rows of the every-token call.
      std::vector<int> at;
      for (int b = B - 1; b >= 0; --b) at.push_back(b * L + entries[b]["mask_index"].get<int>());
      const std::vector<float> few = l.head->logits(out, at);
      const int V = l.head->outputs();
      REQUIRE(few.size() == at.size() * static_cast<std::size_t>(V));
      for (std::size_t i = 0; i < at.size(); ++i) {
        double worst = 0;
        for (int v = 0; v < V; ++v)
          worst = std::max(worst, std::fabs(static_cast<double>(few[i * V + v]) - logits[static_cast<std::size_t>(at[i]) * V + v]));
        CHECK(worst <= 1e-5);
      }
      CHECK_THROWS_AS(l.head->logits(out, {B * L}), relpos::Error);
    }
  }
}

TEST_CASE("q8 task heads stay close to their fp32 logits and keep every arg-max") {
  for (const char* name : kCases) {
    CAPTURE(name);
    const std::string config_text = relpos_test::read_text(task_dir(name) + "config.json");
    const json expected = relpos_test::read_json(task_dir(name) + "expected.json");
    Loaded ref = load(name, config_text);
    Loaded q8 = load(name, config_text, relpos::WeightFormat::Q8);
    REQUIRE(q8.head);
    CHECK(q8.head->weight_bytes() <= ref.head->weight_bytes());
    const json& e = expected["logits"][0];
    const auto ids = e["input_ids"].get<std::vector<std::int32_t>>();
    const auto types = types_of(e);
    const int L = static_cast<int>(ids.size());
    const auto a = ref.head->logits(ref.model->forward(1, L, ids.data(), nullptr, {}, types.data()));
    const auto b = q8.head->logits(q8.model->forward(1, L, ids.data(), nullptr, {}, types.data()));
    REQUIRE(a.size() == b.size());
    double worst = 0, scale = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      worst = std::max(worst, std::fabs(static_cast<double>(a[i]) - b[i]));
      scale = std::max(scale, std::fabs(static_cast<double>(a[i])));
    }
    // Measured (random O(1) weights): 2–4 % of the largest logit; the text-pair heads, whose logits
    // are small (0.8, 1.9), err by 0.12 and 0.20 absolute.
    CAPTURE(worst, scale);
    CHECK(worst <= 0.05 * std::max(scale, 4.0));
    if (ref.head->task() == relpos::HeadTask::SequenceClassification && ref.head->outputs() > 1)
      CHECK(std::max_element(a.begin(), a.end()) - a.begin() == std::max_element(b.begin(), b.end()) - b.begin());
  }
}

TEST_CASE("a head named by config.json architectures but missing or mis-shaped is refused, naming the tensor") {
  const std::string name = "bert-token-classification";
  json config = relpos_test::read_json(task_dir(name) + "config.json");
  const auto weights = relpos::SafeTensors::read_file(task_dir(name) + "model.safetensors");
  auto model = relpos::load_model(config.dump(), weights);

  config["architectures"] = {"BertForQuestionAnswering"};
  try {
    relpos::load_task_head(config.dump(), *model, weights);
    FAIL("expected an Error");
  } catch (const relpos::Error& e) {
    CHECK(std::string(e.what()).find("qa_outputs.weight") != std::string::npos);
  }
  config["architectures"] = {"BertForMaskedLM"};
  try {
    relpos::load_task_head(config.dump(), *model, weights);
    FAIL("expected an Error");
  } catch (const relpos::Error& e) {
    CHECK(std::string(e.what()).find("cls.predictions.transform.dense.weight") != std::string::npos);
  }
  // id2label naming 3 labels for a classifier with 5 rows.
  config["architectures"] = {"BertForTokenClassification"};
  config["id2label"] = {{"0", "O"}, {"1", "B-PER"}, {"2", "I-PER"}};
  try {
    relpos::load_task_head(config.dump(), *model, weights);
    FAIL("expected an Error");
  } catch (const relpos::Error& e) {
    CHECK(std::string(e.what()).find("id2label has no label for id 3") != std::string::npos);
    CHECK(std::string(e.what()).find("classifier.weight has 5 rows") != std::string::npos);
  }
  // No head named and none present: no head.
  const auto plain = relpos::SafeTensors::read_file(std::string(RELPOS_SHARED_DIR) + "/fixtures/hf/bert-absolute/model.safetensors");
  const std::string plain_config = relpos_test::read_text(std::string(RELPOS_SHARED_DIR) + "/fixtures/hf/bert-absolute/config.json");
  auto plain_model = relpos::load_model(plain_config, plain);
  CHECK_FALSE(relpos::load_task_head(plain_config, *plain_model, plain));
}

TEST_CASE("token type ids outside type_vocab_size are a RangeError and the model stays usable") {
  const std::string name = "bert-text-pair-classification";
  const std::string config_text = relpos_test::read_text(task_dir(name) + "config.json");
  Loaded l = load(name, config_text);
  const std::vector<std::int32_t> ids = {101, 1996, 102}, bad = {0, 2, 0}, good = {0, 1, 1};
  try {
    l.model->forward(1, 3, ids.data(), nullptr, {}, bad.data());
    FAIL("expected an Error");
  } catch (const relpos::Error& e) {
    CHECK(e.kind() == relpos::ErrorKind::Range);
    CHECK(std::string(e.what()).find("token_type_ids[0][1] = 2") != std::string::npos);
  }
  const auto a = l.model->forward(1, 3, ids.data(), nullptr, {}, good.data());
  const auto b = l.model->forward(1, 3, ids.data(), nullptr, {}, nullptr);
  CHECK(a.last_hidden_state.data != b.last_hidden_state.data);  // segment 1 changes the embeddings
}
