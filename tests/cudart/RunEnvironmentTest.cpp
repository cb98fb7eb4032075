#include <gtest/gtest.h>

#include <map>

#include "cudart/RunEnvironment.h"

namespace predatar::cudart {
namespace {

std::map<std::string, std::string> asMap(const std::vector<std::pair<std::string, std::string>>& env) {
  return {env.begin(), env.end()};
}

TEST(RunEnvironment, EverySettingHasItsVariable) {
  RunSettings s;
  s.detectors = {"gwcp", "hb"};
  s.reportPath = "/tmp/r.json";
  s.schedule = "random";
  s.seed = 7;
  s.kernelName = "shiftSum";
  s.launchSkip = 2;
  s.launchCount = 3;
  s.perLocation = true;
  auto env = asMap(runtimeEnvironment(s, "/opt/predatar/lib", "/usr/lib/x", "libfoo.so"));
  EXPECT_EQ(env["LD_LIBRARY_PATH"], "/opt/predatar/lib:/usr/lib/x");
  EXPECT_EQ(env["LD_PRELOAD"], "/opt/predatar/lib/libcudart.so.13:libfoo.so");
  EXPECT_EQ(env["PREDATAR_DETECTORS"], "gwcp,hb");
  EXPECT_EQ(env["PREDATAR_REPORT"], "/tmp/r.json");
  EXPECT_EQ(env["PREDATAR_SCHEDULE"], "random");
  EXPECT_EQ(env["PREDATAR_SEED"], "7");
  EXPECT_EQ(env["PREDATAR_KERNEL_NAME"], "shiftSum");
  EXPECT_EQ(env["PREDATAR_LAUNCH_SKIP"], "2");
  EXPECT_EQ(env["PREDATAR_LAUNCH_COUNT"], "3");
  EXPECT_EQ(env["PREDATAR_PER_LOCATION"], "1");
  EXPECT_EQ(env["PREDATAR_QUIET"], "1");
}

TEST(RunEnvironment, DefaultsStayUnset) {
  RunSettings s;
  s.detectors.clear();
  auto env = asMap(runtimeEnvironment(s, "/lib/p", nullptr, ""));
  EXPECT_EQ(env["LD_LIBRARY_PATH"], "/lib/p");
  EXPECT_EQ(env["LD_PRELOAD"], "/lib/p/libcudart.so.13");
  EXPECT_EQ(env["PREDATAR_DETECTORS"], "none");
  EXPECT_EQ(env.count("PREDATAR_REPORT"), 0u);
  EXPECT_EQ(env.count("PREDATAR_SEED"), 0u);
  EXPECT_EQ(env.count("PREDATAR_LAUNCH_COUNT"), 0u);
}

// A program that needs predatar's cuRAND or NVRTC gets them preloaded, so an
// RPATH to CUDA's lib64 cannot put NVIDIA's in their place.
TEST(RunEnvironment, NeededLibrariesArePreloadedAfterTheRuntime) {
  RunSettings s;
  s.neededLibraries = {"libcurand.so.10", "libnvrtc.so.13"};
  auto env = asMap(runtimeEnvironment(s, "/lib/p", nullptr, "libfoo.so"));
  EXPECT_EQ(env["LD_PRELOAD"], "/lib/p/libcudart.so.13:/lib/p/libcurand.so.10:/lib/p/libnvrtc.so.13:libfoo.so");
  EXPECT_EQ(ownLibraries().size(), 6u);  // also libcuda, libcublas, libcublasLt, libcusparse
}

}  // namespace
}  // namespace predatar::cudart
