// StreamedCheckpoint (streamed_checkpoint.h): a safetensors file converted block by block as it arrives.
#include "models/layers/streamed_checkpoint.h"

#include <algorithm>
#include <limits>

#include "io/dtype_convert.h"
#include "io/gguf.h"
#include "io/gguf_blocks.h"
#include "io/gguf_model.h"
#include "io/json_text.h"
#include "io/name_match.h"
#include "io/safetensors_header.h"
#include "io/tensor_bytes.h"
#include "kernels/gemm_f32.h"
#include "kernels/gemm_qs8.h"
#include "models/layers/embedding_table.h"
#include "models/layers/load_context.h"
#include "relpos/config.h"
#include "relpos/error.h"

namespace relpos::models {
namespace {

constexpr std::size_t kBlockBytes = std::size_t{1} << 20;  // file bytes converted at once (about)
constexpr std::size_t kLinearRows = 64;                    // a multiple of every build's GEMM panel width
constexpr std::size_t kMaxHeader = 100u << 20;             // the safetensors format's header limit

using io::ends_with;

// A block of e's rows → float32: GGUF block types through the ggml decoders, else as SafeTensors::to_f32.
void decode_rows(const StreamedCheckpoint::Entry& e, const std::uint8_t* p, std::size_t n, float* out);

}  // namespace

struct StreamedCheckpoint::Entry {
  enum Form { Float, Linear, Table, Raw };
  TensorInfo info;  // offset: within its file
  std::string file;
  int ggml = -1;           // a GGUF tensor: its ggml type (io::GgmlType), decoded by io::decode_ggml_blocks
  bool minus_one = false;  // a GGUF gemma norm gain stored as 1 + w (io/gguf_model.h)
  Form form = Float;
  std::size_t rows = 0, cols = 0, row_bytes = 0, block_rows = 0, done_rows = 0;
  std::size_t done_bytes = 0;  // sends_bytes: bytes handed to the sink (done_rows: the whole rows among them)
  bool allocated = false, taken = false;
  int gpu = -1;                   // Linear or Table sent to a WeightSink: its id
  std::vector<float> f32;         // Float, Table (fp32), Linear (fp32: packed panels)
  std::vector<std::int8_t> q8;    // Table, Linear (q8)
  std::vector<float> scales;      // q8 forms
  int activation_max = 32767;     // Linear q8: pack_qs8_nk's range, the minimum over the blocks
  std::vector<std::uint8_t> raw;  // Raw

