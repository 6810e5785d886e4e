// Bench-only experiment on the packed-B GEMM micro-kernel as it runs in WASM SIMD128.
// baseline: relpos's micro_kernel<4> (cpp/src/kernels/gemm_f32.cpp): 4 × 8 tile, A[r*lda + k]
//           splat per row per k, no k unrolling (clang emits base + (k + r·lda)·4 per splat).
// bump4:    same 4 × 8 tile, row pointers bumped once per k, k unrolled ×4.
// mr5/mr6:  5 × 8 / 6 × 8 tiles (10 / 12 accumulators), pointer bump, k unrolled ×2.
// nr12:     4 × 12 tile (3 B vectors, 12 accumulators), pointer bump, k unrolled ×2.
// Exported as gemm(variant, M, N, K, A, packedB(for the variant's NR), C, reps) → ms (all reps).
// Shapes timed by bench/lib/gemm_experiment.mjs: QKᵀ block (64 × seq × 64) and PV block (64 × 64 × seq).
#include <wasm_simd128.h>
#include <emscripten.h>
#include <cstdlib>

typedef v128_t V;
static inline V ld(const float* p) { return wasm_v128_load(p); }
static inline void st(float* p, V x) { wasm_v128_store(p, x); }
static inline V spl(const float* p) { return wasm_v128_load32_splat(p); }
static inline V madd(V a, V b, V c) { return wasm_f32x4_add(wasm_f32x4_mul(a, b), c); }

template <int R>
static void base_kernel(int K, float alpha, const float* A, int lda, const float* panel, float* C, int ldc) {
  V acc0[R], acc1[R];
  for (int r = 0; r < R; ++r) acc0[r] = acc1[r] = wasm_f32x4_splat(0.0f);
  for (int k = 0; k < K; ++k) {
    const V b0 = ld(panel + k * 8), b1 = ld(panel + k * 8 + 4);
    for (int r = 0; r < R; ++r) {
      const V a = wasm_f32x4_splat(A[r * lda + k]);
      acc0[r] = madd(a, b0, acc0[r]);
      acc1[r] = madd(a, b1, acc1[r]);
    }
  }
  const V va = wasm_f32x4_splat(alpha);
  for (int r = 0; r < R; ++r) {
    st(C + r * ldc, wasm_f32x4_mul(acc0[r], va));
    st(C + r * ldc + 4, wasm_f32x4_mul(acc1[r], va));
  }
}

// R × (4·NV) tile, pointer bumping, k unrolled by U.
template <int R, int NV, int U>
static void bump_kernel(int K, float alpha, const float* A, int lda, const float* panel, float* C, int ldc) {
  constexpr int NR = 4 * NV;
  V acc[R][NV];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) acc[r][v] = wasm_f32x4_splat(0.0f);
  const float* a[R];
  for (int r = 0; r < R; ++r) a[r] = A + r * lda;
  const float* b = panel;
  int k = 0;
  for (; k + U <= K; k += U) {
#pragma clang loop unroll(full)
    for (int u = 0; u < U; ++u) {
      V bv[NV];
      for (int v = 0; v < NV; ++v) bv[v] = ld(b + u * NR + 4 * v);
      for (int r = 0; r < R; ++r) {
        const V s = spl(a[r] + u);
        for (int v = 0; v < NV; ++v) acc[r][v] = madd(s, bv[v], acc[r][v]);
      }
    }
    b += U * NR;
    for (int r = 0; r < R; ++r) a[r] += U;
  }
  for (; k < K; ++k) {
    V bv[NV];
    for (int v = 0; v < NV; ++v) bv[v] = ld(b + 4 * v);
    for (int r = 0; r < R; ++r) {
      const V s = spl(a[r]);
      for (int v = 0; v < NV; ++v) acc[r][v] = madd(s, bv[v], acc[r][v]);
      a[r] += 1;
    }
    b += NR;
  }
  const V va = wasm_f32x4_splat(alpha);
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) st(C + r * ldc + 4 * v, wasm_f32x4_mul(acc[r][v], va));
}

typedef void (*Kern)(int, float, const float*, int, const float*, float*, int);

// M must be a multiple of MR and N of NR (the experiment picks such shapes); K in one chunk.
template <int MR, int NR>
static void driver(Kern kern, int M, int N, int K, const float* A, const float* packed, float* C) {
  for (int p = 0; p < N / NR; ++p)
    for (int i = 0; i < M; i += MR) kern(K, 0.125f, A + i * K, K, packed + p * K * NR, C + i * N + p * NR, N);
}

extern "C" {
EMSCRIPTEN_KEEPALIVE int variant_nr(int v) { return v == 4 ? 12 : 8; }
EMSCRIPTEN_KEEPALIVE int variant_mr(int v) { return v == 2 ? 5 : v == 3 ? 6 : 4; }
EMSCRIPTEN_KEEPALIVE double gemm(int v, int M, int N, int K, const float* A, const float* packed, float* C, int reps) {
  const double t0 = emscripten_get_now();
  for (int r = 0; r < reps; ++r) {
    switch (v) {
      case 0: driver<4, 8>(base_kernel<4>, M, N, K, A, packed, C); break;
      case 1: driver<4, 8>(bump_kernel<4, 2, 4>, M, N, K, A, packed, C); break;
      case 2: driver<5, 8>(bump_kernel<5, 2, 2>, M, N, K, A, packed, C); break;
      case 3: driver<6, 8>(bump_kernel<6, 2, 2>, M, N, K, A, packed, C); break;
      case 4: driver<4, 12>(bump_kernel<4, 3, 2>, M, N, K, A, packed, C); break;
    }
  }
  return emscripten_get_now() - t0;
}
}
