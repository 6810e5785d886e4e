// A token- or position-embedding table [rows, dim] read by row. Loaded under LoadOptions::dtype = Q8 it is held
// as symmetric int8 with one float32 scale per row (the token), and gathered rows are dequantized;
// otherwise it is the float32 table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "relpos/weights.h"

namespace relpos::models {

class EmbeddingTable {
 public:
  EmbeddingTable() = default;
  // Reads `name` [rows, dim] (shape checked as load_tensor does). A tensor a StreamedCheckpoint
  // already converted (streamed_checkpoint.h) is taken as it is.
  static EmbeddingTable load(const Weights& weights, const std::string& name, int rows, int dim);
  // The q8 form of rows [rows, dim]: q = round(row / scale) in [−127, 127], scale = max |row| / 127.
  static void quantize_rows(int rows, int dim, const float* values, std::int8_t* q, float* scales);
  // out[r, :] = table[ids[r], :] for r < count; RangeError if an id is outside [0, rows).
  void gather(int count, const std::int32_t* ids, float* out) const;
  // out[:] += table[row, :]; row < rows (the caller's invariant, e.g. a position below the table's size).
  void add_row(int row, float* out) const;
  // The table as a tied output projection: y[i, r] = x[i, :] · table[r, :] (+ bias[r] when not null)
  // for i < count, r < rows; x [count, dim], y [count, rows]. Split over fixed row ranges of the
  // table (parallel_for), so the result does not depend on the thread count; q8 rows are dequantized
  // exactly as gather() does. A few vectors (≤ 8, the masked positions) stream the table through
  // kernels::dot_rows_f32; more go through the packed GEMM. Under a plan: one gemm op with the table
  // as its [N, K] weight.
  void project(int count, const float* x, float* y, const float* bias) const;
  // table *= s (Gemma3's embedding scale sqrt(hidden), folded in at load: float32 products, as Gemma's
  // embed(ids) · embed_scale computes them); a q8 table multiplies its row scales instead.
  void scale(float s);
  // The table [rows, dim] as float32 (q8 rows dequantized as gather() does), for the GPU plan.
  std::vector<float> values() const;
  // The float32 table as held (no copy), or null when it is q8 or released: what an upload reads in place.
  const float* f32_data() const { return released_ || f32_.empty() ? nullptr : f32_.data(); }
  // Held as int8 (q8 load): q8() [rows · dim] and scales() [rows], row r = scales()[r] · q8()[r·dim + c].
  bool is_q8() const { return was_q8_ || !q8_.empty(); }
  // Frees the table's storage once a GPU executor holds its own copy (as Linear::release_weights): rows, dim and
  // q8-ness stay, so plans still record; gather, project or values on the CPU are then an Error. Returns bytes freed.
  std::size_t release_weights();
  bool released() const { return released_; }
  // ≥ 0: its rows went to a GPU sink while the checkpoint streamed in (streamed_checkpoint.h), which named them this
  // id; the table was never held here (released from the start).
  int gpu_buffer() const { return gpu_; }
  const std::vector<std::int8_t>& q8() const { return q8_; }
  const std::vector<float>& scales() const { return scales_; }
  int rows() const { return rows_; }
  int dim() const { return dim_; }

 private:
  int rows_ = 0, dim_ = 0, gpu_ = -1;
  bool released_ = false, was_q8_ = false;
  void check_held(const char* what) const;
  std::vector<float> f32_;
  std::vector<std::int8_t> q8_;
  std::vector<float> scales_;
  mutable std::vector<float> dequantized_;  // project(): per-thread blocks (dequantized / packed rows)
};

// gather_rows (layers.h) over an EmbeddingTable; vocab and dim must be the table's.
void gather_rows(int rows, const std::int32_t* ids, const EmbeddingTable& table, int vocab, int dim, float* out);

// Rows added to embeddings [rows, dim], row by row in the order the families sum them:
//   add_token_type_rows: out[r, :] += table[types ? types[r] : 0, :]   (table [type_vocab, dim], types checked by forward)
//   add_position_rows:   out[r, :] += table[r % seq, :]                 (absolute positions; seq ≤ the table's rows)
void add_token_type_rows(int rows, const std::int32_t* types, const std::vector<float>& table, int dim, float* out);
void add_position_rows(int rows, int seq, const EmbeddingTable& table, float* out);
void add_position_rows(int rows, int seq, const std::vector<float>& table, int dim, float* out);
//   add_padded_position_rows: out[r, :] += table[pos[r], :], pos = padded_position_ids(ids, batch, seq,
//                             padding_idx) (relpos/positions.h: positions follow the padding; MPNet)
void add_padded_position_rows(int batch, int seq, const std::int32_t* ids, int padding_idx, const EmbeddingTable& table,
                              float* out);

}  // namespace relpos::models
