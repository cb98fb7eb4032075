// Reports stay valid JSON/SARIF whatever bytes the names in them hold: a .cu
// file named in Latin-1 must not abort the tool (or, through libcudart, the
// user's program) when the report is written.
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/Report.h"

namespace predatar {
namespace {

Report reportWithLatin1Names() {
  Report report;
  ReportedRace race;
  race.location = "caf\xe9";           // "café" in Latin-1: not UTF-8
  race.first.file = "r\xe9sum\xe9.cu";
  race.first.line = 3;
  race.second.file = "\xff\xfe.cu";
  race.second.line = 4;
  report.add(race);
  return report;
}

TEST(ReportEncoding, JsonReplacesInvalidUtf8) {
  std::ostringstream out;
  ASSERT_NO_THROW(writeJson(out, reportWithLatin1Names()));
  auto parsed = nlohmann::json::parse(out.str());
  EXPECT_NE(out.str().find("caf\xef\xbf\xbd"), std::string::npos) << out.str();  // U+FFFD
  EXPECT_EQ(parsed["races"].size(), 1u);
}

TEST(ReportEncoding, SarifReplacesInvalidUtf8) {
  std::ostringstream out;
  ASSERT_NO_THROW(writeSarif(out, reportWithLatin1Names()));
  auto parsed = nlohmann::json::parse(out.str());
  EXPECT_TRUE(parsed.contains("runs"));
}

TEST(ReportEncoding, TextKeepsTheBytes) {
  std::ostringstream out;
  ASSERT_NO_THROW(writeText(out, reportWithLatin1Names()));
  EXPECT_NE(out.str().find("r\xe9sum\xe9.cu"), std::string::npos);
}

}  // namespace
}  // namespace predatar
