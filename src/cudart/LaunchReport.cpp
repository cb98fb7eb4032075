#include "cudart/LaunchReport.h"

#include "report/Report.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace predatar::cudart {
namespace {

using nlohmann::json;

json dim(const Dim3& d) { return json::array({d.x, d.y, d.z}); }

json coords(uint32_t linear, const Dim3& shape) {
  uint32_t x = shape.x ? linear % shape.x : 0;
  uint32_t rest = shape.x ? linear / shape.x : 0;
  uint32_t y = shape.y ? rest % shape.y : 0;
  uint32_t z = shape.y ? rest / shape.y : 0;
  return json::array({x, y, z});
}

const SourcePosition* sourceOf(const LaunchRecord& launch, const Access& access) {
  uint32_t s = access.origin.source;
  if (s == Origin::kNoSource || s >= launch.info.sources.size()) return nullptr;
  return &launch.info.sources[s];
}

json access(const LaunchRecord& launch, const Access& a) {
  json j{{"block", a.block},
         {"blockIdx", coords(a.block, launch.grid)},
         {"thread", a.thread},
         {"threadIdx", coords(a.thread, launch.block)},
         {"warp", a.warp()},
         {"lane", a.lane()},
         {"type", a.type == AccessType::Read ? "read" : a.type == AccessType::Write ? "write" : "atomic"},
         {"strong", a.strong},
         {"volatile", a.isVolatile},
         {"scope", toString(a.scope)},
         {"pc", a.origin.pc}};
  if (const SourcePosition* src = sourceOf(launch, a)) {
    j["file"] = src->file;
    j["line"] = src->line;
    j["column"] = src->column;
    if (!src->inlinedInto.empty()) {
      json chain = json::array();
      for (const InlinedCall& c : src->inlinedInto)
        chain.push_back(json{{"function", c.function}, {"file", c.file}, {"line", c.line}, {"column", c.column}});
      j["inlinedInto"] = std::move(chain);
    }
  } else {
    j["file"] = nullptr;
    j["line"] = nullptr;
    j["column"] = nullptr;
  }
  return j;
}

std::string location(const LaunchRecord& launch, const Race& race) {
  size_t index = size_t(&race - launch.races.data());
  if (index < launch.allocations.size() && !launch.allocations[index].empty()) return launch.allocations[index];
  for (const auto& sym : launch.info.symbols) {
    if (sym.space != race.space || race.address < sym.base || race.address >= sym.base + sym.bytes)
      continue;
    uint64_t element = sym.elementBytes ? (race.address - sym.base) / sym.elementBytes : 0;
    return sym.name + "[" + std::to_string(element) + "]";
  }
  return {};
}

// The index of the '>' that closes the '<' at `open`, or npos.
size_t closingAngle(const std::string& name, size_t open) {
  int depth = 0;
  for (size_t i = open; i < name.size(); ++i) {
    if (name[i] == '<') ++depth;
    else if (name[i] == '>' && --depth == 0) return i;
  }
  return std::string::npos;
}

}  // namespace

std::string shortTemplateArguments(const std::string& name) {
  // (Operators <, <<, >, ->, ... make the brackets ambiguous: such names stay whole.)
  for (const char* op : {"operator<", "operator>", "operator->"})
    if (name.find(op) != std::string::npos) return name;
  constexpr size_t kKept = 32;
  std::string out;
  for (size_t i = 0; i < name.size();) {
    size_t open = name.find('<', i);
    size_t close = open == std::string::npos ? open : closingAngle(name, open);
    if (close == std::string::npos) return out + name.substr(i);
    out.append(name, i, open - i);
    if (close - open - 1 > kKept) out += "<...>";
    else out.append(name, open, close - open + 1);
    i = close + 1;
  }
  return out;
}

namespace {

std::string position(const LaunchRecord& launch, const Access& a) {
  std::ostringstream out;
  if (const SourcePosition* src = sourceOf(launch, a)) {
    out << src->file << ":" << src->line << ":" << src->column;
    for (const InlinedCall& c : src->inlinedInto)
      out << ", inlined into " << shortTemplateArguments(c.function) << " at " << c.file << ":" << c.line;
  } else
    out << "pc " << a.origin.pc;
  auto b = coords(a.block, launch.grid), t = coords(a.thread, launch.block);
  out << " (" << (a.type == AccessType::Read ? "read" : a.type == AccessType::Write ? "write" : "atomic")
      << " by block (" << b[0] << "," << b[1] << "," << b[2] << ") thread (" << t[0] << "," << t[1]
      << "," << t[2] << "))";
  return out.str();
}

}  // namespace

