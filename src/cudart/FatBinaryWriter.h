// Writes a fat binary container of PTX entries (layout in FatBinary.h), for
// code that hands the runtime PTX it did not get from nvcc's host code:
// predatar's own libraries (src/libraries) and the driver API's modules and
// linker (src/cudart/driver). Header-only: those are separate shared
// libraries, and the runtime's parser keeps its symbols to itself.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "cudart/FatBinary.h"

namespace predatar::cudart {

// One uncompressed compute_75 PTX entry per unit; several units are linked
// by the runtime as nvcc -rdc=true modules are. A unit's name (its file, as
// nvcc records the source file) names the module in the runtime's messages.
// `cubinArch` (NN of sm_NN, 0: none): the unit stands for a cubin of sm_NN
// (kFlagStandsForCubin).
struct PtxUnit {
  std::string_view ptx;
  std::string_view name = {};
  uint32_t cubinArch = 0;
};

inline std::vector<uint8_t> ptxContainer(const std::vector<PtxUnit>& units) {
  constexpr size_t kHeader = 16, kEntryHeader = 0x40;
  auto put = [](std::vector<uint8_t>& bytes, size_t at, auto value) {
    std::memcpy(bytes.data() + at, &value, sizeof value);
  };
  std::vector<uint8_t> bytes(kHeader, 0);
  for (const auto& [ptx, name, cubinArch] : units) {
    size_t payload = (ptx.size() + 1 + 7) / 8 * 8;  // NUL-terminated, 8-byte aligned
    size_t header = kEntryHeader + (name.empty() ? 0 : (name.size() + 1 + 7) / 8 * 8);  // the name after the fields
    size_t e = bytes.size();
    bytes.resize(e + header + payload, 0);
    put(bytes, e + 0x00, uint16_t(kEntryPtx));
    put(bytes, e + 0x02, uint16_t(0x0101));
    put(bytes, e + 0x04, uint32_t(header));
    put(bytes, e + 0x08, uint64_t(payload));
    put(bytes, e + 0x18, uint16_t(0));  // PTX ISA 9.0: informative (the .version line counts)
    put(bytes, e + 0x1a, uint16_t(9));
    put(bytes, e + 0x1c, uint32_t(cubinArch ? cubinArch : 75));
    if (cubinArch) put(bytes, e + 0x28, kFlagStandsForCubin);
    put(bytes, e + 0x38, uint64_t(payload));
    if (!name.empty()) {
      put(bytes, e + 0x20, uint32_t(kEntryHeader));
      put(bytes, e + 0x24, uint32_t(name.size()));
      std::memcpy(bytes.data() + e + kEntryHeader, name.data(), name.size());
    }
    std::memcpy(bytes.data() + e + header, ptx.data(), ptx.size());
  }
  put(bytes, 0, uint32_t(kFatbinMagic));
  put(bytes, 4, uint16_t(1));
  put(bytes, 6, uint16_t(kHeader));
  put(bytes, 8, uint64_t(bytes.size() - kHeader));
  return bytes;
}

// The bytes of the container at `image` (header and entries), or 0 when it is not one.
inline size_t containerBytes(const void* image) {
  uint32_t magic = 0;
  uint16_t header = 0;
  uint64_t entries = 0;
  std::memcpy(&magic, image, sizeof magic);
  if (magic != kFatbinMagic) return 0;
  std::memcpy(&header, static_cast<const uint8_t*>(image) + 6, sizeof header);
  std::memcpy(&entries, static_cast<const uint8_t*>(image) + 8, sizeof entries);
  return size_t(header) + size_t(entries);
}

}  // namespace predatar::cudart
