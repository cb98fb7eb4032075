// Races and detector figures as text, every field a report shows (the
// earlier access each names included), for tests that compare two ways of
// reaching the same reports.
#pragma once

#include <sstream>
#include <string>

#include "analysis/Detector.h"
#include "report/Race.h"

namespace predatar::testsupport {

inline std::string describeAccess(const Access& a) {
  std::ostringstream out;
  out << a.block << "/" << a.thread << " " << int(a.type) << int(a.strong) << int(a.scope) << " pc " << a.origin.pc
      << " seq " << a.origin.seq << " launch " << a.launch;
  return out.str();
}

inline std::string describeRaces(const RaceLog& log) {
  std::ostringstream out;
  for (const Race& r : log.races())
    out << r.kernel << " " << int(r.kind) << " " << int(r.space) << ":" << r.sharedBlock << ":" << r.address << " ["
        << describeAccess(r.first) << "] [" << describeAccess(r.second) << "] x" << r.count << " fence "
        << int(r.missingFence.side) << "\n";
  return out.str();
}

// The races, then the events and peak metadata the detector counted.
inline std::string describeDetector(const Detector& d) {
  std::ostringstream out;
  out << describeRaces(d.races());
  DetectorStats s = d.stats();
  out << "stats " << s.events << " " << s.peakShadowBytes << " " << s.peakThreadClockBytes << "\n";
  return out.str();
}

}  // namespace predatar::testsupport
