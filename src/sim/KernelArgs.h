// Kernel arguments from command-line specs, for `predatar kernel`:
//
//   --grid X[,Y[,Z]]  --block X[,Y[,Z]]           parseDim3
//   buf:TYPE:COUNT[:INIT]                        a device buffer of COUNT elements
//       INIT = zeros (default) | iota | random[:SEED] | fill:VALUE | file:PATH
//       random: integers uniform in [0, 1000), floats uniform in [0, 1); SEED default 0
//       file: raw little-endian elements; the file must hold COUNT elements
//   scalar:TYPE:VALUE                            a value parameter
//   bytes:SIZE[:HEX]                             a by-value parameter of SIZE bytes (a struct):
//       HEX gives its first bytes in memory order, two digits each ("0a000000" is the
//       int 10); the rest are zero
//   TYPE = i8 u8 i16 u16 i32 u32 i64 u64 f32 f64, also int uint long ulong
//          char uchar short ushort float double s32 s64 ...
//
// KernelArgs::build checks the specs against the kernel's parameters,
// allocates and initializes the buffers in DeviceMemory and gives the
// pointer vector LaunchConfig::args expects; dump() prints the buffers after
// the run so results can be checked.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "events/Event.h"
#include "sim/Device.h"

namespace predatar::sim {

absl::StatusOr<Dim3> parseDim3(std::string_view text);

enum class ElementType : uint8_t { I8, U8, I16, U16, I32, U32, I64, U64, F32, F64 };
uint32_t elementBytes(ElementType t);
const char* toString(ElementType t);
absl::StatusOr<ElementType> parseElementType(std::string_view name);

struct ArgSpec {
  enum class Kind : uint8_t { Buffer, Scalar, Bytes };
  enum class Init : uint8_t { Zeros, Iota, Random, Fill, File };
  Kind kind = Kind::Buffer;
  ElementType type = ElementType::I32;
  uint64_t count = 0;      // buffer elements; bytes of a Bytes parameter
  std::vector<uint8_t> bytes;  // Bytes: its leading bytes
  Init init = Init::Zeros;
  uint64_t seed = 0;       // random
  std::string path;        // file
  std::string value;       // scalar / fill value, as written
  std::string text;        // the whole spec
};

absl::StatusOr<ArgSpec> parseArgSpec(std::string_view spec);

class KernelArgs {
 public:
  struct Buffer {
    size_t param = 0;        // parameter index
    std::string name;        // parameter name
    ElementType type = ElementType::I32;
    uint64_t count = 0;
    uint64_t address = 0;    // device (= host) address
  };

  static absl::StatusOr<KernelArgs> build(const KernelSignature& kernel, const std::vector<ArgSpec>& specs,
                                          DeviceMemory& memory);

  // One pointer per parameter, for LaunchConfig::args (valid while this object lives).
  const std::vector<const void*>& pointers() const { return pointers_; }
  const std::vector<Buffer>& buffers() const { return buffers_; }

  // "name (param N) TYPE[COUNT]: v0 v1 ..." per buffer, at most maxElements values each.
  std::string dump(size_t maxElements = SIZE_MAX) const;
  static std::string format(const Buffer& buffer, size_t maxElements = SIZE_MAX);
  // Raw little-endian bytes of one buffer.
  static absl::Status writeBinary(const Buffer& buffer, const std::string& path);

  KernelArgs() = default;
  KernelArgs(KernelArgs&&) = default;
  KernelArgs& operator=(KernelArgs&&) = default;

 private:
  std::vector<std::vector<uint8_t>> values_;  // per parameter: its bytes
  std::vector<const void*> pointers_;
  std::vector<Buffer> buffers_;
};

}  // namespace predatar::sim
