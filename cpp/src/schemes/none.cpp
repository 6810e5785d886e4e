// Scheme "none": plain scaled dot-product attention, no position information.
//   logit(i, j) = q_i · k_j / sqrt(head_dim)
// Permuting the tokens permutes the outputs; identical tokens get identical outputs.
#include "relpos/schemes.h"

namespace relpos {
namespace {

class NoneScheme final : public Scheme {
 public:
  const char* name() const override { return "none"; }
  bool describe(const AttentionDims&, SchemeDescription& out) const override {
    out.kind = "none";
    return true;
  }
};

}  // namespace

std::unique_ptr<Scheme> make_scheme(const NoneParams&) { return std::make_unique<NoneScheme>(); }

}  // namespace relpos
