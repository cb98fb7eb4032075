// External functions nvcc calls that the emulator implements: device printf
// (vprintf) and assert (__assertfail).
#include <cstdio>
#include <iostream>

#include "sim/Exec.h"

namespace predatar::sim {

// Host pointer for `bytes` at a generic address as seen by `lane`, or null.
uint8_t* hostPointer(Ctx& x, uint32_t lane, uint64_t a, uint64_t bytes) {
  Launch& L = *x.L;
  Warp& w = *x.W;
  uint64_t off = a & kWindowMask;
  switch (a >> kWindowShift) {
    case 0: return L.memory.rangeOf(a, bytes) ? reinterpret_cast<uint8_t*>(a) : nullptr;
    case 1: return off + bytes <= L.sharedBytes ? L.blocks[w.block].shared.get() + off : nullptr;
    case 2: return off + bytes <= L.stackBytes ? w.local.get() + size_t(lane) * L.stackBytes + off : nullptr;
    case 3: return off + bytes <= L.params.size() ? L.params.data() + off : nullptr;
    default: return nullptr;
  }
}

namespace {

bool readString(Ctx& x, uint32_t lane, uint64_t a, std::string& out, size_t max = 4096) {
  out.clear();
  for (size_t i = 0; i < max; ++i) {
    const uint8_t* p = hostPointer(x, lane, a + i, 1);
    if (!p) return false;
    if (*p == 0) return true;
    out.push_back(char(*p));
  }
  return true;
}

}  // namespace

uint64_t frameArg(Ctx& x, const ptx::Instr& in, uint32_t lane, size_t i, uint32_t bytes) {
  Launch& L = *x.L;
  Warp& w = *x.W;
  const ptx::CallSite& cs = L.M.ir.calls[in.call];
  if (i >= cs.argOffsets.size()) return 0;
  uint64_t v = 0;
  uint64_t off = w.frameBase[lane] + uint64_t(cs.argOffsets[i]);
  if (off + bytes <= L.stackBytes) std::memcpy(&v, w.local.get() + size_t(lane) * L.stackBytes + off, bytes);
  return v;
}

namespace {

std::string formatPrintf(Ctx& x, uint32_t lane, const std::string& fmt, uint64_t args, bool& ok) {
  std::string out;
  uint64_t pos = 0;
  auto next = [&](uint32_t size) -> uint64_t {
    pos = (pos + size - 1) / size * size;
    const uint8_t* p = hostPointer(x, lane, args + pos, size);
    pos += size;
    uint64_t v = 0;
    if (!p) { ok = false; return 0; }
    std::memcpy(&v, p, size);
    return v;
  };
  char buf[512];
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') { out.push_back(fmt[i]); continue; }
    if (i + 1 < fmt.size() && fmt[i + 1] == '%') { out.push_back('%'); ++i; continue; }
    size_t j = i + 1;
    std::string spec = "%";
    while (j < fmt.size() && std::strchr("-+ #0", fmt[j])) spec.push_back(fmt[j++]);
    while (j < fmt.size() && (std::isdigit(uint8_t(fmt[j])) || fmt[j] == '.')) spec.push_back(fmt[j++]);
    int longs = 0;
    while (j < fmt.size() && std::strchr("hlzjtL", fmt[j])) {
      if (fmt[j] == 'l' || fmt[j] == 'z' || fmt[j] == 'j' || fmt[j] == 't') ++longs;
      ++j;
    }
    if (j >= fmt.size()) { out += fmt.substr(i); break; }
    char conv = fmt[j];
    i = j;
    switch (conv) {
      case 'd': case 'i': {
        uint64_t v = next(longs ? 8 : 4);
        long long sv = longs ? (long long)int64_t(v) : (long long)int32_t(uint32_t(v));
        std::snprintf(buf, sizeof buf, (spec + "ll" + conv).c_str(), sv);
        out += buf;
        break;
      }
      case 'u': case 'x': case 'X': case 'o': {
        uint64_t v = next(longs ? 8 : 4);
        if (!longs) v = uint32_t(v);
        std::snprintf(buf, sizeof buf, (spec + "ll" + conv).c_str(), (unsigned long long)v);
        out += buf;
        break;
      }
      case 'c': {
        uint64_t v = next(4);
        std::snprintf(buf, sizeof buf, (spec + conv).c_str(), int(v));
        out += buf;
        break;
      }
      case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
        double d = std::bit_cast<double>(next(8));
        std::snprintf(buf, sizeof buf, (spec + conv).c_str(), d);
        out += buf;
        break;
      }
      case 's': {
        uint64_t a = next(8);
        std::string s;
        if (!readString(x, lane, a, s)) s = "(bad string)";
        std::snprintf(buf, sizeof buf, (spec + "s").c_str(), s.c_str());
        out += buf;
        break;
      }
      case 'p': {
        uint64_t a = next(8);
        std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)a);
        out += buf;
        break;
      }
      default: out += spec + conv; break;
    }
  }
  return out;
}

