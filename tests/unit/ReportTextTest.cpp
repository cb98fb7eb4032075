// The text format names each access's instruction only where two races would
// otherwise read the same: a struct copy's byte stores race at one source
// line, one unique race per pair of instructions. Refused calls are listed.
#include <sstream>

#include <gtest/gtest.h>

#include "report/Report.h"

namespace predatar {
namespace {

ReportedRace writeWrite(uint64_t firstPc, uint64_t secondPc, uint32_t secondLine) {
  ReportedRace r;
  r.race.detector = "gwcp";
  r.race.kernel = "k";
  r.location = "out[1]";
  r.first.access = Access{.block = 0, .thread = 1, .type = AccessType::Write, .origin = {.pc = firstPc}};
  r.second.access = Access{.block = 0, .thread = 0, .type = AccessType::Write, .origin = {.pc = secondPc}};
  r.first.file = r.second.file = "copy.cu";
  r.first.line = 17;
  r.second.line = secondLine;
  return r;
}

std::string text(const Report& report, size_t limit = SIZE_MAX) {
  std::ostringstream out;
  writeText(out, report, {.printLimit = limit});
  return out.str();
}

// Two races of different instruction pairs; the second's second access at `line`
// (17: the two read alike without their instructions).
Report twoRaces(uint32_t line) {
  Report report;
  report.add(writeWrite(0x14, 0x1a, 17));
  report.add(writeWrite(0x15, 0x1b, line));
  return report;
}

TEST(ReportText, RacesThatWouldReadTheSameNameTheirInstructions) {
  std::string out = text(twoRaces(17));
  EXPECT_NE(out.find("at copy.cu:17 (pc 0x14)\n"), std::string::npos) << out;
  EXPECT_NE(out.find("at copy.cu:17 (pc 0x1b)\n"), std::string::npos) << out;
}

TEST(ReportText, RacesThatReadApartKeepTheirSourcePositionsAlone) {
  std::string out = text(twoRaces(18));
  EXPECT_EQ(out.find("(pc "), std::string::npos) << out;
  // ... and only the races shown count: one shown is alike to none
  out = text(twoRaces(17), 1);
  EXPECT_EQ(out.find("(pc "), std::string::npos) << out;
  EXPECT_NE(out.find("1 more unique races not shown"), std::string::npos) << out;
}

// An incomplete report says why in every format: `textLine` in the text,
// `jsonEntry` in the JSON, a SARIF notification `sarifId`, and the run not
// successful (predatar run then exits 3).
void expectIncompleteInEveryFormat(const Report& report, const std::string& textLine, const std::string& jsonEntry,
                                   const std::string& sarifId) {
  EXPECT_FALSE(report.complete());
  EXPECT_NE(text(report).find(textLine), std::string::npos) << text(report);
  std::ostringstream json, sarif;
  writeJson(json, report);
  EXPECT_NE(json.str().find(jsonEntry), std::string::npos) << json.str();
  writeSarif(sarif, report);
  EXPECT_NE(sarif.str().find("\"executionSuccessful\": false"), std::string::npos) << sarif.str();
  EXPECT_NE(sarif.str().find("\"id\": \"" + sarifId + "\""), std::string::npos) << sarif.str();
}

// A call the emulator refused while the program went on.
TEST(ReportText, RefusedCallsAreListedInEveryFormat) {
  Report report;
  EXPECT_TRUE(report.complete());
  report.addRefusal("cuGetProcAddress of cuInit is not supported by the emulator (returning CUDA_ERROR_NOT_SUPPORTED)");
  expectIncompleteInEveryFormat(report,
                                "========= REFUSED: cuGetProcAddress of cuInit is not supported by the emulator "
                                "(returning CUDA_ERROR_NOT_SUPPORTED); the program got that error and went on",
                                "\"refused\": [\n    \"cuGetProcAddress of cuInit", "refused");
}

// Launches the program ran that no report holds (the launch ledger's count).
TEST(ReportText, UncheckedLaunchesAreListedInEveryFormat) {
  Report report;
  report.addUncheckedLaunches("1 of the 3 kernel launches the program ran is in no report");
  expectIncompleteInEveryFormat(report, "========= UNCHECKED: 1 of the 3 kernel launches",
                                "\"unchecked_launches\": [\n    \"1 of the 3", "unchecked-launches");
}

}  // namespace
}  // namespace predatar
