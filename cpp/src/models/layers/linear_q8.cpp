// QuantizedMatrix (linear_q8.h): pack once at load, per-row activation quantization + qs8 GEMM, over
// the thread pool, with results bitwise the same for any thread count and any split (every output
// element is one exact int32 sum and one rescale, whichever piece computes it — so unlike the fp32
// products' tiles, these pieces may follow the thread count):
//   rows ≥ 2·kRowBlock in threaded builds: one region of pieces of kRowBlock rows, each quantizing its own
//     rows into its thread's scratch and multiplying them (one region per layer, no idle wait between two) —
//     by all columns, or, where the row blocks alone would leave threads idle or one thread an extra block,
//     by a block of whole 64-column tiles (column_tiles_per_piece: 128 tokens
//     on 2 threads stay 4 row blocks; on 16 threads they are 4 × 4 to 4 × 8 pieces, where 12 threads idled;
//     96 tokens on 2 threads 3 × 2, where one thread did two of 3 blocks);
//   otherwise: the rows quantized in one region, then gemm_qs8_parallel's 96×64 output tiles (the
//     columns give the parallelism a few tokens lack). Single-thread builds (parallel_for an inline
//     loop) always take this path: a row block re-expands the weights, which only pays off on threads.
//   Every path gives the same bits (tests/cpp/results_do_not_depend_on_thread_count_test.cpp, 1–16 threads;
//   tests/js/threads.test.mjs compares the threads build with SIMD).
// The quantized activations live in grow-only buffers of the calling thread, grown before any parallel
// region (wasm memory must not grow on a Worker); pieces write disjoint rows of them, or their thread's rows.
// Repeated forwards allocate nothing, and concurrent forwards on different threads do not share them.
#include "models/layers/linear_q8.h"

#include <algorithm>

#include "kernels/gemm_qs8.h"
#include "models/layers/parallel_rows.h"
#include "relpos/threads.h"

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
// Column blocks are whole 64-column tiles (packed panels start there: parallel_rows.cpp).
constexpr std::size_t kColTile = 64;
// Quantizing one element of a row costs about as much as this many of its multiply-adds in the
// product (bench/src/q8_linear_pieces.cpp, SIMD128 and native).
constexpr double kQuantizeCost = 16;

// How many 64-column tiles a piece of a row block spans: the split of each row block into c column
// blocks whose rounds of pieces over the threads finish first, a piece costing its share of the
// row block's product plus a whole quantization of its rows; the fewest blocks among equals.
std::size_t column_tiles_per_piece(std::size_t row_blocks, std::size_t col_tiles, std::size_t threads, std::size_t out) {
  const double quantize = kQuantizeCost / static_cast<double>(out);  // per row block, in products of all columns
  std::size_t best = col_tiles;
  double best_cost = 0;
  for (std::size_t c = 1; c <= col_tiles; ++c) {
    const std::size_t tiles = (col_tiles + c - 1) / c;
    const std::size_t pieces = row_blocks * ((col_tiles + tiles - 1) / tiles);
    const double rounds = static_cast<double>((pieces + threads - 1) / threads);
    const double cost = rounds * (static_cast<double>(tiles) / static_cast<double>(col_tiles) + quantize);
    if (c == 1 || cost < best_cost) best = tiles, best_cost = cost;
  }
  return best;
}
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
  const std::size_t in = static_cast<std::size_t>(in_), out = static_cast<std::size_t>(out_);
  if (kRowBlocks && static_cast<std::size_t>(rows) >= 2 * kRowBlock) {
    // Pieces of a row block × a column block; each thread quantizes a piece's rows into its own kRowBlock rows of
    // scratch, unless it holds that row block already (held[thread]).
    const std::size_t threads = static_cast<std::size_t>(relpos::num_threads());
    const std::size_t row_blocks = (rows + kRowBlock - 1) / kRowBlock;
    const std::size_t col_tiles = (out + kColTile - 1) / kColTile;
    const std::size_t block_cols = column_tiles_per_piece(row_blocks, col_tiles, threads, out) * kColTile;
    const std::size_t col_blocks = (out + block_cols - 1) / block_cols;
    thread_local std::vector<std::size_t> held;
    if (xq.size() < ldq * threads * kRowBlock) xq.resize(ldq * threads * kRowBlock);
    if (xs.size() < threads * kRowBlock) xs.resize(threads * kRowBlock);
    held.assign(threads, row_blocks);
    std::int16_t* const tq = xq.data();
    float* const ts = xs.data();
    std::size_t* const holds = held.data();
    parallel::parallel_for(0, static_cast<parallel::Index>(row_blocks * col_blocks), 1,
                           [&](parallel::Index p0, parallel::Index p1, int thread) {
      std::int16_t* const pq = tq + ldq * kRowBlock * thread;
      float* const ps = ts + kRowBlock * thread;
      for (parallel::Index p = p0; p < p1; ++p) {
        const std::size_t rb = static_cast<std::size_t>(p) / col_blocks, c0 = (static_cast<std::size_t>(p) % col_blocks) * block_cols;
        const std::size_t r0 = rb * kRowBlock, r1 = std::min<std::size_t>(rows, r0 + kRowBlock);
        if (holds[thread] != rb) {
          kernels::quantize_rows_qs8(static_cast<int>(r1 - r0), in_, x + r0 * in, in, pq, ldq, ps, activation_max_);
          holds[thread] = rb;
        }
        kernels::gemm_qs8_packed(static_cast<int>(r1 - r0), static_cast<int>(std::min(block_cols, out - c0)), in_, pq, ldq,
                                 ps, packed_.data() + kernels::packed_qs8_bytes(in_, static_cast<int>(c0)),
                                 scales_.data() + c0, bias ? bias + c0 : nullptr, y + r0 * out + c0, out);
      }
    }, 2.0 * rows * in_ * out_);
    return;
  }
  // Every row quantized into its own slot, then the tiles.
  if (xq.size() < ldq * rows) xq.resize(ldq * rows);
  if (xs.size() < static_cast<std::size_t>(rows)) xs.resize(rows);
  std::int16_t* const q = xq.data();
  float* const s = xs.data();
  for_each_span(static_cast<std::size_t>(rows), kRowBlock, [&](std::size_t r0, std::size_t r1) {
    kernels::quantize_rows_qs8(static_cast<int>(r1 - r0), in_, x + r0 * in, in, q + r0 * ldq, ldq, s + r0, activation_max_);
  }, 4.0 * rows * in_);
  gemm_qs8_parallel(rows, out_, in_, q, ldq, s, packed_.data(), scales_.data(), bias, y, out);
}

}  // namespace relpos::models
