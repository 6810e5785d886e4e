// Shared utilities of the Catch2 suite: random tensors, the error metric, a runner returning
// relpos::attention's results as vectors, and the registry of scheme variants that the per-scheme
// files fill (so the cross-cutting tests cover exactly the schemes that are linked in).
// The reference (tests/cpp/reference/) shares no code with the library; this file only bridges them.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "reference/attention.h"
#include "relpos/attention.h"
#include "relpos/error.h"
#include "relpos/scheme.h"
#include "relpos/schemes.h"
#include "relpos/threads.h"

namespace ts {

inline std::vector<float> random_vector(std::size_t n, unsigned seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> out(n);
  for (auto& x : out) x = scale * dist(rng);
  return out;
}

// Error metric of the suite: max|got − ref| / max(1, max|ref|) over the entries where keep(index).
inline double scaled_error(const std::vector<float>& got, const std::vector<double>& ref,
                           const std::function<bool(std::size_t)>& keep = nullptr) {
  REQUIRE(got.size() == ref.size());
  double worst = 0, scale = 1;
  for (std::size_t n = 0; n < got.size(); ++n) {
    if (keep && !keep(n)) continue;
    const double err = std::abs(double(got[n]) - ref[n]);
    if (!(err <= worst)) worst = err;  // NaN-sticky
    scale = std::max(scale, std::abs(ref[n]));
  }
  return worst / scale;
}

inline bool all_finite(const std::vector<float>& x) {
  return std::all_of(x.begin(), x.end(), [](float f) { return std::isfinite(f); });
}

// Batch row b's valid length: the first row is full, every odd row is right-padded to (seq + 1) / 2.
// The same floats, bit for bit (results do not depend on the thread count). Sizes first: memcmp of an empty
// vector's data() (null) is undefined behaviour (UBSan).
inline bool bitwise_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

// Restores the suite's thread count when a test ends.
struct ThreadCountGuard {
  int saved = relpos::num_threads();
  ~ThreadCountGuard() { relpos::set_num_threads(saved); }
};

inline int valid_length(int b, int seq) { return b % 2 == 0 ? seq : (seq + 1) / 2; }

struct Inputs {
  relpos::AttentionDims dims;
  std::vector<float> q, k, v;
  std::vector<std::uint8_t> key_mask;  // [batch, seq]; empty = no mask
  bool causal = false;
  int window = -1;  // AttentionInputs::window
  relpos::AttentionInputs view() const {
    return {q.data(), k.data(), v.data(), key_mask.empty() ? nullptr : key_mask.data(), causal, window};
  }
  bool is_masked(int b, int i, int j) const {
    if (causal && j > i) return true;
    if (window >= 0 && (j - i > window || i - j > window)) return true;
    return !key_mask.empty() && key_mask[static_cast<std::size_t>(b) * dims.seq + j] == 0;
  }
};

// Random q, k, v ~ N(0, 1); with `padded`, odd batch rows have their key tail masked.
inline Inputs make_inputs(const relpos::AttentionDims& dims, unsigned seed, bool causal, bool padded = true) {
  Inputs in;
  in.dims = dims;
  const std::size_t n = dims.qkv_elements();
  in.q = random_vector(n, seed * 7 + 1);
  in.k = random_vector(n, seed * 7 + 2);
  in.v = random_vector(n, seed * 7 + 3);
  in.causal = causal;
  if (padded) {
    in.key_mask.assign(static_cast<std::size_t>(dims.batch) * dims.seq, 0);
    for (int b = 0; b < dims.batch; ++b)
      for (int j = 0; j < valid_length(b, dims.seq); ++j) in.key_mask[static_cast<std::size_t>(b) * dims.seq + j] = 1;
  }
  return in;
}

struct KernelRun {
  std::vector<float> output, probs;
  std::vector<std::vector<float>> terms;  // content first, then Scheme::term_names()
};

// Runs relpos::attention and returns everything it wrote. Buffers are pre-filled with NaN so that
// entries the library should write but does not are caught.
inline KernelRun run_attention(const Inputs& in, const relpos::Scheme& scheme, bool want_probs, bool want_terms,
                               int block_rows = 64) {
  KernelRun r;
  const float nan = std::nanf("");
  r.output.assign(in.dims.qkv_elements(), nan);
  relpos::AttentionOutputs outs;
  outs.output = r.output.data();
  if (want_probs) {
    r.probs.assign(in.dims.score_elements(), nan);
    outs.probs = r.probs.data();
  }
  if (want_terms) {
    r.terms.assign(1 + scheme.term_names().size(), std::vector<float>(in.dims.score_elements(), nan));
    for (auto& t : r.terms) outs.terms.push_back(t.data());
  }
  relpos::Workspace ws;
  relpos::AttentionOptions options;
  options.block_rows = block_rows;
  relpos::attention(in.dims, in.view(), scheme, outs, ws, options);
  return r;
}

inline ref::Result run_reference(const Inputs& in, const ref::Scheme& scheme, bool want_scores) {
  const ref::Dims d{in.dims.batch, in.dims.heads, in.dims.seq, in.dims.head_dim};
  return ref::attention(d, in.q.data(), in.k.data(), in.v.data(), in.key_mask.empty() ? nullptr : in.key_mask.data(),
                        in.causal, scheme, want_scores, in.window);
}

// One scheme variant instantiated for given dims: the library's scheme, the reference's, and the
// random tables both read (kept alive here; deque elements never move).
struct SchemeCase {
  std::deque<std::vector<float>> tables;
  std::unique_ptr<relpos::Scheme> kernel;
  std::unique_ptr<ref::Scheme> reference;
  const float* table(std::size_t n, unsigned seed, float scale = 1.0f) {
    tables.push_back(random_vector(n, seed, scale));
    return tables.back().data();
  }
  const float* table(std::vector<float> values) {
    tables.push_back(std::move(values));
    return tables.back().data();
  }
};
using CaseFactory = std::function<void(SchemeCase&, const relpos::AttentionDims&, unsigned seed)>;

struct Variant {
  std::string scheme;  // as in schemes.h, e.g. "shaw"
  std::string label;   // e.g. "keys and values"
  CaseFactory make;
  bool causal_use = false;  // used causally in practice (decoders)
  std::string name() const { return scheme + " (" + label + ")"; }
  std::unique_ptr<SchemeCase> instantiate(const relpos::AttentionDims& dims, unsigned seed = 11) const {
    auto c = std::make_unique<SchemeCase>();
    make(*c, dims, seed);
    return c;
  }
};

inline std::vector<Variant>& registry() {
  static std::vector<Variant> variants;
  return variants;
}
inline bool register_variants(const std::vector<Variant>& variants) {
  for (const auto& v : variants) registry().push_back(v);
  return true;
}

// Bad input the library must reject: run() must throw relpos::Error of `kind` (or of `also`, where
// the contract allows two readings) whose message contains at least one of `mentions` (the parameter).
struct InvalidCase {
  std::string what;
  relpos::ErrorKind kind;
  std::vector<std::string> mentions;
  std::function<void()> run;
  std::vector<relpos::ErrorKind> also = {};
};
inline std::vector<InvalidCase>& invalid_registry() {
  static std::vector<InvalidCase> cases;
  return cases;
}
inline bool register_invalid(const std::vector<InvalidCase>& cases) {
  for (const auto& c : cases) invalid_registry().push_back(c);
  return true;
}

inline const char* kind_name(relpos::ErrorKind k) {
  switch (k) {
    case relpos::ErrorKind::Type: return "Type";
    case relpos::ErrorKind::Range: return "Range";
    default: return "Value";
  }
}

inline void expect_rejected(const InvalidCase& c) {
  INFO("case: " << c.what);
  try {
    c.run();
    FAIL("no relpos::Error thrown");
  } catch (const relpos::Error& e) {
    const std::string message = e.what();
    INFO("message: " << message);
    bool kind_ok = e.kind() == c.kind;
    for (auto k : c.also) kind_ok = kind_ok || e.kind() == k;
    INFO("kind " << kind_name(e.kind()) << ", expected " << kind_name(c.kind));
    CHECK(kind_ok);
    bool named = false;
    for (const auto& m : c.mentions) named = named || message.find(m) != std::string::npos;
    CHECK(named);
  } catch (const std::exception& e) {
    FAIL("threw a non-relpos exception: " << e.what());
  }
}

// Calls relpos::attention on random inputs of `dims` (for invalid-input cases).
inline void call_attention(const relpos::Scheme& scheme, const relpos::AttentionDims& dims) {
  Inputs in = make_inputs(dims, 5, false, false);
  (void)run_attention(in, scheme, false, false);
}

struct Shape {
  int seq, head_dim, heads;
  bool causal;
};

// A covering subset of seq ∈ {1, 2, 7, 64, 129, 1000} × head_dim ∈ {8, 32, 64, 80} × heads ∈ {1, 3, 8}:
// every value of each axis appears, seq 1000 with two shapes.
inline std::vector<Shape> covering_grid(bool causal = false) {
  return {{1, 8, 1, causal},   {2, 32, 3, causal},  {7, 64, 8, causal},    {7, 80, 1, causal},
          {64, 80, 3, causal}, {64, 8, 8, causal},  {129, 32, 1, causal},  {129, 64, 3, causal},
          {1000, 8, 3, causal}, {1000, 64, 1, causal}};
}
// A few shapes for secondary variants (still crossing block boundaries and padding).
inline std::vector<Shape> small_grid(bool causal = false) {
  return {{2, 8, 3, causal}, {7, 32, 1, causal}, {129, 80, 3, causal}};
}

constexpr double kTolerance = 1e-5;

// Compares the library against the reference for one variant on the given shapes (batch 2 with
// padding): the streaming path's outputs always; for seq ≤ 129 also the materialised path's outputs
// and probabilities.
inline void check_matches_reference(const Variant& variant, const std::vector<Shape>& shapes, unsigned seed = 1) {
  for (const Shape& s : shapes) {
    const relpos::AttentionDims dims{2, s.heads, s.seq, s.head_dim};
    INFO(variant.name() << ": seq " << s.seq << ", head_dim " << s.head_dim << ", heads " << s.heads
                        << (s.causal ? ", causal" : ", bidirectional") << ", batch 2 (second padded to "
                        << valid_length(1, s.seq) << ")");
    auto c = variant.instantiate(dims, seed + s.seq + s.head_dim);
    const Inputs in = make_inputs(dims, seed + 3 * s.seq + s.heads, s.causal);
    const bool scores = s.seq <= 129;
    const ref::Result expected = run_reference(in, *c->reference, scores);
    const KernelRun streamed = run_attention(in, *c->kernel, false, false);
    const double out_err = scaled_error(streamed.output, expected.output);
    CAPTURE(out_err);
    CHECK(out_err <= kTolerance);
    if (scores) {
      const KernelRun full = run_attention(in, *c->kernel, true, false);
      const double full_err = scaled_error(full.output, expected.output);
      const double probs_err = scaled_error(full.probs, expected.probs);
      CAPTURE(full_err, probs_err);
      CHECK(full_err <= kTolerance);
      CHECK(probs_err <= kTolerance);
    }
    ++seed;
  }
}

inline void check_matches_reference(const std::string& scheme, const std::string& label, const std::vector<Shape>& shapes) {
  for (const Variant& v : registry())
    if (v.scheme == scheme && v.label == label) {
      check_matches_reference(v, shapes);
      return;
    }
  FAIL("variant not registered: " << scheme << " (" << label << ")");
}

}  // namespace ts
