#include "libraries/EmbeddedModule.h"

#include <algorithm>

#include "cudart/FatBinary.h"
#include "cudart/FatBinaryWriter.h"
#include "cudart/runtime/Api.h"

namespace predatar::libraries {

EmbeddedModule::EmbeddedModule(std::string_view ptx, std::vector<std::string> kernels)
    : ptx_(ptx), kernels_(std::move(kernels)), handles_(kernels_.size()) {}

void EmbeddedModule::registerOnce() {
  std::call_once(registered_, [this] {
    fatbin_ = cudart::ptxContainer({cudart::PtxUnit{ptx_}});
    wrapper_ = Wrapper{cudart::kFatbinWrapperMagic, 1, fatbin_.data(), nullptr};
    void** handle = __cudaRegisterFatBinary(&wrapper_);
    for (size_t i = 0; i < kernels_.size(); ++i)
      __cudaRegisterFunction(handle, &handles_[i], const_cast<char*>(kernels_[i].c_str()), kernels_[i].c_str(), -1,
                             nullptr, nullptr, nullptr, nullptr, nullptr);
    __cudaRegisterFatBinaryEnd(handle);
  });
}

cudaError_t EmbeddedModule::launch(std::string_view kernel, dim3 grid, dim3 block, cudaStream_t stream,
                                   std::vector<void*> args) {
  registerOnce();
  auto it = std::find(kernels_.begin(), kernels_.end(), kernel);
  if (it == kernels_.end()) return cudart::cudaErrorInvalidDeviceFunction;
  return cudaLaunchKernel(&handles_[size_t(it - kernels_.begin())], grid, block, args.data(), 0, stream);
}

cudaError_t EmbeddedModule::launch(std::string_view kernel, uint64_t threads, cudaStream_t stream,
                                   std::vector<void*> args) {
  constexpr uint64_t kBlock = 256, kMaxBlocks = 1024;
  uint64_t blocks = std::clamp<uint64_t>((threads + kBlock - 1) / kBlock, 1, kMaxBlocks);
  return launch(kernel, dim3{uint32_t(blocks), 1, 1}, dim3{uint32_t(kBlock), 1, 1}, stream, std::move(args));
}

}  // namespace predatar::libraries
