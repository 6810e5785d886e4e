// The one try/catch of every Embind module (the inference bindings' common.h and the lab's
// cpp/train/bindings/lab.cpp): run f() and turn any C++ exception into the matching JavaScript Error
// object, returned as the call's value (TypeError / RangeError / Error by relpos::ErrorKind; out of
// memory — std::bad_alloc, std::length_error — is a RangeError whose message the module chooses).
// The exception is caught and destroyed inside the call: nothing unwinds through WebAssembly frames.
#pragma once

#include <emscripten/val.h>

#include <exception>
#include <new>
#include <stdexcept>
#include <string>

#include "relpos/error.h"

namespace relpos::bindings {

inline emscripten::val js_error(ErrorKind kind, const std::string& message) {
  const char* cls = kind == ErrorKind::Type ? "TypeError" : kind == ErrorKind::Range ? "RangeError" : "Error";
  return emscripten::val::global(cls).new_(message);
}

// The JS Error for the exception being handled (call only inside a catch block): rethrows it to
// classify it. oom(what): the RangeError message for out of memory, what = nullptr for std::bad_alloc,
// else std::length_error's what(). prefix goes before the messages of other standard exceptions
// ("" or "lab: "); unknown is the message of anything that is not a std::exception. One copy for the
// whole module (not a template), so each bound function adds only its try/catch(...).
inline emscripten::val current_exception_to_js(std::string (*oom)(const char*), const char* prefix, const char* unknown) {
  ErrorKind kind = ErrorKind::Value;
  std::string message;
  try {
    throw;
  } catch (const Error& e) {
    kind = e.kind();
    message = e.what();
  } catch (const std::bad_alloc&) {
    kind = ErrorKind::Range;
    message = oom(nullptr);
  } catch (const std::length_error& e) {
    kind = ErrorKind::Range;
    message = oom(e.what());
  } catch (const std::exception& e) {
    message = std::string(prefix) + e.what();
  } catch (...) {
    message = unknown;
  }
  return js_error(kind, message);
}

template <class F>
emscripten::val guard(F&& f, std::string (*oom)(const char*), const char* prefix, const char* unknown) {
  try {
    return f();
  } catch (...) {
    return current_exception_to_js(oom, prefix, unknown);
  }
}

}  // namespace relpos::bindings
