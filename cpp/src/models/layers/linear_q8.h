// The 8-bit weights of a linear layer (LoadOptions::dtype = Q8): W [out, in] quantized to symmetric
// int8 with one scale per output channel times a 4-bit multiplier per group of 32 inputs, packed for
// kernels::gemm_qs8_packed (kernels/gemm_qs8.h). forward quantizes its input per row to int16 within
// the matrix's own activation range (the widest that keeps its int32 sums exact, from pack_qs8_nk)
// and rescales the exact int32 sums.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace relpos::models {

class QuantizedMatrix {
 public:
  QuantizedMatrix() = default;
  QuantizedMatrix(int in, int out, const float* weight);  // weight [out, in], finite
  // Already packed (pack_qs8_nk's packed bytes, scales and returned range; StreamedCheckpoint packs
  // row blocks of the matrix as they stream in).
  QuantizedMatrix(int in, int out, std::vector<std::int8_t> packed, std::vector<float> scales, int activation_max)
      : in_(in), out_(out), packed_(std::move(packed)), scales_(std::move(scales)), activation_max_(activation_max) {}
  // A q8 matrix of this shape whose int8 rows went to the GPU as they streamed in (streamed_checkpoint.h): released
  // from the start.
  static QuantizedMatrix on_gpu(int in, int out) {
    QuantizedMatrix m;
    m.in_ = in;
    m.out_ = out;
    m.released_ = true;
    return m;
  }
  // Not quantized (a default matrix). A released matrix (release()) stays non-empty: it was, and its GPU copy is.
  bool empty() const { return packed_.empty() && !released_; }
  // Frees the int8 panels and scales (their GPU copy serves the model from now on); shape and q8-ness stay.
  void release() {
    packed_ = {};
    scales_ = {};
    released_ = true;
  }
  bool released() const { return released_; }
  std::size_t bytes() const { return packed_.size() + scales_.size() * sizeof(float); }
  // y[rows, out] = x[rows, in] · Wᵀ (+ bias[out] when not null), W the quantized weight.
  void forward(int rows, const float* x, float* y, const float* bias) const;
  int in() const { return in_; }
  int out() const { return out_; }
  // The quantized weights as kernels::unpack_qs8_nk gives them: q [out·in], m [out·ceil(in / 32)],
  // and the per-row scales [out]: W[n][k] ≈ scales[n] · m[n][k / 32] · q[n][k].
  void unpack(std::vector<std::int8_t>& q, std::vector<std::uint8_t>& m) const;
  const std::vector<float>& scales() const { return scales_; }

 private:
  int in_ = 0, out_ = 0;
  std::vector<std::int8_t> packed_;
  std::vector<float> scales_;
  int activation_max_ = 1;  // pack_qs8_nk's range for the activations of this matrix
  bool released_ = false;
};

}  // namespace relpos::models
