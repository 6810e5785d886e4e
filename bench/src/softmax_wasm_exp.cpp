// Bench-only experiment (proposal for cpp/src/kernels/raddstoreexpminusmax_f32.cpp): the same
// contract — y[i] = exp(x[i] − max), returns Σ y[i]; exp(−inf) = 0; NaN propagates — written with
// WASM SIMD128 intrinsics, XNNPACK's rr2-p5 scheme (f32-raddstoreexpminusmax/wasmsimd-rr2-p5):
// 2^n built from the float bits of x·log2e + magic bias (no float→int conversion), Cody–Waite
// range reduction with ln2 split in two, degree-5 polynomial, 0 below the softmax cut-off x − max < −40
// (kernels/softmax_f32.h since issue #28; the argument is clamped there first and 2^n·(1 + t·p) keeps
// every intermediate normal, as kernels/exp_f32.h does).
// Why: xsimd 8.1's exp for sse4_1 calls _mm_cvtps_epi32, which Emscripten cannot map to one WASM
// instruction (x86 out-of-range semantics) and lowers to a per-lane scalar loop through memory;
// that loop made this routine ~35 % of plain attention time at seq 512 (node --cpu-prof).
// bench/run.sh links it ahead of librelpos_simd.a into harness_simd_exp (the archive member that
// defines the original is then not pulled in) so the whole attention can be timed both ways.
#include <wasm_simd128.h>

#include <cmath>
#include <cstddef>

namespace relpos::kernels {

float raddstoreexpminusmax_f32(std::size_t n, const float* x, float max, float* y) {
  const v128_t vmax = wasm_f32x4_splat(max);
  const v128_t log2e = wasm_f32x4_splat(0x1.715476p+0f);
  const v128_t magic = wasm_f32x4_splat(0x1.8000FEp23f);
  const v128_t ln2_hi = wasm_f32x4_splat(-0x1.62E400p-1f);
  const v128_t ln2_lo = wasm_f32x4_splat(-0x1.7F7D1Cp-20f);
  const v128_t c5 = wasm_f32x4_splat(0x1.0F9F9Cp-7f), c4 = wasm_f32x4_splat(0x1.573A1Ap-5f);
  const v128_t c3 = wasm_f32x4_splat(0x1.555A80p-3f), c2 = wasm_f32x4_splat(0x1.FFFDC6p-2f);
  const v128_t c1 = wasm_f32x4_splat(0x1.FFFFF6p-1f);
  const v128_t cutoff = wasm_f32x4_splat(-40.0f);  // kSoftmaxCutoff
  const v128_t one = wasm_f32x4_splat(1.0f);
  auto exp4 = [&](v128_t x0) {
    const v128_t vx = wasm_f32x4_pmax(x0, cutoff);  // x0 < cutoff ? cutoff : x0 (NaN stays)
    v128_t vn = wasm_f32x4_add(wasm_f32x4_mul(vx, log2e), magic);
    const v128_t vs = wasm_i32x4_shl(vn, 23);
    vn = wasm_f32x4_sub(vn, magic);
    v128_t vt = wasm_f32x4_add(wasm_f32x4_mul(vn, ln2_hi), vx);
    vt = wasm_f32x4_add(wasm_f32x4_mul(vn, ln2_lo), vt);
    v128_t vp = wasm_f32x4_add(wasm_f32x4_mul(c5, vt), c4);
    vp = wasm_f32x4_add(wasm_f32x4_mul(vp, vt), c3);
    vp = wasm_f32x4_add(wasm_f32x4_mul(vp, vt), c2);
    vp = wasm_f32x4_add(wasm_f32x4_mul(vp, vt), c1);
    const v128_t vf = wasm_f32x4_mul(vs, wasm_f32x4_add(wasm_f32x4_mul(vt, vp), one));
    return wasm_v128_andnot(vf, wasm_f32x4_lt(x0, cutoff));
  };
  v128_t s0 = wasm_f32x4_splat(0.0f), s1 = s0;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const v128_t e0 = exp4(wasm_f32x4_sub(wasm_v128_load(x + i), vmax));
    const v128_t e1 = exp4(wasm_f32x4_sub(wasm_v128_load(x + i + 4), vmax));
    wasm_v128_store(y + i, e0);
    wasm_v128_store(y + i + 4, e1);
    s0 = wasm_f32x4_add(s0, e0);
    s1 = wasm_f32x4_add(s1, e1);
  }
  for (; i + 4 <= n; i += 4) {
    const v128_t e = exp4(wasm_f32x4_sub(wasm_v128_load(x + i), vmax));
    wasm_v128_store(y + i, e);
    s0 = wasm_f32x4_add(s0, e);
  }
  s0 = wasm_f32x4_add(s0, s1);
  float sum = wasm_f32x4_extract_lane(s0, 0) + wasm_f32x4_extract_lane(s0, 1) + wasm_f32x4_extract_lane(s0, 2) +
              wasm_f32x4_extract_lane(s0, 3);
  for (; i < n; ++i) {
    const float d = x[i] - max;
    y[i] = d < -40.0f ? 0.0f : std::exp(d);
    sum += y[i];
  }
  return sum;
}

}  // namespace relpos::kernels
