// The replacement libcudart.so.13 called the way nvcc-generated host code and
// user code call it: registration from a real fat binary, memory, errors,
// streams and events, device queries. Kernel launches are in LaunchTest.cpp.
#include <dlfcn.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudart/FatBinary.h"
#include "cudart/runtime/Api.h"

namespace predatar::cudart {
namespace {

std::string readFixture(const std::string& name) {
  std::ifstream in(std::string(PREDATAR_CUDART_FIXTURES) + "/" + name, std::ios::binary);
  EXPECT_TRUE(in) << name;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// What nvcc's host stub passes to __cudaRegisterFatBinary.
struct Wrapper {
  int magic;
  int version;
  const void* data;
  void* filename;
};

// A module registered the way the nvcc stub does: fat binary, kernels, variables.
struct Registered {
  std::vector<uint64_t> storage;
  Wrapper wrapper{};
  void** handle = nullptr;
};

// Registered fat binaries live as long as the process, like a program's.
std::vector<std::unique_ptr<Registered>> registered;

Registered* registerFixture(const char* fatbin) {
  auto* r = registered.emplace_back(std::make_unique<Registered>()).get();
  std::string bytes = readFixture(fatbin);
  r->storage.resize((bytes.size() + 7) / 8);
  std::memcpy(r->storage.data(), bytes.data(), bytes.size());
  const char* base = reinterpret_cast<const char*>(r->storage.data());
  // The section's last container is the program's own (the first is nvlink's stub).
  size_t offset = 0, last = 0;
  while (offset + 16 <= bytes.size()) {
    uint32_t magic;
    std::memcpy(&magic, base + offset, 4);
    if (magic != kFatbinMagic) {
      offset += 8;
      continue;
    }
    last = offset;
    uint16_t header;
    uint64_t size;
    std::memcpy(&header, base + offset + 6, 2);
    std::memcpy(&size, base + offset + 8, 8);
    offset += header + size;
  }
  r->wrapper = Wrapper{int(kFatbinWrapperMagic), 1, base + last, nullptr};
  r->handle = __cudaRegisterFatBinary(&r->wrapper);
  return r;
}

// Host-side stand-ins for the kernel stub and the __constant__ shadow variable.
void vectorAddStub() {}
int scaleShadow;
int unknownShadow;

class Runtime : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    static Registered* module = [] {
      Registered* r = registerFixture("vector_add.zstd.fatbin");
      __cudaRegisterFunction(r->handle, reinterpret_cast<const char*>(&vectorAddStub),
                             const_cast<char*>("_Z9vectorAddPKiS0_Pii"), "_Z9vectorAddPKiS0_Pii", -1, nullptr,
                             nullptr, nullptr, nullptr, nullptr);
      __cudaRegisterVar(r->handle, reinterpret_cast<char*>(&scaleShadow), const_cast<char*>("scale"), "scale", 0,
                        sizeof(int), 1, 0);
      __cudaRegisterFatBinaryEnd(r->handle);
      return r;
    }();
    (void)module;
  }
  void SetUp() override { cudaGetLastError(); }
};

TEST_F(Runtime, RegistrationGivesAKernelHandle) {
  cudaKernel_t kernel = nullptr;
  ASSERT_EQ(__cudaGetKernel(&kernel, reinterpret_cast<const void*>(&vectorAddStub)), 0);
  EXPECT_NE(kernel, nullptr);
  cudaKernel_t none = nullptr;
  EXPECT_EQ(__cudaGetKernel(&none, &unknownShadow), cudaErrorInvalidDeviceFunction);
  const char* name = nullptr;
  ASSERT_EQ(cudaFuncGetName(&name, reinterpret_cast<const void*>(&vectorAddStub)), 0);
  EXPECT_STREQ(name, "_Z9vectorAddPKiS0_Pii");
  cudaFuncAttributes attributes;
  ASSERT_EQ(cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(&vectorAddStub)), 0);
  EXPECT_EQ(attributes.ptxVersion, 75);  // the fixture's PTX is compute_75 (CUB dispatches on this)
  EXPECT_EQ(attributes.maxThreadsPerBlock, 1024);
  EXPECT_EQ(cudaFuncSetAttribute(reinterpret_cast<const void*>(&vectorAddStub),
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024),
            0);
  EXPECT_EQ(cudaFuncSetAttribute(&unknownShadow, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024),
            cudaErrorInvalidDeviceFunction);
}

