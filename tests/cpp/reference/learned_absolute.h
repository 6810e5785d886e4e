// Reference learned absolute (schemes.h 3): e(p) = table[p] ([rows, head_dim]) added to q, k, v.
#pragma once

#include <algorithm>

#include "reference/absolute.h"

namespace ref {

class LearnedAbsolute : public AbsoluteBase {
 public:
  explicit LearnedAbsolute(const float* table) : table_(table) {}
  std::vector<double> encoding(int p, int dim) const override {
    return std::vector<double>(table_ + static_cast<std::size_t>(p) * dim, table_ + static_cast<std::size_t>(p + 1) * dim);
  }

 private:
  const float* table_;
};

}  // namespace ref
