// cudaGetDeviceProperties, cudaDeviceGetAttribute and cudaChooseDevice: the
// device of DeviceProperties.h.
#include "cudart/runtime/DeviceProperties.h"

#include <cstdio>
#include <cstring>

#include "cudart/runtime/Api.h"
#include "cudart/runtime/ApiCommon.h"
#include "cudart/runtime/Runtime.h"

using namespace predatar::cudart;
using namespace predatar::cudart::api;

namespace {

// Attributes no cudaDeviceProp field gives here, as the H100 answered. The
// texture and surface limits are reported, not enforced.
struct AttributeValue {
  int attribute, value;
};
constexpr AttributeValue kFixedAttributes[] = {
    {21, 131072}, {22, 131072}, {23, 65536},                   // MaxTexture1DWidth, 2DWidth, 2DHeight
    {24, 16384}, {25, 16384}, {26, 16384},                     // MaxTexture3D Width, Height, Depth
    {27, 32768}, {28, 32768}, {29, 2048},                      // MaxTexture2DLayered Width, Height, Layers
    {42, 32768}, {43, 2048},                                   // MaxTexture1DLayered Width, Layers
    {45, 32768}, {46, 32768},                                  // MaxTexture2DGather Width, Height
    {47, 8192}, {48, 8192}, {49, 32768},                       // MaxTexture3D{Width,Height,Depth}Alt
    {52, 32768}, {53, 32768}, {54, 2046},                      // MaxTextureCubemap Width, Layered Width, Layers
    {55, 32768}, {56, 131072}, {57, 65536},                    // MaxSurface1DWidth, 2DWidth, 2DHeight
    {58, 16384}, {59, 16384}, {60, 16384},                     // MaxSurface3D Width, Height, Depth
    {61, 32768}, {62, 2048},                                   // MaxSurface1DLayered Width, Layers
    {63, 32768}, {64, 32768}, {65, 2048},                      // MaxSurface2DLayered Width, Height, Layers
    {66, 32768}, {67, 32768}, {68, 2046},                      // MaxSurfaceCubemap Width, Layered Width, Layers
    {69, 268435456}, {70, 131072}, {71, 65000}, {72, 2097120},  // MaxTexture1DLinearWidth, 2DLinear W, H, Pitch
    {73, 32768}, {74, 32768}, {77, 32768},                     // MaxTexture2DMipmapped W, H, 1DMipmappedWidth
    {87, 2},                                                   // SingleToDoublePrecisionPerfRatio
    {91, 1},                                                   // CanUseHostPointerForRegisteredMem (HostRegister.cpp)
    {99, 1}, {113, 1},                                         // HostRegisterSupported, HostRegisterReadOnlySupported
    {126, 4},                                                  // MemSyncDomainCount (domains are accepted as hints)
    {139, 590352606}, {140, 381751518},                        // GpuPciDeviceId, GpuPciSubsystemId (H100 SXM5)
};
// The H100 says 1 (or more) to these, and predatar says 0, because the emulator
// does not have them and a program that asks can take another path:
// ClusterLaunch (120: thread block clusters are refused by name),
// SparseCudaArraySupported (112), DeferredMappingCudaArraySupported (121),
// TimelineSemaphoreInteropSupported (114), GPUDirectRDMA* (116-118),
// MemoryPoolSupportedHandleTypes (119) and IpcEventSupport (125: one process),
// HostNumaMemoryPoolsSupported (142) and HostMemoryPoolsSupported (144: pools
// are of device memory). PciDeviceId (34) is the machine's slot, not the GPU's.
constexpr int kAttrSurfaceAlignment = 30, kAttrTexturePitchAlignment = 51, kAttrNumaId = 131;

int fixedAttribute(int attribute) {
  for (const AttributeValue& a : kFixedAttributes)
    if (a.attribute == attribute) return a.value;
  return 0;
}

// cudaDeviceProp's texture and surface limits: the attributes' values.
void setTextureLimits(cudaDeviceProp* p) {
  auto a = fixedAttribute;
  p->maxTexture1D = a(21), p->maxTexture1DMipmap = a(77), p->maxTextureCubemap = a(52);
  p->maxTexture2D[0] = a(22), p->maxTexture2D[1] = a(23);
  p->maxTexture2DMipmap[0] = a(73), p->maxTexture2DMipmap[1] = a(74);
  p->maxTexture2DLinear[0] = a(70), p->maxTexture2DLinear[1] = a(71), p->maxTexture2DLinear[2] = a(72);
  p->maxTexture2DGather[0] = a(45), p->maxTexture2DGather[1] = a(46);
  p->maxTexture3D[0] = a(24), p->maxTexture3D[1] = a(25), p->maxTexture3D[2] = a(26);
  p->maxTexture3DAlt[0] = a(47), p->maxTexture3DAlt[1] = a(48), p->maxTexture3DAlt[2] = a(49);
  p->maxTexture1DLayered[0] = a(42), p->maxTexture1DLayered[1] = a(43);
  p->maxTexture2DLayered[0] = a(27), p->maxTexture2DLayered[1] = a(28), p->maxTexture2DLayered[2] = a(29);
  p->maxTextureCubemapLayered[0] = a(53), p->maxTextureCubemapLayered[1] = a(54);
  p->maxSurface1D = a(55), p->maxSurfaceCubemap = a(66);
  p->maxSurface2D[0] = a(56), p->maxSurface2D[1] = a(57);
  p->maxSurface3D[0] = a(58), p->maxSurface3D[1] = a(59), p->maxSurface3D[2] = a(60);
  p->maxSurface1DLayered[0] = a(61), p->maxSurface1DLayered[1] = a(62);
  p->maxSurface2DLayered[0] = a(63), p->maxSurface2DLayered[1] = a(64), p->maxSurface2DLayered[2] = a(65);
  p->maxSurfaceCubemapLayered[0] = a(67), p->maxSurfaceCubemapLayered[1] = a(68);
}

}  // namespace

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
  if (p == nullptr) return fail(cudaErrorInvalidValue);
  if (device < 0 || device >= deviceCount()) return fail(cudaErrorInvalidDevice);
  std::memset(p, 0, sizeof *p);
  std::snprintf(p->name, sizeof p->name, "PreDataR emulated GPU (sm_%d%d)", kMajor, kMinor);
  std::memcpy(p->uuid.bytes, "PreDataR-emu-gpu", 16);
  p->totalGlobalMem = kGlobalMemory;
  p->sharedMemPerBlock = kSharedPerBlock;
  p->regsPerBlock = 65536;
  p->warpSize = 32;
  p->memPitch = 2147483647;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = 1024;
  p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647;
  p->maxGridSize[1] = 65535;
  p->maxGridSize[2] = 65535;
  p->totalConstMem = 65536;
  p->major = kMajor;
  p->minor = kMinor;
  p->textureAlignment = 512;
  p->texturePitchAlignment = 32;
  p->multiProcessorCount = kMultiprocessors;
  p->canMapHostMemory = 1;
  p->surfaceAlignment = 512;
  p->concurrentKernels = 1;
  p->asyncEngineCount = 3;
  p->unifiedAddressing = 1;
  p->memoryBusWidth = 5120;
  p->l2CacheSize = 50 * 1024 * 1024;
  p->persistingL2CacheMaxSize = kPersistingL2CacheMax;
  p->accessPolicyMaxWindowSize = kAccessPolicyMaxWindow;
  p->ECCEnabled = 1;
  p->maxThreadsPerMultiProcessor = 2048;
  p->streamPrioritiesSupported = 1;
  p->globalL1CacheSupported = 1;
  p->localL1CacheSupported = 1;
  p->sharedMemPerMultiprocessor = kSharedPerSm;
  p->regsPerMultiprocessor = 65536;
  p->managedMemory = 1;
  p->hostNativeAtomicSupported = 0;
  p->concurrentManagedAccess = 1;
  p->computePreemptionSupported = 1;
  p->cooperativeLaunch = 1;
  p->sharedMemPerBlockOptin = kSharedPerBlockOptin;
  p->maxBlocksPerMultiProcessor = 32;
  p->reservedSharedMemPerBlock = 1024;
  p->memoryPoolsSupported = 1;
  p->clusterLaunch = 0;
  p->deviceNumaId = -1;
  p->hostNumaId = -1;
  setTextureLimits(p);
  return cudaSuccess;
}

