// build: -arch=sm_75
// Warp exchanges reached from different branches: on sm_70 and later a
// shfl/vote.sync waits for the lanes of its member mask to execute one with
// the same qualifiers and mask, not the same instruction. Cooperative
// groups' labeled partitions (a group per key inside a warp) reduce this way,
// and so does a full-warp shuffle split over an if/else. No races.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
namespace cg = cooperative_groups;

constexpr int kBuckets = 5, kThreads = 256, kBlocks = 8, kN = kThreads * kBlocks;

// Max of each bucket: the lanes of a warp with one bucket reduce together,
// then one of them does the atomic.
__global__ void bucketMax(const int* bucketOf, const int* value, int* maxOf) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  cg::coalesced_group active = cg::coalesced_threads();
  auto group = cg::labeled_partition(active, bucketOf[i]);
  int m = cg::reduce(group, value[i], cg::greater<int>());
  if (group.thread_rank() == 0) atomicMax(&maxOf[bucketOf[i]], m);
}

// One full-warp shuffle, half the lanes at each of two instructions: lane l
// gets the source of lane l ^ 1, which sits at the other instruction.
__global__ void splitShuffle(int* out) {
  int lane = threadIdx.x % 32, v;
  if (lane & 1) v = __shfl_xor_sync(0xffffffffu, lane * 100, 1) + 1;
  else v = __shfl_xor_sync(0xffffffffu, lane * 100 + 7, 1) * 2;
  unsigned odd = __ballot_sync(0xffffffffu, v & 1);
  out[threadIdx.x] = v + int(odd != 0);
}

int main() {
  int hBucket[kN], hValue[kN], hMax[kBuckets], expect[kBuckets];
  for (int b = 0; b < kBuckets; ++b) expect[b] = hMax[b] = -1;
  for (int i = 0; i < kN; ++i) {
    hBucket[i] = (i * 7 + i / 3) % kBuckets;
    hValue[i] = (i * 37) % 1001;
    if (hValue[i] > expect[hBucket[i]]) expect[hBucket[i]] = hValue[i];
  }
  int *bucket, *value, *maxOf, *out;
  cudaMalloc(&bucket, sizeof hBucket);
  cudaMalloc(&value, sizeof hValue);
  cudaMalloc(&maxOf, sizeof hMax);
  cudaMalloc(&out, 32 * sizeof(int));
  cudaMemcpy(bucket, hBucket, sizeof hBucket, cudaMemcpyHostToDevice);
  cudaMemcpy(value, hValue, sizeof hValue, cudaMemcpyHostToDevice);
  cudaMemcpy(maxOf, hMax, sizeof hMax, cudaMemcpyHostToDevice);
  bucketMax<<<kBlocks, kThreads>>>(bucket, value, maxOf);
  splitShuffle<<<1, 32>>>(out);
  cudaError_t err = cudaDeviceSynchronize();
  int hOut[32];
  cudaMemcpy(hMax, maxOf, sizeof hMax, cudaMemcpyDeviceToHost);
  cudaMemcpy(hOut, out, sizeof hOut, cudaMemcpyDeviceToHost);
  bool maxOk = true, shuffleOk = true;
  for (int b = 0; b < kBuckets; ++b) maxOk = maxOk && hMax[b] == expect[b];
  for (int l = 0; l < 32; ++l) {
    int from = l ^ 1;
    int v = (l & 1) ? from * 100 + 7 + 1 : from * 100 * 2;
    shuffleOk = shuffleOk && hOut[l] == v;  // every v is even: the ballot is 0
  }
  printf("labeled partitions: %s, bucket maxima %s\n", cudaGetErrorString(err), maxOk ? "correct" : "WRONG");
  printf("split shuffle: %s\n", shuffleOk ? "correct" : "WRONG");
  return maxOk && shuffleOk ? 0 : 1;
}
