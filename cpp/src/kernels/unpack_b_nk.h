// The inverse of pack_b_nk (kernels/gemm_f32.h): Bt [N][K] (row stride K) from its packed panels,
// Bt[n][k] = packed[((n / NR)·K + k)·NR + n % NR], NR = simd::gemm_nr. Used to hand a Linear's
// W [out, in] to another executor (the GPU plan) without keeping a second copy in the model.
#pragma once

namespace relpos::kernels {

void unpack_b_nk(int K, int N, const float* packed, float* Bt);

}  // namespace relpos::kernels
