// The plan of one forward: a family's run() executed in record-only mode yields a list of operations
// over buffers, for an executor other than the CPU (the WebGPU executor, web/webgpu/executor.js;
// docs/architecture.md). While a Recorder is active on the calling thread, the layer primitives
// (models/layers: Linear, LayerNorm, RmsNorm, activate, multiply_inplace, add_inplace, zero_masked_rows, gather_rows,
// add_table_rows, multi_head_attention) append one op each and compute nothing.
//
//   buffers  activations (registered where families allocate: models::grow) and inputs
//            ("ids", "token_types", "mask": int32 [B, L]; "positions": int32 [P], the flat rows a
//            masked-LM head reads), in floats/ints; a pointer anywhere inside a registered range is
//            (buffer id, offset in elements); an alias is a second range naming a buffer's elements
//            (a task head reads the model's outputs through placeholder tensors aliased to them)
//   weights  each Linear, EmbeddingTable or float table a primitive reads, by id; their float32 values
//            come from weight_values() ([out, in] for a Linear, [rows, dim] for a table); a derived table
//            (Recorder::derive: DeBERTa's projected relative embeddings on a GPU load) is computed by the
//            executor from two earlier weights instead
//   ops      { name, attrs: [(key, number)] }: buffer references are `key` (buffer id) and `key_off`
//            (element offset); weights are ids, −1 = none. See recorder.cpp for each op's attrs.
//   constants  shape-only tables a scheme computes for this seq (SchemeDescription floats / ints)
// A forward the plan cannot describe (a scheme without SchemeDescription, a primitive that has no
// op) fails with a relpos::Error naming the reason. A Linear loaded as q8 stays int8: is_q8 / q8_values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "relpos/model.h"

namespace relpos {
struct SchemeDescription;
class TaskHead;
namespace models {
class Linear;
class EmbeddingTable;
}  // namespace models
}  // namespace relpos

namespace relpos::plan {

struct Buffer {
  std::string kind;  // "activation", "ids", "token_types", "mask"
  std::size_t elements = 0;
};

struct Weight {
  enum class Kind { Floats, Linear, Table, Derived } kind = Kind::Floats;
  const void* source = nullptr;  // const float*, const models::Linear*, const models::EmbeddingTable*; Derived: its key
  std::size_t elements = 0;
  // Derived (Recorder::derive): table[h][r][c] = (R·Wᵀ + b)[r][h·d + c], [heads, rows, d], from the weights `from`
  // (floats R [rows, in]), `linear` (W [heads·d, in]) and `bias` (floats b [heads·d], −1: none), all earlier in the list.
  int from = -1, linear = -1, bias = -1, rows = 0, heads = 0;
};

struct Op {
  std::string name;
  std::string kind;  // attention: the scheme's SchemeDescription::kind
  std::vector<std::pair<std::string, double>> attrs;
  void set(const std::string& key, double value) { attrs.emplace_back(key, value); }
};

// Per-plan values that depend on the shape only (a scheme's tables for this seq): floats or ints.
struct Constant {
  std::vector<float> floats;
  std::vector<std::int32_t> ints;
};

struct Plan {
  int batch = 0, seq = 0;
  std::vector<Buffer> buffers;
  std::vector<Weight> weights;
  std::vector<Constant> constants;
  std::vector<Op> ops;
};

struct Ref {
  int buffer = -1;
  std::size_t offset = 0;
};

class Recorder {
 public:
  explicit Recorder(int batch, int seq);
  // Activation range [p, p + n); registering the same start again keeps the larger n.
  void add_buffer(const float* p, std::size_t n);
  void add_input(const void* p, std::size_t elements, std::size_t bytes, const char* kind);
  // [p, p + bytes) names the elements of `target` from its offset on (replaces a stale range at p).
  void add_alias(const void* p, std::size_t bytes, Ref target);
  Ref ref(const void* p) const;  // Error when p is in no registered range
  bool is_input(const void* p, const char* kind) const;
  int weight(const float* p, std::size_t n);  // −1 for p == null
  int weight(const models::Linear& linear);
  int weight(const models::EmbeddingTable& table);
  // The float table at `key` (the address a scheme's description names, [heads, rows, proj.out() / heads]) is not
  // computed by the family: it is proj applied to rel [rows, proj.in()], laid out per head, for the executor to compute
  // (a Derived weight, recorded when a primitive reads `key`). DeBERTa's relative embeddings projected through a layer
  // whose weights went straight to the GPU.
  void derive(const float* key, const float* rel, int rows, const models::Linear& proj, int heads);
  Op& op(const std::string& name);
  int constant(Constant c);
  // Adds `key` and `key_off` for the buffer holding p.
  void ref_attr(Op& op, const std::string& key, const void* p) const;
  Plan& plan() { return plan_; }
  // The model outputs the family set (kind 1 last hidden state, 2 pooler output): start and width.
  struct Output {
    const float* data = nullptr;
    int width = 0;
  };
  void set_output(int kind, const float* data, int width) { outputs_[kind] = {data, width}; }
  Output output(int kind) const;

