// The progress line of a long launch under `predatar run` (--progress): a
// 16M-thread kernel takes minutes in the emulator, and a run that prints
// nothing for that long looks hung.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "sim/Device.h"

namespace predatar::cudart {

// Seconds between progress lines when PREDATAR_PROGRESS is not set.
inline constexpr double kDefaultProgressSeconds = 30;

// Prints "predatar: launch N KERNEL still running after T s: B of G blocks
// done, W warp instructions" to stderr (sim::ScheduleOptions::onProgress).
std::function<void(const sim::LaunchProgress&)> progressPrinter(size_t launch, std::string kernel);

}  // namespace predatar::cudart
