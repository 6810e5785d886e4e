// TUPE separate content/position projections (schemes.h 10) against the reference.
#include "reference/tupe.h"
#include "test_support.h"

namespace {

ts::CaseFactory tupe(int pos_dim) {
  return [=](ts::SchemeCase& c, const relpos::AttentionDims& d, unsigned seed) {
    relpos::TupeParams p;
    p.table_rows = d.seq + 3;
    p.pos_dim = pos_dim;
    p.positions = c.table(static_cast<std::size_t>(p.table_rows) * pos_dim, seed);
    const std::size_t n = static_cast<std::size_t>(d.heads) * d.head_dim * pos_dim;
    p.u_q = c.table(n, seed + 1, 1.0f / std::sqrt(float(pos_dim)));
    p.u_k = c.table(n, seed + 2, 1.0f / std::sqrt(float(pos_dim)));
    c.kernel = relpos::make_scheme(p);
    c.reference = std::make_unique<ref::Tupe>(p.positions, pos_dim, p.u_q, p.u_k);
  };
}

const bool registered = ts::register_variants({
    {"tupe", "pos_dim 16", tupe(16)},
    {"tupe", "pos_dim 5", tupe(5)},
});

const bool invalid = ts::register_invalid({
    {"tupe: seq 9 beyond 8 position rows", relpos::ErrorKind::Value, {"table_rows", "seq"},
     [] {
       std::vector<float> w(64 * 16, 0.1f);
       relpos::TupeParams p;
       p.positions = w.data(), p.u_q = w.data(), p.u_k = w.data();
       p.table_rows = 8, p.pos_dim = 4;
       ts::call_attention(*relpos::make_scheme(p), {1, 2, 9, 16});
     },
     {relpos::ErrorKind::Range}},  // attention.h: Error for tables that do not fit; schemes.h 3: RangeError
    {"tupe: missing u_k", relpos::ErrorKind::Value, {"u_k"},
     [] {
       std::vector<float> w(64 * 16, 0.1f);
       relpos::TupeParams p;
       p.positions = w.data(), p.u_q = w.data();
       p.table_rows = 8, p.pos_dim = 4;
       ts::call_attention(*relpos::make_scheme(p), {1, 2, 4, 16});
     }},
});

}  // namespace

TEST_CASE("TUPE matches the reference", "[tupe][reference]") {
  ts::check_matches_reference("tupe", "pos_dim 16", ts::covering_grid());
  ts::check_matches_reference("tupe", "pos_dim 5", ts::small_grid());
  ts::check_matches_reference("tupe", "pos_dim 16", ts::small_grid(true));
}
