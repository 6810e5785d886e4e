// Safetensors checkpoints converted while they stream in (issue #34): the bytes of each file arrive
// in chunks of any size, and every tensor — a block of whole rows at a time — is turned straight into
// the form the model keeps; the file's bytes are never held. Peak memory: the converted weights plus
// one block (≤ ~1 MiB of file bytes and its float32 rows), instead of the whole file + the weights.
//
//   StreamedCheckpoint s(options, model_type);           // only for streams_family(model_type) (streamed_names.h)
//   s.set_memory_available(bytes);                       // optional: the "cannot fit" check per file
//   s.begin_file("model.safetensors", size);             // size: file bytes, or -1 when unknown
//   s.write(bytes, n); …                                 // the whole file, in order
//   s.end_file();                                        // (a sharded set: once per shard, + set_index)
//   auto model = load_model(config, s, options);         // the same options
//
// The form of each tensor follows the family's naming rule (streamed_names.h: the decoders' `*_proj` Linears and
// `embed_tokens` table, the BERT description's six Linears per layer and word/position tables as BERT, the RoBERTa
// family and ELECTRA load them, DeBERTa-v2/v3's and MPNet's):
//   linear  2-D [out, in]: fp32 → pack_b_nk panels, q8 → the
//           QuantizedMatrix (pack_qs8_nk is per output row and panel-major, so 64-row blocks give the
//           bits of the whole matrix); Linear::load takes it (take_linear). With a WeightSink (fp32):
//           each block's float32 rows go to the sink and nothing is kept (an F32 tensor — or F16 / BF16 — to a sink that
//           takes_bytes of its dtype, goes as the file's bytes, any split — or, direct, not through write() at all) (DeBERTa projects its relative
//           embeddings through its query/key projections on the GPU then: deberta_v2.cpp). q8, to a sink that
//           takes_q8: each block quantized by quantize_qs8_rows goes there as int8 rows (not DeBERTa-v2's:
//           q8_linears_stream_to_sink), and take_linear gives a released, shape-only QuantizedMatrix.
//   table   [rows, dim]: fp32 rows, q8 int8 rows + one scale per row
//           (EmbeddingTable::quantize_rows); EmbeddingTable::load takes it (take_table). With a WeightSink
//           (fp32, fp16; q8 as int8 rows) its rows go to the sink as a linear layer's do and nothing is kept — but in a family that
//           changes its table at load (tables_stream_to_sink: EmbeddingGemma folds sqrt(hidden) into it), which
//           stays here. XLM-R's 250,002 × 768 table is 768 MB of float32: the heap never holds it on a WebGPU load.
//   float   every other F32/F16/BF16 tensor, as float32 (to_f32 returns a copy)
//   raw     I64/I32 tensors as their bytes (to_i64)
// Reading a linear or table tensor any other way (to_f32) is an Error: the family broke the rule.
// GGUF (a file name ending in .gguf, one file, io/gguf.h): the bytes are held only until the header has
// arrived; it is mapped onto the family's names and config (io/gguf_model.h: gguf_config()), and each tensor is
// decoded (io/gguf_blocks.h) a block of GGUF rows at a time into the same forms — Q8_0 and the other block
// types go through float32 one block (≤ ~1 MiB of file bytes) at a time, then pack_b_nk / pack_qs8_nk.
// Errors (relpos::Error, naming the file): everything SafeTensors::parse reports, with the same
// messages; a tensor in two shards; and, before a file's tensors are converted, RangeError when they
// need more than set_memory_available allows ("needs N bytes … dtype 'q8' needs about M").
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/gguf.h"
#include "models/layers/linear_q8.h"
#include "models/layers/streamed_names.h"
#include "relpos/model.h"
#include "relpos/weights.h"

