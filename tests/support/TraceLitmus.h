// A trace as litmus text (../shared/docs/litmus-format.md), and litmus
// names of locations: what a differential test prints for a mismatch.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "events/Trace.h"
#include "report/Race.h"

namespace predatar::testsupport {

// The detectors' expected racy locations, written as `expect` lines.
struct LitmusExpectation {
  std::string detector;
  std::set<LocationKey> locations;
};

// The trace as a litmus file. Anything the format cannot say (access sizes
// other than 4, lanes with per-lane lock ids, a `bar` whose threads are not
// exactly the block's non-exited threads, addresses outside every symbol
// with no per-lane form) is written as close as possible with a `# warning:`
// comment line before it.
std::string toLitmus(const Trace& trace, const std::vector<LitmusExpectation>& expectations = {});

// The litmus name of a word: "g0", "g1[3]"; a shared word by its name alone
// (whatever its block). Addresses outside every symbol: "global_0x1234" /
// "shared_0x10".
std::string litmusLocation(const KernelInfo& kernel, MemorySpace space, uint64_t wordAddress);

// "g0, g1[3], s0[1]@b1" (shared locations with their block), or "norace".
std::string describeLocations(const KernelInfo& kernel, const std::set<LocationKey>& locations);

}  // namespace predatar::testsupport
