// JSON text in and out for the readers of config.json, safetensors headers and shard indexes
// (model_config.cpp, safetensors.cpp, checkpoint.cpp, sequence_classification.cpp). Internal header.
//
//   parse_json(text)     nlohmann::json::parse of a std::string. Every reader goes through this one
//                        call, so the WASM binary holds one parser instantiation (each input type
//                        instantiates the whole lexer/parser again, ~10 KB).
//   describe_json(v)     v for an error message, bounded in depth (2) and width (16), strings cut
//                        at 64 bytes. Never recursive past depth 2: a hostile "[[[[…" value would
//                        overflow the stack in json::dump() (found by fuzzing). Written without
//                        json::dump(), whose serializer and float printer are ~7 KB of WASM.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace relpos::io {

nlohmann::json parse_json(const std::string& text);
std::string describe_json(const nlohmann::json& value);

}  // namespace relpos::io
