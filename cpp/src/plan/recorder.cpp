// plan::Recorder: the registry of buffers and weights a forward in record-only mode builds, and the
// thread-local pointer the layer primitives consult (plan.h). Ops and their attrs, as the primitives
// record them (models/layers):
//   gemm        a, c (buffers), w, bias (weights), M, N, K: c[M, N] = a[M, K] · wᵀ + bias
//   norm        kind 0 LayerNorm / 1 RmsNorm, x, y, gamma, beta, rows, dim, eps
//   activate    x, n, act (0 relu, 1 gelu, 2 gelu_tanh, 3 silu, 4 tanh), in place
//   glu         x [rows, 2·width], y [rows, width], rows, width, act: y = act(x[:, :width]) · x[:, width:]
//   multiply    x, y, n: x[i] *= y[i]
//   mask_rows   x, rows, width: x[r, :] = 0 where the attention mask of token r is 0
//   first_rows  x [batch·seq, width], out [batch, width], batch, seq, width: out[b] = x[b·seq]
//   select_rows x [limit, width], out [rows, width], rows, width, limit: out[i] = x[positions[i]] (the
//               "positions" input; a masked-LM head at the asked rows)
//   mean_rows   x [batch·seq, width], out [batch, width], batch, seq, width, mask (1: the attention mask):
//               out[b] = Σ_l m[b,l]·x[b·seq + l] / Σ_l m[b,l] (ModernBERT's mean-pooled classifier)
//   add         x, y, n: x[i] += y[i]
//   gather      out, table, rows, dim, vocab: out[r] = table[ids[r]]
//   add_rows    out, table, rows, dim, source (0 token_types, 1 position r % seq, 2 padded position of the
//               ids: padding_idx + #{l' ≤ l : ids[b, l'] ≠ padding_idx} for a real token, padding_idx
//               for a pad, attr padding_idx; MPNet): out[r] += table[index]
//   attention   batch, seq, heads, kv_heads, head_dim, q/k/v (+ _row, _head strides), ctx [B·L, heads·D],
//               mask (1: the attention mask), causal, window, scale, kind (the scheme's SchemeDescription
//               kind), scheme_* numbers, scheme_floats / scheme_ints (constant ids), scheme_table, scheme_table2 (weights;
//               DeBERTa's, on a GPU load, Derived weights: Recorder::derive)
//   gemm        also a tied masked-LM decoder: w = the EmbeddingTable [V, E] read as [N, K]
//   output      x, rows, width, kind (0 hidden state of a layer, 1 last hidden state, 2 pooler output,
//               3 a task head's logits)
#include "plan/plan.h"

#include <iterator>
#include <string>

#include "models/layers/layers.h"
#include "relpos/error.h"

namespace relpos::plan {
namespace {
thread_local Recorder* current = nullptr;
}

Recorder* active() { return current; }

Scope::Scope(Recorder* recorder) : previous_(current) { current = recorder; }
Scope::~Scope() { current = previous_; }

Recorder::Recorder(int batch, int seq) {
  plan_.batch = batch;
  plan_.seq = seq;
}

// A new allocation cannot overlap a live one: a range it overlaps is stale (a freed temporary).
void Recorder::drop_overlaps(std::uintptr_t begin, std::uintptr_t end) {
  auto it = ranges_.lower_bound(begin);
  if (it != ranges_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.end > begin) ranges_.erase(prev);
  }
  it = ranges_.upper_bound(begin);
  while (it != ranges_.end() && it->first < end) it = ranges_.erase(it);
}

void Recorder::add_alias(const void* p, std::size_t bytes, Ref target) {
  const auto key = reinterpret_cast<std::uintptr_t>(p);
  ranges_.erase(key);
  drop_overlaps(key, key + bytes);
  ranges_[key] = {key + bytes, target.buffer, target.offset};
}

Recorder::Output Recorder::output(int kind) const {
  auto it = outputs_.find(kind);
  return it == outputs_.end() ? Output{} : it->second;
}

