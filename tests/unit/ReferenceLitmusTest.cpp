// The reference model against the hand-written litmus suites: every expect
// line of tests/litmus/{paper,semantics} and bench/micro must be what the
// brute-force definitions of race-semantics.md give (message passing,
// same-location observation and the rest), so the suites and the reference
// cannot drift apart.
#include <gtest/gtest.h>

#include "litmus/Litmus.h"
#include "support/RandomTrace.h"
#include "support/ReferenceModel.h"
#include "support/TraceLitmus.h"

namespace predatar {
namespace {

TEST(ReferenceLitmus, SuitesMatchTheReference) {
  const std::string root = PREDATAR_SOURCE_DIR;
  auto files = litmus::collect({root + "/tests/litmus/paper", root + "/tests/litmus/semantics", root + "/bench/micro"});
  ASSERT_TRUE(files.ok()) << files.status().message();
  size_t checked = 0;
  for (const std::string& path : *files) {
    auto file = litmus::read(path);
    ASSERT_TRUE(file.ok()) << file.status().message();
    for (const litmus::Expectation& e : file->expectations) {
      std::set<std::string> got;
      for (const LocationKey& k : reference::racyLocations(e.detector, file->trace))
        got.insert(testsupport::litmusLocation(file->trace.kernel, k.space, k.address));
      EXPECT_EQ(got, e.locations) << path << ":" << e.line << ": expect " << e.detector;
      ++checked;
    }
  }
  EXPECT_GT(checked, 100u);
}

}  // namespace
}  // namespace predatar
