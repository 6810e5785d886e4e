// Position tables and index maps: what the schemes use, exposed for models, tests and the demo.
// All tables are row-major; functions returning vectors allocate, the rest write into `out`.
#pragma once

#include <cstdint>
#include <vector>

#include "relpos/schemes.h"

namespace relpos {

// Sinusoid table [length, dim] (dim even), rows are positions first_position, first_position+1, …
std::vector<float> sinusoid_table(int length, int dim, SinusoidLayout layout, float base = 10000.0f,
                                  float first_position = 0.0f);
// One row: the sinusoid of a (possibly negative or fractional) position into out[dim].
void sinusoid_row(float position, int dim, SinusoidLayout layout, float base, float* out);

// Shaw et al.: row index clip(j − i, −k, k) + k for every (i, j): [seq, seq].
std::vector<std::int32_t> shaw_index_table(int seq, int max_distance);
// BERT relative_key(_query): i − j + M − 1 for every (i, j): [seq, seq].
std::vector<std::int32_t> bert_relative_index_table(int seq, int max_positions);

// T5's _relative_position_bucket(relative_position = j − i, bidirectional, num_buckets, max_distance).
int t5_relative_bucket(int relative_position, bool bidirectional, int num_buckets, int max_distance);
std::vector<std::int32_t> t5_bucket_table(int seq, bool bidirectional, int num_buckets, int max_distance);

// RoBERTa / MPNet create_position_ids_from_input_ids over ids [batch, seq]: a token whose id is not
// padding_idx gets padding_idx + (number of such tokens in its row up to and including it), a padding
// token gets padding_idx. Returns [batch, seq].
std::vector<std::int32_t> padded_position_ids(const std::int32_t* ids, int batch, int seq, int padding_idx);

// DeBERTa's make_log_bucket_position / build_relative_position: r = i − j, bucketed when buckets > 0.
int deberta_relative_position(int relative_position, int position_buckets, int max_relative_positions);
std::vector<std::int32_t> deberta_relative_table(int seq, int position_buckets, int max_relative_positions);
int deberta_span(int position_buckets, int max_relative_positions);

// ALiBi slopes per head: BLOOM (2^(−8/n) powers, interleaved extras when heads is not a power of
// two) or MPT (2^(−k·bias_max/n'), n' = next power of two, interleaved then truncated).
std::vector<float> alibi_slopes(int heads, AlibiSlopes rule, float mpt_bias_max = 8.0f);

// RoPE cos/sin tables [length, rotary_dim] in the given layout (Half: frequencies repeated for both
// halves as LLaMA's rope_cos/rope_sin; Interleaved: each frequency repeated for its pair).
void rope_tables(int length, int rotary_dim, RopeLayout layout, float theta, std::vector<float>& cos_out,
                 std::vector<float>& sin_out);

}  // namespace relpos
