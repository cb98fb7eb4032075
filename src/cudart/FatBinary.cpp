#include "cudart/FatBinary.h"

#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cudart/runtime/DeviceProperties.h"
#include "ptx/Link.h"

namespace predatar::cudart {
namespace {

template <typename T>
T load(const uint8_t* p) {
  T value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

constexpr uint64_t kContainerHeaderMin = 16;
constexpr uint64_t kEntryHeaderMin = 0x40;
// A sanity bound on one container (nvcc's are well below; a larger value means
// the pointer does not point at a fatbin).
constexpr uint64_t kMaxContainerBytes = uint64_t(1) << 34;

std::string hex(uint64_t v) { return absl::StrCat("0x", absl::Hex(v)); }

// Streams the frame into a growing buffer: memory follows the bytes actually
// decoded, never what a (possibly corrupt) header claims.
absl::StatusOr<std::string> zstdDecompress(std::string_view in, uint64_t expectedSize) {
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!ctx) return absl::ResourceExhaustedError("zstd: cannot create a decompression context");
  std::string out;
  ZSTD_inBuffer input{in.data(), in.size(), 0};
  size_t chunk = std::max<size_t>(ZSTD_DStreamOutSize(), std::min<uint64_t>(expectedSize, 1u << 20));
  while (true) {
    size_t used = out.size();
    if (used + chunk > kMaxContainerBytes)
      return absl::DataLossError(absl::StrCat("zstd entry larger than ", kMaxContainerBytes, " bytes"));
    out.resize(used + chunk);
    ZSTD_outBuffer output{out.data() + used, chunk, 0};
    size_t left = ZSTD_decompressStream(ctx.get(), &output, &input);
    out.resize(used + output.pos);
    if (ZSTD_isError(left))
      return absl::DataLossError(absl::StrCat("zstd decompression failed: ", ZSTD_getErrorName(left)));
    if (left == 0) break;  // frame complete
    if (input.pos == input.size && output.pos < chunk)
      return absl::DataLossError("zstd decompression failed: truncated frame");
    chunk = std::min<size_t>(chunk * 2, 64u << 20);
  }
  if (out.empty()) return absl::DataLossError("zstd entry decompresses to nothing");
  return out;
}

}  // namespace

const char* toString(Compression compression) {
  switch (compression) {
    case Compression::None: return "none";
    case Compression::Lz4: return "lz4";
    case Compression::Zstd: return "zstd";
  }
  return "?";
}

absl::StatusOr<std::string> lz4DecompressBlock(std::string_view in, uint64_t expectedSize) {
  if (expectedSize > kMaxContainerBytes)
    return absl::DataLossError(absl::StrCat("lz4 entry with bad decompressed size ", expectedSize));
  std::string out;
  // LZ4 expands at most ~255x: reserve no more than the input can produce.
  out.reserve(std::min<uint64_t>(expectedSize, uint64_t(in.size()) * 256));
  const auto* p = reinterpret_cast<const uint8_t*>(in.data());
  const uint8_t* end = p + in.size();
  auto readLength = [&](uint64_t base, uint64_t& length) -> bool {
    length = base;
    if (base != 15) return true;
    while (true) {
      if (p >= end) return false;
      uint8_t b = *p++;
      length += b;
      if (b != 255) return true;
    }
  };
  while (p < end) {
    uint8_t token = *p++;
    uint64_t literals;
    if (!readLength(token >> 4, literals) || uint64_t(end - p) < literals)
      return absl::DataLossError("lz4: truncated literals");
    out.append(reinterpret_cast<const char*>(p), literals);
    p += literals;
    if (p == end) break;  // the last sequence has literals only
    if (end - p < 2) return absl::DataLossError("lz4: truncated match offset");
    uint16_t offset = uint16_t(p[0] | (p[1] << 8));
    p += 2;
    if (offset == 0 || offset > out.size()) return absl::DataLossError("lz4: bad match offset");
    uint64_t match;
    if (!readLength(token & 15, match)) return absl::DataLossError("lz4: truncated match length");
    match += 4;
    if (out.size() + match > kMaxContainerBytes) return absl::DataLossError("lz4: output too large");
    size_t from = out.size() - offset;
    for (uint64_t i = 0; i < match; ++i) out.push_back(out[from + i]);  // may overlap
  }
  if (expectedSize && out.size() < expectedSize)
    return absl::DataLossError(
        absl::StrCat("lz4: decompressed ", out.size(), " bytes, header says ", expectedSize));
  if (expectedSize) out.resize(expectedSize);
  return out;
}

absl::StatusOr<std::vector<FatBinEntry>> parseFatbinContainer(const void* data, uint64_t limit) {
  if (data == nullptr) return absl::InvalidArgumentError("null fatbin pointer");
  const auto* base = static_cast<const uint8_t*>(data);
  if (limit < kContainerHeaderMin) return absl::DataLossError("fatbin container truncated");
  uint32_t magic = load<uint32_t>(base);
  if (magic != kFatbinMagic)
    return absl::InvalidArgumentError(
        absl::StrCat("not a fatbin container (magic ", hex(magic), ", expected ", hex(kFatbinMagic), ")"));
  uint16_t headerSize = load<uint16_t>(base + 6);
  uint64_t fatSize = load<uint64_t>(base + 8);
  if (headerSize < kContainerHeaderMin || fatSize > kMaxContainerBytes ||
      headerSize + fatSize > limit)
    return absl::DataLossError(absl::StrCat("fatbin container with bad sizes (header ", headerSize,
                                            ", body ", fatSize, ")"));
  std::vector<FatBinEntry> entries;
  uint64_t offset = headerSize;
  const uint64_t end = headerSize + fatSize;
  while (offset + kEntryHeaderMin <= end) {
    const uint8_t* e = base + offset;
    FatBinEntry entry;
    entry.kind = load<uint16_t>(e);
    uint32_t entryHeader = load<uint32_t>(e + 4);
    uint64_t payloadSize = load<uint64_t>(e + 8);
    if (entry.kind == 0 && entryHeader == 0) break;  // padding
    if (entryHeader < kEntryHeaderMin || entryHeader > end - offset ||
        payloadSize > end - offset - entryHeader)
      return absl::DataLossError(absl::StrCat("fatbin entry at offset ", offset,
                                              " overruns its container"));
    uint32_t compressedSize = load<uint32_t>(e + 0x10);
    uint32_t optionsOffset = load<uint32_t>(e + 0x14);
    entry.minor = load<uint16_t>(e + 0x18);
    entry.major = load<uint16_t>(e + 0x1a);
    entry.arch = load<uint32_t>(e + 0x1c);
    uint32_t nameOffset = load<uint32_t>(e + 0x20);
    uint32_t nameLength = load<uint32_t>(e + 0x24);
    entry.flags = load<uint64_t>(e + 0x28);
    uint64_t uncompressedSize = entryHeader >= 0x40 ? load<uint64_t>(e + 0x38) : 0;
    if (nameOffset && nameOffset < entryHeader) {
      uint64_t n = std::min<uint64_t>(nameLength, entryHeader - nameOffset);
      entry.name.assign(reinterpret_cast<const char*>(e + nameOffset), n);
      entry.name.resize(strnlen(entry.name.c_str(), entry.name.size()));
      while (!entry.name.empty() && entry.name.back() == ' ') entry.name.pop_back();
    }
    // Options: {u32 textOffset, u32 textLength} at optionsOffset, text in the header.
    if (optionsOffset && uint64_t(optionsOffset) + 8 <= entryHeader) {  // no 32-bit wrap
      uint32_t textOffset = load<uint32_t>(e + optionsOffset);
      uint32_t length = load<uint32_t>(e + optionsOffset + 4);
      if (textOffset < entryHeader) {
        std::string opts(reinterpret_cast<const char*>(e + textOffset),
                         std::min<uint64_t>(length, entryHeader - textOffset));
        opts.resize(strnlen(opts.c_str(), opts.size()));
        while (!opts.empty() && opts.back() == ' ') opts.pop_back();
        while (!opts.empty() && opts.front() == ' ') opts.erase(opts.begin());
        entry.options = std::move(opts);
      }
    }
    std::string_view payload(reinterpret_cast<const char*>(e + entryHeader), payloadSize);
    bool zstdMagic = payload.size() >= 4 && load<uint32_t>(e + entryHeader) == 0xFD2FB528u;
    if ((entry.flags & kFlagZstd) || ((entry.flags & kFlagLz4) == 0 && zstdMagic && uncompressedSize))
      entry.compression = Compression::Zstd;
    else if (entry.flags & kFlagLz4)
      entry.compression = Compression::Lz4;
    if (entry.compression != Compression::None && compressedSize && compressedSize <= payloadSize)
      payload = payload.substr(0, compressedSize);
    switch (entry.compression) {
      case Compression::None: entry.payload.assign(payload); break;
      case Compression::Zstd: {
        auto out = zstdDecompress(payload, uncompressedSize);
        if (!out.ok())
          return absl::DataLossError(absl::StrCat("fatbin entry at offset ", offset, " (",
                                                  entry.isPtx() ? "PTX" : "ELF", " sm_", entry.arch,
                                                  "): ", out.status().message()));
        entry.payload = std::move(*out);
        break;
      }
      case Compression::Lz4: {
        auto out = lz4DecompressBlock(payload, uncompressedSize);
        if (!out.ok())
          return absl::DataLossError(absl::StrCat("fatbin entry at offset ", offset, " (",
                                                  entry.isPtx() ? "PTX" : "ELF", " sm_", entry.arch,
                                                  "): ", out.status().message()));
        entry.payload = std::move(*out);
        break;
      }
    }
    if (entry.isPtx()) entry.payload.resize(strnlen(entry.payload.c_str(), entry.payload.size()));
    entries.push_back(std::move(entry));
    offset += entryHeader + payloadSize;
  }
  return entries;
}

absl::StatusOr<std::vector<FatBinEntry>> parseFatbinSection(std::string_view bytes) {
  std::vector<FatBinEntry> all;
  uint64_t offset = 0;
  int containers = 0;
  while (offset + kContainerHeaderMin <= bytes.size()) {
    const auto* p = reinterpret_cast<const uint8_t*>(bytes.data()) + offset;
    if (load<uint32_t>(p) != kFatbinMagic) {
      offset += 8;  // containers are 8-byte aligned; skip padding
      continue;
    }
    auto entries = parseFatbinContainer(p, bytes.size() - offset);
    if (!entries.ok()) return entries.status();
    for (auto& e : *entries) {
      e.container = uint32_t(containers);
      all.push_back(std::move(e));
    }
    ++containers;
    offset += load<uint16_t>(p + 6) + load<uint64_t>(p + 8);
  }
  if (containers == 0) return absl::InvalidArgumentError("no fatbin container found");
  return all;
}

absl::StatusOr<std::vector<FatBinEntry>> parseFatbinWrapper(const void* wrapper) {
  if (wrapper == nullptr) return absl::InvalidArgumentError("null fatbin wrapper");
  const auto* w = static_cast<const uint8_t*>(wrapper);
  uint32_t magic = load<uint32_t>(w);
  // Some tools pass the container itself instead of a wrapper.
  if (magic == kFatbinMagic) return parseFatbinContainer(wrapper);
  if (magic != kFatbinWrapperMagic)
    return absl::InvalidArgumentError(absl::StrCat("not a fatbin wrapper (magic ", hex(magic),
                                                   ", expected ", hex(kFatbinWrapperMagic), ")"));
  uint32_t version = load<uint32_t>(w + 4);
  const void* data = load<const void*>(w + 8);
  auto entries = parseFatbinContainer(data);
  if (!entries.ok()) return entries.status();
  if (version == 2) {
    auto* const* prelinked = load<void* const*>(w + 16);
    for (size_t i = 0; prelinked && prelinked[i] && i < 65536; ++i) {
      auto more = parseFatbinContainer(prelinked[i]);
      if (!more.ok()) return more.status();
      for (auto& e : *more) {
        e.container = uint32_t(i + 1);
        entries->push_back(std::move(e));
      }
    }
  }
  return entries;
}

absl::StatusOr<const FatBinEntry*> selectPtx(const std::vector<FatBinEntry>& entries,
                                             std::string_view moduleName) {
  // PTX standing for a cubin runs only where that cubin would: the device's
  // major version, no higher minor one (an sm_75 cubin on an sm_90 GPU gets
  // CUDA_ERROR_NO_BINARY_FOR_GPU).
  for (const auto& e : entries)
    if ((e.flags & kFlagStandsForCubin) && !(int(e.arch / 10) == kMajor && int(e.arch % 10) <= kMinor))
      return absl::FailedPreconditionError(absl::StrCat(
          "the CUDA module", moduleName.empty() ? "" : " ", std::string(moduleName),
          " is a cubin that NVRTC compiled for sm_", e.arch, ", which does not run on this sm_", kMajor, kMinor,
          " device, as on a GPU (CUDA_ERROR_NO_BINARY_FOR_GPU): compile for sm_", kMajor, kMinor,
          ", or for compute_", e.arch, " to get PTX, which any later device runs"));
  const FatBinEntry* best = nullptr;
  for (const auto& e : entries) {
    if (!e.isPtx()) continue;
    if (best == nullptr) { best = &e; continue; }
    bool eModern = e.arch >= 70, bestModern = best->arch >= 70;
    if (eModern != bestModern ? eModern : (eModern ? e.arch < best->arch : e.arch > best->arch))
      best = &e;
  }
  if (best) return best;
  std::vector<std::string> sass;
  uint32_t arch = 0;
  for (const auto& e : entries)
    if (e.isElf()) {
      sass.push_back(absl::StrCat("sm_", e.arch));
      arch = std::max(arch, e.arch);
    }
  if (arch == 0) arch = 75;
  std::string what = sass.empty() ? std::string("no PTX")
                                  : absl::StrCat("only SASS for ", absl::StrJoin(sass, ", "), " and no PTX");
  return absl::FailedPreconditionError(absl::StrCat(
      "the CUDA module", moduleName.empty() ? "" : " ", std::string(moduleName), " contains ", what,
      "; PreDataR emulates PTX, so rebuild with PTX embedded: -arch=sm_", arch,
      " or -gencode arch=compute_", arch, ",code=compute_", arch,
      " (in addition to your -gencode options)"));
}

absl::StatusOr<ModulePtx> selectModulePtx(const std::vector<FatBinEntry>& entries, std::string_view moduleName) {
  std::map<uint32_t, std::vector<FatBinEntry>> byContainer;
  for (const auto& e : entries)
    if (e.isPtx()) byContainer[e.container].push_back(e);
  if (byContainer.size() <= 1) {
    auto ptx = selectPtx(entries, moduleName);
    if (!ptx.ok()) return ptx.status();
    return ModulePtx{(*ptx)->payload, (*ptx)->arch, 1};
  }
  ModulePtx linked;
  std::vector<ptx::PtxUnit> units;
  for (const auto& [container, unitEntries] : byContainer) {
    auto ptx = selectPtx(unitEntries, moduleName);
    if (!ptx.ok()) return ptx.status();
    if (units.empty()) linked.arch = (*ptx)->arch;
    std::string name = (*ptx)->name.empty() ? absl::StrCat("unit ", container) : (*ptx)->name;
    units.push_back(ptx::PtxUnit{std::move(name), (*ptx)->payload});
  }
  auto text = ptx::linkUnits(units);
  if (!text.ok()) return text.status();
  linked.text = std::move(*text);
  linked.units = units.size();
  return linked;
}

}  // namespace predatar::cudart
