#include "cudart/ProgramCheck.h"

#include <elf.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace predatar::cudart {
namespace {

std::string resolve(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  if (!path) return program;
  for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
    std::string candidate = absl::StrCat(dir, "/", program);
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return program;
}

template <typename T>
bool read(const std::string& bytes, uint64_t offset, T& out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, bytes.data() + offset, sizeof(T));
  return true;
}

std::string cstr(const std::string& bytes, uint64_t offset) {
  if (offset >= bytes.size()) return {};
  return std::string(bytes.c_str() + offset, strnlen(bytes.c_str() + offset, bytes.size() - offset));
}

}  // namespace

absl::StatusOr<ProgramInfo> inspectProgram(const std::string& program) {
  ProgramInfo info;
  info.path = resolve(program);
  std::error_code ec;
  if (std::filesystem::is_directory(info.path, ec))
    return absl::InvalidArgumentError(absl::StrCat("'", program, "' is a folder, not a program"));
  // Only regular files are inspected (a device such as /dev/zero never ends).
  if (std::filesystem::exists(info.path, ec) && !std::filesystem::is_regular_file(info.path, ec)) return info;
  std::ifstream in(info.path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open the program '", program, "'"));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Elf64_Ehdr eh;
  if (!read(bytes, 0, eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) return info;
  info.elf = true;
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr)) return info;
  bool importsRuntime = false;
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  for (size_t i = 0; i < sections.size(); ++i)
    if (!read(bytes, eh.e_shoff + i * sizeof(Elf64_Shdr), sections[i])) return info;
  std::string shstr;
  if (eh.e_shstrndx < sections.size()) {
    const auto& s = sections[eh.e_shstrndx];
    if (s.sh_offset <= bytes.size()) shstr = bytes.substr(s.sh_offset, s.sh_size);
  }
  for (const auto& s : sections) {
    std::string name = cstr(shstr, s.sh_name);
    if (name == ".nv_fatbin" || name == ".nvFatBinSegment") info.hasFatbin = true;
    if (s.sh_type == SHT_DYNAMIC && s.sh_link < sections.size()) {
      const auto& strtab = sections[s.sh_link];
      for (uint64_t off = s.sh_offset; off + sizeof(Elf64_Dyn) <= s.sh_offset + s.sh_size;
           off += sizeof(Elf64_Dyn)) {
        Elf64_Dyn d;
        if (!read(bytes, off, d) || d.d_tag == DT_NULL) break;
        if (d.d_tag == DT_NEEDED) info.needed.push_back(cstr(bytes, strtab.sh_offset + d.d_un.d_val));
      }
    }
    if ((s.sh_type == SHT_SYMTAB || s.sh_type == SHT_DYNSYM) && s.sh_link < sections.size() &&
        s.sh_entsize == sizeof(Elf64_Sym)) {
      const auto& strtab = sections[s.sh_link];
      for (uint64_t off = s.sh_offset; off + sizeof(Elf64_Sym) <= s.sh_offset + s.sh_size;
           off += sizeof(Elf64_Sym)) {
        Elf64_Sym sym;
        if (!read(bytes, off, sym)) break;
        if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC && ELF64_ST_TYPE(sym.st_info) != STT_NOTYPE) continue;
        std::string name = cstr(bytes, strtab.sh_offset + sym.st_name);
        if (name != "cudaMalloc" && name != "__cudaRegisterFatBinary" && name != "cudaLaunchKernel") continue;
        if (sym.st_shndx == SHN_UNDEF)
          importsRuntime = true;
        else if (ELF64_ST_TYPE(sym.st_info) == STT_FUNC)
          info.staticCudart = true;
      }
    }
  }
  for (const auto& n : info.needed)
    if (absl::StartsWith(n, "libcudart.so")) info.cudartSoname = n;
  // Stripped static programs have no symbols left: registering fat binaries
  // without importing the runtime means it is linked in.
  if (info.hasFatbin && info.cudartSoname.empty() && !importsRuntime) info.staticCudart = true;
  return info;
}

absl::Status checkProgram(const std::string& program, std::string* warning) {
  auto info = inspectProgram(program);
  if (!info.ok()) return info.status();
  if (!info->elf) return absl::OkStatus();
  if (info->staticCudart && info->cudartSoname.empty())
    return absl::FailedPreconditionError(absl::StrCat(
        info->path,
        " was built with the static CUDA runtime (nvcc's default -cudart static), which PreDataR cannot "
        "replace; rebuild it with `nvcc -cudart shared` (add -lineinfo for source lines in reports)"));
  if (!info->cudartSoname.empty() && info->cudartSoname != "libcudart.so.13")
    return absl::FailedPreconditionError(absl::StrCat(
        info->path, " needs ", info->cudartSoname,
        "; PreDataR provides libcudart.so.13: rebuild it with CUDA 13's nvcc (-cudart shared)"));
  if (info->cudartSoname.empty() && warning) {
    *warning = info->hasFatbin
                   ? absl::StrCat(info->path, " contains CUDA code but does not load libcudart.so.13 itself; "
                                              "kernels are seen only if a library it loads was built with "
                                              "`nvcc -cudart shared`")
                   : absl::StrCat(info->path, " does not use the CUDA runtime (no libcudart.so.13)");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> findRuntimeLibraryDir(const std::string& predatarExecutable) {
  std::vector<std::string> candidates;
  if (const char* dir = std::getenv("PREDATAR_CUDART_DIR"); dir && *dir) candidates.push_back(dir);
  char buffer[4096];
  std::string exe = predatarExecutable;
  ssize_t n = ::readlink(predatarExecutable.c_str(), buffer, sizeof buffer - 1);
  if (n > 0) exe.assign(buffer, size_t(n));
  std::string folder = exe.substr(0, exe.find_last_of('/') == std::string::npos ? 0 : exe.find_last_of('/'));
  if (folder.empty()) folder = ".";
  candidates.push_back(folder + "/lib");
  candidates.push_back(folder + "/../lib");
  for (const auto& dir : candidates)
    if (::access((dir + "/libcudart.so.13").c_str(), R_OK) == 0) return dir;
  return absl::NotFoundError(absl::StrCat("PreDataR's libcudart.so.13 is not in ", absl::StrJoin(candidates, ", "),
                                          " (build the predatar_cudart_runtime target, or set PREDATAR_CUDART_DIR)"));
}

}  // namespace predatar::cudart
