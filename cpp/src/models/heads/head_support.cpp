// Config and tensor helpers shared by the task heads (head_support.h).
#include "models/heads/head_support.h"

#include "models/layers/layers.h"
#include "models/model_base.h"
#include "relpos/error.h"

namespace relpos::models::heads {

using nlohmann::json;

std::vector<std::string> label_names(const json& config, int n, const std::string& tensor) {
  std::vector<std::string> labels(n);
  for (int i = 0; i < n; ++i) labels[i] = "LABEL_" + std::to_string(i);
  if (!config.contains("id2label") || config["id2label"].is_null()) return labels;
  const json& map = config["id2label"];
  if (!map.is_object()) fail_value("config.json: field 'id2label' must be an object {\"0\": \"label\", …}");
  // Hugging Face writes {"0": "LABEL_0", "1": "LABEL_1"} into every config that never named labels
  // (num_labels defaults to 2): such a map names nothing, whatever the head's size.
  bool placeholder = true;
  for (auto it = map.begin(); it != map.end() && placeholder; ++it)
    placeholder = it.value().is_string() && it.value().get<std::string>() == "LABEL_" + it.key();
  if (placeholder) return labels;
  std::vector<bool> named(n, false);
  for (auto it = map.begin(); it != map.end(); ++it) {
    int id = -1;
    try {
      std::size_t used = 0;
      id = std::stoi(it.key(), &used);
      if (used != it.key().size()) id = -1;
    } catch (const std::exception&) {
      id = -1;
    }
    if (id < 0) fail_value("config.json: id2label key '" + it.key() + "' is not a label id");
    if (!it.value().is_string()) fail_value("config.json: id2label['" + it.key() + "'] must be a string");
    if (id >= n)
      fail_value("config.json: id2label names label " + std::to_string(id) + " ('" + it.value().get<std::string>() +
                 "'), but the head has " + std::to_string(n) + " outputs (" + tensor + " has " + std::to_string(n) +
                 " rows): expected labels 0 … " + std::to_string(n - 1));
    labels[id] = it.value().get<std::string>();
    named[id] = true;
  }
  for (int i = 0; i < n; ++i)
    if (!named[i])
      fail_value("config.json: id2label has no label for id " + std::to_string(i) + ": the head has " + std::to_string(n) +
                 " outputs (" + tensor + " has " + std::to_string(n) + " rows), so id2label must name 0 … " +
                 std::to_string(n - 1));
  return labels;
}

std::string string_field(const json& config, const char* key, const std::string& fallback) {
  if (!config.contains(key) || config[key].is_null()) return fallback;
  if (!config[key].is_string()) fail_value(std::string("config.json: field '") + key + "' must be a string");
  return config[key].get<std::string>();
}

int rows_of(const Weights& w, const std::string& name) {
  if (!w.contains(name)) fail_value(w.file_name() + ": missing head tensor '" + name + "'");
  const auto& shape = w.info(name).shape;
  if (shape.size() != 2 || shape[0] < 1 || shape[0] > (1 << 20))
    fail_value(w.file_name() + ": tensor '" + name + "': expected a 2-D [outputs, in] weight");
  return static_cast<int>(shape[0]);
}

std::string first_missing(const Weights& w, const std::vector<std::string>& names) {
  for (const auto& n : names)
    if (!w.contains(n)) return n;
  return "";
}

const float* vocabulary_head_rows(const ModelOutput& o, const std::vector<int>& positions, const char* head,
                                  std::vector<float>& gathered, int* rows, int* width) {
  const Tensor& h = o.last_hidden_state;
  if (h.shape.size() != 3) fail_value(std::string(head) + " head: the model output has no last_hidden_state");
  const int tokens = h.shape[0] * h.shape[1], H = h.shape[2];
  for (const int p : positions)
    if (p < 0 || p >= tokens)
      fail_range(std::string(head) + " head: position " + std::to_string(p) + " is outside the " + std::to_string(tokens) +
                 " tokens of the batch (flat index b·L + l)");
  *width = H;
  *rows = positions.empty() ? tokens : static_cast<int>(positions.size());
  if (positions.empty()) return h.data.data();
  float* g = grow(gathered, static_cast<std::size_t>(*rows) * H);
  select_rows(*rows, positions.data(), tokens, H, h.data.data(), g);
  return g;
}

}  // namespace relpos::models::heads