// What CUDA prints for each thread whose assert fails (on the standard error,
// which is unbuffered, as the driver's text reaches a terminal before the
// program's buffered output): "file:line: function: block: [x,y,z], thread:
// [x,y,z] Assertion `expr` failed."
void printAssertion(const Launch& L, const Warp& w, uint32_t lane, const std::string& msg, const std::string& file,
                    uint32_t line, const std::string& func) {
  const Dim3& b = L.blocks[w.block].idx;
  uint32_t t = w.inBlock * 32 + lane, bx = L.cfg.block.x, by = L.cfg.block.y;
  std::fprintf(stderr, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", file.c_str(), line,
               func.c_str(), b.x, b.y, b.z, t % bx, (t / bx) % by, t / (bx * by), msg.c_str());
}

}  // namespace

bool execBuiltin(Ctx& x, const ptx::Instr& in, uint32_t lane) {
  Launch& L = *x.L;
  Warp& w = *x.W;
  if (in.mode == ptx::kVprintf) {
    std::string fmt;
    if (!readString(x, lane, frameArg(x, in, lane, 0, 8), fmt)) {
      L.fault(w, lane, x.pc, "printf with an invalid format string address");
      return false;
    }
    bool ok = true;
    std::string text = formatPrintf(x, lane, fmt, frameArg(x, in, lane, 1, 8), ok);
    if (!ok) {
      L.fault(w, lane, x.pc, "printf argument buffer out of bounds");
      return false;
    }
    if (L.cfg.printfOutput) L.cfg.printfOutput(text);
    else std::fwrite(text.data(), 1, text.size(), stdout);
    // return value: 0
    const ptx::CallSite& cs = L.M.ir.calls[in.call];
    if (!cs.retOffsets.empty()) {
      uint64_t off = w.frameBase[lane] + uint64_t(cs.retOffsets[0]);
      if (off + 4 <= L.stackBytes) std::memset(w.local.get() + size_t(lane) * L.stackBytes + off, 0, 4);
    }
    return true;
  }
  if (in.mode == ptx::kAssertFail) {
    std::string msg, file, func;
    readString(x, lane, frameArg(x, in, lane, 0, 8), msg);
    readString(x, lane, frameArg(x, in, lane, 1, 8), file);
    uint32_t line = uint32_t(frameArg(x, in, lane, 2, 4));
    readString(x, lane, frameArg(x, in, lane, 3, 8), func);
    printAssertion(L, w, lane, msg, file, line, func);
    L.fault(w, lane, x.pc, "assertion '" + msg + "' failed (" + file + ":" + std::to_string(line) + " in " + func + ")");
    return false;
  }
  if (in.mode >= ptx::kCdpGetParameterBuffer) return execDeviceRuntime(x, in, lane);
  L.fault(w, lane, x.pc, "unsupported external call");
  return false;
}

}  // namespace predatar::sim
