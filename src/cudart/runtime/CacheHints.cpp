// L2 persistence hints (cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize),
// stream access-policy windows, cudaCtxResetPersistingL2Cache): a GPU treats
// them as cache-residency hints that never change what a program computes, and
// the emulator has no cache, so they are accepted and remembered (Get returns
// what Set stored, as CUDA does) without effect. Stream attributes that do
// change behaviour are refused by name rather than silently ignored.
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "cudart/runtime/Api.h"
#include "cudart/runtime/Unsupported.h"

namespace predatar::cudart {
namespace {

// cudaLaunchAttributeID values that streams accept (driver_types.h).
constexpr int kAccessPolicyWindow = 1, kSynchronizationPolicy = 3, kPriority = 8;
// cudaLaunchAttributeValue is a 64-byte union.
constexpr size_t kAttributeValueBytes = 64;
struct AttributeValue {
  unsigned char bytes[kAttributeValueBytes] = {};
};

struct StreamAttributes {
  std::mutex mutex;
  std::map<std::pair<cudaStream_t, int>, AttributeValue> values;
};
StreamAttributes& streamAttributes() {
  static StreamAttributes* attributes = new StreamAttributes;  // outlives static destructors
  return *attributes;
}

bool streamAttributeKnown(int attr) {
  return attr == kAccessPolicyWindow || attr == kSynchronizationPolicy || attr == kPriority;
}

cudaError_t setStreamAttribute(cudaStream_t stream, int attr, const void* value) {
  if (value == nullptr) return cudaErrorInvalidValue;
  if (!streamAttributeKnown(attr))
    return cudaError_t(unsupported("cudaStreamSetAttribute of an attribute other than the access-policy window, "
                                   "synchronization policy or priority"));
  auto& a = streamAttributes();
  std::lock_guard lock(a.mutex);
  std::memcpy(a.values[{stream, attr}].bytes, value, kAttributeValueBytes);
  return cudaSuccess;
}

cudaError_t getStreamAttribute(cudaStream_t stream, int attr, void* value) {
  if (value == nullptr) return cudaErrorInvalidValue;
  if (!streamAttributeKnown(attr))
    return cudaError_t(unsupported("cudaStreamGetAttribute of an attribute other than the access-policy window, "
                                   "synchronization policy or priority"));
  auto& a = streamAttributes();
  std::lock_guard lock(a.mutex);
  auto it = a.values.find({stream, attr});
  if (it == a.values.end()) std::memset(value, 0, kAttributeValueBytes);  // CUDA's defaults are zero
  else std::memcpy(value, it->second.bytes, kAttributeValueBytes);
  return cudaSuccess;
}

}  // namespace
}  // namespace predatar::cudart

using namespace predatar::cudart;

extern "C" {

PREDATAR_CUDART_API cudaError_t cudaStreamSetAttribute(cudaStream_t stream, int attr, const void* value) {
  return setStreamAttribute(stream, attr, value);
}
PREDATAR_CUDART_API cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t stream, int attr, const void* value) {
  return setStreamAttribute(stream, attr, value);
}
PREDATAR_CUDART_API cudaError_t cudaStreamGetAttribute(cudaStream_t stream, int attr, void* value) {
  return getStreamAttribute(stream, attr, value);
}
PREDATAR_CUDART_API cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t stream, int attr, void* value) {
  return getStreamAttribute(stream, attr, value);
}
PREDATAR_CUDART_API cudaError_t cudaCtxResetPersistingL2Cache() { return cudaSuccess; }

}  // extern "C"
