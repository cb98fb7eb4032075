// A CUDA program that misuses CUDA in ways a GPU (or compute-sanitizer)
// catches but a naive emulator lets pass, for tests/reliability/check_misuse.sh:
//   misuse_app barrier-block  the two sides of a branch (different warps) each call __syncthreads()
//   misuse_app barrier-warp   the same inside one warp (lanes 0-15 and 16-31)
//   misuse_app barrier-ok     a correct exchange across one __syncthreads() (early return included)
//   misuse_app barrier-skipped  lanes 48-63 skip a loop's last __syncthreads() and exit (a note, not a fault)
//   misuse_app syncwarp-outside lane 16 runs __syncwarp with a mask that leaves it out, twice (a note each)
//   misuse_app read-past-end  reads one int past a 1024-byte array with another array right after
//   misuse_app read-before-start  reads 16 ints before the program's first array (a stencil's row -1, as Rodinia's srad)
//   misuse_app host-deref     host code reads a cudaMalloc'd pointer (segfaults on a GPU)
//   misuse_app race-then-deref  a racy launch, then (no synchronization) host code reads device memory
//   misuse_app race-then-abort|race-then-_exit|race-then-_Exit|race-then-quick_exit  a racy launch, then (no
//              synchronization) host code aborts (a failed assert) | calls _exit | _Exit | quick_exit
//   misuse_app race-then-exit_group|race-then-sigkill|races-then-sigkill  the same (two racy launches), then a raw exit_group | SIGKILL
//   misuse_app managed-ok     host code reads cudaMallocManaged / cudaMallocHost memory (fine)
//   misuse_app fork-race      a fork()ed child launches a racy kernel; the parent a clean one (more modes: below)
// Built with: nvcc -O3 -cudart shared -lineinfo -arch=sm_75 -o bin/misuse_app misuse_app.cu
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

__global__ void divergentBlock(int* out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  if (threadIdx.x < 32) {
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x + 32];
  } else {
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x - 32];
  }
}

__global__ void divergentWarp(int* out) {
  __shared__ int s[32];
  s[threadIdx.x] = threadIdx.x;
  if (threadIdx.x < 16) {
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x + 16];
  } else {
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x - 16];
  }
}

__global__ void barrierOk(int* out) {
  __shared__ int s[64];
  if (threadIdx.x >= 48) return;
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[47 - threadIdx.x];
}

// Rounds of a loop, each with a barrier inside a condition: in the last
// round lanes 48-63 of warp 1 skip it, run out of the loop and exit while
// lanes 32-47 wait there.
__global__ void skippedBarrier(int* out) {
  __shared__ int s[64];
  s[threadIdx.x] = 0;
  __syncthreads();
  for (int round = 0; round < 4; ++round) {
    if (round * 64 + threadIdx.x < 4 * 64 - 16) {
      s[threadIdx.x] += round;
      __syncthreads();
    }
  }
  if (threadIdx.x == 0) out[0] = s[0] + s[63];
}

// Lanes 0-16 take the branch; the mask names lanes 0-15.
__global__ void syncwarpOutside(int* out) {
  __shared__ int s[32];
  unsigned mask = __ballot_sync(0xffffffff, threadIdx.x < 16);
  if (threadIdx.x <= 16) {
    s[threadIdx.x] = threadIdx.x;
    __syncwarp(mask);
    if (threadIdx.x == 0) out[0] = s[15]; __syncwarp(mask);  // (the same mistake again: a note of its own)
  }
}

__global__ void readPastEnd(const int* in, int* out) { out[threadIdx.x] = in[threadIdx.x + 256]; }
__global__ void readBeforeStart(const int* in, int* out) { out[threadIdx.x] = in[int(threadIdx.x) - 16]; }

__global__ void racy(int* data) { data[0] = threadIdx.x; }
__global__ void clean(int* data) { data[threadIdx.x] = threadIdx.x; }

