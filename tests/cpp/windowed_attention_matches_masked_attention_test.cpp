// Sliding-window attention (AttentionInputs::window) is a banded schedule with the results of masking:
//   - every scheme variant, windowed, matches the float64 reference with |i − j| > window masked —
//     outputs on the streaming path; outputs, probabilities and terms materialised — for window 0,
//     windows narrower than a block, wider than one, ≥ seq, causal + window, key_mask + window, and
//     block sizes that put band edges inside and on packed-panel boundaries;
//   - probabilities and terms outside the window are exactly 0;
//   - it visits only in-window key blocks: an instrumented scheme records the key columns the driver
//     hands it ([max(0, i0 − w), min(seq, i1 + w)) per query block, never more), and a NaN planted in
//     one value row reaches only the query blocks whose band holds that key (masked full attention
//     would multiply it by probability 0 in every row: NaN everywhere);
//   - windowed results are bitwise identical for 1, 2 and 3 threads.
#include <cstring>
#include <mutex>

#include "relpos/threads.h"
#include "test_support.h"

namespace {

struct WindowCase {
  int seq, window, block_rows, heads, head_dim;
  bool causal, padded;
};

// Covers: window 0; narrower and wider than a block; band edges off and on panel boundaries
// (windows 5, 13, 17 against gemm_nr 8 or 16); window ≥ seq (= full attention); causal + window;
// key_mask + window (padded: the second batch row's keys end at (seq + 1) / 2).
const std::vector<WindowCase>& cases() {
  static const std::vector<WindowCase> list = {
      {7, 0, 64, 2, 8, false, true},    {40, 5, 16, 1, 32, false, false}, {40, 5, 16, 1, 32, true, true},
      {70, 13, 8, 3, 8, false, true},   {70, 17, 32, 1, 16, true, false}, {33, 40, 8, 2, 8, false, true},
      {129, 16, 64, 1, 8, false, true}, {129, 64, 16, 1, 8, true, true},
  };
  return list;
}

void check_variant(const ts::Variant& variant, const WindowCase& wc, unsigned seed) {
  const relpos::AttentionDims dims{2, wc.heads, wc.seq, wc.head_dim};
  INFO(variant.name() << ": seq " << wc.seq << ", window " << wc.window << ", block_rows " << wc.block_rows
                      << (wc.causal ? ", causal" : ", bidirectional") << (wc.padded ? ", key_mask" : ""));
  auto c = variant.instantiate(dims, seed);
  ts::Inputs in = ts::make_inputs(dims, seed + 5, wc.causal, wc.padded);
  in.window = wc.window;
  const ref::Result expected = ts::run_reference(in, *c->reference, true);

  const ts::KernelRun streamed = ts::run_attention(in, *c->kernel, false, false, wc.block_rows);
  const double stream_err = ts::scaled_error(streamed.output, expected.output);
  CAPTURE(stream_err);
  CHECK(stream_err <= ts::kTolerance);

  const ts::KernelRun full = ts::run_attention(in, *c->kernel, true, true, wc.block_rows);
  const double full_err = ts::scaled_error(full.output, expected.output);
  const double probs_err = ts::scaled_error(full.probs, expected.probs);
  CAPTURE(full_err, probs_err);
  CHECK(full_err <= ts::kTolerance);
  CHECK(probs_err <= ts::kTolerance);

  const std::size_t S = wc.seq, head_scores = S * S;
  auto row_col = [&](std::size_t n, int& b, int& i, int& j) {
    b = static_cast<int>(n / head_scores / wc.heads);
    i = static_cast<int>((n % head_scores) / S);
    j = static_cast<int>(n % S);
  };
  auto unmasked = [&](std::size_t n) {
    int b, i, j;
    row_col(n, b, i, j);
    return !in.is_masked(b, i, j);
  };
  // Outside the window: probabilities and every term exactly 0.
  std::size_t outside = 0, nonzero = 0;
  for (std::size_t n = 0; n < full.probs.size(); ++n) {
    int b, i, j;
    row_col(n, b, i, j);
    if (std::abs(i - j) <= wc.window) continue;
    ++outside;
    if (full.probs[n] != 0.0f) ++nonzero;
    for (const auto& t : full.terms)
      if (t[n] != 0.0f) ++nonzero;
  }
  CAPTURE(outside);
  CHECK(nonzero == 0);
  // Inside: the terms sum to the reference's logits.
  std::vector<float> sum(full.terms[0].size(), 0.0f);
  for (const auto& t : full.terms)
    for (std::size_t n = 0; n < sum.size(); ++n) sum[n] += t[n];
  const double sum_err = ts::scaled_error(sum, expected.logits, unmasked);
  CAPTURE(sum_err);
  CHECK(sum_err <= ts::kTolerance);
}

// A scheme that adds a distance bias and a value term, and records the key columns the driver hands it.
class RecordingScheme final : public relpos::Scheme {
 public:
  struct Call {
    int i0, i1, j0, j1;
    bool value;
  };
  const char* name() const override { return "recording"; }
  std::vector<std::string> term_names() const override { return {"bias"}; }
  bool has_value_term() const override { return true; }
  void add_logit_terms(const relpos::HeadView&, float*, int i0, int i1, int j0, int j1, float* logits, std::size_t ld,
                       float* const* term_rows) const override {
    record({i0, i1, j0, j1, false});
    for (int i = i0; i < i1; ++i)
      for (int j = j0; j < j1; ++j) {
        const float bias = -0.01f * static_cast<float>((j - i) * (j - i));
        logits[(i - i0) * ld + (j - j0)] += bias;
        if (term_rows) term_rows[0][(i - i0) * ld + (j - j0)] = bias;
      }
  }
  void add_value_term(const relpos::HeadView& head, float*, int i0, int i1, int j0, int j1, const float* probs,
                      std::size_t ld, float* out) const override {
    record({i0, i1, j0, j1, true});
    for (int i = i0; i < i1; ++i)  // out_i += Σ_j p_ij · (j − i)·0.1 in every column
      for (int j = j0; j < j1; ++j)
        for (int c = 0; c < head.head_dim(); ++c)
          out[(i - i0) * head.head_dim() + c] += probs[(i - i0) * ld + (j - j0)] * 0.1f * static_cast<float>(j - i);
  }
  std::vector<Call> calls() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return calls_;
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    calls_.clear();
  }

