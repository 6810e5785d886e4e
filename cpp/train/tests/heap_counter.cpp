// Counting global operator new/delete (see heap_counter.h). Every form routes through one pair.
#include "heap_counter.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<std::size_t> live{0}, peak{0};
constexpr std::size_t kHeader = 16;

void* counted_alloc(std::size_t n) {
  void* raw = std::malloc(n + kHeader);
  if (!raw) throw std::bad_alloc();
  *static_cast<std::size_t*>(raw) = n;
  const std::size_t now = live.fetch_add(n) + n;
  std::size_t p = peak.load();
  while (now > p && !peak.compare_exchange_weak(p, now)) {
  }
  return static_cast<char*>(raw) + kHeader;
}
void counted_free(void* p) {
  if (!p) return;
  char* raw = static_cast<char*>(p) - kHeader;
  live.fetch_sub(*reinterpret_cast<std::size_t*>(raw));
  std::free(raw);
}
}  // namespace

void* operator new(std::size_t n) { return counted_alloc(n); }
void* operator new[](std::size_t n) { return counted_alloc(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try { return counted_alloc(n); } catch (...) { return nullptr; }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  try { return counted_alloc(n); } catch (...) { return nullptr; }
}
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_free(p); }

namespace relpos::train::testing {
std::size_t heap_live_bytes() { return live.load(); }
std::size_t heap_peak_bytes() { return peak.load(); }
void heap_reset_peak() { peak.store(live.load()); }
}  // namespace relpos::train::testing
