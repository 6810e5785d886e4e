// Native driver over the same harness, for perf / callgrind:
//   profile_main <scheme|all> <seq> <reps>   (8 heads, head_dim 64, deterministic data)
// Built by bench/profile.sh with -msse4.1 (xsimd's sse4_1 arch, the one the WASM build lowers to
// SIMD128) so the profile shows the same 4-wide kernels.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "harness.cpp"

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "none";
  const int seq = argc > 2 ? std::atoi(argv[2]) : 512;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 5;
  Ctx* c = setup(seq, 8, 64);
  unsigned s = 12345;
  for (int b = 0; b < nbuf(); ++b) {
    float* p = buf(c, b);
    const float scale = b <= OUT ? 1.0f : 0.1f;
    for (int i = 0; i < buf_len(c, b); ++i) {
      s = s * 1664525u + 1013904223u;
      p[i] = scale * ((s >> 8) * (1.0f / 16777216.0f) * 2.0f - 1.0f);
    }
  }
  const int n = make_schemes(c);
  for (int i = 0; i < n; ++i) {
    if (std::strcmp(which, "all") != 0 && std::strcmp(which, scheme_name(c, i)) != 0) continue;
    double best = 1e30, total = 0;
    for (int r = 0; r < reps; ++r) {
      const double ms = run(c, i);
      if (ms < 0) { std::printf("%s: error %s\n", scheme_name(c, i), scheme_error(c, i)); break; }
      best = ms < best ? ms : best;
      total += ms;
    }
    const double gf = 4.0 * seq * seq * 64 * 8 / best / 1e6;
    std::printf("%-20s seq %d best %.3f ms mean %.3f ms  %.2f GFLOP/s\n", scheme_name(c, i), seq, best, total / reps, gf);
  }
  teardown(c);
}
