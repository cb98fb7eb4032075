// Where in the program's host code a runtime call was made: the first frame
// of the call stack outside predatar's own libraries, as compute-sanitizer's
// "saved host backtrace" names it (--leak-check full's allocation sites).
#pragma once

#include <cstdint>
#include <string>

namespace predatar::cudart {

// The return addresses in the program (or libraries of its own) of the call
// into predatar's runtime that is running now, innermost first: a few, since
// the innermost are often cuda_runtime.h's inline templates (cudaMalloc<T>),
// and a launch's nvcc's stubs (template, helper, device stub, wrapper).
struct CallSite {
  static constexpr int kFrames = 6;
  const void* frames[kFrames] = {};
};
CallSite programCallSite();

// The first frame that is not CUDA's header code: "main at main.cu:118" where
// addr2line finds the line, "main (/path/app+0x13f7)" where it finds the
// function only, "/path/app+0x13f7" where it finds neither; empty when no
// frame was found. Runs addr2line: for reports, not for every call.
std::string describeCallSite(const CallSite& site);

// addr2line's address for a code address `pc` in an object loaded at `base`
// (dladdr's dli_fbase): the offset in a position-independent object, the
// address itself in one linked at a fixed address (ET_EXEC, -no-pie). Reads
// only the mapped ELF header: safe in a signal handler.
uintptr_t fileAddress(const void* pc, const void* base);

}  // namespace predatar::cudart
