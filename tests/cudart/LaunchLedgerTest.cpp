#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "cudart/LaunchLedger.h"

namespace predatar::cudart {
namespace {

std::string freshReportPath() {
  std::string dir = ::testing::TempDir() + "ledger-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  return dir + "/report.json";
}

TEST(LaunchLedger, CountsWhatEveryProcessRecords) {
  std::string report = freshReportPath();
  ASSERT_TRUE(createLaunchLedger(report));
  EXPECT_EQ(readLaunchLedger(report), 0u);
  {
    LaunchLedger ledger(report);
    ledger.countLaunch();
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {  // a fork() child counts into the same word, then ends with no exit handler
      ledger.countLaunch();
      LaunchLedger(report).countLaunch();  // as a program the program ran maps it again
      _exit(0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ledger.countLaunch();
  }
  EXPECT_EQ(readLaunchLedger(report), 4u);
  std::filesystem::remove_all(std::filesystem::path(report).parent_path());
}

TEST(LaunchLedger, WithoutALedgerNothingIsCounted) {
  std::string report = freshReportPath() + ".none";
  EXPECT_EQ(readLaunchLedger(report), std::nullopt);
  LaunchLedger(report).countLaunch();  // (no file: nothing to count into)
  LaunchLedger("").countLaunch();      // (no report path: the library used without predatar run)
  EXPECT_EQ(readLaunchLedger(report), std::nullopt);
}

}  // namespace
}  // namespace predatar::cudart
