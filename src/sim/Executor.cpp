// loadPtx and launch: decoding into handlers, launch setup. The warp
// scheduler and the control-flow / synchronization instructions are in
// Scheduler.cpp.
#include <cxxabi.h>

#include <algorithm>
#include <chrono>
#include <random>

#include "absl/strings/str_cat.h"
#include "ptx/Contraction.h"
#include "ptx/Parser.h"
#include "ptx/RegisterSlots.h"
#include "sim/Exec.h"
#include "sim/BarrierCheck.h"
#include "sim/ForwardProgress.h"
#include "sim/Livelock.h"
#include "sim/Residency.h"
#include "sim/Scheduler.h"
#include "sim/WarpMemoryPool.h"

namespace predatar::sim {

using ptx::Instr;
using ptx::Op;

namespace {

std::string demangle(const std::string& name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) return name;
  std::string r(d);
  std::free(d);
  return r;
}

std::string functionName(const ptx::Module& m, uint32_t f) { return f < m.functions.size() ? m.functions[f].name : "?"; }

// CUDA's own headers (atomicCAS, __shfl_sync, ...): reports show the user's
// line that called them, not the header's.
bool toolkitHeader(const std::string& file) {
  return file.find("/include/") != std::string::npos &&
         (file.find("cuda") != std::string::npos || file.find("crt/") != std::string::npos);
}

// CUB's and Thrust's algorithms (a kernel of theirs is all toolkit headers):
// their own lines, not the loads and stores they wrap (thread_load.cuh, ...).
bool libraryAlgorithm(const std::string& file) {
  return (file.find("/cub/") != std::string::npos || file.find("/thrust/") != std::string::npos) &&
         file.find("/thread/thread_load") == std::string::npos &&
         file.find("/thread/thread_store") == std::string::npos;
}

// "ns::f<(E)0, 4>(int*, int)" -> "ns::f<(E)0, 4>": the parameter list is the
// parenthesis that closes the name (template arguments may hold parentheses).
std::string withoutParameters(const std::string& name) {
  if (name.empty() || name.back() != ')') return name;
  int depth = 0;
  for (size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')') ++depth;
    else if (name[i] == '(' && --depth == 0) return name.substr(0, i);
  }
  return name;
}

// What positions are made of, kept by the module's SourceTable (which may
// outlive the module: a launch's record keeps it for its races' report).
struct ModuleSources {
  std::vector<std::pair<uint32_t, std::string>> files;
  std::vector<ptx::SourceLoc> sources;
  std::map<std::string, std::string> debugStrings;
  std::vector<std::string> functions;

  std::string file(uint32_t index) const { return ptx::fileName(files, index); }
  std::string function(uint32_t f) const { return f < functions.size() ? functions[f] : "?"; }
};

// A .loc with its inlining chain: the innermost position in user code, then
// each call site out, named by the function it lies in (the next inlined
// function out, or the PTX function at the end).
SourcePosition sourcePosition(const ModuleSources& ir, const ptx::SourceLoc& loc) {
  std::vector<InlinedCall> frames;  // [0]: own position; then call sites
  frames.push_back(InlinedCall{"", ir.file(loc.file), loc.line, loc.column});
  const ptx::SourceLoc* cur = &loc;
  for (int depth = 0; cur->inlinedAt < ir.sources.size() && depth < 64; ++depth) {
    const ptx::SourceLoc& site = ir.sources[cur->inlinedAt];
    std::string caller;
    if (site.inlinedAt != UINT32_MAX && !site.function.empty()) {
      auto name = ir.debugStrings.find(site.function);
      caller = name != ir.debugStrings.end() ? demangle(name->second) : site.function;
    } else {
      caller = demangle(ir.function(cur->enclosing));
    }
    frames.push_back(InlinedCall{withoutParameters(caller), ir.file(site.file), site.line, site.column});
    cur = &site;
  }
  size_t first = 0;
  while (first + 1 < frames.size() && toolkitHeader(frames[first].file)) ++first;
  if (toolkitHeader(frames[first].file)) {
    // No user code at all (a CUB kernel): the innermost line of the library's
    // algorithm, with the chain out to the kernel, rather than the kernel's
    // outermost line, which names only the call of the whole algorithm.
    size_t inner = 0;
    while (inner < frames.size() && !libraryAlgorithm(frames[inner].file)) ++inner;
    if (inner < frames.size()) first = inner;
  }
  SourcePosition p{frames[first].file, frames[first].line, frames[first].column};
  p.inlinedInto.assign(frames.begin() + long(first) + 1, frames.end());
  return p;
}

