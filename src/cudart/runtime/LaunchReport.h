// The kernel launches the replacement runtime ran and the races the
// detectors found, written as JSON for `predatar run` (PREDATAR_REPORT).
//
// Until src/report has a JSON writer for races, this is the library's own:
//   [ { "launch": 0, "kernel": "add(int*, int const*, int)", "mangled": "_Z3addPiPKii",
//       "module": "a.cu", "grid": [4,1,1], "block": [32,1,1], "dynamicSharedBytes": 0,
//       "checked": true, "detectors": ["gwcp"], "status": "ok" | "error", "error": "...",
//       "races": [ { "detector": "gwcp", "kind": "write-write", "space": "global",
//                    "address": 4096, "sharedBlock": 0, "location": "buf[3]", "count": 2,
//                    "first":  { "block": 0, "blockIdx": [0,0,0], "thread": 1,
//                                "threadIdx": [1,0,0], "warp": 0, "lane": 1,
//                                "type": "write", "strong": false, "scope": "device",
//                                "pc": 12, "file": "a.cu", "line": 9, "column": 32 },
//                    "second": { ... } } ] } ]
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "events/Event.h"
#include "report/Race.h"

namespace predatar::cudart {

struct LaunchRecord {
  uint64_t index = 0;        // launch number in the process, from 0
  std::string kernel;        // demangled
  std::string mangled;
  std::string module;
  Dim3 grid, block;
  uint64_t dynamicSharedBytes = 0;
  bool checked = false;      // run under the detectors (else only executed)
  std::vector<std::string> detectors;
  std::string error;         // empty when the kernel completed
  KernelInfo info;           // as the emulator announced it (sources, symbols)
  std::vector<Race> races;   // unique races of every detector
};

std::string launchesToJson(const std::vector<LaunchRecord>& launches);
// One line per race, for stderr when no report file is requested.
std::string describeRace(const LaunchRecord& launch, const Race& race);

}  // namespace predatar::cudart