namespace relpos::models {

struct PreparedLinear {
  std::vector<float> packed;  // fp32: pack_b_nk panels
  QuantizedMatrix q8;         // q8 (a released one, shape only, when its int8 rows went to a WeightSink)
  int gpu = -1;               // ≥ 0: its rows went to a WeightSink, which named them this id (nothing held here)
};

// Where a linear layer's or an embedding table's float32 rows go as they are decoded, instead of the heap (device
// 'webgpu', fp32 and fp16 loads: web/webgpu/weight-sink.js writes them into a GPU buffer): begin() names the
// [rows, cols] matrix (a Linear's W, out × in as the checkpoint holds it, or a table's [rows, dim]), rows() hands over
// rows [first, first + count), count · cols floats — valid during the call.
// A sink that takes_bytes(dtype) receives a checkpoint tensor of that dtype (F32; F16 and BF16 too where the sink
// widens them itself, as the GPU's does) as the file holds it instead of rows(): begin()'s `bytes` names the dtype
// (nullopt: rows), then bytes(id, offset, p, n) hands over n bytes (little-endian) at byte `offset` of the matrix, both
// multiples of 4, in order — any split, not whole rows; the stream converts nothing for it (see direct_bytes below).
// A 2-byte tensor of an odd number of elements still arrives as rows.
class WeightSink {
 public:
  virtual ~WeightSink() = default;
  virtual int begin(const std::string& name, int rows, int cols, std::optional<DType> bytes) = 0;
  virtual void rows(int id, int first, int count, int cols, const float* values) = 0;
  virtual bool takes_bytes(DType /*source*/) const { return false; }
  virtual void bytes(int /*id*/, std::size_t /*offset*/, const std::uint8_t* /*p*/, std::size_t /*n*/) {}
  bool takes_any_bytes() const { return takes_bytes(DType::F32) || takes_bytes(DType::F16) || takes_bytes(DType::BF16); }
  // q8 loads, to a sink that takes_q8(): each layer as int8 rows — begin_q8() names the [rows, cols] matrix, q8_rows()
  // hands over rows [first, first + count): q [count · cols] in [−127, 127], their group multipliers mult [count · G]
  // (G = ceil(cols / 32), 1–16; null for a table: its rows have one scale each) and scales [count], as
  // kernels::quantize_qs8_rows (a Linear) or EmbeddingTable::quantize_rows (a table) make them — the values the heap
  // path's QuantizedMatrix and q8 table hold, bit for bit. Valid during the call.
  virtual bool takes_q8() const { return false; }
  virtual int begin_q8(const std::string& /*name*/, int /*rows*/, int /*cols*/) { return -1; }
  virtual void q8_rows(int /*id*/, int /*first*/, int /*count*/, int /*cols*/, const std::int8_t* /*q*/,
                       const std::uint8_t* /*mult*/, const float* /*scales*/) {}
};
struct PreparedTable {
  int gpu = -1;            // ≥ 0: its rows went to a WeightSink, which named them this id (nothing held here)
  bool q8_gpu = false;     // … as int8 rows (a q8 load)
  std::vector<float> f32;  // fp32 [rows · dim]
  std::vector<std::int8_t> q8;
  std::vector<float> scales;
};

class StreamedCheckpoint final : public Weights {
 public:
  // model_type: the family whose naming rule applies (streamed_names.h); "" = the decoders' and BERT's (GGUF files).
  explicit StreamedCheckpoint(const LoadOptions& options, std::string model_type = "");
  ~StreamedCheckpoint() override;

  // The bytes a file's converted tensors may take (default: no limit); `note` ends the RangeError's
  // message (e.g. " (limit 4294967296 bytes, 20971520 in use)").
  void set_memory_available(std::size_t bytes, std::string note = "") {
    available_ = bytes;
    memory_note_ = std::move(note);
  }
  void begin_file(const std::string& name, double size);
  void write(const std::uint8_t* bytes, std::size_t n);
  void end_file();
  // A sharded set's index (model.safetensors.index.json text): checked by finish() against the shards.
  void set_index(const std::string& name, const std::string& text);
  // After the last file: every shard the index names was given, every weight_map tensor is in its shard.
  void finish();

  // Progress of the current file: bytes of it consumed, and its size (0 while unknown).
  std::size_t file_loaded() const { return pos_; }
  std::size_t file_total() const { return file_size_ == kUnknown ? 0 : file_size_; }
  // Bytes the converted tensors of all files hold so far.
  std::size_t converted_bytes() const { return converted_bytes_; }
  const LoadOptions& options() const { return options_; }

  bool contains(const std::string& name) const override;
  const TensorInfo& info(const std::string& name) const override;
  std::vector<std::string> names() const override;
  std::vector<float> to_f32(const std::string& name) const override;
  std::vector<std::int64_t> to_i64(const std::string& name) const override;
  const std::string& file_name() const override { return name_; }

