// relpos::Error — the one exception type the library throws.
//
// `kind` tells bindings which JavaScript error class to raise:
//   Type  -> TypeError   (wrong kind of argument)
//   Range -> RangeError  (a size that is negative, zero, too large or inconsistent)
//   Value -> Error       (anything else: unknown scheme, missing or mis-shaped table, bad file)
#pragma once

#include <stdexcept>
#include <string>

namespace relpos {

enum class ErrorKind { Type, Range, Value };

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

[[noreturn]] inline void fail_range(const std::string& message) { throw Error(ErrorKind::Range, message); }
[[noreturn]] inline void fail_value(const std::string& message) { throw Error(ErrorKind::Value, message); }

}  // namespace relpos