SourceTable sourceTable(const ptx::Module& ir) {
  auto from = std::make_shared<ModuleSources>();
  from->files = ir.files;
  from->sources = ir.sources;
  from->debugStrings = ir.debugStrings;
  for (const auto& f : ir.functions) from->functions.push_back(f.name);
  return SourceTable::resolvedOnUse(uint32_t(ir.sources.size()), [from = std::shared_ptr<const ModuleSources>(from)](
                                                                      uint32_t i) {
    return sourcePosition(*from, from->sources[i]);
  });
}

// The special registers each function of `ir` reads (LoadedModule::specialsRead).
std::vector<uint32_t> specialsReadByFunction(const ptx::Module& ir) {
  static_assert(ptx::kNumSpecials <= 32);
  std::vector<uint32_t> read(ir.functions.size(), 0);
  auto note = [&read](uint32_t f, ptx::Ref r) {
    if (r != ptx::kNoRef && (r & ptx::kRefKindMask) == ptx::kRefSpecial) read[f] |= 1u << (r & ptx::kRefIndexMask);
  };
  for (const Instr& in : ir.code) {
    for (ptx::Ref r : in.src) note(in.func, r);
    for (ptx::Ref r : in.dst) note(in.func, r);
    note(in.func, in.guard);
    note(in.func, in.addr.ref);
    if (!ptx::hasMatrixOperands(in.op) || in.target >= ir.matrixOps.size()) continue;
    const ptx::MatrixOperands& mo = ir.matrixOps[in.target];
    for (const auto* list : {&mo.d, &mo.a, &mo.b, &mo.c})
      for (ptx::Ref r : *list) note(in.func, r);
    note(in.func, mo.source.ref);
  }
  return read;
}

// A module's __constant__ variables, laid out in one bank as the hardware's
// constant bank holds them (in order, each at its alignment, the rest zero up
// to 64 KiB): a load past the end of one reads the next, or zero, without a
// fault, as on a GPU, where each in an allocation of its own faulted
// (HeCBench's lci reads fact_table[189] of a 171-entry table). The address
// of each constant by variable index (0 for the others); all 0 when the
// module has none or the bank cannot be allocated.
std::vector<uint64_t> constantBank(const ptx::Module& ir, DeviceMemory& memory) {
  constexpr uint64_t kBankBytes = 64 * 1024;
  std::vector<uint64_t> offsets(ir.variables.size(), 0);
  uint64_t used = 0;
  for (size_t i = 0; i < ir.variables.size(); ++i) {
    const ptx::Variable& v = ir.variables[i];
    if (v.space != ptx::Space::Const) continue;
    offsets[i] = (used + v.align - 1) / v.align * v.align;
    used = offsets[i] + v.bytes;
  }
  std::vector<uint64_t> addresses(ir.variables.size(), 0);
  if (used == 0) return addresses;
  uint64_t bytes = std::max(used, kBankBytes);
  uint64_t bank = memory.allocate(bytes, "__constant__ memory");
  if (!bank) return addresses;
  std::memset(reinterpret_cast<void*>(bank), 0, bytes);
  for (size_t i = 0; i < ir.variables.size(); ++i)
    if (ir.variables[i].space == ptx::Space::Const) addresses[i] = bank + offsets[i];
  return addresses;
}

}  // namespace

