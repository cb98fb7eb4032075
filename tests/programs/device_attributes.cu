// What the device says of itself: every attribute cudaDeviceGetAttribute
// knows (CUDA 13's cudaDeviceAttr, Reserved ones left out) and the
// properties no attribute gives. Its .expected is predatar's answer;
// bench/native/h100-device-attributes.txt is what an H100 (80GB HBM3)
// printed, and bench/native/compare_attributes.py --check (a ctest) keeps
// the two equal but for the differences it lists with their reasons.
#include <cuda_runtime.h>

#include <cstdio>

#define ATTR(name) {cudaDevAttr##name, #name}

struct Attribute {
  cudaDeviceAttr attribute;
  const char* name;
};

static const Attribute kAttributes[] = {
    ATTR(MaxThreadsPerBlock),
    ATTR(MaxBlockDimX),
    ATTR(MaxBlockDimY),
    ATTR(MaxBlockDimZ),
    ATTR(MaxGridDimX),
    ATTR(MaxGridDimY),
    ATTR(MaxGridDimZ),
    ATTR(MaxSharedMemoryPerBlock),
    ATTR(TotalConstantMemory),
    ATTR(WarpSize),
    ATTR(MaxPitch),
    ATTR(MaxRegistersPerBlock),
    ATTR(ClockRate),
    ATTR(TextureAlignment),
    ATTR(GpuOverlap),
    ATTR(MultiProcessorCount),
    ATTR(KernelExecTimeout),
    ATTR(Integrated),
    ATTR(CanMapHostMemory),
    ATTR(ComputeMode),
    ATTR(MaxTexture1DWidth),
    ATTR(MaxTexture2DWidth),
    ATTR(MaxTexture2DHeight),
    ATTR(MaxTexture3DWidth),
    ATTR(MaxTexture3DHeight),
    ATTR(MaxTexture3DDepth),
    ATTR(MaxTexture2DLayeredWidth),
    ATTR(MaxTexture2DLayeredHeight),
    ATTR(MaxTexture2DLayeredLayers),
    ATTR(SurfaceAlignment),
    ATTR(ConcurrentKernels),
    ATTR(EccEnabled),
    ATTR(PciBusId),
    ATTR(PciDeviceId),
    ATTR(TccDriver),
    ATTR(MemoryClockRate),
    ATTR(GlobalMemoryBusWidth),
    ATTR(L2CacheSize),
    ATTR(MaxThreadsPerMultiProcessor),
    ATTR(AsyncEngineCount),
    ATTR(UnifiedAddressing),
    ATTR(MaxTexture1DLayeredWidth),
    ATTR(MaxTexture1DLayeredLayers),
    ATTR(MaxTexture2DGatherWidth),
    ATTR(MaxTexture2DGatherHeight),
    ATTR(MaxTexture3DWidthAlt),
    ATTR(MaxTexture3DHeightAlt),
    ATTR(MaxTexture3DDepthAlt),
    ATTR(PciDomainId),
    ATTR(TexturePitchAlignment),
    ATTR(MaxTextureCubemapWidth),
    ATTR(MaxTextureCubemapLayeredWidth),
    ATTR(MaxTextureCubemapLayeredLayers),
    ATTR(MaxSurface1DWidth),
    ATTR(MaxSurface2DWidth),
    ATTR(MaxSurface2DHeight),
    ATTR(MaxSurface3DWidth),
    ATTR(MaxSurface3DHeight),
    ATTR(MaxSurface3DDepth),
    ATTR(MaxSurface1DLayeredWidth),
    ATTR(MaxSurface1DLayeredLayers),
    ATTR(MaxSurface2DLayeredWidth),
    ATTR(MaxSurface2DLayeredHeight),
    ATTR(MaxSurface2DLayeredLayers),
    ATTR(MaxSurfaceCubemapWidth),
    ATTR(MaxSurfaceCubemapLayeredWidth),
    ATTR(MaxSurfaceCubemapLayeredLayers),
    ATTR(MaxTexture1DLinearWidth),
    ATTR(MaxTexture2DLinearWidth),
    ATTR(MaxTexture2DLinearHeight),
    ATTR(MaxTexture2DLinearPitch),
    ATTR(MaxTexture2DMipmappedWidth),
    ATTR(MaxTexture2DMipmappedHeight),
    ATTR(ComputeCapabilityMajor),
    ATTR(ComputeCapabilityMinor),
    ATTR(MaxTexture1DMipmappedWidth),
    ATTR(StreamPrioritiesSupported),
    ATTR(GlobalL1CacheSupported),
    ATTR(LocalL1CacheSupported),
    ATTR(MaxSharedMemoryPerMultiprocessor),
    ATTR(MaxRegistersPerMultiprocessor),
    ATTR(ManagedMemory),
    ATTR(IsMultiGpuBoard),
    ATTR(MultiGpuBoardGroupID),
    ATTR(HostNativeAtomicSupported),
    ATTR(SingleToDoublePrecisionPerfRatio),
    ATTR(PageableMemoryAccess),
    ATTR(ConcurrentManagedAccess),
    ATTR(ComputePreemptionSupported),
    ATTR(CanUseHostPointerForRegisteredMem),
    ATTR(CooperativeLaunch),
    ATTR(MaxSharedMemoryPerBlockOptin),
    ATTR(CanFlushRemoteWrites),
    ATTR(HostRegisterSupported),
    ATTR(PageableMemoryAccessUsesHostPageTables),
    ATTR(DirectManagedMemAccessFromHost),
    ATTR(MaxBlocksPerMultiprocessor),
    ATTR(MaxPersistingL2CacheSize),
    ATTR(MaxAccessPolicyWindowSize),
    ATTR(SparseCudaArraySupported),
    ATTR(HostRegisterReadOnlySupported),
    ATTR(TimelineSemaphoreInteropSupported),
    ATTR(MemoryPoolsSupported),
    ATTR(GPUDirectRDMASupported),
    ATTR(GPUDirectRDMAFlushWritesOptions),
    ATTR(GPUDirectRDMAWritesOrdering),
    ATTR(MemoryPoolSupportedHandleTypes),
    ATTR(ClusterLaunch),
    ATTR(DeferredMappingCudaArraySupported),
    ATTR(IpcEventSupport),
    ATTR(MemSyncDomainCount),
    ATTR(NumaConfig),
    ATTR(NumaId),
    ATTR(MpsEnabled),
    ATTR(HostNumaId),
    ATTR(D3D12CigSupported),
    ATTR(VulkanCigSupported),
    ATTR(GpuPciDeviceId),
    ATTR(GpuPciSubsystemId),
    ATTR(HostNumaMemoryPoolsSupported),
    ATTR(HostNumaMultinodeIpcSupported),
    ATTR(HostMemoryPoolsSupported),
    ATTR(OnlyPartialHostNativeAtomicSupported),
};

