// Embind: Hugging Face checkpoints through relpos/model.h (load_model, forward, config) and the
// sequence-classification heads of relpos/heads.h. Thin; web/model.js does the file handling.
//
//   allocateBytes(n) → ByteBuffer | Error       a std::vector<uint8_t> of n bytes in the heap; JS
//     ByteBuffer.address() / size() / resize(n)  writes model.safetensors straight into it (chunk
//                                                by chunk), so the weights cross into the heap once
//   loadModel(configText, files, options) → LoadedModel | Error
//     files: [{ name, buffer: ByteBuffer }]      the checkpoint's weight files (one safetensors, one
//                                                pytorch_model.bin, or an index + its shards; see
//                                                relpos/checkpoint.h); the bytes are moved into C++
//                                                (no copy; each buffer is left empty) and freed once
//                                                the weights are packed.
//                                                options: { dtype: 'fp32' | 'q8' } (undefined = fp32)
//   LoadedModel.config() → { modelType, vocabSize, hiddenSize, …, dtype, weightBytes }
//                                                (relpos::ModelConfig; weightBytes: model + head)
//   LoadedModel.labels() → [label names] (empty: no classification head)
//   LoadedModel.head() → { task, labels, outputs } | null   (relpos/heads.h; task is the pipeline name)
//   LoadedModel.forward(batch, seq, ids, mask, types, hiddenStates, attentions, logits, positions)
//     ids, mask, types: heap addresses of int32 [batch, seq] (mask 0 = every token real, types 0 = all 0)
//     positions: [flat b·seq + l, …] where a masked-LM head computes logits ([] = every token)
//     → { lastHiddenState: {data, dims}, hiddenStates?, attentions?, poolerOutput?, logits? } | Error
//     logits by head: [batch, labels] · [batch, seq, labels] · [batch, seq, 2] · [positions or batch·seq, vocab]
//     with fresh Float32Arrays (copies; nothing points into the heap)
//   LoadedModel.plan(batch, seq, hiddenStates, logits, positions) → { batch, seq, buffers: [{ kind, elements }],
//     weights: [{ key }], constants: [Float32Array | Int32Array], ops: [{ op, kind, …attrs }] } | Error  the forward as a plan
//     (cpp/src/plan/plan.h) for the WebGPU executor; key: a number naming the weight for the model's life;
//     logits: the task head follows (an output op of kind 3), positions > 0: a masked-LM head at that many rows;
//     a q8 Linear's entry is { key, kind: 'q8', rows, cols } (rows = out features, cols = in features), a q8
//     embedding table's the same with rows, cols = its rows, dim; a table the executor computes (plan.h Recorder::derive:
//     DeBERTa's projected relative embeddings on a WebGPU load) { key, kind: 'derived', from, linear, bias, rows, heads, in,
//     out }: [heads, rows, out / heads] = weight `from` [rows, in] · weight `linear` [out, in]ᵀ + weight `bias` (−1: none)
//   LoadedModel.releaseWeights() → bytes freed | Error      after a WebGPU upload: frees the WASM copies of the plan's
//     Linear and table weights (plan::release_weights); the CPU forward is an Error from then on
//   LoadedModel.weightValues(index) → Float32Array | Error   weight `index` of the latest plan, float32 (a view of the
//     heap: copy it out before the next call); for a q8 entry { q: Uint32Array,
//     scales: Uint32Array } in the WebGPU q8 layout (plan.h Q8Values); { gpuBuffer: id } for a Linear whose rows
//     went to the GPU as they streamed in (StreamLoad.setWeightSink)
//   openStream(configText, options) → StreamLoad | null | Error   null: the family loads from whole files
//     (loadModel above); else the safetensors files stream through it, each converted as its bytes
//     arrive (models/layers/streamed_checkpoint.h; web/weights.js streamSafetensors):
//     StreamLoad.beginFile(name, size | -1), .write(address, n), .endFile(), .setIndex(name, text),
//     .convertedBytes(), .load(configText) → LoadedModel | Error (RangeError when a file cannot fit),
//     .setWeightSink({ begin(name, rows, cols, 'rows' | 'F32' | 'F16' | 'BF16') → id, rows(id, first, count,
//     Float32Array)[, writeBytes(id, offset, Uint8Array)][, takesBytes: ['F16', 'BF16']] }) before the first file (with
//     bytes: float32 tensors — and those of takesBytes' dtypes — as the file's bytes; with beginQ8(name, rows, cols) → id
//     and q8Rows(id, first, count, q, scales), a q8 load's layers as the GPU's q8 words; and .directBytes(),
//     .writeDirect(Uint8Array), .bytesBeforeDirect() let JS send them without the heap):
//     linear layers and tables go to it block by block (the views are valid during the call) instead of the heap
//   openGgufStream(options) → StreamLoad | Error   a GGUF file (name ending in .gguf) streamed the same way; after
//     endFile: StreamLoad.gguf() → { config (the family's config.json text), architecture, metadata: { key: value } }
//     (arrays of strings as arrays, numeric arrays as Float64Array), StreamLoad.tensor(name) → Float32Array | null
//     (tensors the family does not read, e.g. EmbeddingGemma's dense_2.weight), then .load(config)
//   readTensors(name, buffer) → { tensor: { data: Float32Array, dims } } | Error   one small weight file (a torch.save
//     .pt / .bin through the restricted unpickler, or a .safetensors), every tensor as float32 (BGE-M3's
//     colbert_linear.pt and sparse_linear.pt); the buffer's bytes are moved in and freed
//   supportedModelTypes() → [model_type, …]
// Errors follow common.h: returned as JS Error objects, never thrown across WebAssembly frames.
#include <emscripten/bind.h>

