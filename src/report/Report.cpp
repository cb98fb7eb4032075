#include "report/Report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <map>
#include <set>
#include <nlohmann/json.hpp>

namespace predatar {
namespace {

Dim3 coordinates(uint32_t linear, const Dim3& shape) {
  return {linear % shape.x, (linear / shape.x) % shape.y, linear / (shape.x * shape.y)};
}

ResolvedAccess resolve(const KernelInfo& kernel, const Access& access) {
  ResolvedAccess r{access, coordinates(access.block, kernel.grid), coordinates(access.thread, kernel.block), {}, 0, 0, {}};
  if (access.origin.source < kernel.sources.size()) {
    const SourcePosition& pos = kernel.sources[access.origin.source];
    r.file = pos.file;
    r.line = pos.line;
    r.column = pos.column;
    r.inlinedInto = pos.inlinedInto;
  } else if (access.origin.source == kTraceLineSource) {
    r.file = kernel.name;
    r.line = uint32_t(access.origin.pc);
  }
  return r;
}

std::string dim(const Dim3& d) { return fmt::format("({},{},{})", d.x, d.y, d.z); }

std::string operation(const Access& a) {
  std::string op = a.type == AccessType::AtomicRmw ? "atomic" : a.type == AccessType::Write ? "write" : "read";
  if (a.strong) op += fmt::format(" ({}-scoped{})", toString(a.scope), a.type == AccessType::AtomicRmw ? "" : " strong");
  return op;
}

// ", inlined into step at red.cu:5, inlined into reduce at red.cu:10"
std::string inliningChain(const std::vector<InlinedCall>& calls) {
  std::string s;
  for (const InlinedCall& c : calls) s += fmt::format(", inlined into {} at {}:{}", c.function, c.file, c.line);
  return s;
}

std::string where(const ResolvedAccess& a) {
  if (a.file.empty()) return fmt::format("pc {:#x}", a.access.origin.pc);
  return (a.column ? fmt::format("{}:{}:{}", a.file, a.line, a.column) : fmt::format("{}:{}", a.file, a.line)) +
         inliningChain(a.inlinedInto);
}

}  // namespace

std::string nameLocation(const KernelInfo& kernel, MemorySpace space, uint64_t address) {
  for (const MemorySymbol& s : kernel.symbols) {
    if (s.space != space || address < s.base || address >= s.base + std::max<uint64_t>(s.bytes, 1)) continue;
    uint64_t index = (address - s.base) / std::max<uint32_t>(s.elementBytes, 1);
    return index == 0 ? s.name : fmt::format("{}[{}]", s.name, index);
  }
  return fmt::format("{:#x}", address);
}

namespace {

// What would order two volatile accesses depends on how far apart their
// threads are; when a message-passing pattern lacks one fence, the note after
// this one names it.
std::string volatileNote(const Race& race) {
  std::string note = "both accesses are volatile: PTX treats volatile as .relaxed.sys, which orders nothing between threads";
  if (race.missingFence) return note;
  if (race.first.block != race.second.block)
    return note + "; their blocks need a flag with a fence on both sides (message passing), or two kernel launches";
  if (race.first.warp() != race.second.warp())
    return note + "; add a barrier (__syncthreads()) between them, or a flag with a fence on both sides";
  return note + "; add __syncwarp(), a barrier or a fence between them";
}

}  // namespace

std::vector<std::string> raceNotes(const KernelInfo& kernel, const Race& race) {
  std::vector<std::string> notes;
  if (race.first.isVolatile && race.second.isVolatile) notes.push_back(volatileNote(race));
  for (const Access* a : {&race.first, &race.second}) {
    if (!a->unchanged || !a->writes()) continue;
    notes.push_back(fmt::format(
        "the write by block {} thread {} stored the value the location already held (it changed nothing in this "
        "run); unordered same-value stores still race under the CUDA memory model: make them atomic, or let one "
        "thread store",
        dim(coordinates(a->block, kernel.grid)), dim(coordinates(a->thread, kernel.block))));
  }
  if (race.missingFence) {
    Access flag;
    flag.origin = race.missingFence.at;
    std::string at = where(resolve(kernel, flag));
    notes.push_back(race.missingFence.side == MissingFence::Side::AfterRead
                        ? fmt::format("no fence after the flag read at {}: one there would order this pair", at)
                        : fmt::format("no fence before the flag write at {}: one there would order this pair", at));
  }
  return notes;
}

void Report::add(const KernelInfo& kernel, const RaceLog& log) {
  for (const Race& race : log.races()) {
    races_.push_back(ReportedRace{race, nameLocation(kernel, race.space, race.address),
                                  resolve(kernel, race.first), resolve(kernel, race.second),
                                  raceNotes(kernel, race), std::nullopt});
  }
}

uint64_t Report::instructionPairs() const {
  std::set<InstructionPair> pairs;
  for (const ReportedRace& r : races_)
    if (r.launch) pairs.insert(instructionPair(r.race));
  return pairs.size();
}

// " in N pairs of instructions" when launches repeat pairs (the summary lines).
std::string instructionPairsNote(const Report& report) {
  uint64_t pairs = report.instructionPairs();
  if (pairs == 0 || pairs == report.uniqueRaces()) return {};
  return fmt::format(" in {} pair{} of instructions", pairs, pairs == 1 ? "" : "s");
}

uint64_t Report::occurrences() const {
  uint64_t total = 0;
  for (const auto& r : races_) total += r.race.count;
  return total;
}

namespace {

// One race in the text format. `withPc` adds each access's instruction (PTX
// index) after its source position: two races of different instruction pairs
// at the same lines read the same without it (a struct copy's byte stores,
// all at the line of the copy).
std::string raceText(const ReportedRace& r, bool withPc) {
  const Race& race = r.race;
  std::string space = race.space == MemorySpace::Shared ? fmt::format("shared memory of block {}", race.sharedBlock)
                                                        : std::string("global memory");
  std::string text = fmt::format("========= [{}] {} data race on {} ({}) in {}{}\n", race.detector,
                                 toString(race.kind), r.location, space, race.kernel,
                                 r.launch ? fmt::format(", launch {}", *r.launch) : std::string());
  for (const auto* a : {&r.first, &r.second}) {
    bool pcShown = withPc && !a->file.empty();
    text += fmt::format("=========   {} by block {} thread {} (warp {}, lane {}) at {}{}\n", operation(a->access),
                        dim(a->blockIndex), dim(a->threadIndex), a->access.warp(), a->access.lane(), where(*a),
                        pcShown ? fmt::format(" (pc {:#x})", a->access.origin.pc) : std::string());
    if (a == &r.first) text += "=========   races with\n";
  }
  for (const std::string& note : r.notes) text += fmt::format("=========   note: {}\n", note);
  if (race.count > 1) text += fmt::format("=========   ({} occurrences of this pair)\n", race.count);
  return text + "=========\n";
}

}  // namespace

void writeText(std::ostream& out, const Report& report, const TextOptions& options) {
  size_t shown = std::min(report.races().size(), options.printLimit);
  std::vector<std::string> texts;  // without instructions
  std::map<std::string, size_t> alike;  // such a text -> how many of the shown races read so
  for (size_t i = 0; i < shown; ++i) ++alike[texts.emplace_back(raceText(report.races()[i], false))];
  for (size_t i = 0; i < shown; ++i) out << (alike[texts[i]] > 1 ? raceText(report.races()[i], true) : texts[i]);
  if (report.races().size() > options.printLimit)
    fmt::print(out, "========= ... {} more unique races not shown (--print-limit)\n",
               report.races().size() - options.printLimit);
  for (const KernelError& e : report.errors()) {
    fmt::print(out, "========= KERNEL FAULT ({}) in {} (launch {}): {}\n", e.cudaError, e.kernel, e.launch, e.message);
    if (e.located)
      fmt::print(out, "=========   by block {} thread {} at {}\n", dim(e.blockIndex), dim(e.threadIndex),
                 e.file.empty() ? fmt::format("pc {}", e.pc) : fmt::format("{}:{} (pc {})", e.file, e.line, e.pc));
    fmt::print(out, "=========   (the races of this launch are incomplete)\n=========\n");
  }
  for (const std::string& r : report.refusals())
    fmt::print(out, "========= REFUSED: {}; the program got that error and went on, as it would not on a GPU\n"
               "=========\n", r);
  for (const std::string& u : report.uncheckedLaunches()) fmt::print(out, "========= UNCHECKED: {}\n=========\n", u);
  for (const UninitializedReadFinding& u : report.uninitializedReads())
    fmt::print(out, "========= UNINITIALIZED READ (launch {}, {} read{} at this instruction): {}\n=========\n",
               u.launch, u.count, u.count == 1 ? "" : "s", u.message);
  for (const std::string& leak : report.leaks()) fmt::print(out, "========= LEAK: {}\n", leak);
  if (!report.leaks().empty())
    fmt::print(out, "========= LEAK SUMMARY: {} allocation{} never freed (free them with cudaFree)\n=========\n",
               report.leaks().size(), report.leaks().size() == 1 ? "" : "s");
  for (const std::string& w : report.warnings()) fmt::print(out, "========= WARNING: {}\n=========\n", w);
  for (const std::string& e : report.apiErrors()) fmt::print(out, "========= API ERROR: {}\n", e);
  if (!report.apiErrors().empty())
    fmt::print(out, "========= (errors the program's CUDA calls returned to it; --report-api-errors no hides "
               "them)\n=========\n");
  if (options.unchecked) {
    fmt::print(out, "========= RACE SUMMARY: not checked (--detectors none: no detector ran)\n");
    return;
  }
  std::map<std::string, size_t> perDetector;
  for (const auto& r : report.races()) ++perDetector[r.race.detector];
  std::string detail;
  for (const auto& [d, n] : perDetector) detail += fmt::format("{}{}: {}", detail.empty() ? "" : ", ", d, n);
  fmt::print(out, "========= RACE SUMMARY: {} unique race{} ({} occurrences){}{}\n", report.uniqueRaces(),
             report.uniqueRaces() == 1 ? "" : "s", report.occurrences(), instructionPairsNote(report),
             detail.empty() ? "" : " — " + detail);
}

namespace {
nlohmann::json accessJson(const ResolvedAccess& a) {
  const Access& x = a.access;
  nlohmann::json j{{"block", x.block},
                   {"thread", x.thread},
                   {"warp", x.warp()},
                   {"lane", x.lane()},
                   {"block_index", {a.blockIndex.x, a.blockIndex.y, a.blockIndex.z}},
                   {"thread_index", {a.threadIndex.x, a.threadIndex.y, a.threadIndex.z}},
                   {"operation", toString(x.type)},
                   {"strong", x.strong},
                   {"volatile", x.isVolatile},
                   {"pc", x.origin.pc},
                   {"position", x.origin.seq}};
  if (x.strong) j["scope"] = toString(x.scope);
  if (!a.file.empty()) {
    j["file"] = a.file;
    j["line"] = a.line;
    if (a.column) j["column"] = a.column;
    if (!a.inlinedInto.empty()) {
      nlohmann::json chain = nlohmann::json::array();
      for (const InlinedCall& c : a.inlinedInto)
        chain.push_back({{"function", c.function}, {"file", c.file}, {"line", c.line}, {"column", c.column}});
      j["inlined_into"] = std::move(chain);
    }
  }
  return j;
}
nlohmann::json errorJson(const KernelError& e) {
  nlohmann::json j{{"kernel", e.kernel}, {"launch", e.launch}, {"cuda_error", e.cudaError}, {"message", e.message}};
  if (e.located) {
    j["pc"] = e.pc;
    j["block_index"] = {e.blockIndex.x, e.blockIndex.y, e.blockIndex.z};
    j["thread_index"] = {e.threadIndex.x, e.threadIndex.y, e.threadIndex.z};
    if (!e.file.empty()) {
      j["file"] = e.file;
      j["line"] = e.line;
    }
  }
  return j;
}

// A failed launch as a SARIF tool execution notification.
nlohmann::json errorNotification(const KernelError& e) {
  std::string text = fmt::format("kernel {} (launch {}) failed with {}: {}", e.kernel, e.launch, e.cudaError, e.message);
  if (e.located)
    text += fmt::format(" [block {} thread {}, pc {}]", dim(e.blockIndex), dim(e.threadIndex), e.pc);
  nlohmann::json n{{"level", "error"},
                   {"descriptor", {{"id", "kernel-fault"}}},
                   {"message", {{"text", text}}},
                   {"properties", errorJson(e)}};
  if (e.located && !e.file.empty())
    n["locations"] = nlohmann::json::array(
        {{{"physicalLocation",
           {{"artifactLocation", {{"uri", e.file}}}, {"region", {{"startLine", std::max<uint32_t>(e.line, 1)}}}}}}});
  return n;
}
}  // namespace

namespace {
nlohmann::json uninitializedJson(const Report& report) {
  nlohmann::json reads = nlohmann::json::array();
  for (const UninitializedReadFinding& u : report.uninitializedReads())
    reads.push_back({{"kernel", u.kernel}, {"launch", u.launch}, {"message", u.message}, {"count", u.count}});
  return reads;
}
}  // namespace

void writeJson(std::ostream& out, const Report& report) {
  nlohmann::json races = nlohmann::json::array();
  for (const ReportedRace& r : report.races()) {
    nlohmann::json j{{"detector", r.race.detector},
                     {"kernel", r.race.kernel},
                     {"kind", toString(r.race.kind)},
                     {"location", r.location},
                     {"space", toString(r.race.space)},
                     {"address", r.race.address},
                     {"first", accessJson(r.first)},
                     {"second", accessJson(r.second)},
                     {"count", r.race.count}};
    if (r.race.space == MemorySpace::Shared) j["shared_block"] = r.race.sharedBlock;
    if (r.launch) j["launch"] = *r.launch;
    if (!r.notes.empty()) j["notes"] = r.notes;
    races.push_back(std::move(j));
  }
  nlohmann::json errors = nlohmann::json::array();
  for (const KernelError& e : report.errors()) errors.push_back(errorJson(e));
  out << nlohmann::json{{"races", races},
                        {"unique_races", report.uniqueRaces()},
                        {"instruction_pairs", report.instructionPairs()},
                        {"occurrences", report.occurrences()},
                        {"errors", errors},
                        {"refused", report.refusals()},
                        {"unchecked_launches", report.uncheckedLaunches()},
                        {"uninitialized_reads", uninitializedJson(report)},
                        {"leaks", report.leaks()},
                        {"api_errors", report.apiErrors()},
                        {"warnings", report.warnings()}}
             .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)  // non-UTF-8 text: U+FFFD
      << "\n";
}