  bool done() const { return info.nbytes == 0 || done_rows == rows; }
  // Its converted form is held here: not a Linear or Table whose rows all went to a sink.
  bool held() const { return gpu < 0; }
  // Bytes the converted form holds.
  std::size_t bytes(WeightFormat dtype) const {
    const std::size_t n = rows * cols;
    switch (form) {
      case Raw: return info.nbytes;
      case Float: return 4 * n;
      case Table: return dtype == WeightFormat::Q8 ? n + 4 * rows : 4 * n;
      case Linear:
        return dtype == WeightFormat::Q8 ? kernels::packed_qs8_bytes(static_cast<int>(cols), static_cast<int>(rows)) + 4 * rows
                                         : 4 * kernels::packed_b_floats(static_cast<int>(cols), static_cast<int>(rows));
    }
    return 0;
  }
};

namespace {
void decode_rows(const StreamedCheckpoint::Entry& e, const std::uint8_t* p, std::size_t n, float* out) {
  if (e.ggml < 0) return io::decode_floats(e.info.dtype, p, n, out);  // as SafeTensors::to_f32 converts them
  io::decode_ggml_blocks(static_cast<io::GgmlType>(e.ggml), p, n, out);
  if (e.minus_one)
    for (std::size_t i = 0; i < n; ++i) out[i] -= 1.0f;  // exact for the gains a norm holds
}
}  // namespace

StreamedCheckpoint::StreamedCheckpoint(const LoadOptions& options, std::string model_type)
    : options_(options), model_type_(std::move(model_type)) {
  // Row blocks start on a panel boundary of both packed layouts (64 = a whole number of panels).
  if (kernels::packed_b_floats(1, kLinearRows) != kLinearRows)
    fail_value("StreamedCheckpoint: the GEMM panel width does not divide 64 rows");
}

StreamedCheckpoint::~StreamedCheckpoint() = default;

void StreamedCheckpoint::begin_file(const std::string& name, double size) {
  if (!head_.empty() || !order_.empty()) fail_value(name_ + ": begin_file before the previous file ended");
  for (const auto& f : files_)
    if (f == name) fail_value(name + ": given twice");
  name_ = name;
  gguf_ = ends_with(name, ".gguf");
  if (gguf_ && !files_.empty()) fail_value(name + ": a GGUF file is a whole checkpoint; it cannot follow another file");
  file_size_ = size >= 0 && size < static_cast<double>(kUnknown) ? static_cast<std::size_t>(size) : kUnknown;
  pos_ = 0;
  data_start_ = 0;
  order_.clear();
  next_ = 0;
}

void StreamedCheckpoint::parse_header() {
  const std::uint64_t header_len = io::load_u64(head_.data());
  const std::size_t buffer = file_size_ == kUnknown ? kUnknown : file_size_ - data_start_;
  std::vector<std::unique_ptr<Entry>> fresh;
  for (auto& t : io::parse_safetensors_header(head_.data() + 8, static_cast<std::size_t>(header_len), data_start_, buffer, name_)) {
    auto e = std::make_unique<Entry>();
    e->info = std::move(t);
    if (!io::is_float_dtype(e->info.dtype)) e->form = Entry::Raw;
    fresh.push_back(std::move(e));
  }
  add_entries(std::move(fresh));
  if (file_size_ != kUnknown) head_ = {};  // else end_file checks the header again with the data's size
}

// A GGUF header (io/gguf.h) mapped onto the family's names (io/gguf_model.h): each tensor an entry whose rows are
// the GGUF rows (ne[0] values, whole blocks), decoded as they arrive.
bool StreamedCheckpoint::parse_gguf_header() {
  std::optional<io::GgufHeader> h = io::parse_gguf_header(head_.data(), head_.size(), file_size_, name_);
  if (!h) return false;
  io::GgufMapping m = io::map_gguf(*h, name_);
  std::vector<std::unique_ptr<Entry>> fresh;
  for (std::size_t k = 0; k < h->tensors.size(); ++k) {
    const io::GgufTensor& t = h->tensors[k];
    auto e = std::make_unique<Entry>();
    e->info.name = m.names[k];
    e->info.dtype = t.type == io::GgmlType::F16 ? DType::F16 : t.type == io::GgmlType::BF16 ? DType::BF16 : DType::F32;
    for (auto it = t.ne.rbegin(); it != t.ne.rend(); ++it) e->info.shape.push_back(static_cast<std::int64_t>(*it));
    e->info.offset = t.offset;
    e->info.nbytes = t.nbytes;
    e->ggml = static_cast<int>(t.type);
    e->minus_one = m.minus_one[k];
    fresh.push_back(std::move(e));
  }
  data_start_ = h->data_start;
  if (model_type_.empty()) model_type_ = parse_model_config(m.config_json).model_type;  // the family's naming rule
  gguf_config_ = std::move(m.config_json);
  gguf_header_ = std::make_unique<io::GgufHeader>(std::move(*h));
  add_entries(std::move(fresh));
  return true;
}

void StreamedCheckpoint::add_entries(std::vector<std::unique_ptr<Entry>> fresh) {
  const std::string& f = name_;
  // The cannot-fit check: this file's converted tensors against the memory still available.
  std::size_t need = 0, need_q8 = 0, block = 0;
  for (auto& ep : fresh) {
    Entry& e = *ep;
    const TensorInfo& t = e.info;
    if (entries_.count(t.name))
      fail_value((index_name_.empty() ? f : index_name_) + ": tensor '" + t.name + "' is in two shards ('" +
                 entries_.at(t.name)->file + "' and '" + f + "')");
    e.file = f;
    const bool two_d = t.shape.size() == 2;
    const std::string& n = t.name;
    if (e.form != Entry::Raw && two_d) {
      switch (stream_form(model_type_, n)) {
        case StreamForm::Float: break;
        case StreamForm::Table: e.form = Entry::Table; break;
        case StreamForm::Linear: e.form = Entry::Linear; break;
      }
    }
    if (e.form == Entry::Linear || e.form == Entry::Table || (e.ggml >= 0 && !t.shape.empty())) {
      e.cols = static_cast<std::size_t>(t.shape.back());
      e.rows = e.cols ? t.elements() / e.cols : 0;
      if (e.rows > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
          e.cols > static_cast<std::size_t>(std::numeric_limits<int>::max()))
        fail_value(f + ": tensor '" + n + "' is too large");
    } else {
      e.rows = t.elements();
      e.cols = 1;
    }
    // bytes of one row: GGUF rows are whole blocks (the header reader checked ne[0])
    e.row_bytes = e.ggml >= 0 ? e.cols / io::ggml_block_size(static_cast<io::GgmlType>(e.ggml)) *
                                    io::ggml_type_size(static_cast<io::GgmlType>(e.ggml))
                              : e.cols * io::dtype_size(t.dtype);
    const std::size_t per_block = e.row_bytes ? std::max<std::size_t>(1, kBlockBytes / e.row_bytes) : 1;
    e.block_rows = e.form == Entry::Linear ? std::max(kLinearRows, per_block / kLinearRows * kLinearRows) : per_block;
    e.block_rows = std::min(e.block_rows, std::max<std::size_t>(e.rows, 1));
    if (!sends_to_sink(e)) need += e.bytes(options_.dtype);  // else never held here
    need_q8 += e.bytes(WeightFormat::Q8);
    block = std::max(block, e.block_rows * (e.row_bytes + 4 * e.cols));
  }
  if (need + block > available_) {
    std::string message = f + ": its tensors need " + std::to_string(need) + " bytes of WebAssembly memory as " +
                           weight_format_name(options_.dtype) + ", more than the " + std::to_string(available_) +
                           " bytes still available" + memory_note_;
    if (options_.dtype != WeightFormat::Q8)
      message += "; with dtype 'q8' they need about " + std::to_string(need_q8) + " bytes";
    fail_range(message);
  }
  std::stable_sort(fresh.begin(), fresh.end(), [](const auto& a, const auto& b) { return a->info.offset < b->info.offset; });
  for (auto& e : fresh) {
    order_.push_back(e.get());
    names_.push_back(e->info.name);
    entries_.emplace(e->info.name, std::move(e));
  }
}

void StreamedCheckpoint::write(const std::uint8_t* p, std::size_t n) {
  if (gguf_ && data_start_ == 0) {  // GGUF: bytes are kept until the header parses, then run through as data
    head_.insert(head_.end(), p, p + n);
    if (!parse_gguf_header()) return;
    std::vector<std::uint8_t> held = std::move(head_);
    head_ = {};
    pos_ = 0;
    consume(held.data(), held.size());
    return;
  }
  if (data_start_ == 0) {  // the 8-byte length and the JSON header first
    while (n > 0 && head_.size() < 8) {
      head_.push_back(*p++);
      --n;
      ++pos_;
    }
    if (head_.size() < 8) return;
    const std::uint64_t header_len = io::load_u64(head_.data());
    if (file_size_ != kUnknown && header_len > file_size_ - 8)
      fail_value(name_ + ": header length " + std::to_string(header_len) + " runs past the end of the file (" +
                 std::to_string(file_size_) + " bytes)");
    if (header_len > kMaxHeader)
      fail_value(name_ + ": header length " + std::to_string(header_len) + " is beyond the format's limit of " +
                 std::to_string(kMaxHeader) + " bytes");
    const std::size_t want = 8 + static_cast<std::size_t>(header_len) - head_.size();
    const std::size_t take = std::min(n, want);
    head_.insert(head_.end(), p, p + take);
    p += take;
    n -= take;
    pos_ += take;
    if (head_.size() < 8 + header_len) return;
    data_start_ = 8 + static_cast<std::size_t>(header_len);
    parse_header();
  }
  consume(p, n);
}

void StreamedCheckpoint::consume(const std::uint8_t* p, std::size_t n) {
  while (n > 0) {
    while (next_ < order_.size() && order_[next_]->done()) ++next_;
    if (next_ == order_.size()) {  // bytes after the last tensor
      pos_ += n;
      return;
    }
    Entry& e = *order_[next_];
    if (pos_ < e.info.offset) {  // a gap before the tensor
      const std::size_t skip = std::min(n, e.info.offset - pos_);
      p += skip;
      n -= skip;
      pos_ += skip;
      continue;
    }
    if (sends_bytes(e)) {  // as the file holds them, any split
      const std::size_t take = std::min(n, e.info.nbytes - e.done_bytes - pending_.size());
      consume_bytes(e, p, take);
      p += take;
      n -= take;
      pos_ += take;
      continue;
    }
    const std::size_t rows = std::min(e.block_rows, e.rows - e.done_rows);
    const std::size_t block = rows * e.row_bytes;
    const std::size_t take = std::min(n, block - pending_.size());
    if (pending_.empty() && take == block) {
      convert_block(e, p, rows);
    } else {
      pending_.insert(pending_.end(), p, p + take);
      if (pending_.size() == block) {
        convert_block(e, pending_.data(), rows);
        pending_.clear();
      }
    }
    p += take;
    n -= take;
    pos_ += take;
  }
}

// A tensor bound for a sink that takes its bytes: whole 4-byte words go on at once, a split one waits in pending_.
void StreamedCheckpoint::consume_bytes(Entry& e, const std::uint8_t* p, std::size_t n) {
  allocate(e);
  if (!pending_.empty()) {
    const std::size_t k = std::min(n, 4 - pending_.size());
    pending_.insert(pending_.end(), p, p + k);
    p += k;
    n -= k;
    if (pending_.size() < 4) return;
    deliver(e, pending_.data(), 4);
    pending_.clear();
  }
  const std::size_t whole = n & ~std::size_t{3};
  if (whole > 0) deliver(e, p, whole);
  pending_.assign(p + whole, p + n);
}

void StreamedCheckpoint::deliver(Entry& e, const std::uint8_t* p, std::size_t n) {
  sink_->bytes(e.gpu, e.done_bytes, p, n);
  count_bytes(e, n);
}

// n more bytes of e received (whole rows among them counted in done_rows; sends_bytes tensors are never empty).
void StreamedCheckpoint::count_bytes(Entry& e, std::size_t n) {
  e.done_bytes += n;
  e.done_rows = e.done_bytes / e.row_bytes;
}

// The tensor the next bytes of the file belong to (or precede); null after the last.
const StreamedCheckpoint::Entry* StreamedCheckpoint::current() const {
  for (std::size_t i = next_; i < order_.size(); ++i)
    if (!order_[i]->done()) return order_[i];
  return nullptr;
}

std::size_t StreamedCheckpoint::direct_bytes() const {
  if (data_start_ == 0 || gguf_ || !pending_.empty()) return 0;
  const Entry* e = current();
  if (!e || !sends_bytes(*e) || pos_ < e->info.offset) return 0;
  return e->info.nbytes - e->done_bytes;
}

StreamedCheckpoint::DirectTarget StreamedCheckpoint::take_direct(std::size_t n) {
  if (n == 0 || n % 4 != 0 || n > direct_bytes())
    fail_value(name_ + ": take_direct(" + std::to_string(n) + "): expected a multiple of 4 up to " + std::to_string(direct_bytes()));
  while (order_[next_]->done()) ++next_;
  Entry& e = *order_[next_];
  allocate(e);
  const DirectTarget target{e.gpu, e.done_bytes};
  count_bytes(e, n);
  pos_ += n;
  return target;
}

std::size_t StreamedCheckpoint::bytes_before_direct() const {
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  if (gguf_ || !sink_ || !sink_->takes_any_bytes() || options_.dtype == WeightFormat::Q8) return kNone;  // never direct
  if (data_start_ == 0)  // the rest of the 8-byte length, then of the header (write() has checked its length)
    return head_.size() < 8 ? 8 - head_.size() : 8 + static_cast<std::size_t>(io::load_u64(head_.data())) - head_.size();
  const Entry* e = current();
  if (e && sends_bytes(*e) && pos_ >= e->info.offset) return pending_.empty() ? 0 : 4 - pending_.size();
  for (std::size_t i = next_; i < order_.size(); ++i) {
    const Entry& f = *order_[i];
    if (!f.done() && sends_bytes(f) && f.info.offset >= pos_) return f.info.offset - pos_;
  }
  return kNone;
}

// The form a tensor is converted into (or its sink id), made when its first bytes arrive.
void StreamedCheckpoint::allocate(Entry& e) {
  if (e.allocated) return;
  const WeightFormat dtype = options_.dtype;
  const int K = static_cast<int>(e.cols);
  e.allocated = true;
  const std::size_t n = e.rows * e.cols;
  switch (e.form) {
    case Entry::Raw: e.raw.reserve(e.info.nbytes); break;
    case Entry::Float: e.f32.resize(n); break;
    case Entry::Table:
      if (sends_to_sink(e)) {
        e.gpu = begin_sink(e);
      } else if (dtype == WeightFormat::Q8) {
        e.q8.resize(n);
        e.scales.resize(e.rows);
      } else {
        e.f32.resize(n);
      }
      break;
    case Entry::Linear:
      if (sends_to_sink(e)) {
        e.gpu = begin_sink(e);
        break;
      }
      if (dtype == WeightFormat::Q8) {
        e.q8.resize(kernels::packed_qs8_bytes(K, static_cast<int>(e.rows)));
        e.scales.resize(e.rows);
      } else {
        e.f32.resize(kernels::packed_b_floats(K, static_cast<int>(e.rows)));
      }
      break;
  }
  if (e.held()) converted_bytes_ += e.bytes(dtype);
}

void StreamedCheckpoint::convert_block(Entry& e, const std::uint8_t* bytes, std::size_t rows) {
  const WeightFormat dtype = options_.dtype;
  const int K = static_cast<int>(e.cols);
  allocate(e);
  const std::size_t r0 = e.done_rows, n = rows * e.cols;
  if (e.form == Entry::Raw) {
    e.raw.insert(e.raw.end(), bytes, bytes + rows * e.row_bytes);
  } else if (e.form == Entry::Float || (e.form == Entry::Table && dtype != WeightFormat::Q8 && e.gpu < 0)) {
    decode_rows(e, bytes, n, e.f32.data() + r0 * e.cols);
  } else {
    if (rows_.size() < n) rows_.resize(n);
    decode_rows(e, bytes, n, rows_.data());
    const int N = static_cast<int>(rows), n0 = static_cast<int>(r0);
    if (e.gpu >= 0 && dtype == WeightFormat::Q8) {
      send_q8_rows(e, n0, N);
    } else if (e.gpu >= 0) {
      sink_->rows(e.gpu, n0, N, K, rows_.data());
    }
    if (!e.held()) {
      // the sink has them all
    } else if (e.form == Entry::Table) {
      EmbeddingTable::quantize_rows(N, K, rows_.data(), e.q8.data() + r0 * e.cols, e.scales.data() + r0);
    } else if (dtype == WeightFormat::Q8) {
      const int range = kernels::pack_qs8_nk(K, N, rows_.data(), e.cols, e.q8.data() + kernels::packed_qs8_bytes(K, n0),
                                             e.scales.data() + r0);
      e.activation_max = std::min(e.activation_max, range);
    } else {
      kernels::pack_b_nk(K, N, rows_.data(), e.cols, e.f32.data() + kernels::packed_b_floats(K, n0));
    }
  }
  e.done_rows += rows;
}

// Loads with a sink: every linear layer, and the embedding tables of the families that take them as they are
// (streamed_names.h tables_stream_to_sink); q8 ones only to a sink that takes int8 rows, and a family's linear layers
// only where q8_linears_stream_to_sink — else their q8 forms are made here.
bool StreamedCheckpoint::sends_to_sink(const Entry& e) const {
  if (!sink_) return false;
  if (options_.dtype == WeightFormat::Q8 &&
      (!sink_->takes_q8() || (e.form == Entry::Linear && !q8_linears_stream_to_sink(model_type_))))
    return false;
  return e.form == Entry::Linear || (e.form == Entry::Table && tables_stream_to_sink(model_type_));
}

int StreamedCheckpoint::begin_sink(const Entry& e) {
  const int rows = static_cast<int>(e.rows), cols = static_cast<int>(e.cols);
  if (options_.dtype == WeightFormat::Q8) return sink_->begin_q8(e.info.name, rows, cols);
  return sink_->begin(e.info.name, rows, cols, bytes_dtype(e));
}

// A block of a q8 layer bound for the sink (its float32 rows in rows_): quantized as the heap path quantizes it
// (a Linear as pack_qs8_nk does, without the panels; a table a scale per row), then handed over.
void StreamedCheckpoint::send_q8_rows(const Entry& e, int first, int count) {
  const int K = static_cast<int>(e.cols);
  const std::size_t n = static_cast<std::size_t>(count) * e.cols;
  if (q8_rows_.size() < n) q8_rows_.resize(n);
  if (scale_rows_.size() < static_cast<std::size_t>(count)) scale_rows_.resize(static_cast<std::size_t>(count));
  if (e.form == Entry::Table) {
    EmbeddingTable::quantize_rows(count, K, rows_.data(), q8_rows_.data(), scale_rows_.data());
    sink_->q8_rows(e.gpu, first, count, K, q8_rows_.data(), nullptr, scale_rows_.data());
    return;
  }
  const std::size_t groups = static_cast<std::size_t>(count) * ((e.cols + kernels::kQs8Group - 1) / kernels::kQs8Group);
  if (mult_rows_.size() < groups) mult_rows_.resize(groups);
  kernels::quantize_qs8_rows(K, count, rows_.data(), e.cols, q8_rows_.data(), mult_rows_.data(), scale_rows_.data());
  sink_->q8_rows(e.gpu, first, count, K, q8_rows_.data(), mult_rows_.data(), scale_rows_.data());
}

// ... as the file's bytes: safetensors tensors of a dtype the sink takes, on a little-endian host, in whole 4-byte
// words (a 2-byte tensor of an odd number of elements goes as rows).
bool StreamedCheckpoint::sends_bytes(const Entry& e) const {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the bytes sent are little-endian");
  return e.ggml < 0 && e.info.nbytes > 0 && e.info.nbytes % 4 == 0 && options_.dtype != WeightFormat::Q8 && sends_to_sink(e) &&
         sink_->takes_bytes(e.info.dtype);
}

std::optional<DType> StreamedCheckpoint::bytes_dtype(const Entry& e) const {
  return sends_bytes(e) ? std::optional<DType>(e.info.dtype) : std::nullopt;
}

void StreamedCheckpoint::end_file() {
  const std::string& f = name_;
  if (gguf_ && data_start_ == 0) {
    // the whole file arrived without a complete header: parse it as a whole file for the Error
    io::parse_gguf_header(head_.data(), head_.size(), head_.size(), f);
    fail_value(f + ": truncated file: it ends inside the header");
  }
  if (data_start_ == 0) {
    if (pos_ < 8) fail_value(f + ": truncated file: " + std::to_string(pos_) + " bytes, the 8-byte header length is incomplete");
    fail_value(f + ": header length " + std::to_string(io::load_u64(head_.data())) + " runs past the end of the file (" +
               std::to_string(pos_) + " bytes)");
  }
  if (file_size_ != kUnknown && pos_ != file_size_)
    fail_value(f + ": received " + std::to_string(pos_) + " bytes, but the file has " + std::to_string(file_size_));
  if (file_size_ == kUnknown && !gguf_) {  // the header's checks again, now with the data section's size
    io::parse_safetensors_header(head_.data() + 8, data_start_ - 8, data_start_, pos_ - data_start_, f);
    head_ = {};
  }
  for (const Entry* e : order_)
    if (!e->done())
      fail_value(f + ": tensor '" + e->info.name + "' is incomplete: its data [" + std::to_string(e->info.offset) + ", " +
                 std::to_string(e->info.offset + e->info.nbytes) + ") runs past the end of the file (" + std::to_string(pos_) +
                 " bytes)");
  for (Entry* e : order_)
    if (!e->allocated) convert_block(*e, nullptr, 0);  // empty tensors
  files_.push_back(f);
  order_.clear();
  next_ = 0;
  data_start_ = 0;
  pos_ = 0;
  pending_ = {};
  rows_ = {};
}

void StreamedCheckpoint::set_index(const std::string& name, const std::string& text) {
  index_name_ = name;
  index_text_ = text;
}

void StreamedCheckpoint::finish() {
  if (!order_.empty() || data_start_ != 0 || !head_.empty()) fail_value(name_ + ": the file did not end");
  if (files_.empty()) fail_value("open_checkpoint: no weight files given");
  if (index_name_.empty()) {
    if (files_.size() != 1)
      fail_value("open_checkpoint: " + std::to_string(files_.size()) + " weight files given without an index (*.index.json)");
    return;
  }
  const std::string& f = index_name_;
  nlohmann::json json;
  try {
    json = io::parse_json(index_text_);
  } catch (const nlohmann::json::exception& e) {
    fail_value(f + ": not valid JSON: " + e.what());
  }
  if (!json.is_object() || !json.contains("weight_map") || !json["weight_map"].is_object())
    fail_value(f + ": missing \"weight_map\" object {tensor: shard file}");
  std::map<std::string, std::size_t> named;
  for (auto it = json["weight_map"].begin(); it != json["weight_map"].end(); ++it) {
    if (!it.value().is_string()) fail_value(f + ": weight_map['" + it.key() + "'] must be a shard file name (a string)");
    const std::string shard = it.value().get<std::string>();
    named.emplace(shard, 0);
    auto e = entries_.find(it.key());
    if (e == entries_.end() || e->second->file != shard)
      fail_value(f + ": tensor '" + it.key() + "' is listed in shard '" + shard + "' but that shard does not hold it");
  }
  if (named.empty()) fail_value(f + ": weight_map is empty");
  for (const auto& file : files_)
    if (!named.count(file)) fail_value(f + ": file '" + file + "' is not a shard named by weight_map");
  for (const auto& [shard, unused] : named)
    if (std::find(files_.begin(), files_.end(), shard) == files_.end())
      fail_value(f + ": shard '" + shard + "' named by weight_map is missing");
  name_ = f;
}

const StreamedCheckpoint::Entry& StreamedCheckpoint::entry(const std::string& name) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) fail_value(name_ + ": missing tensor '" + name + "'");
  return *it->second;
}

