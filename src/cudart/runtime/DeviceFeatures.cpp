#include "cudart/runtime/DeviceFeatures.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "cudart/runtime/Api.h"
#include "cudart/runtime/Graph.h"
#include "cudart/runtime/Runtime.h"
#include "cudart/runtime/Unsupported.h"

namespace predatar::cudart {
namespace {

constexpr auto kCooperativeLaunchTooLarge = static_cast<cudaError_t>(720);  // cudaErrorCooperativeLaunchTooLarge

// The text of `.entry mangled` up to the next entry (its body and what
// follows up to there): where a use of a feature belongs to the kernel.
std::string_view entryText(std::string_view ptx, const std::string& mangled) {
  size_t at = 0;
  while ((at = ptx.find(".entry", at)) != std::string_view::npos) {
    size_t name = ptx.find_first_not_of(" \t", at + 6);
    if (name != std::string_view::npos && ptx.substr(name, mangled.size()) == mangled &&
        (name + mangled.size() == ptx.size() || ptx[name + mangled.size()] == '(' ||
         ptx[name + mangled.size()] == ' ' || ptx[name + mangled.size()] == '\n'))
      break;
    at += 6;
  }
  if (at == std::string_view::npos) return ptx;
  size_t end = ptx.find(".entry", at + 6);
  return ptx.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
}

}  // namespace

std::string unsupportedKernelFeature(const std::string& ptx, const std::string& mangled) {
  // CUDA 11's device runtime (CDP1: cudaDeviceSynchronize in kernels); CUDA 12+'s __cudaCDP2* run.
  std::string_view text = entryText(ptx, mangled);
  if (text.find("cudaLaunchDevice") != std::string_view::npos && text.find("__cudaCDP2") == std::string_view::npos)
    return "dynamic parallelism of CUDA 11 (cudaLaunchDevice without __cudaCDP2) is not supported";
  return {};
}

bool& cooperativeLaunchPending() {
  thread_local bool pending = false;
  return pending;
}

bool& programmaticLaunchPending() {
  thread_local bool pending = false;
  return pending;
}

void prepareCooperativeLaunch(sim::LaunchConfig& config, sim::DeviceMemory& memory) {
  // One workspace for the process: launches run one at a time, and every
  // access to it is a strong atomic, so reusing it orders nothing by mistake.
  static uint64_t workspace = 0;
  if (workspace == 0) workspace = memory.allocate(sim::kGridWorkspaceBytes, "grid barrier workspace");
  if (workspace != 0) sim::makeCooperative(config, workspace);
  else config.schedule.maxResidentBlocks = sim::kAllBlocksResident;
}

int residentBlocksPerSm(int threadsPerBlock, uint64_t sharedBytes) {
  return sim::occupancyBlocksPerSm(threadsPerBlock, sharedBytes);
}

// (Listed among the run's refusals, so the run does not look clean.)
static cudaError_t refuseLaunchAttribute(const char* what) {
  return cudaError_t(unsupported(absl::StrCat("cudaLaunchKernelEx with ", what).c_str()));
}

}  // namespace predatar::cudart

using namespace predatar::cudart;

extern "C" {

// All blocks of a cooperative grid must be resident at once: a larger grid
// fails as on a GPU (cudaErrorCooperativeLaunchTooLarge).
cudaError_t cudaLaunchCooperativeKernel(
    const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem, cudaStream_t stream) {
  {
    std::lock_guard lock(Runtime::get().mutex());
    KernelRecord* k = Runtime::get().kernelByHost(func);
    if (k == nullptr) return fail(cudaErrorInvalidDeviceFunction);
    predatar::sim::LaunchConfig config;
    config.grid = {gridDim.x, gridDim.y, gridDim.z};
    config.block = {blockDim.x, blockDim.y, blockDim.z};
    config.dynamicSharedBytes = uint32_t(sharedMem);
    if (absl::Status fits = predatar::sim::checkCooperativeGridFits(config, k->demangled); !fits.ok()) {
      std::fprintf(stderr, "predatar: cudaLaunchCooperativeKernel: %s\n", std::string(fits.message()).c_str());
      return fail(kCooperativeLaunchTooLarge);
    }
  }
  cooperativeLaunchPending() = true;
  cudaError_t result = cudaLaunchKernel(func, gridDim, blockDim, args, sharedMem, stream);
  cooperativeLaunchPending() = false;
  return result;
}

PREDATAR_CUDART_API cudaError_t cudaLaunchCooperativeKernel_ptsz(
    const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem, cudaStream_t stream) {
  return cudaLaunchCooperativeKernel(func, gridDim, blockDim, args, sharedMem,
                                     stream == nullptr ? reinterpret_cast<cudaStream_t>(StreamOrder::kPerThread)
                                                       : stream);
}

// The extensible launch: the configuration's attributes say how. Those that
// only tune performance are accepted; those that would change what may
// overlap or run together, and that the emulator does not model, are refused
// by name (a launch checked as if they were not there would check another
// program).
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args) {
  if (config == nullptr || (config->numAttrs > 0 && config->attrs == nullptr)) return fail(cudaErrorInvalidValue);
  bool cooperative = false, programmatic = false;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const cudaLaunchAttribute& a = config->attrs[i];
    switch (a.id) {
      case 0:   // Ignore
      case 1:   // AccessPolicyWindow (L2 persistence: a cache hint)
      case 3:   // SynchronizationPolicy
      case 5:   // ClusterSchedulingPolicyPreference
      case 8:   // Priority
      case 9:   // MemSyncDomainMap
      case 10:  // MemSyncDomain
        break;
      case 2: cooperative = a.val.cooperative != 0; break;
      case 4:  // ClusterDimension: a cluster of one block is no cluster
        if (a.val.clusterDim.x * a.val.clusterDim.y * a.val.clusterDim.z > 1)
          return refuseLaunchAttribute("cudaLaunchAttributeClusterDimension (thread block clusters)");
        break;
      case 6:  // ProgrammaticStreamSerialization: the launch may overlap the previous one (Runtime::launch)
        programmatic = a.val.programmaticStreamSerializationAllowed != 0;
        break;
      default:
        return refuseLaunchAttribute(absl::StrCat("launch attribute ", a.id).c_str());
    }
  }
  // A captured graph runs its kernel nodes as ordinary launches: the
  // programmatic edge would be lost, and with it the overlap check.
  if (programmatic && isCapturing(config->stream))
    return refuseLaunchAttribute(
        "cudaLaunchAttributeProgrammaticStreamSerialization (programmatic dependent launch) in stream capture");
  programmaticLaunchPending() = programmatic;
  cudaError_t result =
      cooperative ? cudaLaunchCooperativeKernel(func, config->gridDim, config->blockDim, args,
                                                config->dynamicSmemBytes, config->stream)
                  : cudaLaunchKernel(func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
                                     config->stream);
  programmaticLaunchPending() = false;
  return result;
}

PREDATAR_CUDART_API cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* config, const void* func,
                                                         void** args) {
  if (config == nullptr) return fail(cudaErrorInvalidValue);
  cudaLaunchConfig_t own = *config;
  if (own.stream == nullptr) own.stream = reinterpret_cast<cudaStream_t>(StreamOrder::kPerThread);
  return cudaLaunchKernelExC(&own, func, args);
}

}  // extern "C"