#include <malloc.h>
#include <unistd.h>

#include <limits>
#include <memory>
#include <string>

#include "common.h"
#include "relpos/checkpoint.h"
#include "relpos/heads.h"
#include "relpos/model.h"
#include "../src/io/gguf.h"
#include "../src/models/layers/streamed_checkpoint.h"
#include "../src/plan/plan.h"

namespace relpos::bindings {
namespace {

using namespace emscripten;

struct ByteBuffer {
  std::vector<std::uint8_t> bytes;
  std::uintptr_t address_of() const { return address(bytes.data()); }
  double size() const { return static_cast<double>(bytes.size()); }
  // Grows or shrinks to n bytes (content kept); the address may change.
  val resize(double n) {
    return guarded([&] {
      if (!(n >= 0) || n > 2147483648.0) fail_range("model.safetensors: " + std::to_string(n) + " bytes do not fit the 2 GB heap");
      bytes.resize(static_cast<std::size_t>(n));
      return val::undefined();
    });
  }
};

val allocate_bytes(double n) {
  return guarded([&] {
    auto buffer = std::make_unique<ByteBuffer>();
    if (!(n >= 0) || n > 2147483648.0) fail_range("model.safetensors: " + std::to_string(n) + " bytes do not fit the 2 GB heap");
    buffer->bytes.resize(static_cast<std::size_t>(n));
    return val(std::move(buffer));
  });
}

val tensor_to_js(const Tensor& t) {
  val dims = val::array();
  for (int d : t.shape) dims.call<void>("push", d);
  val out = val::object();
  out.set("data", to_js(t.data));
  out.set("dims", dims);
  return out;
}

class LoadedModel {
 public:
  LoadedModel(std::unique_ptr<Model> model, std::unique_ptr<TaskHead> head)
      : model_(std::move(model)), head_(std::move(head)) {}

  val config() const {
    const ModelConfig& c = model_->config();
    val o = val::object();
    o.set("modelType", c.model_type);
    o.set("vocabSize", c.vocab_size);
    o.set("hiddenSize", c.hidden_size);
    o.set("numLayers", c.num_layers);
    o.set("numHeads", c.num_heads);
    o.set("numKvHeads", c.num_kv_heads);
    o.set("headDim", c.head_dim);
    o.set("intermediateSize", c.intermediate_size);
    o.set("maxPositionEmbeddings", c.max_position_embeddings);
    o.set("maxSequence", model_->max_sequence());  // 0: no limit (relative positions)
    o.set("hiddenAct", c.hidden_act);
    o.set("dtype", std::string(weight_format_name(model_->dtype())));
    o.set("weightBytes", static_cast<double>(model_->weight_bytes() + (head_ ? head_->weight_bytes() : 0)));
    return o;
  }

