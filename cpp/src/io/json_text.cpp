#include "io/json_text.h"

#include <cstdio>
#include <cstdlib>

namespace relpos::io {

nlohmann::json parse_json(const std::string& text) { return nlohmann::json::parse(text); }

namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size() && i < 64; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') out += '\\';
    if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + (s.size() > 64 ? "…\"" : "\"");
}

std::string describe(const nlohmann::json& value, int depth) {
  switch (value.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::boolean: return value.get<bool>() ? "true" : "false";
    case nlohmann::json::value_t::number_integer: return std::to_string(value.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned: return std::to_string(value.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float: {
      const double d = value.get<double>();
      char text[32];
      std::snprintf(text, sizeof text, "%.15g", d);  // the shortest of 15 or 17 digits that reads back
      if (std::strtod(text, nullptr) != d) std::snprintf(text, sizeof text, "%.17g", d);
      return text;
    }
    case nlohmann::json::value_t::string: return quoted(value.get_ref<const std::string&>());
    case nlohmann::json::value_t::array:
    case nlohmann::json::value_t::object: break;
    default: return "<binary>";
  }
  const bool array = value.is_array();
  if (depth >= 2 || value.size() > 16) return array ? "[…]" : "{…}";
  std::string out = array ? "[" : "{";
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (it != value.begin()) out += ",";
    if (!array) out += quoted(it.key()) + ":";
    out += describe(*it, depth + 1);
  }
  return out + (array ? "]" : "}");
}

}  // namespace

std::string describe_json(const nlohmann::json& value) { return describe(value, 0); }

}  // namespace relpos::io