void keepOnlyRaceSources(LaunchRecord& launch) {
  const SourceTable& sources = launch.info.sources;
  std::vector<uint32_t> renumbered(sources.size(), Origin::kNoSource);
  std::vector<SourcePosition> kept;
  auto keep = [&](Origin& origin) {
    if (origin.source == Origin::kNoSource || origin.source >= sources.size()) return;
    uint32_t& to = renumbered[origin.source];
    if (to == Origin::kNoSource) {
      to = uint32_t(kept.size());
      kept.push_back(sources[origin.source]);
    }
    origin.source = to;
  };
  // (A missing-fence note names the flag access by its source too.)
  for (Race& race : launch.races) {
    keep(race.first.origin);
    keep(race.second.origin);
    if (race.missingFence) keep(race.missingFence.at);
  }
  launch.info.sources = SourceTable(std::move(kept));
}

std::string launchesToJson(const std::vector<LaunchRecord>& launches) {
  json out = json::array();
  for (const auto& l : launches) {
    if (l.awaitingResults) continue;
    json races = json::array();
    for (const auto& r : l.races) {
      json race{{"detector", r.detector},
                {"kind", toString(r.kind)},
                {"space", toString(r.space)},
                {"address", r.address},
                {"count", r.count},
                {"first", access(l, r.first)},
                {"second", access(l, r.second)}};
      if (r.space == MemorySpace::Shared) race["sharedBlock"] = r.sharedBlock;
      auto notes = raceNotes(l.info, r);
      if (size_t i = size_t(&r - l.races.data()); i < l.launchNotes.size() && !l.launchNotes[i].empty())
        notes.push_back(l.launchNotes[i]);
      if (!notes.empty()) race["notes"] = notes;
      std::string loc = location(l, r);
      race["location"] = loc.empty() ? json(nullptr) : json(loc);
      races.push_back(std::move(race));
    }
    out.push_back(json{{"launch", l.index},
                       {"kernel", l.kernel},
                       {"mangled", l.mangled},
                       {"module", l.module},
                       {"grid", dim(l.grid)},
                       {"block", dim(l.block)},
                       {"dynamicSharedBytes", l.dynamicSharedBytes},
                       {"checked", l.checked},
                       {"detectors", l.detectors},
                       {"status", l.error.empty() ? "ok" : "error"},
                       {"error", l.error.empty() ? json(nullptr) : json(l.error)},
                       {"races", std::move(races)}});
    if (!l.error.empty()) out.back()["cudaError"] = l.cudaError;
    if (l.replayOf) out.back()["replayOf"] = *l.replayOf;
    if (l.racesOf) out.back()["racesOf"] = *l.racesOf;
    if (!l.uninitializedReads.empty()) {
      json reads = json::array();
      for (const auto& u : l.uninitializedReads) reads.push_back(json{{"message", u.message}, {"count", u.count}});
      out.back()["uninitializedReads"] = std::move(reads);
    }
    json detectors = json::array();
    for (const auto& d : l.figures.detectors)
      detectors.push_back(json{{"detector", d.detector},
                               {"events", d.events},
                               {"threadClockBytes", d.threadClockBytes},
                               {"lockClockBytes", d.lockClockBytes},
                               {"queueBytes", d.queueBytes},
                               {"shadowBytes", d.shadowBytes},
                               {"checkedBy", d.checkedBy}});
    out.back()["stats"] = json{{"seconds", l.figures.seconds},
                               {"warpInstructions", l.figures.warpInstructions},
                               {"threadInstructions", l.figures.threadInstructions},
                               {"detectors", std::move(detectors)}};
    if (l.fault)
      out.back()["fault"] = json{{"pc", l.fault->pc},
                                 {"file", l.fault->file},
                                 {"line", l.fault->line},
                                 {"blockIdx", dim(l.fault->blockIdx)},
                                 {"threadIdx", dim(l.fault->threadIdx)}};
  }
  return out.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";  // non-UTF-8 names: U+FFFD
}

std::string describeRace(const LaunchRecord& launch, const Race& race) {
  std::ostringstream out;
  out << "predatar: launch " << launch.index << ": " << toString(race.kind) << " race (" << race.detector << ") in "
      << shortTemplateArguments(launch.kernel);
  std::string loc = location(launch, race);
  out << " on " << toString(race.space) << " " << (loc.empty() ? "address" : loc);
  if (loc.empty()) out << " 0x" << std::hex << race.address << std::dec;
  out << ": " << position(launch, race.first) << " and " << position(launch, race.second);
  if (race.count > 1) out << " [" << race.count << " times]";
  if (size_t i = size_t(&race - launch.races.data()); i < launch.launchNotes.size() && !launch.launchNotes[i].empty())
    out << "; note: " << launch.launchNotes[i];
  return out.str();
}

