// Position ids derived from token ids, RoBERTa style (Hugging Face create_position_ids_from_input_ids;
// MPNetEmbeddings calls it with padding_idx 1):
//   pos[b, l] = padding_idx + #{ l' ≤ l : ids[b, l'] ≠ padding_idx }   if ids[b, l] ≠ padding_idx
//   pos[b, l] = padding_idx                                             if ids[b, l] = padding_idx
// A right-padded row of n real tokens therefore uses padding_idx + 1 … padding_idx + n.
#include <string>

#include "relpos/error.h"
#include "relpos/positions.h"

namespace relpos {

std::vector<std::int32_t> padded_position_ids(const std::int32_t* ids, int batch, int seq, int padding_idx) {
  if (batch < 0 || seq < 0)
    fail_range("padded_position_ids: batch and seq must be ≥ 0, got " + std::to_string(batch) + " and " +
               std::to_string(seq));
  std::vector<std::int32_t> out(static_cast<std::size_t>(batch) * seq);
  for (int b = 0; b < batch; ++b) {
    std::int32_t count = 0;
    for (int l = 0; l < seq; ++l) {
      const std::size_t i = static_cast<std::size_t>(b) * seq + l;
      const bool real = ids[i] != padding_idx;
      count += real;
      out[i] = real ? padding_idx + count : padding_idx;
    }
  }
  return out;
}

}  // namespace relpos