int main() {
  for (const Attribute& a : kAttributes) {
    int value = 0;
    cudaError_t e = cudaDeviceGetAttribute(&value, a.attribute, 0);
    if (e == cudaSuccess)
      std::printf("%s: %d\n", a.name, value);
    else
      std::printf("%s: %s\n", a.name, cudaGetErrorName(e));
    cudaGetLastError();
  }
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return 1;
  std::printf("totalGlobalMem: %zu\nsharedMemPerBlock: %zu\nregsPerBlock: %d\nmemPitch: %zu\n", p.totalGlobalMem,
              p.sharedMemPerBlock, p.regsPerBlock, p.memPitch);
  std::printf("totalConstMem: %zu\ntextureAlignment: %zu\ntexturePitchAlignment: %zu\nsurfaceAlignment: %zu\n",
              p.totalConstMem, p.textureAlignment, p.texturePitchAlignment, p.surfaceAlignment);
  std::printf("l2CacheSize: %d\npersistingL2CacheMaxSize: %d\naccessPolicyMaxWindowSize: %d\n", p.l2CacheSize,
              p.persistingL2CacheMaxSize, p.accessPolicyMaxWindowSize);
  std::printf("sharedMemPerMultiprocessor: %zu\nsharedMemPerBlockOptin: %zu\nreservedSharedMemPerBlock: %zu\n",
              p.sharedMemPerMultiprocessor, p.sharedMemPerBlockOptin, p.reservedSharedMemPerBlock);
  std::printf("maxTexture1D: %d, mipmap %d, cubemap %d\n", p.maxTexture1D, p.maxTexture1DMipmap,
              p.maxTextureCubemap);
  std::printf("maxTexture2D: %d %d, mipmap %d %d, linear %d %d %d, gather %d %d\n", p.maxTexture2D[0],
              p.maxTexture2D[1], p.maxTexture2DMipmap[0], p.maxTexture2DMipmap[1], p.maxTexture2DLinear[0],
              p.maxTexture2DLinear[1], p.maxTexture2DLinear[2], p.maxTexture2DGather[0], p.maxTexture2DGather[1]);
  std::printf("maxTexture3D: %d %d %d, alt %d %d %d\n", p.maxTexture3D[0], p.maxTexture3D[1], p.maxTexture3D[2],
              p.maxTexture3DAlt[0], p.maxTexture3DAlt[1], p.maxTexture3DAlt[2]);
  std::printf("maxTextureLayered: 1D %d %d, 2D %d %d %d, cubemap %d %d\n", p.maxTexture1DLayered[0],
              p.maxTexture1DLayered[1], p.maxTexture2DLayered[0], p.maxTexture2DLayered[1], p.maxTexture2DLayered[2],
              p.maxTextureCubemapLayered[0], p.maxTextureCubemapLayered[1]);
  std::printf("maxSurface: 1D %d, 2D %d %d, 3D %d %d %d, cubemap %d\n", p.maxSurface1D, p.maxSurface2D[0],
              p.maxSurface2D[1], p.maxSurface3D[0], p.maxSurface3D[1], p.maxSurface3D[2], p.maxSurfaceCubemap);
  std::printf("maxSurfaceLayered: 1D %d %d, 2D %d %d %d, cubemap %d %d\n", p.maxSurface1DLayered[0],
              p.maxSurface1DLayered[1], p.maxSurface2DLayered[0], p.maxSurface2DLayered[1], p.maxSurface2DLayered[2],
              p.maxSurfaceCubemapLayered[0], p.maxSurfaceCubemapLayered[1]);
  size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) return 1;
  std::printf("cudaMemGetInfo total: %zu\n", total);
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  std::printf("runtime version: %d\n", runtime);
  return 0;
}
