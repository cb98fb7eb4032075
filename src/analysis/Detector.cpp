#include "analysis/Detector.h"

#include "analysis/GwcpDetector.h"
#include "analysis/HbDetector.h"
#include "analysis/LocksetDetector.h"

namespace predatar {

std::string canonicalDetectorName(std::string_view name) {
  if (name == "gwcp" || name == "predatar") return "gwcp";
  if (name == "hb" || name == "barracuda") return "hb";
  if (name == "lockset" || name == "scord") return "lockset";
  return {};
}

std::unique_ptr<Detector> makeDetector(std::string_view name, const DetectorOptions& options) {
  std::string canonical = canonicalDetectorName(name);
  if (canonical == "gwcp") return std::make_unique<GwcpDetector>(options);
  if (canonical == "hb") return std::make_unique<HbDetector>(options);
  if (canonical == "lockset") return std::make_unique<LocksetDetector>(options);
  return nullptr;
}

}  // namespace predatar