  val labels() const {
    val out = val::array();
    if (head_)
      for (const auto& l : head_->labels()) out.call<void>("push", l);
    return out;
  }

  val head() const {
    if (!head_) return val::null();
    val out = val::object();
    out.set("task", std::string(head_task_name(head_->task())));
    out.set("labels", labels());
    out.set("outputs", head_->outputs());
    return out;
  }

  val plan(int batch, int seq, bool hidden_states, bool logits, int positions) {
    return guarded([&] {
      if (logits && !head_) fail_value("plan: logits: this checkpoint has no task head");
      plan::Plan p = plan::build(*model_, batch, seq, hidden_states, logits ? head_.get() : nullptr, positions);
      val out = val::object();
      out.set("batch", p.batch);
      out.set("seq", p.seq);
      val buffers = val::array();
      for (const auto& b : p.buffers) {
        val o = val::object();
        o.set("kind", b.kind);
        o.set("elements", static_cast<double>(b.elements));
        buffers.call<void>("push", o);
      }
      out.set("buffers", buffers);
      val weights = val::array();
      for (const auto& w : p.weights) {
        val o = val::object();
        o.set("key", static_cast<double>(reinterpret_cast<std::uintptr_t>(w.source)));
        int rows = 0, cols = 0;
        if (plan::is_q8(w, &rows, &cols)) {
          o.set("kind", std::string("q8"));
          o.set("rows", rows);
          o.set("cols", cols);
        } else if (w.kind == plan::Weight::Kind::Derived) {
          o.set("kind", std::string("derived"));
          const std::size_t rows = static_cast<std::size_t>(w.rows), in = p.weights[static_cast<std::size_t>(w.from)].elements / rows;
          for (const auto& [key, value] : {std::pair<const char*, double>{"from", w.from}, {"linear", w.linear}, {"bias", w.bias},
                                           {"rows", w.rows}, {"heads", w.heads}, {"in", static_cast<double>(in)},
                                           {"out", static_cast<double>(w.elements / rows)}})
            o.set(key, value);
        }
        weights.call<void>("push", o);
      }
      out.set("weights", weights);
      val ops = val::array();
      for (const auto& op : p.ops) {
        val o = val::object();
        o.set("op", op.name);
        if (!op.kind.empty()) o.set("kind", op.kind);
        for (const auto& [key, value] : op.attrs) o.set(key, value);
        ops.call<void>("push", o);
      }
      out.set("ops", ops);
      val constants = val::array();
      for (const auto& c : p.constants) constants.call<void>("push", c.ints.empty() ? to_js(c.floats) : to_js(c.ints));
      out.set("constants", constants);
      weights_ = std::move(p.weights);
      return out;
    });
  }

  // The WebGPU executor holds its own copy of every weight: free the WASM copies of the Linear layers and embedding
  // tables that the model's plan (and its head's) names; the model then runs on the GPU only. Returns the bytes freed.
  val release_weights() {
    return guarded([&] {
      std::size_t bytes = plan::release_weights(plan::build(*model_, 1, 1, false, nullptr, 0));
      if (head_) bytes += plan::release_weights(plan::build(*model_, 1, 1, false, head_.get(), 0));
      weights_.clear();
      unpacked_ = {};
      return val(static_cast<double>(bytes));
    });
  }

  val weight_values(int index) const {
    return guarded([&] {
      if (index < 0 || static_cast<std::size_t>(index) >= weights_.size())
        fail_range("weightValues: index " + std::to_string(index) + " is outside the latest plan's " +
                   std::to_string(weights_.size()) + " weights");
      if (const int id = plan::gpu_buffer(weights_[index]); id >= 0) {  // already on the GPU (WeightSink)
        val out = val::object();
        out.set("gpuBuffer", id);
        return out;
      }
      if (plan::is_q8(weights_[index])) {
        const plan::Q8Values q = plan::q8_values(weights_[index]);
        val out = val::object();
        out.set("q", to_typed_array("Uint32Array", q.q));
        out.set("scales", to_typed_array("Uint32Array", q.scales));
        return out;
      }
      // held as they are: a view of the heap, which the caller copies out before its next call into the module
      if (const plan::FloatSpan v = plan::weight_data(weights_[index]); v.data) return val(typed_memory_view(v.size, v.data));
      // a Linear's W unpacked from its panels: held here until the next call, handed over as a view (no second copy)
      unpacked_ = plan::weight_values(weights_[index]);
      return val(typed_memory_view(unpacked_.size(), unpacked_.data()));
    });
  }