namespace {

Dim3 readDim(const json& j) {
  Dim3 d;
  if (j.is_array() && j.size() == 3) d = Dim3{j[0].get<uint32_t>(), j[1].get<uint32_t>(), j[2].get<uint32_t>()};
  return d;
}

ReportedAccess readAccess(const json& j) {
  ReportedAccess a;
  a.block = j.at("block").get<uint32_t>();
  a.thread = j.at("thread").get<uint32_t>();
  a.blockIdx = readDim(j.at("blockIdx"));
  a.threadIdx = readDim(j.at("threadIdx"));
  a.warp = j.at("warp").get<uint32_t>();
  a.lane = j.at("lane").get<uint32_t>();
  a.type = j.at("type").get<std::string>();
  a.strong = j.at("strong").get<bool>();
  a.isVolatile = j.value("volatile", false);
  a.scope = j.at("scope").get<std::string>();
  a.pc = j.at("pc").get<uint64_t>();
  if (j.contains("file") && j["file"].is_string())
    a.source = SourcePosition{j["file"].get<std::string>(), j.value("line", 0u), j.value("column", 0u), {}};
  if (a.source && j.contains("inlinedInto"))
    for (const auto& c : j["inlinedInto"])
      a.source->inlinedInto.push_back(InlinedCall{c.value("function", std::string()), c.value("file", std::string()),
                                                  c.value("line", 0u), c.value("column", 0u)});
  return a;
}

}  // namespace

absl::StatusOr<std::vector<ReportedLaunch>> readLaunchReport(std::string_view text) {
  std::vector<ReportedLaunch> out;
  try {
    json all = json::parse(text);
    if (!all.is_array()) return absl::InvalidArgumentError("launch report: not a JSON array");
    for (const auto& l : all) {
      ReportedLaunch launch;
      launch.index = l.at("launch").get<uint64_t>();
      launch.kernel = l.at("kernel").get<std::string>();
      launch.mangled = l.at("mangled").get<std::string>();
      launch.module = l.at("module").get<std::string>();
      launch.grid = readDim(l.at("grid"));
      launch.block = readDim(l.at("block"));
      launch.dynamicSharedBytes = l.at("dynamicSharedBytes").get<uint64_t>();
      launch.checked = l.at("checked").get<bool>();
      if (l.contains("replayOf")) launch.replayOf = l.at("replayOf").get<uint64_t>();
      if (l.contains("racesOf")) launch.racesOf = l.at("racesOf").get<uint64_t>();
      launch.detectors = l.at("detectors").get<std::vector<std::string>>();
      if (l.at("error").is_string()) launch.error = l["error"].get<std::string>();
      launch.cudaError = l.value("cudaError", std::string());
      for (const auto& u : l.value("uninitializedReads", json::array()))
        launch.uninitializedReads.push_back({u.at("message").get<std::string>(), u.at("count").get<uint64_t>()});
      if (l.contains("stats") && l["stats"].is_object()) {
        const json& f = l["stats"];
        launch.figures.seconds = f.value("seconds", 0.0);
        launch.figures.warpInstructions = f.value("warpInstructions", uint64_t(0));
        launch.figures.threadInstructions = f.value("threadInstructions", uint64_t(0));
        for (const auto& d : f.value("detectors", json::array()))
          launch.figures.detectors.push_back(DetectorFigures{
              d.at("detector").get<std::string>(), d.value("events", uint64_t(0)), d.value("threadClockBytes", uint64_t(0)),
              d.value("lockClockBytes", uint64_t(0)), d.value("queueBytes", uint64_t(0)), d.value("shadowBytes", uint64_t(0)),
              d.value("checkedBy", std::string())});
      }
      if (l.contains("fault") && l["fault"].is_object()) {
        const json& f = l["fault"];
        launch.fault = FaultLocation{f.at("pc").get<uint64_t>(), f.value("file", std::string()), f.value("line", 0u),
                                     readDim(f.at("blockIdx")), readDim(f.at("threadIdx"))};
      }
      for (const auto& r : l.at("races")) {
        ReportedRace race;
        race.detector = r.at("detector").get<std::string>();
        race.kind = r.at("kind").get<std::string>();
        race.space = r.at("space").get<std::string>();
        race.address = r.at("address").get<uint64_t>();
        if (r.contains("sharedBlock")) race.sharedBlock = r["sharedBlock"].get<uint32_t>();
        if (r.contains("location") && r["location"].is_string()) race.location = r["location"].get<std::string>();
        race.count = r.at("count").get<uint64_t>();
        race.first = readAccess(r.at("first"));
        race.second = readAccess(r.at("second"));
        if (r.contains("notes")) race.notes = r["notes"].get<std::vector<std::string>>();
        launch.races.push_back(std::move(race));
      }
      out.push_back(std::move(launch));
    }
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("launch report: ", e.what()));
  }
  return out;
}

absl::StatusOr<std::vector<ReportedLaunch>> readLaunchReportFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("no launch report at ", path));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto launches = readLaunchReport(text);
  if (!launches.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", launches.status().message()));
  return launches;
}

}  // namespace predatar::cudart
