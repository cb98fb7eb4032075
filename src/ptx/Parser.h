// PTX text -> decoded IR (ptx/Ir.h). Errors are values naming the source,
// the PTX line, the function and what is unsupported.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "ptx/Ir.h"

namespace predatar::ptx {

absl::StatusOr<Module> parse(std::string_view text, std::string sourceName);

// Human-readable form of one decoded instruction (for errors and debugging).
std::string describe(const Module& module, uint32_t pc);

}  // namespace predatar::ptx
