#include "libraries/EmbeddedModule.h"

#include <algorithm>
#include <cstring>

#include "cudart/FatBinary.h"
#include "cudart/runtime/Api.h"

namespace predatar::libraries {
namespace {

template <class T>
void put(std::vector<uint8_t>& bytes, size_t at, T value) {
  std::memcpy(bytes.data() + at, &value, sizeof(T));
}

// A fat binary container with one uncompressed PTX entry for compute_75
// (layout in cudart/FatBinary.h).
std::vector<uint8_t> containerOf(std::string_view ptx) {
  constexpr size_t kHeader = 16, kEntryHeader = 0x40;
  size_t payload = (ptx.size() + 1 + 7) / 8 * 8;  // NUL-terminated, 8-byte aligned
  std::vector<uint8_t> bytes(kHeader + kEntryHeader + payload, 0);
  put<uint32_t>(bytes, 0, cudart::kFatbinMagic);
  put<uint16_t>(bytes, 4, 1);
  put<uint16_t>(bytes, 6, kHeader);
  put<uint64_t>(bytes, 8, kEntryHeader + payload);
  size_t e = kHeader;
  put<uint16_t>(bytes, e + 0x00, cudart::kEntryPtx);
  put<uint16_t>(bytes, e + 0x02, 0x0101);
  put<uint32_t>(bytes, e + 0x04, kEntryHeader);
  put<uint64_t>(bytes, e + 0x08, payload);
  put<uint16_t>(bytes, e + 0x18, 0);   // PTX ISA 9.0 (what the .version line says matters; this is informative)
  put<uint16_t>(bytes, e + 0x1a, 9);
  put<uint32_t>(bytes, e + 0x1c, 75);
  put<uint64_t>(bytes, e + 0x38, payload);
  std::memcpy(bytes.data() + kHeader + kEntryHeader, ptx.data(), ptx.size());
  return bytes;
}

}  // namespace

EmbeddedModule::EmbeddedModule(std::string_view ptx, std::vector<std::string> kernels)
    : ptx_(ptx), kernels_(std::move(kernels)), handles_(kernels_.size()) {}

void EmbeddedModule::registerOnce() {
  std::call_once(registered_, [this] {
    fatbin_ = containerOf(ptx_);
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