TEST_F(Runtime, CallConfigurationIsAStack) {
  ASSERT_EQ(__cudaPushCallConfiguration(dim3{4, 2, 1}, dim3{32, 1, 1}, 128, nullptr), 0u);
  dim3 grid{}, block{};
  size_t shared = 0;
  cudaStream_t stream = reinterpret_cast<cudaStream_t>(0x99);
  ASSERT_EQ(__cudaPopCallConfiguration(&grid, &block, &shared, &stream), 0);
  EXPECT_EQ(grid.x, 4u);
  EXPECT_EQ(grid.y, 2u);
  EXPECT_EQ(block.x, 32u);
  EXPECT_EQ(shared, 128u);
  EXPECT_EQ(stream, nullptr);
  EXPECT_NE(__cudaPopCallConfiguration(&grid, &block, &shared, &stream), 0);
}

TEST_F(Runtime, InvalidLaunchConfigurationsFailBeforeRunning) {
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d), 64), 0);
  int n = 4;
  void* args[] = {&d, &d, &d, &n};
  auto stub = reinterpret_cast<const void*>(&vectorAddStub);
  EXPECT_EQ(cudaLaunchKernel(stub, dim3{1, 1, 1}, dim3{2048, 1, 1}, args, 0, nullptr),
            cudaErrorInvalidValue);  // as CUDA 13 returns it
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaLaunchKernel(stub, dim3{0, 1, 1}, dim3{32, 1, 1}, args, 0, nullptr),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaLaunchKernel(stub, dim3{1, 1, 1}, dim3{32, 1, 1}, args, 200 * 1024, nullptr),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaLaunchKernel(&unknownShadow, dim3{1, 1, 1}, dim3{32, 1, 1}, args, 0, nullptr),
            cudaErrorInvalidDeviceFunction);
  EXPECT_EQ(cudaLaunchKernel(stub, dim3{1, 1, 1}, dim3{32, 1, 1}, args, 0,
                             reinterpret_cast<cudaStream_t>(0x12345)),
            cudaErrorInvalidResourceHandle);
  cudaGetLastError();
  EXPECT_EQ(cudaFree(d), 0);
}

TEST_F(Runtime, UnknownSymbolIsAnError) {
  int value = 0;
  EXPECT_EQ(cudaMemcpyToSymbol(&unknownShadow, &value, sizeof value, 0, cudaMemcpyHostToDevice),
            cudaErrorInvalidSymbol);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidSymbol);
  void* address = nullptr;
  EXPECT_EQ(cudaGetSymbolAddress(&address, &unknownShadow), cudaErrorInvalidSymbol);
}

TEST_F(Runtime, MallocMemcpyMemsetRoundTrip) {
  std::vector<int> host(100), back(100, -1);
  for (int i = 0; i < 100; ++i) host[i] = i * 7;
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d), 400), 0);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(d) % 256, 0u);
  ASSERT_EQ(cudaMemcpy(d, host.data(), 400, cudaMemcpyHostToDevice), 0);
  ASSERT_EQ(cudaMemcpy(back.data(), d, 400, cudaMemcpyDeviceToHost), 0);
  EXPECT_EQ(back, host);

  int* e = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&e), 400), 0);
  ASSERT_EQ(cudaMemcpy(e, d, 400, cudaMemcpyDeviceToDevice), 0);
  ASSERT_EQ(cudaMemset(e, 0, 200), 0);
  ASSERT_EQ(cudaMemcpy(back.data(), e, 400, cudaMemcpyDefault), 0);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(back[i], i < 50 ? 0 : i * 7) << i;

  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), 0);
  ASSERT_EQ(cudaMemsetAsync(d, 0xff, 400, s), 0);
  ASSERT_EQ(cudaMemcpyAsync(back.data(), d, 400, cudaMemcpyDeviceToHost, s), 0);
  ASSERT_EQ(cudaStreamSynchronize(s), 0);
  EXPECT_EQ(back[99], -1);
  ASSERT_EQ(cudaStreamDestroy(s), 0);

  EXPECT_EQ(cudaFree(d), 0);
  EXPECT_EQ(cudaFree(e), 0);
  EXPECT_EQ(cudaFree(nullptr), 0);
}