 private:
  void record(const Call& call) const {
    std::lock_guard<std::mutex> lock(mutex_);
    calls_.push_back(call);
  }
  mutable std::mutex mutex_;
  mutable std::vector<Call> calls_;
};

// The same scheme in the reference's terms (float64).
class RecordingReference final : public ref::Scheme {
 public:
  std::vector<std::string> term_names() const override { return {"bias"}; }
  double term(std::size_t, const ref::Head&, int i, int j) const override {
    return static_cast<double>(-0.01f * static_cast<float>((j - i) * (j - i)));
  }
  void add_value(const ref::Head& h, int i, int j, double p, double* out) const override {
    for (int c = 0; c < h.dim; ++c) out[c] += p * 0.1 * (j - i);
  }
};

}  // namespace

TEST_CASE("windowed attention matches masked attention for every scheme", "[window][reference]") {
  REQUIRE(!ts::registry().empty());
  unsigned seed = 300;
  for (const ts::Variant& v : ts::registry())
    for (const WindowCase& wc : cases()) check_variant(v, wc, seed++);
}

TEST_CASE("windowed attention visits only the key columns inside the window", "[window]") {
  for (const bool causal : {false, true})
    for (const int window : {0, 3, 20, 200}) {
      for (const int block_rows : {1, 16, 64}) {
        const int seq = 150;
        const relpos::AttentionDims dims{1, 2, seq, 8};
        INFO("window " << window << ", block_rows " << block_rows << (causal ? ", causal" : ""));
        RecordingScheme scheme;
        RecordingReference reference;
        ts::Inputs in = ts::make_inputs(dims, 40 + window, causal, false);
        in.window = window;
        const ts::KernelRun got = ts::run_attention(in, scheme, false, false, block_rows);
        const ref::Result expected = ts::run_reference(in, reference, false);
        const double err = ts::scaled_error(got.output, expected.output);
        CAPTURE(err);
        CHECK(err <= ts::kTolerance);

        const std::vector<RecordingScheme::Call> calls = scheme.calls();
        const int blocks = (seq + block_rows - 1) / block_rows;
        CHECK(calls.size() == static_cast<std::size_t>(2 * blocks * dims.heads));  // logits + value, per block
        long long visited = 0;
        for (const auto& call : calls) {
          INFO("block [" << call.i0 << ", " << call.i1 << ") got keys [" << call.j0 << ", " << call.j1 << ")");
          const int hi = causal ? call.i1 : std::min(seq, call.i1 + window);
          CHECK(call.j0 == std::max(0, call.i0 - window));
          CHECK(call.j1 == hi);
          if (!call.value) visited += static_cast<long long>(call.i1 - call.i0) * (call.j1 - call.j0);
        }
        // Keys visited ≤ rows · (block_rows + 2·window): never the whole seq² once the band is narrower.
        const long long bound = static_cast<long long>(dims.heads) * seq * std::min(seq, block_rows + 2 * window);
        CAPTURE(visited, bound);
        CHECK(visited <= bound);
      }
    }
}