bool StreamedCheckpoint::contains(const std::string& name) const { return entries_.count(name) != 0; }
const TensorInfo& StreamedCheckpoint::info(const std::string& name) const { return entry(name).info; }
std::vector<std::string> StreamedCheckpoint::names() const { return names_; }

std::vector<float> StreamedCheckpoint::to_f32(const std::string& name) const {
  const Entry& e = entry(name);
  if (e.form == Entry::Raw)
    throw Error(ErrorKind::Type, e.file + ": tensor '" + name + "' is " + dtype_name(e.info.dtype) +
                                     ", not a floating-point tensor (F32, F16, BF16)");
  if (e.form != Entry::Float)
    fail_value(e.file + ": tensor '" + name + "' was converted for " +
               (e.form == Entry::Linear ? "a linear layer" : "an embedding table") +
               " as it streamed in, but the model family read it as float32 (its names do not follow "
               "StreamedCheckpoint's rule, models/layers/streamed_checkpoint.h)");
  return e.f32;
}

std::vector<std::int64_t> StreamedCheckpoint::to_i64(const std::string& name) const {
  const Entry& e = entry(name);
  if (e.form != Entry::Raw)
    throw Error(ErrorKind::Type, e.file + ": tensor '" + name + "' is " + dtype_name(e.info.dtype) +
                                     ", not an integer tensor (I64, I32)");
  const std::size_t n = e.info.elements(), size = io::dtype_size(e.info.dtype);
  std::vector<std::int64_t> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = io::load_int(e.info.dtype, e.raw.data() + size * i);
  return out;
}

