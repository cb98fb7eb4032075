// Reading a user's input file (PTX, litmus trace) with the checks a tool owes
// its user: a folder, a device that never ends (/dev/zero), a binary file or
// a file too large to hold are refused with a message naming the path,
// never read until memory runs out.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace predatar::io {

// Largest text input read whole (PTX and litmus files are far smaller).
inline constexpr uint64_t kMaxTextFileBytes = uint64_t(1) << 30;

// The whole file as text. Errors: cannot open, a folder, a NUL byte (not a
// text file), more than `maxBytes`.
absl::StatusOr<std::string> readTextFile(const std::string& path, uint64_t maxBytes = kMaxTextFileBytes);

}  // namespace predatar::io
