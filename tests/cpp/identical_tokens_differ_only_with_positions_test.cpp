// Position information is what separates identical tokens:
//   none: permuting the tokens (and the key mask) permutes the outputs, identical tokens get identical
//   outputs; every other scheme: two identical tokens (same q, k, v in every head) at different positions
//   get different outputs (bidirectional). Exception by construction: ALiBi with m·(j − i) and no
//   causal mask adds −m·i to a whole row, which softmax ignores — there identical tokens must agree.
#include <numeric>

#include "test_support.h"

namespace {

constexpr int kSeq = 9, kDim = 32, kHeads = 3, kA = 2, kB = 6;

ts::Inputs with_identical_tokens(int batch) {
  const relpos::AttentionDims dims{batch, kHeads, kSeq, kDim};
  ts::Inputs in = ts::make_inputs(dims, 41, false, false);
  for (std::size_t bh = 0; bh < static_cast<std::size_t>(batch) * kHeads; ++bh)
    for (auto* x : {&in.q, &in.k, &in.v})
      for (int c = 0; c < kDim; ++c) (*x)[(bh * kSeq + kB) * kDim + c] = (*x)[(bh * kSeq + kA) * kDim + c];
  return in;
}

double row_difference(const std::vector<float>& out, int batch) {
  double diff = 0;
  for (std::size_t bh = 0; bh < static_cast<std::size_t>(batch) * kHeads; ++bh)
    for (int c = 0; c < kDim; ++c)
      diff = std::max(diff, std::abs(double(out[(bh * kSeq + kA) * kDim + c]) - out[(bh * kSeq + kB) * kDim + c]));
  return diff;
}

bool translation_only(const ts::Variant& v) {
  return v.scheme == "alibi" && v.label.find("symmetric") == std::string::npos;
}

}  // namespace

TEST_CASE("with scheme none, permuting tokens permutes outputs", "[none][positions]") {
  const relpos::AttentionDims dims{2, kHeads, kSeq, kDim};
  const ts::Inputs in = ts::make_inputs(dims, 43, false, true);
  std::vector<int> perm(kSeq);
  std::iota(perm.begin(), perm.end(), 0);
  std::mt19937 rng(44);
  std::shuffle(perm.begin(), perm.end(), rng);
  ts::Inputs permuted = in;  // token i of `permuted` is token perm[i] of `in`
  for (int b = 0; b < dims.batch; ++b) {
    for (int i = 0; i < kSeq; ++i) permuted.key_mask[b * kSeq + i] = in.key_mask[b * kSeq + perm[i]];
    for (int h = 0; h < kHeads; ++h) {
      const std::size_t bh = static_cast<std::size_t>(b) * kHeads + h;
      for (int i = 0; i < kSeq; ++i)
        for (int c = 0; c < kDim; ++c) {
          const std::size_t to = (bh * kSeq + i) * kDim + c, from = (bh * kSeq + perm[i]) * kDim + c;
          permuted.q[to] = in.q[from];
          permuted.k[to] = in.k[from];
          permuted.v[to] = in.v[from];
        }
    }
  }
  auto none = relpos::make_scheme(relpos::NoneParams{});
  const ts::KernelRun a = ts::run_attention(in, *none, false, false);
  const ts::KernelRun b = ts::run_attention(permuted, *none, false, false);
  std::vector<double> expected(a.output.size());
  for (std::size_t bh = 0; bh < static_cast<std::size_t>(dims.batch) * kHeads; ++bh)
    for (int i = 0; i < kSeq; ++i)
      for (int c = 0; c < kDim; ++c) expected[(bh * kSeq + i) * kDim + c] = a.output[(bh * kSeq + perm[i]) * kDim + c];
  const double err = ts::scaled_error(b.output, expected);
  CAPTURE(err);
  CHECK(err <= ts::kTolerance);

  const ts::KernelRun same = ts::run_attention(with_identical_tokens(1), *none, false, false);
  CHECK(row_difference(same.output, 1) <= 1e-6);
}

TEST_CASE("with every position scheme, identical tokens at different positions get different outputs",
          "[positions]") {
  REQUIRE(!ts::registry().empty());
  const ts::Inputs in = with_identical_tokens(1);
  for (const ts::Variant& v : ts::registry()) {
    if (v.scheme == "none") continue;
    INFO(v.name() << ": tokens " << kA << " and " << kB << " identical, seq " << kSeq << ", bidirectional");
    auto c = v.instantiate(in.dims, 45);
    const ts::KernelRun got = ts::run_attention(in, *c->kernel, false, false);
    const double diff = row_difference(got.output, 1);
    CAPTURE(diff);
    if (translation_only(v))
      CHECK(diff <= 1e-5);
    else
      CHECK(diff > 1e-3);
  }
}
