// Prefix and suffix tests of tensor and file names (the checkpoint readers, task heads, streamed_names.cpp).
#pragma once

#include <string>
#include <string_view>

namespace relpos::io {

inline bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
inline bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace relpos::io
