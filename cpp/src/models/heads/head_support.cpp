// Config and tensor helpers shared by the task heads (head_support.h).
#include "models/heads/head_support.h"

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

}  // namespace relpos::models::heads
