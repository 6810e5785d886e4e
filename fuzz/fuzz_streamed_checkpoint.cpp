// libFuzzer target: StreamedCheckpoint (models/layers/streamed_checkpoint.h) against SafeTensors::parse,
// differentially. Byte 0 picks the mode: bit 0 = file size known / unknown (HTTP without a length),
// bit 1 = q8 / fp32, bits 2–7 (v) seed the chunk sizes (1 byte … 64 KiB) the rest of the input is fed in, pick the
// family whose naming rule applies (v % 6; streamed_names.h: "", deberta-v2, mpnet, modernbert, nomic_bert, bert)
// and the weight sink (v / 6 % 4): none, a rows sink, or a sink that takes float32 bytes — or F16 / BF16 ones too, widened
// as the GPU's sink widens them, and a q8 load's int8 rows (compared with the heap path's QuantizedMatrix and q8
// table) — fed as web/weights.js feeds it —
// direct bytes (direct_bytes / take_direct) from the input itself, the rest through write() up to
// bytes_before_direct. With a sink, the tensors it received must equal to_f32's floats bit for bit, arriving in order.
//
// Contract checked: only relpos::Error escapes; the stream rejects exactly the files parse() rejects
// (with the same message when the size is known); for an accepted file every tensor has parse()'s
// dtype, shape and byte size, float tensors read back bitwise equal to SafeTensors::to_f32, integer
// tensors to to_i64, and the prepared forms (linear-layer panels or QuantizedMatrix, embedding rows)
// equal what the whole-file load builds from parse()'s floats: the same packed floats, and for q8 the
// same unpacked int8 weights, group multipliers, scales and the same outputs on a probe row (which
// also compares the activation range). q8 is only used when every float is finite (pack_qs8_nk's
// contract); non-finite inputs run as fp32.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "io/dtype_convert.h"
#include "kernels/gemm_f32.h"
#include "models/layers/embedding_table.h"
#include "models/layers/linear_q8.h"
#include "models/layers/streamed_checkpoint.h"
#include "relpos/error.h"
#include "relpos/safetensors.h"

namespace {

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz_streamed_checkpoint: %s\n", what.c_str());
  std::abort();
}