TEST_CASE("a NaN value row reaches only the query blocks whose band holds that key", "[window]") {
  const int seq = 200, window = 10, block_rows = 16, poisoned = 100;
  const relpos::AttentionDims dims{1, 1, seq, 8};
  auto scheme = relpos::make_scheme(relpos::NoneParams{});
  ts::Inputs in = ts::make_inputs(dims, 77, false, false);
  in.window = window;
  for (int c = 0; c < dims.head_dim; ++c) in.v[static_cast<std::size_t>(poisoned) * dims.head_dim + c] = std::nanf("");
  for (const bool probs : {false, true}) {
    INFO((probs ? "materialised" : "streaming"));
    const ts::KernelRun got = ts::run_attention(in, *scheme, probs, false, block_rows);
    for (int i = 0; i < seq; ++i) {
      const int i0 = i / block_rows * block_rows, i1 = std::min(seq, i0 + block_rows);
      const bool in_band = poisoned >= std::max(0, i0 - window) && poisoned < std::min(seq, i1 + window);
      const float x = got.output[static_cast<std::size_t>(i) * dims.head_dim];
      INFO("row " << i << ", block [" << i0 << ", " << i1 << ")");
      if (in_band)
        CHECK(std::isnan(x));  // the band's P·V reads key 100 (probability 0 or not)
      else
        CHECK(std::isfinite(x));  // never read: the schedule skipped it
    }
  }
}

TEST_CASE("windowed attention is bitwise identical for 1, 2 and 3 threads", "[window][threads]") {
  const int saved = relpos::num_threads();
  for (const ts::Variant& v : ts::registry()) {
    const relpos::AttentionDims dims{1, 2, 90, 16};
    INFO(v.name());
    auto c = v.instantiate(dims, 9);
    ts::Inputs in = ts::make_inputs(dims, 19, false, false);
    in.window = 11;
    std::vector<ts::KernelRun> runs;
    for (int threads : {1, 2, 3}) {
      relpos::set_num_threads(threads);
      runs.push_back(ts::run_attention(in, *c->kernel, false, false, 16));
      runs.push_back(ts::run_attention(in, *c->kernel, true, true, 16));
    }
    for (std::size_t r = 2; r < runs.size(); ++r) {
      const ts::KernelRun& a = runs[r];
      const ts::KernelRun& b = runs[r % 2];
      CHECK(std::memcmp(a.output.data(), b.output.data(), a.output.size() * sizeof(float)) == 0);
      if (!a.probs.empty()) CHECK(std::memcmp(a.probs.data(), b.probs.data(), a.probs.size() * sizeof(float)) == 0);
    }
  }
  relpos::set_num_threads(saved);
}
