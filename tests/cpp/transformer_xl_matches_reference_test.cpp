// Transformer-XL relative attention (schemes.h 8) against the reference: causal (its use) and
// bidirectional, with and without clamp_len, d_model different from head_dim, and a sinusoid table
// large enough to be generated in chunks.
#include "reference/transformer_xl.h"
#include "test_support.h"

namespace {

ts::CaseFactory txl(int d_model, int clamp_len) {
  return [=](ts::SchemeCase& c, const relpos::AttentionDims& d, unsigned seed) {
    relpos::TransformerXLParams p;
    p.d_model = d_model;
    p.clamp_len = clamp_len;
    const std::size_t hd = static_cast<std::size_t>(d.heads) * d.head_dim;
    p.u = c.table(hd, seed, 0.5f);
    p.v = c.table(hd, seed + 1, 0.5f);
    p.w_kr = c.table(hd * d_model, seed + 2, 1.0f / std::sqrt(float(d_model)));
    c.kernel = relpos::make_scheme(p);
    c.reference = std::make_unique<ref::TransformerXL>(d_model, clamp_len, p.u, p.v, p.w_kr);
  };
}

const bool registered = ts::register_variants({
    {"transformer_xl", "d_model 32, no clamp", txl(32, 0), true},
    {"transformer_xl", "d_model 48, clamp_len 24", txl(48, 24), true},
});

const bool invalid = ts::register_invalid({
    {"transformer_xl: missing w_kr", relpos::ErrorKind::Value, {"w_kr"},
     [] {
       std::vector<float> w(64, 0.1f);
       relpos::TransformerXLParams p;
       p.d_model = 16;
       p.u = w.data(), p.v = w.data();
       ts::call_attention(*relpos::make_scheme(p), {1, 2, 4, 16});
     }},
    {"transformer_xl: d_model 0", relpos::ErrorKind::Range, {"d_model"},
     [] {
       std::vector<float> w(64 * 16, 0.1f);
       relpos::TransformerXLParams p;
       p.d_model = 0;
       p.u = w.data(), p.v = w.data(), p.w_kr = w.data();
       ts::call_attention(*relpos::make_scheme(p), {1, 2, 4, 16});
     }},
});

}  // namespace

TEST_CASE("Transformer-XL matches the reference, causal", "[transformer_xl][reference]") {
  ts::check_matches_reference("transformer_xl", "d_model 32, no clamp", ts::covering_grid(true));
  ts::check_matches_reference("transformer_xl", "d_model 48, clamp_len 24", ts::small_grid(true));
}

TEST_CASE("Transformer-XL matches the reference, bidirectional", "[transformer_xl][reference]") {
  ts::check_matches_reference("transformer_xl", "d_model 32, no clamp", ts::small_grid(false));
  ts::check_matches_reference("transformer_xl", "d_model 48, clamp_len 24", ts::small_grid(false));
}

// Past 8 MiB of sinusoid rows (here 599 rows × d_model 4096) each head generates R in chunks of 256
// rows instead of keeping the whole table for the call (transformer_xl.cpp): same results.
TEST_CASE("Transformer-XL with a sinusoid table too large to keep matches the reference", "[transformer_xl][reference]") {
  const ts::Variant wide{"transformer_xl", "d_model 4096, no clamp (R in chunks)", txl(4096, 0), true};
  ts::check_matches_reference(wide, {{300, 8, 2, false}, {300, 8, 2, true}});
}
