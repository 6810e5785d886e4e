// QuantizedMatrix (linear_q8.h): pack once at load, per-row activation quantization + qs8 GEMM.
// The quantized activations live in a grow-only per-thread buffer, so repeated forwards allocate
// nothing and concurrent forwards on different threads do not share it.
#include "models/layers/linear_q8.h"

#include "kernels/gemm_qs8.h"

namespace relpos::models {

QuantizedMatrix::QuantizedMatrix(int in, int out, const float* weight) : in_(in), out_(out) {
  packed_.resize(kernels::packed_qs8_bytes(in, out));
  scales_.resize(static_cast<std::size_t>(out));
  kernels::pack_qs8_nk(in, out, weight, static_cast<std::size_t>(in), packed_.data(), scales_.data());
}

void QuantizedMatrix::forward(int rows, const float* x, float* y, const float* bias) const {
  if (rows <= 0) return;
  thread_local std::vector<std::int16_t> xq;
  thread_local std::vector<float> xs;
  const std::size_t ldq = kernels::qs8_row_entries(in_);
  if (xq.size() < ldq * rows) xq.resize(ldq * rows);
  if (xs.size() < static_cast<std::size_t>(rows)) xs.resize(rows);
  kernels::quantize_rows_qs8(rows, in_, x, static_cast<std::size_t>(in_), xq.data(), ldq, xs.data());
  kernels::gemm_qs8_packed(rows, out_, in_, xq.data(), ldq, xs.data(), packed_.data(), scales_.data(), bias, y,
                           static_cast<std::size_t>(out_));
}

}  // namespace relpos::models
