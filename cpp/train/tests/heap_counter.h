// Heap accounting for the training suite: heap_counter.cpp replaces the global operator new/delete
// of this test executable with counting versions (a 16-byte size header per block).
#pragma once

#include <cstddef>

namespace relpos::train::testing {
std::size_t heap_live_bytes();
std::size_t heap_peak_bytes();
void heap_reset_peak();  // peak := live
}  // namespace relpos::train::testing