// ---------------------------------------------------------------- loading

absl::StatusOr<std::unique_ptr<Module>> loadPtx(std::string_view ptxText, std::string sourceName,
                                                DeviceMemory& memory, const LoadOptions& options) {
  auto parsed = ptx::parse(ptxText, sourceName);
  if (!parsed.ok()) return parsed.status();
  auto mod = std::make_unique<LoadedModule>();
  mod->ir = std::move(*parsed);
  if (options.fusedMultiplyAdd) ptx::contractMultiplyAdds(mod->ir);
  ptx::shareRegisterSlots(mod->ir);
  const ptx::Module& ir = mod->ir;
  mod->specialsRead = specialsReadByFunction(ir);
  mod->sources = sourceTable(ir);
  mod->fns.assign(ir.code.size(), nullptr);
  mod->ctrl.assign(ir.code.size(), Ctrl::Plain);
  for (uint32_t pc = 0; pc < ir.code.size(); ++pc) {
    const Instr& in = ir.code[pc];
    std::string error;
    bool lockInferenceInput = in.op == Op::Membar || (in.op == Op::Atom && in.atom == ptx::AtomOp::Cas);
    if (lockInferenceInput && toEventScope(in.scope) == Scope::Block) mod->blockScopedAcquires = true;
    switch (in.op) {
      case Op::Bra: mod->ctrl[pc] = Ctrl::Bra; continue;
      case Op::Call: mod->ctrl[pc] = Ctrl::Call; continue;
      case Op::Ret: mod->ctrl[pc] = Ctrl::Ret; continue;
      case Op::Exit: mod->ctrl[pc] = Ctrl::Exit; continue;
      case Op::Trap: mod->ctrl[pc] = Ctrl::Trap; continue;
      case Op::Bar: mod->ctrl[pc] = Ctrl::Bar; continue;
      case Op::BarWarpSync: case Op::Shfl: case Op::Vote: case Op::Match: case Op::Redux:
        mod->ctrl[pc] = Ctrl::WarpSync;
        continue;
      case Op::Nanosleep: mod->ctrl[pc] = Ctrl::Nanosleep; continue;
      case Op::BrxIdx: mod->ctrl[pc] = Ctrl::BrxIdx; continue;
      case Op::AddCarry: case Op::SubCarry: case Op::MadCarry: case Op::Mul24: case Op::Mad24: case Op::Dp4a:
      case Op::Dp2a: case Op::Vabsdiff4: case Op::Vabsdiff2:
        mod->fns[pc] = selectIntegerExtended(in, error);
        break;
      case Op::Tex: case Op::SurfLoad: case Op::SurfStore: mod->fns[pc] = selectTexture(in, error); break;
      case Op::WmmaLoad: case Op::WmmaStore: case Op::WmmaMma:  // warp-collective
        error = checkWarpMatrix(ir, in);
        if (error.empty()) { mod->ctrl[pc] = Ctrl::WarpSync; continue; }
        error = "unsupported instruction '" + ptx::describe(ir, pc) + "': " + error;
        break;
      case Op::CpAsync: case Op::CpAsyncCommit: case Op::CpAsyncWait: case Op::CpAsyncMbarrierArrive:
      case Op::MbarrierInit: case Op::MbarrierInval: case Op::MbarrierArrive: case Op::MbarrierTx:
      case Op::MbarrierTestWait: case Op::MbarrierPendingCount:
        mod->fns[pc] = selectAsyncCopy(in, error);
        break;
      case Op::CvtTf32: mod->fns[pc] = &execCvtTf32; break;
      case Op::Unsupported: error = "unsupported instruction '" + ir.unsupported.at(pc) + "'"; break;
      case Op::Ld: case Op::St: case Op::Atom: case Op::Red: case Op::Membar: case Op::Nop: case Op::Prefetch:
      case Op::GridDepWait: case Op::GridDepLaunch:
        mod->fns[pc] = selectMemory(in, error);
        break;
      default: mod->fns[pc] = selectAlu(in, error); break;
    }
    if (!mod->fns[pc]) {
      // Refused by name when a thread executes it (kernel, PC, line, thread),
      // so that kernels of the module that do not use it still run.
      mod->ctrl[pc] = Ctrl::Unsupported;
      mod->unsupported[pc] = error;
    }
  }
  mod->varAddress.assign(ir.variables.size(), 0);
  std::vector<uint64_t> constants = constantBank(ir, memory);
  for (size_t i = 0; i < ir.variables.size(); ++i) {
    const ptx::Variable& v = ir.variables[i];
    if (v.space != ptx::Space::Global && v.space != ptx::Space::Const) continue;
    uint64_t a = constants[i] ? constants[i] : memory.allocate(std::max<uint64_t>(v.bytes, 1), v.name);
    if (!v.init.empty()) std::memcpy(reinterpret_cast<void*>(a), v.init.data(), std::min<size_t>(v.init.size(), v.bytes));
    mod->varAddress[i] = a;
    mod->globalVars.push_back(GlobalVariable{v.name, a, v.bytes, v.space == ptx::Space::Const});
  }
  // Addresses in initializers, now that every variable has one: functions
  // live in the function window, as `mov %rd, function` gives them.
  for (size_t i = 0; i < ir.variables.size(); ++i)
    for (const ptx::Variable::Relocation& r : ir.variables[i].relocations) {
      if (mod->varAddress[i] == 0) continue;
      uint64_t value = (r.function ? kFunctionWindow + r.symbol : mod->varAddress[r.symbol]) + uint64_t(r.addend);
      std::memcpy(reinterpret_cast<void*>(mod->varAddress[i] + r.offset), &value, 8);
    }
  for (auto& f : ir.functions) {
    if (!f.entry || !f.defined) continue;
    KernelSignature sig;
    sig.name = f.name;
    for (auto& p : f.params) sig.params.push_back(KernelParam{p.name, p.bytes, p.align});
    mod->sigs.push_back(std::move(sig));
  }
  return std::unique_ptr<Module>(std::move(mod));
}