 private:
  struct Range {
    std::size_t end;
    int id;
    std::size_t base = 0;  // element offset of the range's start in buffer `id` (aliases)
  };
  void drop_overlaps(std::uintptr_t begin, std::uintptr_t end);
  std::map<int, Output> outputs_;
  std::map<std::uintptr_t, Range> ranges_;
  std::map<const void*, int> weight_ids_;
  struct Derivation {
    const float* key;
    const float* rel;
    int rows;
    const models::Linear* proj;
    int heads;
  };
  std::vector<Derivation> derived_;  // a few per layer
  Plan plan_;
};

// The recorder active on this thread, or null (the CPU path).
Recorder* active();

// Makes `recorder` active on this thread for the scope's life.
class Scope {
 public:
  explicit Scope(Recorder* recorder);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  Recorder* previous_;
};

// The plan of model.forward(batch, seq, …) with an attention mask and token types given (their
// values do not change the plan); hidden_states: one "output" op per layer as well. With `head`, the
// head's logits follow (its TaskHead::logits recorded over the model's outputs, then an "output" op of
// kind 3); `positions` > 0: a masked-LM head's logits at that many flat rows, read from the input
// buffer "positions" (int32 [positions]).
Plan build(Model& model, int batch, int seq, bool hidden_states, const TaskHead* head = nullptr, int positions = 0);

// The float32 values of a plan's weight; Error for a q8 Linear (q8_values) and a Derived table (the executor's).
std::vector<float> weight_values(const Weight& weight);
// The same values where the model holds them as they are (a float32 EmbeddingTable, a float table), without a
// copy; null for a Linear (packed panels) and q8. An upload reads them in place: a 768 MB word table is not
// copied inside a 2 GB heap.
struct FloatSpan {
  const float* data = nullptr;
  std::size_t size = 0;
};
FloatSpan weight_data(const Weight& weight);
// ≥ 0 for a Linear or an EmbeddingTable whose rows went straight to the GPU while the checkpoint streamed in
// (Linear::gpu_buffer, EmbeddingTable::gpu_buffer): the id its WeightSink gave; −1 otherwise.
int gpu_buffer(const Weight& weight);

// A q8 Linear's weights in the WebGPU q8 GEMM's layout (web/webgpu/kernels/gemm.js, quant 'q8'), for
// W [rows = out, cols = in], G = ceil(cols / 32) groups of 32 inputs per row; a q8 EmbeddingTable
// [rows, cols = dim] in the same words with every multiplier 1 (its per-row scale; kernels/embedding.js):
//   q       rows · ceil(cols / 4) words: byte b of word (n, w) is int8 q[n][4w + b] (0 past cols)
//   scales  rows · (1 + ceil(G / 8)) words: word 0 of row n holds the float32 bits of the row's scale s[n],
//           the group multiplier m − 1 (4 bits, m ∈ [1, 16]) of group g sits at word 1 + g / 8, bits 4·(g % 8)
//   W[n][k] ≈ s[n] · m[n][k / 32] · q[n][k]: the weights the CPU's q8 GEMM multiplies by (gemm_qs8.h).
// ~1.02 bytes per weight (fp32: 4).
struct Q8Values {
  int rows = 0, cols = 0;
  std::vector<std::uint32_t> q, scales;
};
// True for a q8 Linear or EmbeddingTable; then *rows / *cols (when given) are its out / in features (a
// table's rows / dim).
bool is_q8(const Weight& weight, int* rows = nullptr, int* cols = nullptr);
Q8Values q8_values(const Weight& weight);  // Error when !is_q8(weight)
// The words of rows int8 rows q [rows · cols] with multipliers mult [rows · G] (1–16; null: all 1, a table's) and row
// scales, into `out` (its storage reused). Rows are independent: a block of rows gives the words of those rows (a layer
// streamed to the GPU, a block at a time into one Q8Values).
void q8_words(int rows, int cols, const std::int8_t* q, const std::uint8_t* mult, const float* scales, Q8Values& out);

// Frees the storage of every Linear and EmbeddingTable `plan` names (Linear::release_weights,
// EmbeddingTable::release_weights), once an executor holds its own copy of them; float tables (norm gains, biases,
// scheme tables: small) stay. Plans still record afterwards; the CPU forward and the values of released weights are
// Errors. Returns the bytes freed.
std::size_t release_weights(const Plan& plan);

}  // namespace relpos::plan
