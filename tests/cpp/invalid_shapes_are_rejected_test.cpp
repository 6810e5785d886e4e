// Bad sizes and parameters raise relpos::Error of the right kind, with a message naming the parameter,
// and leave the library usable: non-positive dims, a wrong number of term buffers, block_rows < 1,
// missing inputs, plus each scheme's own cases (missing tables, seq beyond a table, bad sizes)
// registered by its *_matches_reference_test.cpp.
#include "test_support.h"

namespace {

void attention_with(const relpos::AttentionDims& dims, std::size_t term_buffers = 0, int block_rows = 64,
                    bool drop_q = false) {
  auto none = relpos::make_scheme(relpos::NoneParams{});
  const std::size_t n = 2 * 3 * 5 * 8;
  std::vector<float> q(n, 0.5f), out(n), scores(2 * 3 * 5 * 5);
  relpos::AttentionOutputs outs;
  outs.output = out.data();
  for (std::size_t t = 0; t < term_buffers; ++t) outs.terms.push_back(scores.data());
  relpos::Workspace ws;
  relpos::AttentionOptions options;
  options.block_rows = block_rows;
  relpos::attention(dims, {drop_q ? nullptr : q.data(), q.data(), q.data(), nullptr, false}, *none, outs, ws, options);
}

}  // namespace

TEST_CASE("non-positive sizes are rejected with RangeError naming the size", "[errors]") {
  const std::vector<ts::InvalidCase> cases = {
      {"batch 0", relpos::ErrorKind::Range, {"batch"}, [] { attention_with({0, 3, 5, 8}); }},
      {"heads -1", relpos::ErrorKind::Range, {"heads"}, [] { attention_with({2, -1, 5, 8}); }},
      {"seq 0", relpos::ErrorKind::Range, {"seq"}, [] { attention_with({2, 3, 0, 8}); }},
      {"head_dim -8", relpos::ErrorKind::Range, {"head_dim"}, [] { attention_with({2, 3, 5, -8}); }},
      {"block_rows 0", relpos::ErrorKind::Range, {"block_rows"}, [] { attention_with({2, 3, 5, 8}, 0, 0); }},
  };
  for (const auto& c : cases) ts::expect_rejected(c);
}

TEST_CASE("a wrong number of term buffers and missing inputs are rejected", "[errors]") {
  // none has one term (content): 2 buffers is a mismatch. Kind: Value, as for other mis-shaped buffers.
  ts::expect_rejected({"2 term buffers for scheme none", relpos::ErrorKind::Value, {"term"},
                       [] { attention_with({2, 3, 5, 8}, 2); }});
  ts::expect_rejected({"q missing", relpos::ErrorKind::Value, {"q"}, [] { attention_with({2, 3, 5, 8}, 0, 64, true); }});
  REQUIRE_NOTHROW(attention_with({2, 3, 5, 8}, 1));  // one buffer per term is accepted
}

TEST_CASE("every scheme rejects missing tables and sizes its tables cannot serve", "[errors]") {
  REQUIRE(!ts::invalid_registry().empty());
  for (const auto& c : ts::invalid_registry()) ts::expect_rejected(c);
  // ... and the library stays usable afterwards.
  REQUIRE_NOTHROW(attention_with({2, 3, 5, 8}));
}