// ---------------------------------------------------------------- diagnostics

std::string Launch::where(uint32_t pc) const {
  const ptx::Module& ir = M.ir;
  std::string s = "pc " + std::to_string(pc);
  if (pc < ir.code.size()) {
    const Instr& in = ir.code[pc];
    // A PTX file's line, or (PTX from a program's fat binary, named after its
    // .cu file) the line of that PTX, which no file on disk holds.
    bool ptxFile = ir.sourceName.size() > 4 && ir.sourceName.ends_with(".ptx");
    s += " (" + (ptxFile ? ir.sourceName + ":" : std::string("PTX line ")) + std::to_string(in.line);
    if (in.source != UINT32_MAX) {
      const auto& loc = ir.sources[in.source];
      s += ", " + ir.fileName(loc.file) + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column);
    }
    s += ", " + ptx::describe(ir, pc);
    if (in.func != kernel) s += " in " + functionName(ir, in.func);
    s += ")";
  }
  return s;
}

std::string Launch::userLine(uint32_t pc) const {
  const ptx::Module& ir = M.ir;
  if (pc >= ir.code.size() || ir.code[pc].source == UINT32_MAX) return where(pc);
  const SourcePosition& p = M.sources[ir.code[pc].source];
  return p.file + ":" + std::to_string(p.line) + " (pc " + std::to_string(pc) + ", PTX line " +
         std::to_string(ir.code[pc].line) + ")";
}

