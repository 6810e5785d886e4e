// Paths and readers for the Hugging Face fixtures in ../shared/fixtures/hf (RELPOS_SHARED_DIR).
#pragma once

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace relpos_test {

inline std::string fixture_dir(const std::string& name) {
  return std::string(RELPOS_SHARED_DIR) + "/fixtures/hf/" + name + "/";
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(read_text(path)); }

}  // namespace relpos_test