bool same_floats(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

const char* const kTypes[] = {"", "deberta-v2", "mpnet", "modernbert", "nomic_bert", "bert"};

// Records a sink's tensors as float32 bytes, checking that rows and bytes arrive in order and in bounds. takes: 0 rows
// only, 1 float32 bytes too, 2 F16 / BF16 bytes as well (widened here, as web/webgpu/weight-sink.js does on the GPU).
struct Sink final : relpos::models::WeightSink {
  explicit Sink(int bytes) : takes(bytes) {}
  struct Layer {
    std::size_t cols = 0, received = 0;  // bytes (of the arrival's dtype)
    std::vector<std::uint8_t> data;       // float32
    std::optional<relpos::DType> arrival;
  };
  std::vector<Layer> layers;
  int takes;
  int begin(const std::string&, int rows, int cols, std::optional<relpos::DType> bytes) override {
    if (rows < 0 || cols < 0) finding("sink: negative shape");
    if (bytes && !takes_bytes(*bytes)) finding("sink: bytes of a dtype it does not take");
    layers.push_back({static_cast<std::size_t>(cols), 0, std::vector<std::uint8_t>(4 * static_cast<std::size_t>(rows) * cols), bytes});
    return static_cast<int>(layers.size()) - 1;
  }
  void rows(int id, int first, int count, int cols, const float* values) override {
    Layer& l = layers.at(static_cast<std::size_t>(id));
    const std::size_t at = 4 * static_cast<std::size_t>(first) * l.cols, n = 4 * static_cast<std::size_t>(count) * l.cols;
    if (l.arrival || static_cast<std::size_t>(cols) != l.cols || at != l.received || at + n > l.data.size()) finding("sink: rows out of order");
    if (n) std::memcpy(l.data.data() + at, values, n);
    l.received += n;
  }
  bool takes_bytes(relpos::DType d) const override {
    return d == relpos::DType::F32 ? takes >= 1 : (d == relpos::DType::F16 || d == relpos::DType::BF16) && takes >= 2;
  }
  void bytes(int id, std::size_t offset, const std::uint8_t* p, std::size_t n) override {
    Layer& l = layers.at(static_cast<std::size_t>(id));
    const std::size_t size = l.arrival ? relpos::io::dtype_size(*l.arrival) : 0;
    if (!size || offset != l.received || offset % 4 || n % 4 || (offset + n) / size * 4 > l.data.size()) finding("sink: bytes out of order");
    for (std::size_t i = 0; i < n; i += size) {
      const float v = relpos::io::load_float(*l.arrival, p + i);
      std::memcpy(l.data.data() + (offset + i) / size * 4, &v, 4);
    }
    l.received += n;
  }
  std::size_t floats_received(const Layer& l) const { return l.arrival ? l.received / relpos::io::dtype_size(*l.arrival) * 4 : l.received; }
  // q8 loads (takes 2): int8 rows, their multipliers (none for a table) and scales, in order
  struct Q8Layer {
    std::size_t rows = 0, cols = 0, received = 0;
    bool table = false;
    std::vector<std::int8_t> q;
    std::vector<std::uint8_t> mult;
    std::vector<float> scales;
  };
  std::vector<Q8Layer> q8_layers;
  bool takes_q8() const override { return takes >= 2; }
  int begin_q8(const std::string&, int rows, int cols) override {
    if (rows < 0 || cols < 0 || takes < 2) finding("sink: begin_q8 out of turn");
    q8_layers.push_back({static_cast<std::size_t>(rows), static_cast<std::size_t>(cols), 0, false, {}, {}, {}});
    return 1000000 + static_cast<int>(q8_layers.size()) - 1;
  }
  void q8_rows(int id, int first, int count, int cols, const std::int8_t* q, const std::uint8_t* mult, const float* scales) override {
    Q8Layer& l = q8_layers.at(static_cast<std::size_t>(id - 1000000));
    const std::size_t n = static_cast<std::size_t>(count), G = (l.cols + 31) / 32;
    if (static_cast<std::size_t>(cols) != l.cols || static_cast<std::size_t>(first) != l.received || l.received + n > l.rows)
      finding("sink: q8 rows out of order");
    l.table = mult == nullptr;
    l.q.insert(l.q.end(), q, q + n * l.cols);
    if (mult) l.mult.insert(l.mult.end(), mult, mult + n * G);
    l.scales.insert(l.scales.end(), scales, scales + n);
    l.received += n;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::uint8_t mode = data[0];
  const std::vector<std::uint8_t> file(data + 1, data + size);

  std::optional<relpos::SafeTensors> reference;
  std::string reference_error;
  try {
    reference.emplace(relpos::SafeTensors::parse(file, "model.safetensors"));
  } catch (const relpos::Error& e) {
    reference_error = e.what();
  }
  bool finite = true;
  if (reference)
    for (const auto& name : reference->names()) {
      const relpos::TensorInfo& t = reference->info(name);
      if (t.dtype == relpos::DType::I64 || t.dtype == relpos::DType::I32) continue;
      for (float v : reference->to_f32(name))
        if (!std::isfinite(v)) finite = false;
    }
  relpos::LoadOptions options;
  options.dtype = (mode & 2) && finite ? relpos::WeightFormat::Q8 : relpos::WeightFormat::F32;
  const bool known = (mode & 1) != 0;

  const int v = mode >> 2, families = sizeof kTypes / sizeof kTypes[0], sink_mode = v / families % 4;
  const std::string type = kTypes[v % families];
  relpos::models::StreamedCheckpoint stream(options, type);
  Sink sink(sink_mode < 2 ? 0 : sink_mode - 1);
  if (sink_mode > 0) stream.set_weight_sink(&sink);
  std::string stream_error;
  try {
    stream.begin_file("model.safetensors", known ? static_cast<double>(file.size()) : -1.0);
    std::uint32_t s = 0x9E3779B9u ^ (mode >> 2);
    for (std::size_t at = 0; at < file.size();) {
      s ^= s << 13;
      s ^= s >> 17;
      s ^= s << 5;
      const std::size_t end = at + std::min<std::size_t>(file.size() - at, 1 + (s % (s & 1 ? 7 : 65536)));
      while (at < end) {  // web/weights.js streamSafetensors
        const std::size_t direct = std::min(stream.direct_bytes(), end - at) & ~std::size_t{3};
        if (direct > 0) {
          const auto target = stream.take_direct(direct);
          sink.bytes(target.id, target.offset, file.data() + at, direct);
          at += direct;
          continue;
        }
        const std::size_t before = stream.bytes_before_direct();
        if (sink_mode < 2 && before != static_cast<std::size_t>(-1)) finding("direct bytes without a sink that takes bytes");
        const std::size_t n = std::min(end - at, before > 0 ? before : end - at);
        stream.write(file.data() + at, n);
        at += n;
      }
    }
    stream.end_file();
    stream.finish();
  } catch (const relpos::Error& e) {
    stream_error = e.what();
  }
  if (!reference) {
    if (stream_error.empty()) finding("the stream accepted a file parse() rejects: " + reference_error);
    if (known && stream_error != reference_error && stream_error.find("header length") == std::string::npos)
      finding("messages differ: parse '" + reference_error + "', stream '" + stream_error + "'");
    return 0;
  }
  if (!stream_error.empty()) finding("the stream rejected a file parse() accepts: " + stream_error);
  if (stream.names().size() != reference->names().size()) finding("tensor counts differ");
  for (const auto& name : reference->names()) {
    const relpos::TensorInfo& a = reference->info(name);
    const relpos::TensorInfo& b = stream.info(name);
    if (a.dtype != b.dtype || a.shape != b.shape || a.nbytes != b.nbytes) finding("tensor '" + name + "': info differs");
    if (a.dtype == relpos::DType::I64 || a.dtype == relpos::DType::I32) {
      if (reference->to_i64(name) != stream.to_i64(name)) finding("tensor '" + name + "': to_i64 differs");
      continue;
    }
    const std::vector<float> w = reference->to_f32(name);
    const bool two_d = a.shape.size() == 2;
    const relpos::models::StreamForm form = two_d ? relpos::models::stream_form(type, name) : relpos::models::StreamForm::Float;
    const bool table = form == relpos::models::StreamForm::Table;
    const bool linear = form == relpos::models::StreamForm::Linear;
    if (!table && !linear) {
      if (!same_floats(w, stream.to_f32(name))) finding("tensor '" + name + "': to_f32 differs");
      continue;
    }
    const int rows = static_cast<int>(a.shape[0]), cols = static_cast<int>(a.shape[1]);
    const auto sunk_q8 = [&](int id, bool is_table) {  // a q8 tensor the sink received: as the heap path quantizes it
      if (id < 1000000 || static_cast<std::size_t>(id - 1000000) >= sink.q8_layers.size()) finding("tensor '" + name + "': a q8 sink id out of range");
      const Sink::Q8Layer& l = sink.q8_layers[static_cast<std::size_t>(id - 1000000)];
      if (l.received != static_cast<std::size_t>(rows) || (rows > 0 && l.table != is_table)) finding("tensor '" + name + "': the sink's q8 rows are not whole");
      std::vector<std::int8_t> q(w.size());
      std::vector<std::uint8_t> mult;
      std::vector<float> scales(static_cast<std::size_t>(rows));
      if (is_table) {
        relpos::models::EmbeddingTable::quantize_rows(rows, cols, w.data(), q.data(), scales.data());
      } else {
        const relpos::models::QuantizedMatrix whole(cols, rows, w.data());
        whole.unpack(q, mult);
        scales = whole.scales();
      }
      if (q != l.q || mult != l.mult || !same_floats(scales, l.scales)) finding("tensor '" + name + "': the sink's q8 rows differ");
    };
    const auto sunk = [&](int id) {  // a tensor the sink received: its floats, whole
      if (sink_mode == 0 || id < 0 || static_cast<std::size_t>(id) >= sink.layers.size()) finding("tensor '" + name + "': a sink id without a sink");
      const Sink::Layer& l = sink.layers[static_cast<std::size_t>(id)];
      if (sink.floats_received(l) != l.data.size() || l.data.size() != 4 * w.size() || (!w.empty() && std::memcmp(l.data.data(), w.data(), l.data.size()) != 0))
        finding("tensor '" + name + "': the sink's floats differ");
    };
    if (table) {
      std::optional<relpos::models::PreparedTable> p = stream.take_table(name);
      if (!p) finding("tensor '" + name + "': no prepared table");
      if (p->gpu >= 0 && options.dtype == relpos::WeightFormat::Q8) {
        sunk_q8(p->gpu, true);
        continue;
      }
      if (p->gpu >= 0) {
        sunk(p->gpu);
        continue;
      }
      if (options.dtype == relpos::WeightFormat::F32) {
        if (!same_floats(w, p->f32)) finding("tensor '" + name + "': table rows differ");
        continue;
      }
      std::vector<std::int8_t> q(w.size());
      std::vector<float> scales(static_cast<std::size_t>(rows));
      relpos::models::EmbeddingTable::quantize_rows(rows, cols, w.data(), q.data(), scales.data());
      if (q != p->q8 || !same_floats(scales, p->scales)) finding("tensor '" + name + "': q8 table differs");
      continue;
    }
    std::optional<relpos::models::PreparedLinear> p = stream.take_linear(name);
    if (!p) finding("tensor '" + name + "': no prepared linear layer");
    if (p->gpu >= 0 && options.dtype == relpos::WeightFormat::Q8) {
      sunk_q8(p->gpu, false);
      continue;
    }
    if (p->gpu >= 0) {
      sunk(p->gpu);
      continue;
    }
    if (options.dtype == relpos::WeightFormat::F32) {
      std::vector<float> packed(relpos::kernels::packed_b_floats(cols, rows));
      relpos::kernels::pack_b_nk(cols, rows, w.data(), static_cast<std::size_t>(cols), packed.data());
      if (!same_floats(packed, p->packed)) finding("tensor '" + name + "': packed panels differ");
      continue;
    }
    const relpos::models::QuantizedMatrix whole(cols, rows, w.data());
    std::vector<std::int8_t> q1, q2;
    std::vector<std::uint8_t> m1, m2;
    whole.unpack(q1, m1);
    p->q8.unpack(q2, m2);
    if (q1 != q2 || m1 != m2 || !same_floats(whole.scales(), p->q8.scales())) finding("tensor '" + name + "': q8 weights differ");
    std::vector<float> x(static_cast<std::size_t>(cols)), y1(static_cast<std::size_t>(rows)), y2(y1.size());
    for (int k = 0; k < cols; ++k) x[k] = static_cast<float>((k * 37) % 19) - 9.0f;
    whole.forward(1, x.data(), y1.data(), nullptr);
    p->q8.forward(1, x.data(), y2.data(), nullptr);
    if (!same_floats(y1, y2)) finding("tensor '" + name + "': q8 outputs differ (activation range)");
  }
  return 0;
}
