// GGUF fixtures (../shared/fixtures/gguf, written by llama.cpp's converter and quantizer) for the GGUF tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fixture_files.h"

namespace relpos_test {

inline std::string gguf_dir(const std::string& c) { return std::string(RELPOS_SHARED_DIR) + "/fixtures/gguf/" + c + "/"; }

inline std::vector<std::uint8_t> read_bytes(const std::string& path) {
  const std::string s = read_text(path);
  return std::vector<std::uint8_t>(s.begin(), s.end());
}

}  // namespace relpos_test