int check(const char* what, cudaError_t err) {
  std::printf("%s: %s\n", what, cudaGetErrorName(err));
  return err == cudaSuccess ? 0 : 1;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "barrier-ok";
  int* data = nullptr;
  if (check("malloc", cudaMalloc(&data, 64 * sizeof(int)))) return 1;
  if (std::strcmp(mode, "barrier-block") == 0) {
    divergentBlock<<<1, 64>>>(data);
  } else if (std::strcmp(mode, "barrier-warp") == 0) {
    divergentWarp<<<1, 32>>>(data);
  } else if (std::strcmp(mode, "barrier-ok") == 0) {
    barrierOk<<<1, 64>>>(data);
  } else if (std::strcmp(mode, "barrier-skipped") == 0) {
    skippedBarrier<<<1, 64>>>(data);
  } else if (std::strcmp(mode, "syncwarp-outside") == 0) {
    syncwarpOutside<<<1, 32>>>(data);
  } else if (std::strcmp(mode, "read-past-end") == 0) {
    int *array = nullptr, *next = nullptr;  // 256 ints each: next would start where array ends
    if (check("malloc array", cudaMalloc(&array, 256 * sizeof(int)))) return 1;
    if (check("malloc next", cudaMalloc(&next, 256 * sizeof(int)))) return 1;
    readPastEnd<<<1, 1>>>(array, data);
  } else if (std::strcmp(mode, "read-before-start") == 0) {
    readBeforeStart<<<1, 1>>>(data, data);
  } else if (std::strcmp(mode, "host-deref") == 0) {
    cudaMemset(data, 0, 64 * sizeof(int));
    std::printf("host reads data[3] = %d\n", data[3]);  // a GPU's device memory is not host-mapped
    return 0;
  } else if (std::strcmp(mode, "race-then-deref") == 0) {
    racy<<<1, 64>>>(data);
    std::printf("host reads data[0] = %d\n", data[0]);
    return 0;
  } else if (std::strcmp(mode, "race-then-abort") == 0) {
    racy<<<1, 64>>>(data);
    std::abort();
  } else if (std::strcmp(mode, "race-then-_exit") == 0) {
    racy<<<1, 64>>>(data);
    _exit(0);
  } else if (std::strcmp(mode, "race-then-_Exit") == 0) {
    racy<<<1, 64>>>(data);
    _Exit(0);
  } else if (std::strcmp(mode, "race-then-quick_exit") == 0) {
    racy<<<1, 64>>>(data);
    std::quick_exit(0);
  } else if (std::strcmp(mode, "race-then-exit_group") == 0) {
    racy<<<1, 64>>>(data);
    syscall(SYS_exit_group, 0);
  } else if (std::strcmp(mode, "race-then-sigkill") == 0) {
    racy<<<1, 64>>>(data);
    kill(getpid(), SIGKILL);
  } else if (std::strcmp(mode, "races-then-sigkill") == 0) {
    racy<<<1, 64>>>(data);
    racy<<<1, 32>>>(data);
    kill(getpid(), SIGKILL);
  } else if (std::strcmp(mode, "managed-ok") == 0) {
    int *managed = nullptr, *pinned = nullptr;
    if (check("managed", cudaMallocManaged(&managed, 64 * sizeof(int)))) return 1;
    if (check("pinned", cudaMallocHost(&pinned, 64 * sizeof(int)))) return 1;
    clean<<<1, 64>>>(managed);
    clean<<<1, 64>>>(data);
    if (check("synchronize", cudaDeviceSynchronize())) return 1;
    if (check("memcpy", cudaMemcpy(pinned, data, 64 * sizeof(int), cudaMemcpyDeviceToHost))) return 1;
    std::printf("managed[5] = %d pinned[7] = %d\n", managed[5], pinned[7]);
    bool right = managed[5] == 5 && pinned[7] == 7;
    cudaFree(managed);
    cudaFreeHost(pinned);
    cudaFree(data);
    return right ? 0 : 1;
  } else if (std::strcmp(mode, "api-errors") == 0) {
    // A cudaMalloc larger than the device, two copies of an unknown kind and
    // a launch fail (as on a GPU); the program checks, goes on and exits 0.
    int* huge = nullptr;
    std::printf("huge malloc: %s\n", cudaGetErrorName(cudaMalloc(&huge, size_t(1) << 50)));
    for (int i = 0; i < 2; ++i)
      std::printf("bad copy: %s\n", cudaGetErrorName(cudaMemcpy(data, data, 4, cudaMemcpyKind(7))));
    cudaGetLastError();
    clean<<<1, 64>>>(data);
    // A block of 2048 threads: a launch error (cudaErrorInvalidValue from
    // CUDA 13), named at main (nvcc's host wrapper of the kernel, inlined
    // here at -O3, is not the site).
    clean<<<1, 2048>>>(data);
    std::printf("big block: %s\n", cudaGetErrorName(cudaGetLastError()));
  } else if (std::strcmp(mode, "grid-too-large") == 0) {
    // 2^21 + 1 blocks of 1024 threads, one warp past what the emulator runs
    // in a launch: refused by name, twice, with one line.
    void* args[] = {&data};
    for (int i = 0; i < 2; ++i)
      std::printf("huge grid: %s\n", cudaGetErrorName(cudaLaunchKernel((const void*)clean, dim3((1u << 21) + 1),
                                                                         dim3(1024), args, 0, nullptr)));
    cudaGetLastError();
  } else if (std::strcmp(mode, "fork-race") == 0) {
    std::fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
      racy<<<1, 64>>>(data);
      int code = check("child synchronize", cudaDeviceSynchronize());
      std::fflush(stdout);
      _exit(code);
    }
    clean<<<1, 64>>>(data);
    int status = 0;
    waitpid(child, &status, 0);
    std::printf("child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  } else if (std::strcmp(mode, "fork-repeat") == 0) {
    // Launches replayed before a fork(), the same ones in the child (which
    // numbers its launches from 0 again), then a racy one there.
    for (int i = 0; i < 3; ++i) clean<<<1, 64>>>(data);
    if (check("parent synchronize", cudaDeviceSynchronize())) return 1;
    std::fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
      for (int i = 0; i < 3; ++i) clean<<<1, 64>>>(data);
      racy<<<1, 64>>>(data);
      int code = check("child synchronize", cudaDeviceSynchronize());
      std::fflush(stdout);
      _exit(code);
    }
    int status = 0;
    waitpid(child, &status, 0);
    std::printf("child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  } else if (std::strcmp(mode, "race") == 0) {
    racy<<<1, 64>>>(data);
  } else if (std::strcmp(mode, "runs-itself") == 0) {
    // Another CUDA program (this one, mode race) run between two clean launches.
    clean<<<1, 64>>>(data);
    if (check("parent synchronize", cudaDeviceSynchronize())) return 1;
    std::fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
      execl("/proc/self/exe", argv[0], "race", static_cast<char*>(nullptr));
      _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    std::printf("child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    clean<<<1, 64>>>(data);
  }
  if (check("synchronize", cudaDeviceSynchronize())) return 1;
  int host[64];
  if (check("memcpy", cudaMemcpy(host, data, sizeof host, cudaMemcpyDeviceToHost))) return 1;
  std::printf("host[0] = %d host[47] = %d\n", host[0], host[47]);
  return 0;
}
