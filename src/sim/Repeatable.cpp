// Whether a launch is a pure function of what the runtime can compare: its
// kernel, configuration, arguments and the memory kernels can reach. The
// emulator's round-robin schedule is deterministic, so two such launches from
// equal states run the same instructions, emit the same events and leave the
// same memory; what breaks that is anything the state does not hold.
#include <string>
#include <vector>

#include "sim/Exec.h"

namespace predatar::sim {
namespace {

std::string problemOf(const ptx::Module& ir, const ptx::Instr& in) {
  if (in.op == ptx::Op::ReadClock) return "reads a clock or timer";
  // The runtime learns from running it whether a programmatic dependent
  // launch after it may overlap it (LaunchStats::launchedDependents).
  if (in.op == ptx::Op::GridDepLaunch) return "triggers programmatic dependent launches";
  if (in.op == ptx::Op::Call && in.mode != ptx::kNotBuiltin)
    return in.mode == ptx::kVprintf ? "prints"
           : in.mode == ptx::kAssertFail ? "asserts"
           : in.mode == ptx::kMalloc || in.mode == ptx::kFree ? "uses the device heap"
                                         : "uses the device runtime (" + ir.functions[in.target].name + ")";
  return {};
}

// The first non-empty `check(instruction)` over the code `kernel` can run.
template <class Check>
std::string scanReachable(const Module& moduleBase, std::string_view kernel, Check check) {
  const auto* mod = dynamic_cast<const LoadedModule*>(&moduleBase);
  if (mod == nullptr) return "not a loaded module";
  const ptx::Module& ir = mod->ir;
  int32_t entry = ir.findFunction(kernel);
  if (entry < 0) return "no such kernel";
  std::vector<bool> seen(ir.functions.size(), false);
  std::vector<uint32_t> todo{uint32_t(entry)};
  seen[entry] = true;
  while (!todo.empty()) {
    const ptx::Function& f = ir.functions[todo.back()];
    todo.pop_back();
    for (uint32_t pc = f.begin; pc < f.end; ++pc)
      if (std::string why = check(ir, ir.code[pc]); !why.empty()) return why;
    for (uint32_t callee : f.callees)
      if (!seen[callee]) {
        seen[callee] = true;
        todo.push_back(callee);
      }
  }
  return {};
}

}  // namespace

std::string repeatabilityProblem(const Module& module, std::string_view kernel) {
  return scanReachable(module, kernel, [](const ptx::Module& ir, const ptx::Instr& in) {
    std::string why = problemOf(ir, in);
    return why.empty() ? why : "it " + why;
  });
}

bool writesAreEvents(const Module& module, std::string_view kernel) {
  return scanReachable(module, kernel, [](const ptx::Module&, const ptx::Instr& in) {
           return in.op == ptx::Op::SurfStore ? std::string("surface store") : std::string();
         }).empty();
}

}  // namespace predatar::sim