  // A GGUF file (a name ending in .gguf; io/gguf_model.h): once its header has arrived, the header and the
  // family's config.json it maps to; null / "" before, and for safetensors.
  const io::GgufHeader* gguf_header() const { return gguf_header_.get(); }
  const std::string& gguf_config() const { return gguf_config_; }

  // From now on, linear tensors and embedding tables go to `sink` block by block (set before the first file; q8 loads
  // only to a sink that takes_q8, as int8 rows): the heap never holds them, the peak is one block.
  void set_weight_sink(WeightSink* sink) { sink_ = sink; }

  // Direct bytes (a sink that takes_bytes; safetensors tensors of the dtypes it takes, bound for it): the caller may hand such bytes
  // to the sink itself, from its own buffer, instead of write() — the file's bytes then never enter this memory
  // (web/weights.js does, from the chunk it read). At the current position of the file:
  //   direct_bytes()         bytes that may go that way now (0: none; else a multiple of 4, up to the tensor's end)
  //   take_direct(n)         counts n of them (a multiple of 4, ≤ direct_bytes()) as received: → { sink id, byte
  //                          offset in its matrix } — the caller then gives the sink those n bytes at that offset
  //   bytes_before_direct()  bytes to write() before the next direct byte may come: the rest of the header first,
  //                          then up to the next such tensor (SIZE_MAX: none follows in this file, or none ever will)
  struct DirectTarget {
    int id;
    std::size_t offset;
  };
  std::size_t direct_bytes() const;
  DirectTarget take_direct(std::size_t n);
  std::size_t bytes_before_direct() const;

  // The prepared forms (moved out: each can be taken once); nullopt when `name` is not one.
  std::optional<PreparedLinear> take_linear(const std::string& name) const;
  std::optional<PreparedTable> take_table(const std::string& name) const;

  struct Entry;  // one tensor and its converted form (streamed_checkpoint.cpp)

 private:
  static constexpr std::size_t kUnknown = static_cast<std::size_t>(-1);
  void parse_header();
  bool parse_gguf_header();
  void add_entries(std::vector<std::unique_ptr<Entry>> fresh);
  void consume(const std::uint8_t* p, std::size_t n);
  void allocate(Entry& e);
  void convert_block(Entry& e, const std::uint8_t* bytes, std::size_t rows);
  void consume_bytes(Entry& e, const std::uint8_t* p, std::size_t n);
  void deliver(Entry& e, const std::uint8_t* p, std::size_t n);
  void count_bytes(Entry& e, std::size_t n);
  bool sends_to_sink(const Entry& e) const;
  bool sends_bytes(const Entry& e) const;
  std::optional<DType> bytes_dtype(const Entry& e) const;
  int begin_sink(const Entry& e);
  void send_q8_rows(const Entry& e, int first, int count);
  const Entry* current() const;
  const Entry& entry(const std::string& name) const;

  LoadOptions options_;
  std::string model_type_;
  WeightSink* sink_ = nullptr;
  std::string name_ = "model.safetensors";  // the current file, then the set (file_name())
  bool gguf_ = false;                       // the current file is GGUF
  std::unique_ptr<io::GgufHeader> gguf_header_;
  std::string gguf_config_;
  std::size_t available_ = static_cast<std::size_t>(-1);
  std::string memory_note_;
  // the current file
  std::size_t file_size_ = kUnknown, pos_ = 0, data_start_ = 0;
  std::vector<std::uint8_t> head_;     // its first 8 + header bytes until parsed
  std::vector<Entry*> order_;          // its tensors by offset
  std::size_t next_ = 0;               // order_[next_]: the tensor being received
  std::vector<std::uint8_t> pending_;  // bytes of a block (or of a 4-byte word, sends_bytes) that arrived split across writes
  std::vector<float> rows_;            // a block as float32
  std::vector<std::int8_t> q8_rows_;   // … as int8 rows (q8, to a sink), with
  std::vector<std::uint8_t> mult_rows_;  // their group multipliers and
  std::vector<float> scale_rows_;        // scales
  // all files
  std::map<std::string, std::unique_ptr<Entry>> entries_;
  std::vector<std::string> names_;  // in file and offset order
  std::vector<std::string> files_;
  std::string index_name_, index_text_;
  std::size_t converted_bytes_ = 0;
};

// The StreamedCheckpoint a load reads from (through its LoadContext), or null.
const StreamedCheckpoint* streamed_of(const Weights& weights);

}  // namespace relpos::models