  val forward(int batch, int seq, std::uintptr_t ids, std::uintptr_t mask, std::uintptr_t types, bool hidden_states,
              bool attentions, bool logits, val positions) {
    return guarded([&] {
      ForwardOptions options;
      options.output_hidden_states = hidden_states;
      options.output_attentions = attentions;
      std::vector<int> at;
      if (!positions.isUndefined() && !positions.isNull()) at = vecFromJSArray<int>(positions);
      ModelOutput out = model_->forward(batch, seq, ptr<const std::int32_t>(ids), ptr<const std::int32_t>(mask), options,
                                        ptr<const std::int32_t>(types));
      val result = val::object();
      result.set("lastHiddenState", tensor_to_js(out.last_hidden_state));
      if (hidden_states) {
        val list = val::array();
        for (const auto& t : out.hidden_states) list.call<void>("push", tensor_to_js(t));
        result.set("hiddenStates", list);
      }
      if (attentions) {
        val list = val::array();
        for (const auto& t : out.attentions) list.call<void>("push", tensor_to_js(t));
        result.set("attentions", list);
      }
      if (!out.pooler_output.shape.empty()) result.set("poolerOutput", tensor_to_js(out.pooler_output));
      if (logits) {
        if (!head_) fail_value("forward: this checkpoint has no task head (…ForSequenceClassification, …ForTokenClassification, …ForQuestionAnswering, …ForMaskedLM or Qwen3ForCausalLM weights)");
        Tensor t;
        switch (head_->task()) {
          case HeadTask::SequenceClassification: t.shape = {batch, head_->outputs()}; break;
          case HeadTask::TokenClassification:
          case HeadTask::QuestionAnswering: t.shape = {batch, seq, head_->outputs()}; break;
          case HeadTask::MaskedLM:
          case HeadTask::CausalLM:
            t.shape = {at.empty() ? batch * seq : static_cast<int>(at.size()), head_->outputs()};
            break;
        }
        t.data = head_->logits(out, at);
        result.set("logits", tensor_to_js(t));
      }
      return result;
    });
  }

