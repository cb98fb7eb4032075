// --initcheck: a kernel's reads of cudaMalloc'd bytes that no copy, memset or
// kernel store wrote (sim/InitShadow.h), noted once per instruction with the
// first lane's thread and address, as compute-sanitizer's initcheck reports.
#include "sim/Exec.h"
#include "sim/InitShadow.h"

namespace predatar::sim {
namespace {

void noteUninitializedRead(Launch& L, const Warp& w, uint32_t lane, uint32_t pc, uint64_t address,
                           uint32_t bytes) {
  Launch::UninitializedReadNote& note = L.uninitializedReads[pc];
  if (note.count++) return;
  std::string allocation;
  if (auto a = L.memory.find(address))
    allocation = " (byte " + std::to_string(address - a->base) + " of " +
                 (a->label.empty() ? std::string("an allocation") : a->label) + " (" + std::to_string(a->bytes) +
                 " bytes))";
  note.message = "uninitialized __global__ memory read of " + std::to_string(bytes) + " bytes at " +
                 L.userLine(pc) + " in " + demangledName(L.kernelName) + " by " + L.threadName(w, lane) + ": address " +
                 hex(address) + allocation +
                 " was never written by a copy, a memset or a kernel store. cudaMalloc does not clear memory "
                 "on a GPU, so the kernel reads whatever was there (predatar's memory reads as zero). "
                 "Initialize it first (cudaMemset, a copy or a kernel that writes it).";
}

}  // namespace

void checkGlobalInit(Ctx& x, uint32_t mask, const uint64_t* addr, uint32_t bytes, AccessType type, uint32_t pc) {
  InitShadow& shadow = *x.L->initShadow;
  forLanes(mask, [&](uint32_t l) {
    if (type != AccessType::Write && !shadow.allWritten(addr[l], bytes))
      if (auto offset = shadow.firstUnwritten(addr[l], bytes))
        noteUninitializedRead(*x.L, *x.W, l, pc, addr[l] + *offset, bytes);
    if (type != AccessType::Read) shadow.markWritten(addr[l], bytes);
  });
}

}  // namespace predatar::sim
