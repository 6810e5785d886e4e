// LoadContext (load_context.h) and the dtype names of relpos/model.h.
#include "models/layers/load_context.h"

#include "relpos/error.h"

namespace relpos {

const char* weight_format_name(WeightFormat format) { return format == WeightFormat::Q8 ? "q8" : "fp32"; }

WeightFormat parse_weight_format(const std::string& name) {
  if (name == "fp32") return WeightFormat::F32;
  if (name == "q8") return WeightFormat::Q8;
  fail_range("dtype '" + name + "' is not supported: expected 'fp32' or 'q8'");
}

namespace models {

std::vector<float> LoadContext::to_f32(const std::string& name) const {
  std::vector<float> values = inner_.to_f32(name);
  held_bytes_ += values.size() * sizeof(float);
  return values;
}

void LoadContext::replace_held(std::size_t read_floats, std::size_t kept_bytes) const {
  held_bytes_ = held_bytes_ - read_floats * sizeof(float) + kept_bytes;
}

const LoadOptions& load_options_of(const Weights& weights) {
  static const LoadOptions defaults;
  const auto* context = dynamic_cast<const LoadContext*>(&weights);
  return context ? context->options() : defaults;
}

void replace_held(const Weights& weights, std::size_t read_floats, std::size_t kept_bytes) {
  if (const auto* context = dynamic_cast<const LoadContext*>(&weights)) context->replace_held(read_floats, kept_bytes);
}

}  // namespace models
}  // namespace relpos
