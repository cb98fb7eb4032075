// The CUDA driver API: modules loaded while the program runs (a fat binary
// file, PTX through the JIT linker), cuLaunchKernel with kernelParams and
// with a packed argument buffer, module globals, memsets of a pattern,
// contexts, virtual memory (reserve, map, unmap, map again), arrays and
// texture objects, CUDA 12's libraries and cuLaunchKernelEx, graphs
// captured from a stream, stream-ordered allocation; a cubin alone is refused by name; a device assert is
// returned by the next synchronization. Two streams that write one buffer
// with nothing ordering them race, at units/driver_api_kernels.cu:15.
#include <cuda.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#define CHECK(call)                                                               \
  do {                                                                            \
    CUresult r_ = (call);                                                         \
    if (r_ != CUDA_SUCCESS) {                                                     \
      const char* name_ = nullptr;                                                \
      cuGetErrorName(r_, &name_);                                                 \
      std::printf("%s failed: %s (line %d)\n", #call, name_ ? name_ : "?", __LINE__); \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

// The path of a file beside this program (build.sh puts the modules there).
static std::string pathBesideProgram(const char* file) {
  char path[4096];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  std::string dir = n > 0 ? std::string(path, size_t(n)) : std::string("./x");
  return dir.substr(0, dir.rfind('/') + 1) + file;
}

// Its contents.
static std::string besideProgram(const char* file) {
  std::ifstream in(pathBesideProgram(file), std::ios::binary);
  std::ostringstream all;
  all << in.rdbuf();
  return all.str();
}

int main() {
  CHECK(cuInit(0));
  CUdevice device;
  CHECK(cuDeviceGet(&device, 0));
  char bus[32];
  int least, greatest;
  CHECK(cuDeviceGetPCIBusId(bus, sizeof bus, device));
  // Before any context: the device can be asked about, but a context query
  // fails (an H100 answers CUDA_ERROR_INVALID_CONTEXT, 201).
  std::printf("priorities without a context: %d\n", int(cuCtxGetStreamPriorityRange(&least, &greatest)));
  CUcontext context, other, popped, current;
  CHECK(cuCtxCreate(&context, nullptr, 0, device));
  CHECK(cuCtxGetStreamPriorityRange(&least, &greatest));
  unsigned domain, busNumber, slot, function;  // the machine's, so only its form is printed
  bool busWellFormed = std::sscanf(bus, "%4x:%2x:%2x.%1x", &domain, &busNumber, &slot, &function) == 4;
  std::printf("device: bus id well-formed %d, priorities %d to %d\n", busWellFormed, least, greatest);
  CHECK(cuCtxCreate(&other, nullptr, 0, device));
  CHECK(cuCtxPopCurrent(&popped));
  CHECK(cuCtxGetCurrent(&current));
  std::printf("contexts: popped the newer %d, current the first %d\n", popped == other, current == context);
  size_t heap;
  CHECK(cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 16 << 20));
  CHECK(cuCtxGetLimit(&heap, CU_LIMIT_MALLOC_HEAP_SIZE));
  std::printf("heap limit: %zu MiB\n", heap >> 20);
  CHECK(cuCtxDestroy(other));

  // A fat binary, as nvcc -fatbin wrote it.
  std::string fatbin = besideProgram("driver_api_kernels.fatbin");
  CUmodule module;
  CHECK(cuModuleLoadData(&module, fatbin.data()));
  CUfunction scale, increment, fetch, missing;
  CHECK(cuModuleGetFunction(&scale, module, "scale"));
  CHECK(cuModuleGetFunction(&increment, module, "increment"));
  CHECK(cuModuleGetFunction(&fetch, module, "fetch"));
  std::printf("missing kernel: %d\n", cuModuleGetFunction(&missing, module, "nope") == CUDA_ERROR_NOT_FOUND);

  unsigned n = 256;
  std::vector<float> host(n);
  for (unsigned i = 0; i < n; ++i) host[i] = float(i);
  CUdeviceptr data;
  CHECK(cuMemAlloc(&data, n * sizeof(float)));
  CHECK(cuMemcpyHtoD(data, host.data(), n * sizeof(float)));
  float two = 2.0f;
  void* params[] = {&data, &n, &two};
  CHECK(cuLaunchKernel(scale, n / 64, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr));
  // The same kernel with its arguments packed, each at its alignment.
  struct {
    CUdeviceptr data;
    unsigned n;
    float factor;
  } packed{data, n, 3.0f};
  size_t packedBytes = sizeof packed;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &packedBytes,
                   CU_LAUNCH_PARAM_END};
  CHECK(cuLaunchKernel(scale, n / 64, 1, 1, 64, 1, 1, 0, nullptr, nullptr, extra));
  CHECK(cuMemcpyDtoH(host.data(), data, n * sizeof(float)));
  std::printf("scaled: %g %g %g\n", host[1], host[10], host[255]);
  CUdeviceptr launches;
  size_t launchesBytes;
  int launchCount = 0;
  CHECK(cuModuleGetGlobal(&launches, &launchesBytes, module, "launches"));
  CHECK(cuMemcpyDtoH(&launchCount, launches, sizeof launchCount));
  std::printf("global: %zu bytes, %d launches\n", launchesBytes, launchCount);
  const char* scaleName = nullptr;
  CUmemorytype memoryType;
  CHECK(cuFuncGetName(&scaleName, scale));
  CHECK(cuPointerGetAttribute(&memoryType, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, data));
  std::printf("name: %s, device memory %d\n", scaleName, memoryType == CU_MEMORYTYPE_DEVICE);

  // CUDA 12's context-free loading: a library, its kernel, launched with cuLaunchKernelEx.
  CUlibrary library;
  CHECK(cuLibraryLoadData(&library, fatbin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  CUkernel kernel;
  CUfunction libraryScale;
  CHECK(cuLibraryGetKernel(&kernel, library, "scale"));
  CHECK(cuKernelGetFunction(&libraryScale, kernel));
  CUlaunchConfig config = {};
  config.gridDimX = n / 64;
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 64;
  config.blockDimY = config.blockDimZ = 1;
  float ten = 10.0f;
  void* tenParams[] = {&data, &n, &ten};
  CHECK(cuLaunchKernelEx(&config, libraryScale, tenParams, nullptr));
  CHECK(cuMemcpyDtoH(host.data(), data, n * sizeof(float)));
  std::printf("library: %g\n", host[1]);
  CHECK(cuLibraryUnload(library));

  // The same library from its file, with JIT options whose outputs are written back.
  CUlibrary fromFile;
  char errorLog[64] = "unset";
  CUjit_option jitOptions[] = {CU_JIT_WALL_TIME, CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* jitValues[] = {reinterpret_cast<void*>(uintptr_t(-1)), errorLog, reinterpret_cast<void*>(sizeof errorLog)};
  CHECK(cuLibraryLoadFromFile(&fromFile, pathBesideProgram("driver_api_kernels.fatbin").c_str(), jitOptions,
                              jitValues, 3, nullptr, nullptr, 0));
  float wallTime;
  std::memcpy(&wallTime, &jitValues[0], sizeof wallTime);
  std::printf("library from file: wall time %g ms, error log '%s'\n", wallTime, errorLog);
  CHECK(cuLibraryUnload(fromFile));

  // PTX through the JIT linker.
  std::string ptx = besideProgram("driver_api_kernels.ptx");
  char info[256] = "unset";
  CUjit_option options[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {info, reinterpret_cast<void*>(sizeof info)};
  CUlinkState link;
  CHECK(cuLinkCreate(2, options, values, &link));
  CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, ptx.data(), ptx.size() + 1, "driver_api_kernels.ptx", 0, nullptr,
                      nullptr));
  void* image;
  size_t imageBytes;
  CHECK(cuLinkComplete(link, &image, &imageBytes));
  CUmodule linked;
  CHECK(cuModuleLoadData(&linked, image));
  CHECK(cuLinkDestroy(link));
  CUfunction linkedScale;
  CHECK(cuModuleGetFunction(&linkedScale, linked, "scale"));
  float half = 0.5f;
  void* halfParams[] = {&data, &n, &half};
  CHECK(cuLaunchKernel(linkedScale, n / 64, 1, 1, 64, 1, 1, 0, nullptr, halfParams, nullptr));
  CHECK(cuMemcpyDtoH(host.data(), data, n * sizeof(float)));
  std::printf("linked: %g, info log '%s'\n", host[10], info);
  CHECK(cuModuleUnload(linked));
  std::printf("unloaded twice: %d\n", cuModuleUnload(linked) == CUDA_ERROR_INVALID_HANDLE);

  // A launch captured from a stream into a graph, and the graph launched twice.
  CUstream capturing;
  CHECK(cuStreamCreate(&capturing, CU_STREAM_NON_BLOCKING));
  CHECK(cuStreamBeginCapture(capturing, CU_STREAM_CAPTURE_MODE_GLOBAL));
  float twice = 2.0f;
  void* twiceParams[] = {&data, &n, &twice};
  CHECK(cuLaunchKernel(scale, n / 64, 1, 1, 64, 1, 1, 0, capturing, twiceParams, nullptr));
  CUgraph graph;
  CUgraphExec exec;
  CHECK(cuStreamEndCapture(capturing, &graph));
  CHECK(cuGraphInstantiate(&exec, graph, 0));
  CHECK(cuGraphLaunch(exec, capturing));
  CHECK(cuGraphLaunch(exec, capturing));
  CHECK(cuStreamSynchronize(capturing));
  CHECK(cuMemcpyDtoH(host.data(), data, n * sizeof(float)));
  std::printf("graph: %g\n", host[10]);
  CHECK(cuGraphExecDestroy(exec));
  CHECK(cuGraphDestroy(graph));

  // Stream-ordered allocation, and the allocation an address lies in.
  CUdeviceptr pooled, base;
  size_t rangeBytes;
  CHECK(cuMemAllocAsync(&pooled, 1000, capturing));
  CHECK(cuMemGetAddressRange(&base, &rangeBytes, pooled + 10));
  std::printf("range: base %d, %zu bytes\n", base == pooled, rangeBytes);
  CHECK(cuMemFreeAsync(pooled, capturing));
  CHECK(cuStreamSynchronize(capturing));
  CHECK(cuStreamDestroy(capturing));

  // A 32-bit pattern whose bytes differ.
  CUdeviceptr words;
  CHECK(cuMemAlloc(&words, 64 * sizeof(unsigned)));
  CHECK(cuMemsetD32(words, 0x01020304u, 64));
  unsigned word[64];
  CHECK(cuMemcpyDtoH(word, words, sizeof word));
  std::printf("memset: %08x %08x\n", word[0], word[63]);
  CHECK(cuMemsetD2D32(words, 8 * sizeof(unsigned), 0x0a0b0c0du, 4, 8));  // 8 rows of 8 words, 4 of each set
  CHECK(cuMemcpyDtoH(word, words, sizeof word));
  std::printf("memset 2D: %08x %08x %08x\n", word[3], word[4], word[59]);

  // Virtual memory: a physical allocation keeps its bytes from one mapping to the next.
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  size_t granularity;
  CHECK(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  CUdeviceptr range;
  CHECK(cuMemAddressReserve(&range, 2 * granularity, 0, 0, 0));
  CUmemGenericAllocationHandle physical;
  CHECK(cuMemCreate(&physical, granularity, &prop, 0));
  CHECK(cuMemMap(range, granularity, 0, physical, 0));
  CUmemAccessDesc access = {};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CHECK(cuMemSetAccess(range, granularity, &access, 1));
  CHECK(cuMemsetD32(range, 41, granularity / 4));
  unsigned count = unsigned(granularity / 4);
  void* incrementParams[] = {&range, &count};
  CHECK(cuLaunchKernel(increment, count / 256, 1, 1, 256, 1, 1, 0, nullptr, incrementParams, nullptr));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemUnmap(range, granularity));
  CHECK(cuMemMap(range + granularity, granularity, 0, physical, 0));
  CHECK(cuMemSetAccess(range + granularity, granularity, &access, 1));
  int mapped[2];
  CHECK(cuMemcpyDtoH(&mapped[0], range + granularity, sizeof(int)));
  CHECK(cuMemcpyDtoH(&mapped[1], range + 2 * granularity - sizeof(int), sizeof(int)));
  std::printf("remapped: %d %d\n", mapped[0], mapped[1]);
  CHECK(cuMemUnmap(range + granularity, granularity));
  CHECK(cuMemRelease(physical));
  CHECK(cuMemAddressFree(range, 2 * granularity));

  // A CUDA array sampled through a texture object.
  constexpr unsigned kWidth = 4, kHeight = 3;
  float texels[kHeight][kWidth];
  for (unsigned y = 0; y < kHeight; ++y)
    for (unsigned x = 0; x < kWidth; ++x) texels[y][x] = float(10 * y + x);
  CUDA_ARRAY_DESCRIPTOR arrayDesc = {};
  arrayDesc.Format = CU_AD_FORMAT_FLOAT;
  arrayDesc.NumChannels = 1;
  arrayDesc.Width = kWidth;
  arrayDesc.Height = kHeight;
  CUarray array;
  CHECK(cuArrayCreate(&array, &arrayDesc));
  CUDA_MEMCPY2D copy = {};
  copy.srcMemoryType = CU_MEMORYTYPE_HOST;
  copy.srcHost = texels;
  copy.srcPitch = sizeof texels[0];
  copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  copy.dstArray = array;
  copy.WidthInBytes = sizeof texels[0];
  copy.Height = kHeight;
  CHECK(cuMemcpy2D(&copy));
  CUDA_ARRAY_DESCRIPTOR described;
  float firstRow[kWidth];
  CHECK(cuArrayGetDescriptor(&described, array));
  CHECK(cuMemcpyAtoH(firstRow, array, 0, sizeof firstRow));
  std::printf("array: %zux%zu, %u channel, float %d, first row %g..%g\n", described.Width, described.Height,
              described.NumChannels, described.Format == CU_AD_FORMAT_FLOAT, firstRow[0], firstRow[3]);
  CUDA_RESOURCE_DESC resource = {};
  resource.resType = CU_RESOURCE_TYPE_ARRAY;
  resource.res.array.hArray = array;
  CUDA_TEXTURE_DESC texture = {};
  texture.filterMode = CU_TR_FILTER_MODE_POINT;
  CUtexObject object;
  CHECK(cuTexObjectCreate(&object, &resource, &texture, nullptr));
  unsigned width = kWidth, height = kHeight;
  void* fetchParams[] = {&data, &object, &width, &height};
  CHECK(cuLaunchKernel(fetch, 1, 1, 1, kWidth, kHeight, 1, 0, nullptr, fetchParams, nullptr));
  CHECK(cuMemcpyDtoH(host.data(), data, kWidth * kHeight * sizeof(float)));
  std::printf("texture: %g %g %g\n", host[0], host[5], host[11]);
  CHECK(cuTexObjectDestroy(object));
  CHECK(cuArrayDestroy(array));

  // Four bytes of ELF magic are no cubin: an invalid image (200, as an H200 answers).
  char notCubin[64] = {0x7f, 'E', 'L', 'F'};
  CUmodule refused;
  std::printf("malformed cubin: %d\n", int(cuModuleLoadData(&refused, notCubin)));
  // A cubin holds machine code only: predatar refuses it by name
  // (CUDA_ERROR_NO_BINARY_FOR_GPU). On standard error: a GPU would load a
  // real one, and standard output is compared with a GPU's.
  char cubin[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  cubin[18] = char(190);  // EM_CUDA
  std::fprintf(stderr, "cubin: %d\n", int(cuModuleLoadData(&refused, cubin)));

  // Two streams, nothing between their launches: a race on every element.
  CUstream first, second;
  CHECK(cuStreamCreate(&first, CU_STREAM_NON_BLOCKING));
  CHECK(cuStreamCreate(&second, CU_STREAM_NON_BLOCKING));
  CUdeviceptr counts;
  CHECK(cuMemAlloc(&counts, 64 * sizeof(int)));
  CHECK(cuMemsetD32(counts, 0, 64));
  unsigned sixtyFour = 64;
  void* countParams[] = {&counts, &sixtyFour};
  CHECK(cuLaunchKernel(increment, 1, 1, 1, 64, 1, 1, 0, first, countParams, nullptr));
  CHECK(cuLaunchKernel(increment, 1, 1, 1, 64, 1, 1, 0, second, countParams, nullptr));
  CHECK(cuCtxSynchronize());
  int total[64];
  CHECK(cuMemcpyDtoH(total, counts, sizeof total));
  std::printf("streams: %d\n", total[63]);
  CHECK(cuStreamDestroy(first));
  CHECK(cuStreamDestroy(second));
  CHECK(cuMemFree(data));
  CHECK(cuMemFree(words));
  CHECK(cuMemFree(counts));

  // Contexts are per thread: a new thread has none (a driver allocation
  // fails) until a runtime call makes the primary context current there.
  int bare = 0, afterRuntime = 0;
  std::thread([&] {
    CUdeviceptr unused;
    CUcontext none = nullptr, primary = nullptr;
    cuCtxGetCurrent(&none);
    bare = none == nullptr && cuMemAlloc(&unused, 4) == CUDA_ERROR_INVALID_CONTEXT;
    cudaFree(nullptr);
    cuCtxGetCurrent(&primary);
    afterRuntime = primary != nullptr && cuMemAlloc(&unused, 4) == CUDA_SUCCESS && cuMemFree(unused) == CUDA_SUCCESS;
  }).join();
  std::printf("another thread: no context %d, the runtime's after cudaFree(0) %d\n", bare, afterRuntime);

  // A device assert is the GPU's asynchronous error: the launch succeeds,
  // the next synchronization returns it (and the context is lost).
  CUfunction positive;
  CHECK(cuModuleGetFunction(&positive, module, "positive"));
  CUdeviceptr zeros;
  CHECK(cuMemAlloc(&zeros, 32 * sizeof(int)));
  CHECK(cuMemsetD32(zeros, 0, 32));
  void* positiveParams[] = {&zeros};
  std::printf("assert: launch %d", int(cuLaunchKernel(positive, 1, 1, 1, 32, 1, 1, 0, nullptr, positiveParams, nullptr)));
  std::printf(", synchronize %d\n", int(cuCtxSynchronize()) == CUDA_ERROR_ASSERT);
  return 0;
}
