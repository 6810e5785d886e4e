// QuantizedMatrix (linear_q8.h): pack once at load, per-row activation quantization + qs8 GEMM, over
// the thread pool in fixed pieces, so results are bitwise the same for any thread count (every output
// element is one exact int32 sum and one rescale, whichever piece computes it):
//   rows ≥ 2·kRowBlock in threaded builds: one region of row blocks of kRowBlock rows × all columns,
//     each block quantizing its own rows and multiplying them (one region per layer, no idle wait
//     between two);
//   otherwise: the rows quantized in one region, then gemm_qs8_parallel's 96×64 output tiles (the
//     columns give the parallelism a few tokens lack). Single-thread builds (parallel_for an inline
//     loop) always take this path: a row block re-expands the weights, which only pays off on threads.
//   Both paths give the same bits (tests/js/threads.test.mjs compares the threads build with SIMD).
// The quantized activations live in a grow-only buffer of the calling thread, grown before any
// parallel region (wasm memory must not grow on a Worker); the pieces write disjoint rows of it.
// Repeated forwards allocate nothing, and concurrent forwards on different threads do not share it.
#include "models/layers/linear_q8.h"

#include "kernels/gemm_qs8.h"
#include "models/layers/parallel_rows.h"

namespace relpos::models {
namespace {
// Rows per piece: 128 tokens make 4 blocks (2 threads: 2 each). A block re-expands every weight panel
// (kernels/gemm_qs8.cpp), ~4 % of its product at 32 rows.
constexpr std::size_t kRowBlock = 32;
#ifdef RELPOS_THREADS
constexpr bool kRowBlocks = true;
#else
constexpr bool kRowBlocks = false;
#endif
}  // namespace

QuantizedMatrix::QuantizedMatrix(int in, int out, const float* weight) : in_(in), out_(out) {
  packed_.resize(kernels::packed_qs8_bytes(in, out));
  scales_.resize(static_cast<std::size_t>(out));
  activation_max_ = kernels::pack_qs8_nk(in, out, weight, static_cast<std::size_t>(in), packed_.data(), scales_.data());
}

void QuantizedMatrix::unpack(std::vector<std::int8_t>& q, std::vector<std::uint8_t>& m) const {
  q.assign(static_cast<std::size_t>(in_) * out_, 0);
  m.assign(static_cast<std::size_t>((in_ + kernels::kQs8Group - 1) / kernels::kQs8Group) * out_, 1);
  kernels::unpack_qs8_nk(in_, out_, packed_.data(), q.data(), m.data());
}

void QuantizedMatrix::forward(int rows, const float* x, float* y, const float* bias) const {
  if (rows <= 0) return;
  thread_local std::vector<std::int16_t> xq;
  thread_local std::vector<float> xs;
  const std::size_t ldq = kernels::qs8_row_entries(in_);
  if (xq.size() < ldq * rows) xq.resize(ldq * rows);
  if (xs.size() < static_cast<std::size_t>(rows)) xs.resize(rows);
  std::int16_t* q = xq.data();
  float* s = xs.data();
  const std::size_t in = static_cast<std::size_t>(in_), out = static_cast<std::size_t>(out_);
  const auto quantize = [&](std::size_t r0, std::size_t r1) {
    kernels::quantize_rows_qs8(static_cast<int>(r1 - r0), in_, x + r0 * in, in, q + r0 * ldq, ldq, s + r0, activation_max_);
  };
  if (kRowBlocks && static_cast<std::size_t>(rows) >= 2 * kRowBlock) {
    for_each_span(static_cast<std::size_t>(rows), kRowBlock, [&](std::size_t r0, std::size_t r1) {
      quantize(r0, r1);
      kernels::gemm_qs8_packed(static_cast<int>(r1 - r0), out_, in_, q + r0 * ldq, ldq, s + r0, packed_.data(),
                               scales_.data(), bias, y + r0 * out, out);
    }, 2.0 * rows * in_ * out_);
    return;
  }
  for_each_span(static_cast<std::size_t>(rows), kRowBlock, quantize, 4.0 * rows * in_);
  gemm_qs8_parallel(rows, out_, in_, q, ldq, s, packed_.data(), scales_.data(), bias, y, out);
}

}  // namespace relpos::models