void writeSarif(std::ostream& out, const Report& report) {
  auto location = [](const ResolvedAccess& a, const std::string& message) {
    nlohmann::json loc{{"message", {{"text", message + inliningChain(a.inlinedInto)}}}};
    if (!a.file.empty())
      loc["physicalLocation"] = {{"artifactLocation", {{"uri", a.file}}},
                                 {"region", {{"startLine", std::max<uint32_t>(a.line, 1)}}}};
    if (a.column && !a.file.empty()) loc["physicalLocation"]["region"]["startColumn"] = a.column;
    return loc;
  };
  nlohmann::json results = nlohmann::json::array();
  for (const ReportedRace& r : report.races()) {
    std::string text = fmt::format("{} data race on {} ({}) between {} by block {} thread {} and {} by block {} thread {} [{}]",
                                   toString(r.race.kind), r.location, toString(r.race.space),
                                   operation(r.first.access), dim(r.first.blockIndex), dim(r.first.threadIndex),
                                   operation(r.second.access), dim(r.second.blockIndex),
                                   dim(r.second.threadIndex), r.race.detector);
    for (const std::string& note : r.notes) text += "; note: " + note;
    nlohmann::json result{{"ruleId", "data-race/" + std::string(toString(r.race.kind))},
                          {"level", "error"},
                          {"message", {{"text", text}}},
                          {"locations", nlohmann::json::array({location(r.second, "second access")})},
                          {"relatedLocations", nlohmann::json::array({location(r.first, "first access")})},
                          {"properties", {{"detector", r.race.detector}, {"count", r.race.count}, {"kernel", r.race.kernel}}}};
    results.push_back(std::move(result));
  }
  for (const UninitializedReadFinding& u : report.uninitializedReads())
    results.push_back({{"ruleId", "uninitialized-read"},
                       {"level", "error"},
                       {"message", {{"text", u.message}}},
                       {"properties", {{"count", u.count}, {"kernel", u.kernel}, {"launch", u.launch}}}});
  for (const std::string& leak : report.leaks())
    results.push_back({{"ruleId", "leak"}, {"level", "error"}, {"message", {{"text", leak}}}});
  for (const std::string& e : report.apiErrors())
    results.push_back({{"ruleId", "api-error"}, {"level", "warning"}, {"message", {{"text", e}}}});
  nlohmann::json rules = nlohmann::json::array();
  rules.push_back({{"id", "leak"}, {"shortDescription", {{"text", "device allocation never freed (--leak-check full)"}}}});
  rules.push_back({{"id", "api-error"},
                   {"shortDescription", {{"text", "error a CUDA call returned to the program (--report-api-errors)"}}}});
  rules.push_back({{"id", "uninitialized-read"},
                   {"shortDescription", {{"text", "read of device memory nothing wrote (--initcheck)"}}}});
  for (RaceKind k : {RaceKind::WriteWrite, RaceKind::WriteRead, RaceKind::ReadWrite, RaceKind::AtomicScope})
    rules.push_back({{"id", "data-race/" + std::string(toString(k))},
                     {"shortDescription", {{"text", std::string(toString(k)) + " data race"}}}});
  nlohmann::json notifications = nlohmann::json::array();
  for (const KernelError& e : report.errors()) notifications.push_back(errorNotification(e));
  for (const std::string& r : report.refusals())
    notifications.push_back({{"level", "error"}, {"descriptor", {{"id", "refused"}}}, {"message", {{"text", r}}}});
  for (const std::string& u : report.uncheckedLaunches())
    notifications.push_back(
        {{"level", "error"}, {"descriptor", {{"id", "unchecked-launches"}}}, {"message", {{"text", u}}}});
  for (const std::string& w : report.warnings())
    notifications.push_back({{"level", "warning"}, {"descriptor", {{"id", "warning"}}}, {"message", {{"text", w}}}});
  nlohmann::json invocation{{"executionSuccessful", report.complete()},
                            {"toolExecutionNotifications", notifications}};
  nlohmann::json sarif{
      {"$schema", "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs", nlohmann::json::array({{{"tool", {{"driver", {{"name", "predatar"}, {"rules", rules}}}}},
                                       {"invocations", nlohmann::json::array({invocation})},
                                       {"results", results}}})}};
  out << sarif.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace predatar
