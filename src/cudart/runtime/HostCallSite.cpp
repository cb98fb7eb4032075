#include "cudart/runtime/HostCallSite.h"

#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <link.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <cxxabi.h>
#include <memory>
#include <cstdio>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace predatar::cudart {
namespace {

// The folder of predatar's libraries (libcudart, libcublas, ...): a frame
// there is ours, so cuBLAS's own cudaMalloc names the program's cublasCreate.
std::string_view ourFolder() {
  static const std::string folder = [] {
    Dl_info self{};
    if (!dladdr(reinterpret_cast<const void*>(&programCallSite), &self) || !self.dli_fname) return std::string();
    std::string_view name = self.dli_fname;
    return std::string(name.substr(0, name.rfind('/') + 1));
  }();
  return folder;
}

bool inOurFolder(const char* file) {
  std::string_view f = file ? file : "";
  return !ourFolder().empty() && f.starts_with(ourFolder()) && f.find('/', ourFolder().size()) == f.npos;
}

// addr2line's function and "file:line" for one address; empty where it could
// not run or knows nothing (a program built without -g has no lines).
std::pair<std::string, std::string> addr2line(const std::string& object, uintptr_t address) {
  if (object.find('\'') != std::string::npos) return {};
  std::string command = absl::StrCat("addr2line -f -C -e '", object, "' 0x", absl::Hex(address), " 2>/dev/null");
  FILE* out = popen(command.c_str(), "r");
  if (!out) return {};
  char buffer[1024];
  std::string text;
  while (size_t n = std::fread(buffer, 1, sizeof buffer, out)) text.append(buffer, n);
  pclose(out);
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  if (lines.size() < 2) return {};
  std::string function = lines[0] == "??" ? "" : lines[0];
  std::string line = lines[1];
  if (size_t discriminator = line.find(" (discriminator"); discriminator != std::string::npos) line.resize(discriminator);
  if (absl::StartsWith(line, "??") || absl::EndsWith(line, ":?") || absl::EndsWith(line, ":0")) line.clear();
  if (size_t slash = line.rfind('/'); slash != std::string::npos) line = line.substr(slash + 1);
  return {function, line};
}

// (function, description) of one return address.
std::pair<std::string, std::string> describeFrame(const void* returnAddress) {
  Dl_info where{};
  if (!dladdr(returnAddress, &where) || !where.dli_fname || !where.dli_fname[0] || !where.dli_fbase) return {};
  // (the call instruction's line: the return address is the next one's)
  uintptr_t address = fileAddress(static_cast<const char*>(returnAddress) - 1, where.dli_fbase);
  std::string file = where.dli_fname, place = absl::StrCat(file, "+0x", absl::Hex(address));
  // (the program itself is named as it was started, "./app", from a folder it
  // may since have left: addr2line reads the file the process runs)
  std::string object = file;
  if (file[0] != '/') {
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return {"", place};
    object.assign(exe, size_t(n));
  }
  auto [function, line] = addr2line(object, address);
  if (function.empty() && where.dli_sname) function = where.dli_sname;
  if (function.empty()) return {"", place};
  return {function, line.empty() ? absl::StrCat(function, " (", place, ")") : absl::StrCat(function, " at ", line)};
}

// Whether a function is CUDA's code in the program rather than the program's:
// one of cuda_runtime.h's templates, inlined into it ("cudaError cudaMalloc<int>
// (int**, unsigned long)": a CUDA API name followed by template arguments), or
// a host stub nvcc generated for a kernel launch (__device_stub__Z4stepPi,
// __cudaLaunchKernel_helper, __wrapper__device_stub_step).
bool isCudaGenerated(std::string_view function) {
  for (std::string_view stub : {"__device_stub_", "__wrapper__device_stub_", "__cudaLaunch"})
    if (function.starts_with(stub)) return true;
  for (size_t at = function.find("cuda"); at != function.npos; at = function.find("cuda", at + 1)) {
    if (at > 0 && function[at - 1] != ' ') continue;
    size_t end = at;
    while (end < function.size() && (std::isalnum(static_cast<unsigned char>(function[end])) || function[end] == '_')) ++end;
    if (end < function.size() && function[end] == '<') return true;
  }
  return false;
}

}  // namespace

uintptr_t fileAddress(const void* pc, const void* base) {
  auto header = static_cast<const ElfW(Ehdr)*>(base);
  uintptr_t at = reinterpret_cast<uintptr_t>(pc);
  return header->e_type == ET_DYN ? at - reinterpret_cast<uintptr_t>(base) : at;
}

CallSite programCallSite() {
  CallSite site;
  void* frames[32];
  int n = backtrace(frames, 32), kept = 0;
  for (int i = 1; i < n && kept < CallSite::kFrames; ++i) {
    Dl_info where{};
    if (!dladdr(frames[i], &where) || !where.dli_fname) continue;
    if (kept || !inOurFolder(where.dli_fname)) site.frames[kept++] = frames[i];
  }
  return site;
}

namespace {

// The host function nvcc names as the kernel that a device stub launches,
// as addr2line -C names it: "__device_stub__Z4gatePdlPKd(double*, long,
// double const*)" -> "gate(double*, long, double const*)"; extern "C"
// kernels' "__device_stub__step(int*)" -> "step".
std::string kernelWrapperOf(std::string_view stub) {
  std::string_view name = stub.substr(std::string_view("__device_stub_").size());
  name = name.substr(0, name.find('('));
  if (!name.starts_with("_Z")) return std::string(name.substr(name.starts_with("_") ? 1 : 0));
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> demangled(
      abi::__cxa_demangle(std::string(name).c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && demangled ? std::string(demangled.get()) : std::string(name);
}

}  // namespace

std::string describeCallSite(const CallSite& site) {
  std::string first;
  // After a device stub, the kernel's host wrapper, nvcc's too, unless the
  // compiler inlined it into the program's function that launched it
  // (HeCBench's goulash at -O3: the site is then that function, main).
  std::string wrapper;
  for (const void* frame : site.frames) {
    if (!frame) break;
    auto [function, text] = describeFrame(frame);
    if (first.empty()) first = text;
    bool isWrapper = !wrapper.empty() && (function == wrapper || function.starts_with(wrapper + "("));
    if (!isWrapper && !isCudaGenerated(function)) return text;  // (else its caller is the site)
    wrapper = function.starts_with("__device_stub_") ? kernelWrapperOf(function) : "";
  }
  return first;
}

}  // namespace predatar::cudart