TEST_F(Runtime, MemoryErrorsAreReported) {
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d), 64), 0);
  int host[32] = {};
  // Past the end of the allocation.
  EXPECT_EQ(cudaMemcpy(host, d + 8, 64, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  // A host pointer where a device pointer is expected.
  EXPECT_EQ(cudaMemcpy(host, host + 16, 16, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemset(host, 0, 4), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(d, host, 4, 7), cudaErrorInvalidMemcpyDirection);
  // Freeing twice, or something never allocated.
  EXPECT_EQ(cudaFree(d), 0);
  EXPECT_EQ(cudaFree(d), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFree(host), cudaErrorInvalidValue);
  void* none = reinterpret_cast<void*>(1);
  EXPECT_EQ(cudaMalloc(&none, 0), 0);
  EXPECT_EQ(none, nullptr);
  EXPECT_EQ(cudaMalloc(nullptr, 4), cudaErrorInvalidValue);
  cudaGetLastError();
}

TEST_F(Runtime, HostAndManagedMemory) {
  int* pinned = nullptr;
  ASSERT_EQ(cudaMallocHost(reinterpret_cast<void**>(&pinned), 64), 0);
  pinned[3] = 5;
  void* device = nullptr;
  ASSERT_EQ(cudaHostGetDevicePointer(&device, pinned, 0), 0);
  EXPECT_EQ(device, pinned);
  cudaPointerAttributes attributes;
  ASSERT_EQ(cudaPointerGetAttributes(&attributes, pinned), 0);
  EXPECT_EQ(attributes.type, cudaMemoryTypeHost);
  EXPECT_EQ(cudaFree(pinned), cudaErrorInvalidValue);  // needs cudaFreeHost
  EXPECT_EQ(cudaFreeHost(pinned), 0);

  int* managed = nullptr;
  ASSERT_EQ(cudaMallocManaged(reinterpret_cast<void**>(&managed), 64, 1), 0);
  managed[0] = 42;  // host access
  int copy = 0;
  ASSERT_EQ(cudaMemcpy(&copy, managed, 4, cudaMemcpyDefault), 0);
  EXPECT_EQ(copy, 42);
  ASSERT_EQ(cudaPointerGetAttributes(&attributes, managed), 0);
  EXPECT_EQ(attributes.type, cudaMemoryTypeManaged);
  EXPECT_EQ(cudaFree(managed), 0);

  int stack = 0;
  ASSERT_EQ(cudaPointerGetAttributes(&attributes, &stack), 0);
  EXPECT_EQ(attributes.type, cudaMemoryTypeUnregistered);
  cudaGetLastError();
}

TEST_F(Runtime, StreamsAndEvents) {
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, 1), 0);
  cudaEvent_t start = nullptr, stop = nullptr;
  ASSERT_EQ(cudaEventCreate(&start), 0);
  ASSERT_EQ(cudaEventCreateWithFlags(&stop, 0), 0);
  float ms = -1;
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaErrorInvalidResourceHandle);  // not recorded
  ASSERT_EQ(cudaEventRecord(start, stream), 0);
  ASSERT_EQ(cudaEventRecord(stop, stream), 0);
  ASSERT_EQ(cudaEventSynchronize(stop), 0);
  EXPECT_EQ(cudaEventQuery(stop), 0);
  ASSERT_EQ(cudaEventElapsedTime(&ms, start, stop), 0);
  EXPECT_GE(ms, 0.0f);
  EXPECT_EQ(cudaStreamWaitEvent(stream, stop, 0), 0);
  EXPECT_EQ(cudaStreamQuery(stream), 0);
  EXPECT_EQ(cudaEventDestroy(start), 0);
  EXPECT_EQ(cudaEventDestroy(start), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventDestroy(stop), 0);
  EXPECT_EQ(cudaStreamDestroy(stream), 0);
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaStreamSynchronize(nullptr), 0);
  EXPECT_EQ(cudaDeviceSynchronize(), 0);
  cudaGetLastError();
}