 private:
  std::unique_ptr<Model> model_;
  std::unique_ptr<TaskHead> head_;
  std::vector<plan::Weight> weights_;  // the latest plan's (plan())
  mutable std::vector<float> unpacked_;  // the last weightValues of a packed Linear (the view JS copies out)
};

// The load options of a JS options object (the last argument of loadModel): { dtype } or undefined.
LoadOptions load_options(const val& options) {
  LoadOptions out;
  if (options.isUndefined() || options.isNull()) return out;
  if (options.typeOf().as<std::string>() != "object") throw Error(ErrorKind::Type, "loadModel: options: expected an object");
  const val dtype = options["dtype"];
  if (dtype.isUndefined() || dtype.isNull()) return out;
  if (!dtype.isString()) throw Error(ErrorKind::Type, "loadModel: dtype: expected 'fp32' or 'q8'");
  out.dtype = parse_weight_format(dtype.as<std::string>());
  return out;
}

val load(const std::string& config_text, val files, val js_options) {
  return guarded([&] {
    if (!files.isArray()) throw Error(ErrorKind::Type, "loadModel: files: expected an array of { name, buffer }");
    const LoadOptions options = load_options(js_options);
    std::vector<CheckpointFile> checkpoint;
    const unsigned n = files["length"].as<unsigned>();
    for (unsigned i = 0; i < n; ++i) {
      val entry = files[i];
      if (entry.typeOf().as<std::string>() != "object" || entry.isNull() || !entry["name"].isString())
        throw Error(ErrorKind::Type, "loadModel: files[" + std::to_string(i) + "]: expected { name, buffer }");
      ByteBuffer* buffer = entry["buffer"].as<ByteBuffer*>(allow_raw_pointers());
      if (!buffer) throw Error(ErrorKind::Type, "loadModel: files[" + std::to_string(i) + "].buffer: expected a ByteBuffer");
      checkpoint.push_back({entry["name"].as<std::string>(), std::move(buffer->bytes)});
      buffer->bytes = {};
    }
    const std::unique_ptr<Weights> weights = open_checkpoint(std::move(checkpoint));
    auto model = load_model(config_text, *weights, options);
    auto head = load_task_head(config_text, *model, *weights, options);
    return val(std::make_unique<LoadedModel>(std::move(model), std::move(head)));
  });
}

// A safetensors checkpoint converted as it streams in (models/layers/streamed_checkpoint.h). JS:
//   const s = openStream(configText, { dtype })   // null: the family keeps the whole-file path
//   s.beginFile(name, size | -1); s.write(address, n) …; s.endFile();   (per file; setIndex(name, text) for shards)
//   s.load(configText) → LoadedModel                // then s.delete()
// A JS object as a WeightSink (web/webgpu/weight-sink.js): the rows go as a view of the heap.
// A sink with a writeBytes(id, offset, Uint8Array) method takes tensors as the file's bytes (takes_bytes): float32 ones,
// and those of the dtypes its `takesBytes` array names ('F32', 'F16', 'BF16'), which begin's 4th argument then names
// ('rows' otherwise); from the heap when they came through write(), or the caller's own view (StreamLoad.writeDirect).
class JsWeightSink final : public models::WeightSink {
 public:
  explicit JsWeightSink(val sink) : sink_(std::move(sink)) {
    if (sink_["writeBytes"].typeOf().as<std::string>() != "function") return;
    takes_[0] = true;  // F32
    const val named = sink_["takesBytes"];
    if (!named.isArray()) return;
    const int count = named["length"].as<int>();
    for (int i = 0; i < count; ++i) {
      const val n = named[i];
      if (!n.isString()) continue;
      const std::string d = n.as<std::string>();
      if (d == "F16") takes_[1] = true;
      if (d == "BF16") takes_[2] = true;
    }
  }
  int begin(const std::string& name, int rows, int cols, std::optional<DType> bytes) override {
    return sink_.call<int>("begin", name, rows, cols, std::string(bytes ? dtype_name(*bytes) : "rows"));
  }
  void rows(int id, int first, int count, int cols, const float* values) override {
    sink_.call<void>("rows", id, first, count, val(typed_memory_view(static_cast<std::size_t>(count) * cols, values)));
  }
  bool takes_bytes(DType source) const override {
    return source == DType::F32 ? takes_[0] : source == DType::F16 ? takes_[1] : source == DType::BF16 && takes_[2];
  }
  void bytes(int id, std::size_t offset, const std::uint8_t* p, std::size_t n) override {
    bytes_of(id, offset, val(typed_memory_view(n, p)));
  }
  void bytes_of(int id, std::size_t offset, const val& view) { sink_.call<void>("writeBytes", id, static_cast<double>(offset), view); }
  // q8 loads: a sink with beginQ8(name, rows, cols) → id and q8Rows(id, first, count, q, scales) takes each layer's rows
  // in the GPU's q8 words (plan.h Q8Values: Uint32Array views, valid during the call).
  bool takes_q8() const override { return q8_; }
  int begin_q8(const std::string& name, int rows, int cols) override { return sink_.call<int>("beginQ8", name, rows, cols); }
  void q8_rows(int id, int first, int count, int cols, const std::int8_t* q, const std::uint8_t* mult, const float* scales) override {
    plan::q8_words(count, cols, q, mult, scales, words_);  // one buffer for every block of the load
    sink_.call<void>("q8Rows", id, first, count, val(typed_memory_view(words_.q.size(), words_.q.data())),
                     val(typed_memory_view(words_.scales.size(), words_.scales.data())));
  }

