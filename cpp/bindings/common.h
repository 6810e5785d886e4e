// Shared helpers for the Embind bindings (cpp/bindings/*.cpp).
//
// Error convention: a bound function that can fail returns an emscripten::val that is either its
// result or a JavaScript Error object (TypeError / RangeError / Error chosen by relpos::ErrorKind)
// carrying the C++ message. The C++ exception is caught and destroyed inside the call, so nothing
// unwinds through WebAssembly frames and no memory leaks; web/loader.js throws the returned Error.
// Pointers cross as plain numbers (byte addresses in the module's heap, from the module's malloc).
#pragma once

#include <emscripten/heap.h>
#include <emscripten/val.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "guard.h"
#include "relpos/error.h"

namespace relpos::bindings {

using emscripten::val;

// Size of the last allocation operator new could not satisfy (set by cpp/bindings/memory.cpp).
extern std::size_t last_failed_allocation;

// The RangeError message for std::bad_alloc / std::length_error: what was needed and the limit.
inline std::string out_of_memory_message(const char* what) {
  const std::string limit = std::to_string(emscripten_get_heap_max());
  const std::string heap = std::to_string(emscripten_get_heap_size());
  if (what == nullptr) {
    const std::size_t need = last_failed_allocation;
    last_failed_allocation = 0;
    return "relpos: out of WebAssembly memory: " +
           (need ? "could not allocate " + std::to_string(need) + " bytes" : std::string("an allocation failed")) +
           " with the heap at " + heap + " bytes, limit " + limit + " bytes";
  }
  return "relpos: out of WebAssembly memory: a requested size exceeds the limit of " + limit + " bytes (heap at " + heap +
         " bytes; " + what + ")";
}

// Runs f() (which returns val); any exception becomes the matching JS Error object, returned
// (guard.h). Out of memory (std::bad_alloc, std::length_error) is a RangeError; the module stays usable.
// Other standard exceptions keep their own message, as relpos's always name what was wrong.
template <class F>
val guarded(F&& f) {
  return guard(std::forward<F>(f), out_of_memory_message, "", "relpos: unknown C++ exception");
}

template <class T>
T* ptr(std::uintptr_t address) {
  return reinterpret_cast<T*>(address);
}
template <class T>
std::uintptr_t address(const T* p) {
  return reinterpret_cast<std::uintptr_t>(p);
}

// A fresh JS typed array (owned by the caller, independent of the heap) holding a copy of v.
template <class T>
val to_typed_array(const char* cls, const std::vector<T>& v) {
  return val::global(cls).new_(emscripten::typed_memory_view(v.size(), v.data()));
}
inline val to_js(const std::vector<float>& v) { return to_typed_array("Float32Array", v); }
inline val to_js(const std::vector<std::int32_t>& v) { return to_typed_array("Int32Array", v); }

}  // namespace relpos::bindings