TEST_F(Runtime, DeviceQueries) {
  int count = 0, device = -1, version = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), 0);
  EXPECT_EQ(count, 1);
  ASSERT_EQ(cudaSetDevice(0), 0);
  EXPECT_EQ(cudaSetDevice(1), cudaErrorInvalidDevice);
  ASSERT_EQ(cudaGetDevice(&device), 0);
  EXPECT_EQ(device, 0);
  cudaDeviceProp prop;
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), 0);
  EXPECT_EQ(prop.warpSize, 32);
  EXPECT_GE(prop.major * 10 + prop.minor, 75);
  EXPECT_EQ(prop.maxThreadsPerBlock, 1024);
  EXPECT_GT(prop.multiProcessorCount, 0);
  EXPECT_EQ(prop.sharedMemPerBlock, 48u * 1024);
  EXPECT_NE(std::string(prop.name).find("PreDataR"), std::string::npos);
  // (Kilo-TM's hashtable asks this way, with only major and minor set.)
  cudaDeviceProp wanted{};
  wanted.major = 0;
  wanted.minor = 0;
  device = -1;
  ASSERT_EQ(cudaChooseDevice(&device, &wanted), 0);
  EXPECT_EQ(device, 0);
  EXPECT_EQ(cudaChooseDevice(nullptr, &wanted), cudaErrorInvalidValue);
  EXPECT_EQ(cudaChooseDevice(&device, nullptr), cudaErrorInvalidValue);
  int value = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&value, cudaDevAttrComputeCapabilityMajor, 0), 0);
  EXPECT_EQ(value, prop.major);
  ASSERT_EQ(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, 0), 0);
  EXPECT_EQ(value, prop.multiProcessorCount);
  ASSERT_EQ(cudaDeviceGetAttribute(&value, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0), 0);
  EXPECT_EQ(size_t(value), prop.sharedMemPerBlockOptin);
  ASSERT_EQ(cudaRuntimeGetVersion(&version), 0);
  EXPECT_EQ(version, 13000);
  ASSERT_EQ(cudaDriverGetVersion(&version), 0);
  EXPECT_GE(version, 13000);
}

TEST_F(Runtime, ErrorNamesAndStrings) {
  EXPECT_STREQ(cudaGetErrorName(0), "cudaSuccess");
  EXPECT_STREQ(cudaGetErrorString(0), "no error");
  EXPECT_STREQ(cudaGetErrorName(1), "cudaErrorInvalidValue");
  EXPECT_STREQ(cudaGetErrorString(1), "invalid argument");
  EXPECT_STREQ(cudaGetErrorName(700), "cudaErrorIllegalAddress");
  EXPECT_STREQ(cudaGetErrorString(700), "an illegal memory access was encountered");
  EXPECT_STREQ(cudaGetErrorName(719), "cudaErrorLaunchFailure");
  EXPECT_STREQ(cudaGetErrorName(222), "cudaErrorUnsupportedPtxVersion");
  EXPECT_STRNE(cudaGetErrorString(222), "");
  EXPECT_STREQ(cudaGetErrorString(123456), "unrecognized error code");
}

// Functions the emulator does not implement exist (so programs load) and fail by name.
extern "C" int cudaIpcGetMemHandle(void*, void*);

TEST_F(Runtime, UnsupportedFunctionsFailByName) {
  testing::internal::CaptureStderr();
  char handle[64];
  EXPECT_EQ(cudaIpcGetMemHandle(handle, nullptr), cudaErrorNotSupported);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("cudaIpcGetMemHandle is not supported by the emulator"), std::string::npos) << err;
  EXPECT_EQ(cudaGetLastError(), cudaErrorNotSupported);
}