std::string Launch::threadName(const Warp& w, uint32_t lane) const {
  const Block& b = blocks[w.block];
  uint32_t t = w.inBlock * 32 + lane;
  uint32_t bx = cfg.block.x, by = cfg.block.y;
  return "block (" + std::to_string(b.idx.x) + "," + std::to_string(b.idx.y) + "," + std::to_string(b.idx.z) +
         ") thread (" + std::to_string(t % bx) + "," + std::to_string((t / bx) % by) + "," +
         std::to_string(t / (bx * by)) + ")";
}

void Launch::recordFaultSite(const Warp& w, uint32_t lane, uint32_t pc) {
  if (faultSite) return;
  FaultSite site;
  site.pc = pc;
  const Block& b = blocks[w.block];
  uint32_t t = w.inBlock * 32 + lane;
  site.blockIdx = b.idx;
  site.threadIdx = Dim3{t % cfg.block.x, (t / cfg.block.x) % cfg.block.y, t / (cfg.block.x * cfg.block.y)};
  const ptx::Module& ir = M.ir;
  if (pc < ir.code.size()) {
    const Instr& in = ir.code[pc];
    site.ptxLine = in.line;
    if (in.source < ir.sources.size()) {
      const SourcePosition& pos = M.sources[in.source];  // the user's line, not a CUDA header's
      site.file = pos.file;
      site.line = pos.line;
      site.column = pos.column;
    }
  }
  faultSite = std::move(site);
}

void Launch::stop(absl::StatusCode code, const Warp& w, uint32_t lane, uint32_t pc, const std::string& what) {
  if (!error.ok()) return;
  recordFaultSite(w, lane, pc);
  error = absl::Status(code, "kernel '" + kernelName + "': " + what + " at " + where(pc) + " by " +
                                 threadName(w, lane));
}

// ---------------------------------------------------------------- launch

using detail::alignUp;

namespace {

// What a real device refuses at launch, refused here before anything is
// allocated: an sm_90 block has at most 227 KiB of shared memory and a thread
// at most 512 KiB of local memory (stack frames).
constexpr uint64_t kMaxSharedBytesPerBlock = 227 * 1024;
constexpr uint64_t kMaxLocalBytesPerThread = 512 * 1024;
absl::Status checkMemoryPerBlock(const Launch& L) {
  if (L.sharedBytes > kMaxSharedBytesPerBlock)
    return absl::InvalidArgumentError("kernel '" + L.kernelName + "': " + std::to_string(L.sharedBytes) +
                                      " bytes of shared memory per block (static + dynamic); the device has " +
                                      std::to_string(kMaxSharedBytesPerBlock));
  if (L.stackBytes > kMaxLocalBytesPerThread)
    return absl::InvalidArgumentError("kernel '" + L.kernelName + "': " + std::to_string(L.stackBytes) +
                                      " bytes of local memory per thread; the device allows " +
                                      std::to_string(kMaxLocalBytesPerThread));
  return absl::OkStatus();
}

}  // namespace

std::string demangledName(const std::string& mangled) { return demangle(mangled); }

const char* cudaErrorNameOf(const absl::Status& status) {
  std::string m(status.message());
  auto has = [&](const char* what) { return m.find(what) != std::string::npos; };
  switch (status.code()) {
    case absl::StatusCode::kOk: return "cudaSuccess";
    case absl::StatusCode::kFailedPrecondition:  // faults of the emulated kernel
      if (has("misaligned")) return "cudaErrorMisalignedAddress";
      if (has("out-of-bounds") || has("out of bounds") || has("illegal address")) return "cudaErrorIllegalAddress";
      if (has("deadlock")) return "cudaErrorLaunchTimeout";
      if (has("assert")) return "cudaErrorAssert";
      return "cudaErrorLaunchFailure";
    case absl::StatusCode::kOutOfRange: return "cudaErrorIllegalAddress";
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kResourceExhausted: return "cudaErrorLaunchTimeout";
    case absl::StatusCode::kUnimplemented: return "cudaErrorNotSupported";
    case absl::StatusCode::kInvalidArgument: return "cudaErrorInvalidValue";
    default: return "cudaErrorLaunchFailure";
  }
}

