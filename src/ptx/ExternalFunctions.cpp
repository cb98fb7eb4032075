// The external functions (declared, not defined, in the PTX) that the
// emulator implements itself.
#include <map>

#include "ptx/Ir.h"

namespace predatar::ptx {

Builtin builtinFor(std::string_view name) {
  static const std::map<std::string_view, Builtin> builtins = {
      {"vprintf", kVprintf},
      {"__assertfail", kAssertFail},
      {"__cudaCDP2GetParameterBufferV2", kCdpGetParameterBuffer},
      {"__cudaCDP2LaunchDeviceV2", kCdpLaunchDevice},
      {"__cudaCDP2StreamCreateWithFlags", kCdpStreamCreate},
      {"__cudaCDP2StreamDestroy", kCdpStreamDestroy},
      {"__cudaCDP2GetLastError", kCdpGetLastError},
      {"__cudaCDP2PeekAtLastError", kCdpGetLastError},
      {"__cudaCDP2GetErrorString", kCdpGetErrorString},
      {"__cudaCDP2Malloc", kCdpMalloc},
      {"__cudaCDP2Free", kCdpFree},
      {"__cudaCDP2MemcpyAsync", kCdpMemcpyAsync},
      {"__cudaCDP2MemsetAsync", kCdpMemsetAsync},
      {"malloc", kMalloc},
      {"free", kFree},
      {"cudaGraphSetConditional", kGraphSetConditional},
  };
  auto it = builtins.find(name);
  return it == builtins.end() ? kNotBuiltin : it->second;
}

}  // namespace predatar::ptx
