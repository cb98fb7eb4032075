// What each fuzz harness does with one input, shared by the libFuzzer entry
// points (Fuzz*.cpp, built with clang by `make fuzz`) and the regression test
// that replays the kept inputs of tests/reliability/fuzz with any compiler.
// An input may be refused with an error; it must never crash, hang or abort.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "cudart/FatBinary.h"
#include "litmus/Litmus.h"
#include "ptx/Parser.h"

namespace predatar::fuzz {

inline void fuzzPtx(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = ptx::parse(text, "fuzz.ptx");
  if (module.ok())
    for (uint32_t pc = 0; pc < module->code.size(); ++pc) (void)ptx::describe(*module, pc);
}

inline void fuzzLitmus(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto file = litmus::parse(text, "fuzz.litmus");
  if (file.ok() && file->trace.events.size() <= 4096) {
    auto detectors = litmus::analyze(*file, allDetectorNames(), DetectorOptions{});
    for (const auto& d : detectors) (void)litmus::racyLocations(*file, *d);
  }
}

inline void fuzzFatbin(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  auto entries = cudart::parseFatbinSection(bytes);
  if (entries.ok()) (void)cudart::selectPtx(*entries, "fuzz");
}

}  // namespace predatar::fuzz
