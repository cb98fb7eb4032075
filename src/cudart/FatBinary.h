// Reader for the CUDA fat binaries that nvcc embeds in host programs: the
// wrapper `__cudaRegisterFatBinary` receives, the fatbin containers it points
// to and their entries (PTX text or ELF cubins), decompressed.
//
// Layout (little endian, as nvcc 12/13 write it):
//   wrapper    { u32 magic 0x466243b1; u32 version (1, or 2 = -rdc link);
//                const void* data; void* filename_or_fatbins }
//              version 2: filename_or_fatbins is a NULL-terminated array of
//              the relocatable objects' fatbins (where -rdc PTX lives).
//   container  { u32 magic 0xBA55ED50; u16 version; u16 headerSize;
//                u64 fatSize }   then fatSize bytes of entries
//   entry      +0x00 u16 kind (1 PTX, 2 ELF)   +0x02 u16 version
//              +0x04 u32 headerSize            +0x08 u64 payloadSize
//              +0x10 u32 compressedSize        +0x14 u32 optionsOffset
//              +0x18 u16 minor  +0x1a u16 major (PTX ISA version for PTX)
//              +0x1c u32 arch (sm number)      +0x20 u32 nameOffset
//              +0x24 u32 nameLength            +0x28 u64 flags
//              +0x30 u64 (zero)                +0x38 u64 uncompressedSize
//   flags: 0x2000 LZ4 block compression (nvcc --compress-mode=speed),
//          0x8000 zstd frame (the nvcc 13 default), neither: plain.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace predatar::cudart {

inline constexpr uint32_t kFatbinWrapperMagic = 0x466243b1;
inline constexpr uint32_t kFatbinMagic = 0xBA55ED50;
inline constexpr uint16_t kEntryPtx = 1;
inline constexpr uint16_t kEntryElf = 2;
inline constexpr uint64_t kFlagLz4 = 0x2000;
inline constexpr uint64_t kFlagZstd = 0x8000;
// predatar's own flag (nvcc never sets it): the PTX entry stands for machine
// code of sm_<arch>, which a program asked NVRTC for (src/libraries/nvrtc).
// selectPtx takes it only where NVIDIA's driver would load that cubin.
inline constexpr uint64_t kFlagStandsForCubin = uint64_t(1) << 48;

enum class Compression { None, Lz4, Zstd };
const char* toString(Compression compression);

struct FatBinEntry {
  uint16_t kind = 0;              // kEntryPtx or kEntryElf
  uint32_t arch = 0;              // 75 for sm_75 / compute_75
  uint16_t major = 0, minor = 0;  // PTX ISA version for PTX entries
  uint64_t flags = 0;
  Compression compression = Compression::None;
  std::string name;               // source/object name nvcc recorded ("a.cu")
  std::string options;            // ptxas options recorded with PTX ("-lineinfo ...")
  std::string payload;            // decompressed; PTX without trailing NULs
  uint32_t container = 0;         // which container of a wrapper/section it came from (0, 1, ...)

  bool isPtx() const { return kind == kEntryPtx; }
  bool isElf() const { return kind == kEntryElf; }
};

// Parses one container at `data` (its size comes from its header). `limit`
// bounds the bytes that may be read when known (e.g. a file).
absl::StatusOr<std::vector<FatBinEntry>> parseFatbinContainer(const void* data,
                                                              uint64_t limit = UINT64_MAX);

// Parses every container in a buffer (e.g. a program's .nv_fatbin section),
// skipping alignment padding between them.
absl::StatusOr<std::vector<FatBinEntry>> parseFatbinSection(std::string_view bytes);

// Parses what `__cudaRegisterFatBinary` receives: the wrapper, its container
// and, for version 2 (-rdc), the prelinked containers it lists.
absl::StatusOr<std::vector<FatBinEntry>> parseFatbinWrapper(const void* wrapper);

// The PTX of a module. With several PTX entries, the one for the lowest
// architecture >= sm_70 (independent thread scheduling), else the highest.
// When there is none, the error says how to rebuild with PTX embedded; so it
// does for PTX standing for a cubin (kFlagStandsForCubin) of an architecture
// the emulated device could not run.
absl::StatusOr<const FatBinEntry*> selectPtx(const std::vector<FatBinEntry>& entries,
                                             std::string_view moduleName = {});

// The PTX a module runs: selectPtx's choice, or, for a module built with
// -rdc=true from several translation units (one container each), each
// container's choice linked into one unit (ptx::linkUnits). `arch` gets the
// virtual architecture of the (first) PTX chosen.
struct ModulePtx {
  std::string text;
  uint32_t arch = 0;
  size_t units = 1;
};
absl::StatusOr<ModulePtx> selectModulePtx(const std::vector<FatBinEntry>& entries, std::string_view moduleName);

// LZ4 block format decoder (exposed for tests). `expectedSize` is the
// decompressed size the entry header records.
absl::StatusOr<std::string> lz4DecompressBlock(std::string_view in, uint64_t expectedSize);

}  // namespace predatar::cudart