absl::Status launch(const Module& module, std::string_view kernel, const LaunchConfig& config,
                    DeviceMemory& memory, EventSink& sink) {
  return launch(module, kernel, config, memory, sink, nullptr);
}

absl::Status launch(const Module& moduleBase, std::string_view kernelName, const LaunchConfig& config,
                    DeviceMemory& memory, EventSink& sink, LaunchStats* stats) {
  const auto* mod = dynamic_cast<const LoadedModule*>(&moduleBase);
  if (!mod) return absl::InvalidArgumentError("module was not created by loadPtx");
  const ptx::Module& ir = mod->ir;
  int32_t k = -1;
  for (size_t i = 0; i < ir.functions.size() && k < 0; ++i) {
    const auto& f = ir.functions[i];
    if (!f.entry || !f.defined) continue;
    if (f.name == kernelName) k = int32_t(i);
  }
  for (size_t i = 0; i < ir.functions.size() && k < 0; ++i) {
    const auto& f = ir.functions[i];
    if (!f.entry || !f.defined) continue;
    std::string d = demangle(f.name);
    if (d == kernelName || d.substr(0, d.find('(')) == kernelName) k = int32_t(i);
  }
  if (k < 0) return absl::NotFoundError("no kernel '" + std::string(kernelName) + "' in " + ir.sourceName);
  const ptx::Function& K = ir.functions[k];
  Launch L(*mod, memory, sink);
  L.kernel = uint32_t(k);
  L.kernelName = demangle(K.name);
  L.cfg = config;
  if (config.grid.count() == 0 || config.block.count() == 0)
    return absl::InvalidArgumentError("kernel '" + L.kernelName + "': empty grid or block");
  if (config.block.count() > 1024)
    return absl::InvalidArgumentError("kernel '" + L.kernelName + "': more than 1024 threads per block");
  if (config.args.size() != K.params.size())
    return absl::InvalidArgumentError("kernel '" + L.kernelName + "' takes " + std::to_string(K.params.size()) +
                                      " arguments, " + std::to_string(config.args.size()) + " given");
  // parameters
  L.params.assign(std::max<uint32_t>(K.paramBytes, 1), 0);
  for (size_t i = 0; i < K.params.size(); ++i) {
    if (!config.args[i]) return absl::InvalidArgumentError("null argument pointer for parameter " + K.params[i].name);
    std::memcpy(L.params.data() + K.params[i].offset, config.args[i], K.params[i].bytes);
  }
  // reachable functions, recursion, stack size
  std::vector<int> state(ir.functions.size(), 0);  // 0 new, 1 visiting, 2 done
  std::vector<uint64_t> stack(ir.functions.size(), 0);
  std::vector<uint32_t> depth(ir.functions.size(), 0);
  std::vector<uint32_t> reach, path;
  L.recursive.assign(ir.functions.size(), false);
  std::function<void(uint32_t)> visit = [&](uint32_t f) {
    state[f] = 1;
    path.push_back(f);
    uint64_t deepest = 0;
    uint32_t d = 0;
    for (uint32_t c : ir.functions[f].callees) {
      if (state[c] == 1) {  // a cycle: every function on the path from c on recurses
        for (auto it = std::find(path.begin(), path.end(), c); it != path.end(); ++it) L.recursive[*it] = true;
        continue;
      }
      if (state[c] == 0) visit(c);
      deepest = std::max(deepest, stack[c]);
      d = std::max(d, depth[c]);
    }
    stack[f] = alignUp(ir.functions[f].frameBytes, 16) + deepest;
    depth[f] = d + (ir.functions[f].callees.empty() ? 0 : 1);
    state[f] = 2;
    path.pop_back();
    reach.push_back(f);
  };
  visit(uint32_t(k));
  L.stackBytes = stack[k];
  L.maxDepth = depth[k];
  if (std::find(L.recursive.begin(), L.recursive.end(), true) != L.recursive.end()) {
    // Recursion: the depth is dynamic, bounded as on a GPU by the stack
    // limit (cudaLimitStackSize); every call takes at least 16 bytes of it.
    L.stackBytes = std::max(L.stackBytes, alignUp(config.stackLimitBytes, 16));
    L.maxRecursionDepth = uint32_t(std::min<uint64_t>(L.stackBytes / 16, UINT32_MAX));
    L.maxDepth = std::max<uint32_t>(L.maxDepth, 4);
  }
  L.hasCalls = L.maxDepth > 0;
  // registers
  L.funcBase.assign(ir.functions.size(), UINT32_MAX);
  uint32_t slot = ptx::kNumSpecials;
  for (uint32_t f : reach) {
    L.funcBase[f] = slot;
    slot += ir.functions[f].numRegs;
    L.declaredRegisters += uint32_t(ir.functions[f].regNames.size());
  }
  L.slotsPerWarp = slot;
  uint32_t specials = 0;
  for (uint32_t f : reach) specials |= mod->specialsRead[f];
  for (uint32_t i = 0; i < ptx::kNumSpecials; ++i)
    if ((specials >> i) & 1) L.specialRowsRead.push_back(i);
  // shared memory layout
  L.sharedOffset.assign(ir.variables.size(), 0);
  uint64_t shared = 0;
  std::vector<uint32_t> sharedVars, dynVars, globalVars;
  for (uint32_t f : reach)
    for (uint32_t v : ir.functions[f].variables) {
      const auto& var = ir.variables[v];
      auto& list = var.space == ptx::Space::Shared ? (var.externDynamic ? dynVars : sharedVars) : globalVars;
      if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
    }
  for (uint32_t v : sharedVars) {
    shared = alignUp(shared, ir.variables[v].align);
    L.sharedOffset[v] = shared;
    shared += ir.variables[v].bytes;
  }
  uint64_t dynBase = alignUp(shared, 16);
  for (uint32_t v : dynVars) L.sharedOffset[v] = dynBase;
  L.sharedBytes = (config.dynamicSharedBytes || !dynVars.empty()) ? dynBase + config.dynamicSharedBytes : shared;
  if (auto st = checkMemoryPerBlock(L); !st.ok()) return st;
  // constants
  L.consts.assign(ir.functions.size(), {});
  for (uint32_t f : reach) {
    const auto& cs = ir.functions[f].consts;
    auto& table = L.consts[f];
    table.resize(std::max<size_t>(cs.size(), 1) * 32);
    for (size_t i = 0; i < cs.size(); ++i) {
      uint64_t v = cs[i].value;
      if (cs[i].kind == ptx::Constant::Kind::VariableAddr) {
        const auto& var = ir.variables[cs[i].symbol];
        v += var.space == ptx::Space::Shared ? L.sharedOffset[cs[i].symbol] : mod->varAddress[cs[i].symbol];
      } else if (cs[i].kind == ptx::Constant::Kind::KernelParamAddr) {
        v += kParamWindow;
      } else if (cs[i].kind == ptx::Constant::Kind::FunctionAddr) {
        v += kFunctionWindow + cs[i].symbol;
      }
      std::fill(table.begin() + i * 32, table.begin() + i * 32 + 32, v);
    }
  }
  // kernel info
  L.info.name = L.kernelName;
  L.info.grid = config.grid;
  L.info.block = config.block;
  L.info.sources = mod->sources;
  L.info.blockScopedAcquires = mod->blockScopedAcquires;
  // nvcc declares typed arrays as `.align A .b8 name[bytes]` with A the
  // element's alignment (int tile[64] -> .align 4 .b8 tile[256]), so reports
  // index such arrays by the alignment, not by byte.
  auto elementBytes = [](const ptx::Variable& var) {
    if (var.elementBytes == 1 && var.align > 1 && var.align <= 16) return var.align;
    return std::max<uint32_t>(var.elementBytes, 1);
  };
  for (uint32_t v : globalVars) {
    const auto& var = ir.variables[v];
    if (var.space != ptx::Space::Global) continue;
    L.info.symbols.push_back(
        MemorySymbol{demangle(var.name), MemorySpace::Global, mod->varAddress[v], var.bytes, elementBytes(var)});
  }
  for (uint32_t v : sharedVars) {
    const auto& var = ir.variables[v];
    L.info.symbols.push_back(
        MemorySymbol{demangle(var.name), MemorySpace::Shared, L.sharedOffset[v], var.bytes, elementBytes(var)});
  }
  for (uint32_t v : dynVars) {
    const auto& var = ir.variables[v];
    L.info.symbols.push_back(
        MemorySymbol{var.name, MemorySpace::Shared, L.sharedOffset[v], config.dynamicSharedBytes, elementBytes(var)});
  }
  // blocks and warps (their memory is allocated when a block becomes resident)
  uint32_t tpb = uint32_t(config.block.count());
  uint32_t wpb = (tpb + 31) / 32;
  uint64_t nblocks = config.grid.count();
  // (Every block has its record from the start: the bound keeps them, and warp numbers, in reach.)
  constexpr uint64_t kMaxWarps = uint64_t(1) << 26;
  if (nblocks * wpb > kMaxWarps)
    return absl::UnimplementedError(absl::StrCat(
        "a grid of ", nblocks, " blocks of ", tpb, " threads (", nblocks * wpb, " warps) is more than the emulator runs ",
        "in one launch (", kMaxWarps, " warps); a GPU would run it: launch fewer blocks (a grid-stride loop covers the ",
        "same data)"));
  L.blocks.resize(nblocks);
  L.warps = WarpMemoryPool::takeWarps();  // empty; pages of an earlier launch's table (grown as blocks become resident)
  for (uint32_t b = 0; b < nblocks; ++b) {
    Block& blk = L.blocks[b];
    blk.index = b;
    blk.idx = Dim3{b % config.grid.x, (b / config.grid.x) % config.grid.y, b / (config.grid.x * config.grid.y)};
    blk.threads = tpb;
    blk.numWarps = wpb;  // the warps themselves come when the block is resident (Scheduler.cpp)
  }
  L.entryPc = K.begin;
  L.locks.reset(nblocks * tpb);
  L.clockBase = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  sink.kernelBegin(L.info);
  L.eventsConsumed = sink.consumesEvents();
  detail::Runner runner(L);
  absl::Status st = runner.run();
  sink.kernelEnd();
  if (stats) {
    stats->warpInstructions = L.steps;
    stats->threadInstructions = L.threadSteps;
    if (!L.residencyWarning.empty()) stats->warnings.push_back(L.residencyWarning);
    if (!runner.progressWarning().empty()) stats->warnings.push_back(runner.progressWarning());
    for (const Launch::UndefinedNotes* notes : {&L.undefinedShuffle, &L.skippedBarrier, &L.outsideMemberMask})
      for (const auto& [pc, message] : notes->byPc)
        stats->undefinedBehaviour.push_back({K.name + " pc " + std::to_string(pc), message});
    for (auto& [pc, note] : L.uninitializedReads)
      stats->uninitializedReads.push_back({std::move(note.message), note.count});
    if (!st.ok()) stats->fault = L.faultSite;
    stats->deviceLaunches = std::move(L.deviceLaunches);
    stats->launchedDependents = L.launchedDependents;
  }
  WarpMemoryPool::giveBackWarps(std::move(L.warps));
  for (auto& [buffer, unused] : L.parameterBuffers) (void)memory.free(buffer);  // never launched
  for (uint64_t block : L.heapFreed) (void)memory.free(block);
  return st;
}

}  // namespace predatar::sim