std::optional<PreparedLinear> StreamedCheckpoint::take_linear(const std::string& name) const {
  auto it = entries_.find(name);
  if (it == entries_.end() || it->second->form != Entry::Linear) return std::nullopt;
  Entry& e = *it->second;
  if (e.taken) fail_value(e.file + ": tensor '" + name + "' was read twice as a linear layer");
  e.taken = true;
  PreparedLinear out;
  out.gpu = e.gpu;  // ≥ 0: nothing held here
  if (e.gpu >= 0 && options_.dtype == WeightFormat::Q8)  // its int8 rows went to the sink
    out.q8 = QuantizedMatrix::on_gpu(static_cast<int>(e.cols), static_cast<int>(e.rows));
  else if (e.gpu < 0 && options_.dtype == WeightFormat::Q8)
    out.q8 = QuantizedMatrix(static_cast<int>(e.cols), static_cast<int>(e.rows), std::move(e.q8), std::move(e.scales),
                             e.activation_max);
  else if (e.held())
    out.packed = std::move(e.f32);
  e.q8 = {};
  e.f32 = {};
  return out;
}

std::optional<PreparedTable> StreamedCheckpoint::take_table(const std::string& name) const {
  auto it = entries_.find(name);
  if (it == entries_.end() || it->second->form != Entry::Table) return std::nullopt;
  Entry& e = *it->second;
  if (e.taken) fail_value(e.file + ": tensor '" + name + "' was read twice as an embedding table");
  e.taken = true;
  PreparedTable out;
  out.gpu = e.gpu;  // ≥ 0: its rows are in the sink, nothing held here
  out.q8_gpu = e.gpu >= 0 && options_.dtype == WeightFormat::Q8;
  out.f32 = std::move(e.f32);
  out.q8 = std::move(e.q8);
  out.scales = std::move(e.scales);
  return out;
}

const StreamedCheckpoint* streamed_of(const Weights& weights) {
  const auto* context = dynamic_cast<const LoadContext*>(&weights);
  return dynamic_cast<const StreamedCheckpoint*>(context ? &context->inner() : &weights);
}

}  // namespace relpos::models
