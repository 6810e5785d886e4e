// Peak mul+add throughput of one WebAssembly thread: NACC independent accumulator chains
// acc = acc * m + c, so neither latency nor memory limits the rate. 2 flops per lane per step.
// Built twice by bench/run.sh: -msimd128 (f32x4.mul + f32x4.add; SIMD128 has no FMA) and scalar.
// Standalone .wasm, no imports: bench/lib/peak.js instantiates it directly.
#include <cstdint>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
typedef v128_t V;
static inline V vsplat(float x) { return wasm_f32x4_splat(x); }
static inline V vmuladd(V a, V m, V c) { return wasm_f32x4_add(wasm_f32x4_mul(a, m), c); }
static inline float vsum(V a) {
  return wasm_f32x4_extract_lane(a, 0) + wasm_f32x4_extract_lane(a, 1) + wasm_f32x4_extract_lane(a, 2) +
         wasm_f32x4_extract_lane(a, 3);
}
static constexpr int LANES = 4;
#else
typedef float V;
static inline V vsplat(float x) { return x; }
static inline V vmuladd(V a, V m, V c) { return a * m + c; }
static inline float vsum(V a) { return a; }
static constexpr int LANES = 1;
#endif

template <int NACC>
static float run(int iters, float m, float c) {
  V acc[NACC];
  for (int i = 0; i < NACC; ++i) acc[i] = vsplat(1.0f + 0.001f * i);
  const V vm = vsplat(m), vc = vsplat(c);
  for (int it = 0; it < iters; ++it) {
#pragma clang loop unroll(full)
    for (int i = 0; i < NACC; ++i) acc[i] = vmuladd(acc[i], vm, vc);
  }
  float s = 0.0f;
  for (int i = 0; i < NACC; ++i) s += vsum(acc[i]);
  return s;
}

extern "C" {
// Runs iters steps on nacc ∈ {4, 8, 12, 16} chains; the result keeps the work alive.
__attribute__((export_name("peak"))) float peak(int nacc, int iters, float m, float c) {
  switch (nacc) {
    case 4: return run<4>(iters, m, c);
    case 8: return run<8>(iters, m, c);
    case 16: return run<16>(iters, m, c);
    default: return run<12>(iters, m, c);
  }
}
__attribute__((export_name("lanes"))) int lanes() { return LANES; }
}
