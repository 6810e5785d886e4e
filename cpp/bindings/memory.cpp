// Replaceable global operator new for the WebAssembly package: identical to the default (malloc,
// std::bad_alloc on failure; no new_handler is ever installed) except that it records the size it
// could not allocate, so that guarded() in common.h can say how much was needed next to the
// heap limit. operator delete stays the default (free).
#include <cstdlib>
#include <new>

#include "common.h"

namespace relpos::bindings {
std::size_t last_failed_allocation = 0;
}

void* operator new(std::size_t n) {
  if (void* p = std::malloc(n ? n : 1)) return p;
  relpos::bindings::last_failed_allocation = n;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return ::operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return std::malloc(n ? n : 1); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return std::malloc(n ? n : 1); }
