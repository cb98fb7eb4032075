// NVRTC: CUDA C++ compiled while the program runs, asked for machine code
// (--gpu-architecture=sm_90, nvrtcGetCUBIN) as most JIT users do, loaded
// with cuModuleLoadData and launched. predatar's libnvrtc hands NVIDIA's
// compiler the PTX architecture instead, so the emulator can run it. The
// JIT kernel's threads all write one counter: a race at
// nvrtc_jit_kernel.cu:7. A cubin for sm_75 does not load on an sm_90 device
// (an H100 answers CUDA_ERROR_NO_BINARY_FOR_GPU, 209), and not in predatar.
#include <cuda.h>
#include <nvrtc.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

static const char* kSource =
    "extern \"C\" __global__ void square(float* data, unsigned n, unsigned* last) {\n"  // line 1
    "  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) {\n"
    "    data[i] = data[i] * data[i];\n"
    "  }\n"
    "  if (i < n)\n"
    "    *last = i;\n"  // line 7: every thread, nothing ordering them
    "}\n";

#define CHECK_NVRTC(call)                                                        \
  do {                                                                           \
    nvrtcResult r_ = (call);                                                     \
    if (r_ != NVRTC_SUCCESS) {                                                   \
      std::printf("%s failed: %s\n", #call, nvrtcGetErrorString(r_));            \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)
#define CHECK(call)                                                              \
  do {                                                                           \
    CUresult r_ = (call);                                                        \
    if (r_ != CUDA_SUCCESS) {                                                    \
      std::printf("%s failed: %d\n", #call, int(r_));                            \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

// kSource compiled to machine code for `arch` ("--gpu-architecture=sm_90").
static std::vector<char> compile(const char* arch) {
  nvrtcProgram program;
  CHECK_NVRTC(nvrtcCreateProgram(&program, kSource, "nvrtc_jit_kernel.cu", 0, nullptr, nullptr));
  const char* options[] = {arch, "-lineinfo"};
  CHECK_NVRTC(nvrtcCompileProgram(program, 2, options));
  size_t bytes = 0;
  CHECK_NVRTC(nvrtcGetCUBINSize(program, &bytes));
  std::vector<char> cubin(bytes);
  CHECK_NVRTC(nvrtcGetCUBIN(program, cubin.data()));
  CHECK_NVRTC(nvrtcDestroyProgram(&program));
  return cubin;
}

int main() {
  std::vector<char> cubin = compile("--gpu-architecture=sm_90");
  std::vector<char> olderCubin = compile("--gpu-architecture=sm_75");

  CHECK(cuInit(0));
  CUdevice device;
  CHECK(cuDeviceGet(&device, 0));
  CUcontext context;
  CHECK(cuCtxCreate(&context, nullptr, 0, device));
  CUmodule module;
  std::printf("an sm_75 cubin on this device: %d\n", int(cuModuleLoadData(&module, olderCubin.data())));
  CHECK(cuModuleLoadData(&module, cubin.data()));
  CUfunction square;
  CHECK(cuModuleGetFunction(&square, module, "square"));

  unsigned n = 128;
  std::vector<float> host(n);
  for (unsigned i = 0; i < n; ++i) host[i] = float(i);
  CUdeviceptr data, last;
  CHECK(cuMemAlloc(&data, n * sizeof(float)));
  CHECK(cuMemAlloc(&last, sizeof(unsigned)));
  CHECK(cuMemcpyHtoD(data, host.data(), n * sizeof(float)));
  void* params[] = {&data, &n, &last};
  CHECK(cuLaunchKernel(square, n / 64, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(host.data(), data, n * sizeof(float)));
  std::printf("squares: %g %g %g\n", host[2], host[10], host[127]);
  CHECK(cuMemFree(data));
  CHECK(cuMemFree(last));
  CHECK(cuModuleUnload(module));
  CHECK(cuCtxDestroy(context));
  return 0;
}