void Recorder::add_buffer(const float* p, std::size_t n) {
  const auto key = reinterpret_cast<std::uintptr_t>(p);
  auto it = ranges_.find(key);
  if (it != ranges_.end()) {
    const std::size_t end = key + n * sizeof(float);
    if (end > it->second.end) {
      it->second.end = end;
      plan_.buffers[it->second.id].elements = n;
    }
    return;
  }
  drop_overlaps(key, key + n * sizeof(float));
  ranges_[key] = {key + n * sizeof(float), static_cast<int>(plan_.buffers.size())};
  plan_.buffers.push_back({"activation", n});
}

void Recorder::add_input(const void* p, std::size_t elements, std::size_t bytes, const char* kind) {
  const auto key = reinterpret_cast<std::uintptr_t>(p);
  ranges_.erase(key);
  drop_overlaps(key, key + bytes);
  ranges_[key] = {key + bytes, static_cast<int>(plan_.buffers.size())};
  plan_.buffers.push_back({kind, elements});
}

Ref Recorder::ref(const void* p) const {
  const auto key = reinterpret_cast<std::uintptr_t>(p);
  auto it = ranges_.upper_bound(key);
  if (p && it != ranges_.begin()) {
    --it;
    if (key < it->second.end) return {it->second.id, it->second.base + (key - it->first) / 4};
  }
  fail_value("plan: a layer reads or writes memory the plan does not know (an allocation outside models::grow)");
}

bool Recorder::is_input(const void* p, const char* kind) const {
  if (!p) return false;
  const Ref r = ref(p);
  return plan_.buffers[r.buffer].kind == kind && r.offset == 0;
}

int Recorder::weight(const float* p, std::size_t n) {
  if (!p) return -1;
  auto it = weight_ids_.find(p);
  if (it != weight_ids_.end()) return it->second;
  Weight w{Weight::Kind::Floats, p, n};
  for (const Derivation& from : derived_) {
    if (from.key != p) continue;  // else its sources first: an executor computes it from them
    const models::Linear& proj = *from.proj;
    if (n != static_cast<std::size_t>(from.rows) * proj.out())
      fail_value("plan: a derived table of " + std::to_string(from.rows) + " × " + std::to_string(proj.out()) +
                 " floats is read as " + std::to_string(n));
    w.kind = Weight::Kind::Derived;
    w.from = weight(from.rel, static_cast<std::size_t>(from.rows) * proj.in());
    w.linear = weight(proj);
    w.bias = weight(proj.bias().empty() ? nullptr : proj.bias().data(), proj.bias().size());
    w.rows = from.rows;
    w.heads = from.heads;
    break;
  }
  const int id = static_cast<int>(plan_.weights.size());
  plan_.weights.push_back(w);
  weight_ids_[p] = id;
  return id;
}

void Recorder::derive(const float* key, const float* rel, int rows, const models::Linear& proj, int heads) {
  if (heads < 1 || proj.out() % heads != 0)
    fail_value("plan: a derived table needs heads dividing the projection's " + std::to_string(proj.out()) + " outputs");
  derived_.push_back({key, rel, rows, &proj, heads});
}

int Recorder::weight(const models::Linear& linear) {
  auto it = weight_ids_.find(&linear);
  if (it != weight_ids_.end()) return it->second;
  const int id = static_cast<int>(plan_.weights.size());
  plan_.weights.push_back({Weight::Kind::Linear, &linear, 0});
  weight_ids_[&linear] = id;
  return id;
}

int Recorder::weight(const models::EmbeddingTable& table) {
  auto it = weight_ids_.find(&table);
  if (it != weight_ids_.end()) return it->second;
  const int id = static_cast<int>(plan_.weights.size());
  plan_.weights.push_back({Weight::Kind::Table, &table, 0});
  weight_ids_[&table] = id;
  return id;
}

Op& Recorder::op(const std::string& name) {
  plan_.ops.emplace_back();
  plan_.ops.back().name = name;
  return plan_.ops.back();
}

int Recorder::constant(Constant c) {
  plan_.constants.push_back(std::move(c));
  return static_cast<int>(plan_.constants.size()) - 1;
}

void Recorder::ref_attr(Op& op, const std::string& key, const void* p) const {
  const Ref r = ref(p);
  op.set(key, r.buffer);
  op.set(key + "_off", static_cast<double>(r.offset));
}

}  // namespace relpos::plan