// lib/libcuda.so.1 implements the driver API programs call (tests/programs/
// driver_api); NVIDIA's libraries (cuFFT, cuSPARSE) bring their own runtime,
// which looks the driver up through cuGetProcAddress: that, and every entry
// point predatar does not implement, is refused by name, with the driver's
// status, leaving the runtime's last error alone.
TEST_F(Runtime, DriverEntryPointsItLacksAreRefusedByName) {
  void* driver = dlopen(PREDATAR_CUDA_DRIVER, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(driver, nullptr) << dlerror();
  using GetProcAddress = int (*)(const char*, void**, int, unsigned long long, void*);
  auto getProcAddress = reinterpret_cast<GetProcAddress>(dlsym(driver, "cuGetProcAddress_v2"));
  auto graphicsMap = reinterpret_cast<int (*)()>(dlsym(driver, "cuGraphicsMapResources"));
  auto errorName = reinterpret_cast<int (*)(int, const char**)>(dlsym(driver, "cuGetErrorName"));
  ASSERT_TRUE(getProcAddress && graphicsMap && errorName);
  testing::internal::CaptureStderr();
  void* function = nullptr;
  EXPECT_EQ(getProcAddress("cuMemAlloc", &function, 13000, 0, nullptr), 801);  // CUDA_ERROR_NOT_SUPPORTED
  EXPECT_EQ(graphicsMap(), 801);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("predatar: cuGetProcAddress of cuMemAlloc (the CUDA driver API) is not supported by the "
                     "emulator (returning CUDA_ERROR_NOT_SUPPORTED)"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("predatar: cuGraphicsMapResources (the CUDA driver API) is not supported"), std::string::npos)
      << err;
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  const char* name = nullptr;
  EXPECT_EQ(errorName(201, &name), 0);
  EXPECT_STREQ(name, "CUDA_ERROR_INVALID_CONTEXT");
  EXPECT_EQ(errorName(123456, &name), 1);  // CUDA_ERROR_INVALID_VALUE
  dlclose(driver);
}

// Modules the driver cannot load say why, with the driver's status.
TEST_F(Runtime, DriverModulesThatCannotLoadSayWhy) {
  void* driver = dlopen(PREDATAR_CUDA_DRIVER, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(driver, nullptr) << dlerror();
  auto load = reinterpret_cast<int (*)(void**, const void*)>(dlsym(driver, "cuModuleLoadData"));
  auto loadFile = reinterpret_cast<int (*)(void**, const char*)>(dlsym(driver, "cuModuleLoad"));
  auto linkCreate = reinterpret_cast<int (*)(unsigned, int*, void**, void**)>(dlsym(driver, "cuLinkCreate_v2"));
  auto linkAdd = reinterpret_cast<int (*)(void*, int, void*, size_t, const char*, unsigned, int*, void**)>(
      dlsym(driver, "cuLinkAddData_v2"));
  auto linkDestroy = reinterpret_cast<int (*)(void*)>(dlsym(driver, "cuLinkDestroy"));
  ASSERT_TRUE(load && loadFile && linkCreate && linkAdd && linkDestroy);
  void* module = nullptr;
  testing::internal::CaptureStderr();
  const char* badPtx = ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry k( { ret;\n";
  EXPECT_EQ(load(&module, badPtx), 218);  // CUDA_ERROR_INVALID_PTX
  std::string path = testing::TempDir() + "bad_module.ptx";
  {
    std::ofstream file(path);
    file << badPtx;
  }
  EXPECT_EQ(loadFile(&module, path.c_str()), 218);
  EXPECT_EQ(load(&module, "neither PTX nor a fat binary"), 200);  // CUDA_ERROR_INVALID_IMAGE
  void* link = nullptr;
  ASSERT_EQ(linkCreate(0, nullptr, nullptr, &link), 0);
  char cubin[16] = {0x7f, 'E', 'L', 'F'};
  EXPECT_EQ(linkAdd(link, 0 /* CU_JIT_INPUT_CUBIN */, cubin, sizeof cubin, "k.cubin", 0, nullptr, nullptr), 801);
  EXPECT_EQ(linkDestroy(link), 0);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("cannot load the PTX of"), std::string::npos) << err;
  EXPECT_NE(err.find("PTX text given to cuModuleLoadData:4: in function 'k': expected .param"), std::string::npos)
      << err;
  EXPECT_NE(err.find(path + ":4: in function 'k': expected .param"), std::string::npos) << err;  // named by its file
  EXPECT_NE(err.find("neither PTX text nor a fat binary nor a cubin"), std::string::npos) << err;
  EXPECT_NE(err.find("cuLinkAddData of k.cubin with input type 0 (predatar links PTX only"), std::string::npos)
      << err;
  cudaGetLastError();
  dlclose(driver);
}

TEST_F(Runtime, ResetFreesAllocations) {
  void* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 16), 0);
  ASSERT_EQ(cudaDeviceReset(), 0);
  EXPECT_EQ(cudaFree(d), cudaErrorInvalidValue);
  cudaGetLastError();
}

// The device reads as an sm_90-class GPU (H100 SXM under CUDA 13).
TEST(RuntimeDevice, PropertiesOfAnSm90ClassGpu) {
  cudaDeviceProp p;
  ASSERT_EQ(cudaGetDeviceProperties(&p, 0), 0);
  EXPECT_EQ(p.major, 9);
  EXPECT_EQ(p.minor, 0);
  EXPECT_EQ(p.multiProcessorCount, 132);
  EXPECT_EQ(p.warpSize, 32);
  EXPECT_EQ(p.sharedMemPerBlock, 48u * 1024);
  EXPECT_EQ(p.sharedMemPerBlockOptin, 227u * 1024);
  EXPECT_EQ(p.sharedMemPerMultiprocessor, 228u * 1024);
  EXPECT_EQ(p.maxThreadsPerBlock, 1024);
  int v = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, 0), 0);
  EXPECT_EQ(v, 1980000);
  ASSERT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrComputeMode, 0), 0);
  EXPECT_EQ(v, 0);  // cudaComputeModeDefault
  ASSERT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0), 0);
  EXPECT_EQ(v, 132);
  ASSERT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0), 0);
  EXPECT_EQ(v, 227 * 1024);
}

}  // namespace
}  // namespace predatar::cudart
