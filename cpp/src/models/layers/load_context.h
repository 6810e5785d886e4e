// The weights a model family reads during one load_model call, with the load options attached:
// a Weights that forwards to the checkpoint, tells Linear::load which format to build, and counts
// the bytes of weights the model keeps (4 per float32 value read, adjusted by layers that keep
// another format). Families only see `const Weights&`, so options reach the layers without
// changing any family's code.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "relpos/model.h"
#include "relpos/weights.h"

namespace relpos::models {

class LoadContext final : public Weights {
 public:
  LoadContext(const Weights& inner, const LoadOptions& options) : inner_(inner), options_(options) {}
  bool contains(const std::string& name) const override { return inner_.contains(name); }
  const TensorInfo& info(const std::string& name) const override { return inner_.info(name); }
  std::vector<std::string> names() const override { return inner_.names(); }
  std::vector<float> to_f32(const std::string& name) const override;  // counts 4 bytes per value
  std::vector<std::int64_t> to_i64(const std::string& name) const override { return inner_.to_i64(name); }
  const std::string& file_name() const override { return inner_.file_name(); }

  const LoadOptions& options() const { return options_; }
  const Weights& inner() const { return inner_; }
  std::size_t held_bytes() const { return held_bytes_; }
  // A layer that read `read_floats` values with to_f32 keeps `kept_bytes` instead.
  void replace_held(std::size_t read_floats, std::size_t kept_bytes) const;

 private:
  const Weights& inner_;
  LoadOptions options_;
  mutable std::size_t held_bytes_ = 0;
};

// The options of the load `weights` belong to (defaults when it is not a LoadContext).
const LoadOptions& load_options_of(const Weights& weights);
// LoadContext::replace_held when `weights` is a LoadContext, else nothing.
void replace_held(const Weights& weights, std::size_t read_floats, std::size_t kept_bytes);

}  // namespace relpos::models