 private:
  val sink_;
  bool takes_[3] = {false, false, false};  // F32, F16, BF16
  bool q8_ = sink_["beginQ8"].typeOf().as<std::string>() == "function" && sink_["q8Rows"].typeOf().as<std::string>() == "function";
  plan::Q8Values words_;  // q8_rows' words, reused block after block
};

class StreamLoad {
 public:
  explicit StreamLoad(const LoadOptions& options, const std::string& model_type = "")
      : checkpoint_(std::make_unique<models::StreamedCheckpoint>(options, model_type)) {}

  val set_weight_sink(val sink) {
    return guarded([&] {
      if (begun_) fail_value("setWeightSink: after the first file began");
      sink_ = std::make_unique<JsWeightSink>(std::move(sink));
      checkpoint_->set_weight_sink(sink_.get());
      return val::undefined();
    });
  }

  val begin_file(const std::string& name, double size) {
    return guarded([&] {
      // What the converted tensors may still take: the heap's limit less what malloc holds (memory
      // above sbrk's top is free; fordblks is free memory below it).
      const std::size_t limit = emscripten_get_heap_max();
      const std::size_t top = reinterpret_cast<std::uintptr_t>(sbrk(0));
      const std::size_t free_below = static_cast<std::size_t>(mallinfo().fordblks);
      const std::size_t available = (limit > top ? limit - top : 0) + free_below;
      checkpoint_->set_memory_available(available, " (limit " + std::to_string(limit) + " bytes, " +
                                                       std::to_string(top - free_below) + " in use)");
      checkpoint_->begin_file(name, size);
      begun_ = true;
      return val::undefined();
    });
  }
  val write(std::uintptr_t address, double n) {
    return guarded([&] {
      checkpoint_->write(ptr<const std::uint8_t>(address), static_cast<std::size_t>(n));
      return val::undefined();
    });
  }
  // Bytes at the current position that may skip the heap: writeDirect(a Uint8Array of a multiple of 4 of them, ≤
  // directBytes()) hands them to the sink itself; bytesBeforeDirect(): write() these first (Infinity: all the rest).
  double direct_bytes() const { return sink_ ? static_cast<double>(checkpoint_->direct_bytes()) : 0.0; }
  double bytes_before_direct() const {
    const std::size_t n = sink_ ? checkpoint_->bytes_before_direct() : static_cast<std::size_t>(-1);
    return n == static_cast<std::size_t>(-1) ? std::numeric_limits<double>::infinity() : static_cast<double>(n);
  }
  val write_direct(val view) {
    return guarded([&] {
      const auto target = checkpoint_->take_direct(static_cast<std::size_t>(view["length"].as<double>()));
      sink_->bytes_of(target.id, target.offset, view);
      return val::undefined();
    });
  }
  val end_file() {
    return guarded([&] {
      checkpoint_->end_file();
      return val::undefined();
    });
  }
  val set_index(const std::string& name, const std::string& text) {
    return guarded([&] {
      checkpoint_->set_index(name, text);
      return val::undefined();
    });
  }
  double converted_bytes() const { return static_cast<double>(checkpoint_->converted_bytes()); }
  // A GGUF file's header as JS (after endFile), or null for safetensors.
  val gguf() const {
    return guarded([&] {
      const io::GgufHeader* h = checkpoint_ ? checkpoint_->gguf_header() : nullptr;
      if (!h) return val::null();
      val meta = val::object();
      for (const auto& [key, v] : h->metadata) {
        if (v.type == io::GgufValueType::Array) {
          if (v.element == io::GgufValueType::String) {
            val list = val::array();
            for (const auto& str : v.strings) list.call<void>("push", str);
            meta.set(key, list);
          } else {
            meta.set(key, to_typed_array("Float64Array", v.numbers));
          }
        } else if (v.type == io::GgufValueType::String) {
          meta.set(key, v.s);
        } else if (v.type == io::GgufValueType::Bool) {
          meta.set(key, v.b);
        } else {
          meta.set(key, v.number());
        }
      }
      val out = val::object();
      out.set("config", checkpoint_->gguf_config());
      out.set("metadata", meta);
      return out;
    });
  }
  // A float tensor the family does not take (Float form), as float32; null when absent.
  val tensor(const std::string& name) const {
    return guarded([&] {
      if (!checkpoint_ || !checkpoint_->contains(name)) return val::null();
      return to_js(checkpoint_->to_f32(name));
    });
  }
  val load(const std::string& config_text) {
    return guarded([&] {
      checkpoint_->finish();
      const LoadOptions options = checkpoint_->options();
      auto model = load_model(config_text, *checkpoint_, options);
      auto head = load_task_head(config_text, *model, *checkpoint_, options);
      checkpoint_.reset();  // what the model did not take
      return val(std::make_unique<LoadedModel>(std::move(model), std::move(head)));
    });
  }

