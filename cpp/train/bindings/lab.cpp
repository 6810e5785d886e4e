// Embind for the lab WebAssembly module (web/dist/relpos-lab-{simd,scalar}.{js,wasm}, built by
// cmake/lab_package.cmake; web/lab-worker.js is its only caller). One class:
//
//   LabSession.create(config)  → a LabSession or an Error object (TypeError / RangeError / Error by
//                                relpos::ErrorKind, through cpp/bindings/guard.h like the inference bindings)
//   session.step(n)            → Float64Array of the n (or fewer: the rest) losses, or an Error
//   session.learningRate(t), session.stepsDone(), session.flopsPerStep(), session.resolved()
//   session.evaluate(length, batches) → { length, sequences, accuracy, perSequence, perPosition: Float64Array }
//   session.attention(length, seed)   → { length, layers, heads, tokens, labels, predictions: Int32Array,
//                                         maps: Float32Array [layers·heads·length·length] }
//   session.delete()
// config: { task, k, symbols, scheme, trainLength, steps, batch, dim, layers, heads, lr, seed, maxLength }
// (the JS side has checked the kinds; C++ checks the ranges again). Typed arrays are copies.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <memory>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "bindings/guard.h"
#include "relpos/error.h"
#include "session.h"

using emscripten::val;

namespace relpos::train {
namespace {

using bindings::guard;

// Every LabSession method: C++ errors become JS Errors (cpp/bindings/guard.h), out of memory a RangeError.
template <class F>
val guarded(F&& f) {
  return guard(std::forward<F>(f), [](const char*) { return std::string("lab: out of WebAssembly memory (use a smaller batch, model or maxLength)"); },
               "lab: ", "lab: unknown C++ exception");
}

template <class T>
val typed_copy(const char* cls, const std::vector<T>& v) {
  val out = val::global(cls).new_(v.size());
  out.call<void>("set", val(emscripten::typed_memory_view(v.size(), v.data())));
  return out;
}

class LabSession {
 public:
  explicit LabSession(const SessionConfig& c) : s_(c) {}

  static val create(val cfg) {
    return guarded([&] {
      SessionConfig c;
      c.task = cfg["task"].as<std::string>();
      c.scheme = cfg["scheme"].as<std::string>();
      c.k = cfg["k"].as<int>();
      c.symbols = cfg["symbols"].as<int>();
      c.train_length = cfg["trainLength"].as<int>();
      c.steps = cfg["steps"].as<int>();
      c.batch = cfg["batch"].as<int>();
      c.dim = cfg["dim"].as<int>();
      c.layers = cfg["layers"].as<int>();
      c.heads = cfg["heads"].as<int>();
      c.lr = cfg["lr"].as<double>();
      c.seed = static_cast<std::uint64_t>(cfg["seed"].as<double>());
      c.max_length = cfg["maxLength"].as<int>();
      return val(std::make_unique<LabSession>(c));  // JS owns it (delete())
    });
  }

  val step(int n) {
    return guarded([&] { return typed_copy("Float64Array", s_.step(n)); });
  }
  double learning_rate(int t) const { return s_.learning_rate(t); }
  int steps_done() const { return s_.steps_done(); }
  double flops_per_step() const { return s_.flops_per_step(); }
  val resolved() const {
    const SessionConfig& c = s_.config();
    val o = val::object();
    o.set("maxLength", c.max_length);
    o.set("causal", s_.model_config().causal);
    return o;
  }

  val evaluate(int length, int batches) {
    return guarded([&] {
      const Evaluation e = s_.evaluate(length, batches);
      val o = val::object();
      o.set("length", e.length);
      o.set("sequences", e.sequences);
      o.set("accuracy", e.accuracy);
      o.set("perSequence", e.per_sequence);
      o.set("perPosition", typed_copy("Float64Array", e.per_position));
      return o;
    });
  }

  val attention(int length, double seed) {
    return guarded([&] {
      const AttentionSample a = s_.attention(length, static_cast<std::uint64_t>(seed));
      val o = val::object();
      o.set("length", a.length);
      o.set("layers", a.layers);
      o.set("heads", a.heads);
      o.set("tokens", typed_copy("Int32Array", a.tokens));
      o.set("labels", typed_copy("Int32Array", a.labels));
      o.set("predictions", typed_copy("Int32Array", a.predictions));
      o.set("maps", typed_copy("Float32Array", a.maps));
      return o;
    });
  }

 private:
  Session s_;
};

}  // namespace
}  // namespace relpos::train

EMSCRIPTEN_BINDINGS(relpos_lab) {
  using relpos::train::LabSession;
  emscripten::class_<LabSession>("LabSession")
      .class_function("create", &LabSession::create)
      .function("step", &LabSession::step)
      .function("learningRate", &LabSession::learning_rate)
      .function("stepsDone", &LabSession::steps_done)
      .function("flopsPerStep", &LabSession::flops_per_step)
      .function("resolved", &LabSession::resolved)
      .function("evaluate", &LabSession::evaluate)
      .function("attention", &LabSession::attention);
}
