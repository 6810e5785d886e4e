// The vector type every kernel is written over.
//
// With a SIMD instruction set (native: xsimd's best arch; WASM: -msimd128 -msse4.1, which xsimd
// sees as sse4_1 and Emscripten lowers to SIMD128) `vf` is xsimd::batch<float>. The scalar WASM
// build (RELPOS_SCALAR) uses plain float with the same free functions, so kernel source is shared.
#pragma once

#include <cmath>
#include <cstddef>

#if !defined(RELPOS_SCALAR)
#include <xsimd/xsimd.hpp>
#endif

namespace relpos::simd {

#if !defined(RELPOS_SCALAR)
using vf = xsimd::batch<float>;
constexpr std::size_t width = vf::size;
inline vf load(const float* p) { return vf::load_unaligned(p); }
inline void store(float* p, const vf& x) { x.store_unaligned(p); }
inline vf splat(float x) { return vf(x); }
inline vf fma(const vf& a, const vf& b, const vf& c) { return xsimd::fma(a, b, c); }
inline vf max(const vf& a, const vf& b) { return xsimd::max(a, b); }
// acc < x ? x : acc per lane (std::max(acc, x)): a NaN x leaves acc as it is
inline vf max_keep(const vf& acc, const vf& x) { return xsimd::select(acc < x, x, acc); }
inline vf abs(const vf& x) { return xsimd::abs(x); }
inline float reduce_add(const vf& x) { return xsimd::hadd(x); }
inline float reduce_max(const vf& x) {
  alignas(64) float lanes[width];
  x.store_aligned(lanes);
  float m = lanes[0];
  for (std::size_t i = 1; i < width; ++i) m = lanes[i] > m ? lanes[i] : m;
  return m;
}
constexpr const char* arch_name() { return xsimd::default_arch::name(); }
#else
using vf = float;
constexpr std::size_t width = 1;
inline vf load(const float* p) { return *p; }
inline void store(float* p, vf x) { *p = x; }
inline vf splat(float x) { return x; }
inline vf fma(vf a, vf b, vf c) { return a * b + c; }
inline vf max(vf a, vf b) { return a > b ? a : b; }
inline vf max_keep(vf acc, vf x) { return acc < x ? x : acc; }
inline vf abs(vf x) { return std::fabs(x); }
inline float reduce_add(vf x) { return x; }
inline float reduce_max(vf x) { return x; }
constexpr const char* arch_name() { return "scalar"; }
#endif

// Register tile of the GEMM micro-kernel: MR rows × NR columns, NR = 2 vectors.
// 4×8 on SIMD128 (V8 spills past ~13 live v128), 6×(2·width) on AVX2/AVX-512, 4×2 scalar.
constexpr int gemm_nr = static_cast<int>(2 * width);
constexpr int gemm_mr = width >= 8 ? 6 : 4;

}  // namespace relpos::simd