 private:
  bool begun_ = false;
  std::unique_ptr<JsWeightSink> sink_;  // outlives checkpoint_ (declared first: destroyed last)
  std::unique_ptr<models::StreamedCheckpoint> checkpoint_;
};

val open_stream(const std::string& config_text, val js_options) {
  return guarded([&] {
    const LoadOptions options = load_options(js_options);
    const std::string type = parse_model_config(config_text).model_type;
    if (!models::streams_family(type)) return val::null();
    return val(std::make_unique<StreamLoad>(options, type));
  });
}

val open_gguf_stream(val js_options) {
  return guarded([&] { return val(std::make_unique<StreamLoad>(load_options(js_options))); });
}

val read_tensors(const std::string& name, ByteBuffer* buffer) {
  return guarded([&] {
    if (!buffer) throw Error(ErrorKind::Type, "readTensors: expected a ByteBuffer");
    std::vector<CheckpointFile> files;
    files.push_back({name, std::move(buffer->bytes)});
    buffer->bytes = {};
    const std::unique_ptr<Weights> weights = open_checkpoint(std::move(files));
    val out = val::object();
    for (const auto& t : weights->names()) {
      Tensor tensor;
      for (auto d : weights->info(t).shape) tensor.shape.push_back(static_cast<int>(d));
      tensor.data = weights->to_f32(t);
      out.set(t, tensor_to_js(tensor));
    }
    return out;
  });
}

val supported_model_types() {
  val out = val::array();
  for (const auto& t : relpos::supported_model_types()) out.call<void>("push", t);
  return out;
}

}  // namespace
}  // namespace relpos::bindings

EMSCRIPTEN_BINDINGS(relpos_models) {
  using namespace emscripten;
  using namespace relpos::bindings;

  class_<ByteBuffer>("ByteBuffer")
      .function("address", &ByteBuffer::address_of)
      .function("size", &ByteBuffer::size)
      .function("resize", &ByteBuffer::resize);
  class_<LoadedModel>("LoadedModel")
      .function("config", &LoadedModel::config)
      .function("labels", &LoadedModel::labels)
      .function("head", &LoadedModel::head)
      .function("forward", &LoadedModel::forward)
      .function("plan", &LoadedModel::plan)
      .function("weightValues", &LoadedModel::weight_values)
      .function("releaseWeights", &LoadedModel::release_weights);
  class_<StreamLoad>("StreamLoad")
      .function("beginFile", &StreamLoad::begin_file)
      .function("write", &StreamLoad::write)
      .function("directBytes", &StreamLoad::direct_bytes)
      .function("bytesBeforeDirect", &StreamLoad::bytes_before_direct)
      .function("writeDirect", &StreamLoad::write_direct)
      .function("endFile", &StreamLoad::end_file)
      .function("setIndex", &StreamLoad::set_index)
      .function("convertedBytes", &StreamLoad::converted_bytes)
      .function("setWeightSink", &StreamLoad::set_weight_sink)
      .function("gguf", &StreamLoad::gguf)
      .function("tensor", &StreamLoad::tensor)
      .function("load", &StreamLoad::load);
  function("openStream", &open_stream);
  function("openGgufStream", &open_gguf_stream);
  function("allocateBytes", &allocate_bytes);
  function("loadModel", &load);
  function("supportedModelTypes", &supported_model_types);
  function("readTensors", &read_tensors, allow_raw_pointers());
}
