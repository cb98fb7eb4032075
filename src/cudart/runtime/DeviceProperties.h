// The device predatar reports (cudaGetDeviceProperties, cudaDeviceGetAttribute):
// one sm_90 GPU that answers as an H100 SXM (80GB HBM3) did under CUDA 13 on
// a lent GPU (bench/native/h100-device-attributes.txt), except where the
// emulator lacks the feature (DeviceProperties.cpp says which).
#pragma once

namespace predatar::cudart {

inline constexpr int kMajor = 9, kMinor = 0;
inline constexpr int kSharedPerBlock = 48 * 1024;
inline constexpr int kSharedPerBlockOptin = 227 * 1024;
inline constexpr int kSharedPerSm = 228 * 1024;
inline constexpr int kClockKHz = 1980000, kMemoryClockKHz = 2619000;
// L2 persistence, as the H100 answered: 31.25 MiB may persist, and a window spans up to 128 MiB.
inline constexpr int kPersistingL2CacheMax = 32768000, kAccessPolicyMaxWindow = 134217728;

inline int deviceCount() { return 1; }

}  // namespace predatar::cudart