// The device whose properties best match `prop`: with one device, that one,
// whatever `prop` asks (the real runtime, too, answers its best match, not an
// error, when no device meets every property).
cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp* prop) {
  if (device == nullptr || prop == nullptr) return fail(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, int attr, int device) {
  if (value == nullptr) return fail(cudaErrorInvalidValue);
  if (device < 0 || device >= deviceCount()) return fail(cudaErrorInvalidDevice);
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, device);
  int v = 0;
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: v = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: v = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: v = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: v = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: v = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: v = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: v = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: v = int(p.sharedMemPerBlock); break;
    case cudaDevAttrTotalConstantMemory: v = int(p.totalConstMem); break;
    case cudaDevAttrWarpSize: v = 32; break;
    case cudaDevAttrMaxPitch: v = int(p.memPitch); break;
    case cudaDevAttrMaxRegistersPerBlock: v = p.regsPerBlock; break;
    case cudaDevAttrClockRate: v = kClockKHz; break;
    case cudaDevAttrTextureAlignment: v = int(p.textureAlignment); break;
    case cudaDevAttrGpuOverlap: v = 1; break;
    case cudaDevAttrMultiProcessorCount: v = p.multiProcessorCount; break;
    case cudaDevAttrKernelExecTimeout: v = 0; break;
    case cudaDevAttrIntegrated: v = 0; break;
    case cudaDevAttrCanMapHostMemory: v = 1; break;
    case cudaDevAttrComputeMode: v = 0; break;
    case cudaDevAttrConcurrentKernels: v = 1; break;
    case cudaDevAttrEccEnabled: v = p.ECCEnabled; break;
    case cudaDevAttrPciBusId: case cudaDevAttrPciDeviceId: case cudaDevAttrPciDomainId: v = 0; break;
    case cudaDevAttrMemoryClockRate: v = kMemoryClockKHz; break;
    case cudaDevAttrGlobalMemoryBusWidth: v = p.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: v = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: v = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrAsyncEngineCount: v = p.asyncEngineCount; break;
    case cudaDevAttrUnifiedAddressing: v = 1; break;
    case cudaDevAttrComputeCapabilityMajor: v = kMajor; break;
    case cudaDevAttrComputeCapabilityMinor: v = kMinor; break;
    case cudaDevAttrStreamPrioritiesSupported: v = 1; break;
    case cudaDevAttrGlobalL1CacheSupported: case cudaDevAttrLocalL1CacheSupported: v = 1; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: v = int(p.sharedMemPerMultiprocessor); break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: v = p.regsPerMultiprocessor; break;
    case cudaDevAttrManagedMemory: v = 1; break;
    case cudaDevAttrIsMultiGpuBoard: v = 0; break;
    case cudaDevAttrHostNativeAtomicSupported: v = 0; break;
    case cudaDevAttrPageableMemoryAccess: v = 0; break;
    case cudaDevAttrConcurrentManagedAccess: v = 1; break;
    case cudaDevAttrComputePreemptionSupported: v = 1; break;
    case cudaDevAttrCooperativeLaunch: v = 1; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: v = int(p.sharedMemPerBlockOptin); break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: v = p.maxBlocksPerMultiProcessor; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: v = int(p.reservedSharedMemPerBlock); break;
    case cudaDevAttrMemoryPoolsSupported: v = 1; break;
    case cudaDevAttrMaxPersistingL2CacheSize: v = p.persistingL2CacheMaxSize; break;
    case cudaDevAttrMaxAccessPolicyWindowSize: v = p.accessPolicyMaxWindowSize; break;
    case kAttrSurfaceAlignment: v = int(p.surfaceAlignment); break;
    case kAttrTexturePitchAlignment: v = int(p.texturePitchAlignment); break;
    case kAttrNumaId: v = p.deviceNumaId; break;
    default: v = fixedAttribute(attr); break;
  }
  *value = v;
  return cudaSuccess;
}

