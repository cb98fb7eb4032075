#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "cudart/ProgramCheck.h"

namespace predatar::cudart {
namespace {

TEST(ProgramCheck, StaticRuntimeProgramIsRejectedWithRebuildAdvice) {
  for (const char* program : {PREDATAR_FAKE_STATIC, PREDATAR_FAKE_STATIC_STRIPPED}) {
    auto info = inspectProgram(program);
    ASSERT_TRUE(info.ok()) << info.status();
    EXPECT_TRUE(info->elf);
    EXPECT_TRUE(info->hasFatbin) << program;
    EXPECT_TRUE(info->staticCudart) << program;
    absl::Status status = checkProgram(program);
    ASSERT_FALSE(status.ok()) << program;
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(std::string(status.message()).find("-cudart shared"), std::string::npos) << status;
  }
}

TEST(ProgramCheck, SharedRuntimeProgramPasses) {
  auto info = inspectProgram(PREDATAR_FAKE_SHARED);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->cudartSoname, "libcudart.so.13");
  EXPECT_FALSE(info->staticCudart);
  std::string warning;
  EXPECT_TRUE(checkProgram(PREDATAR_FAKE_SHARED, &warning).ok());
  EXPECT_TRUE(warning.empty()) << warning;
}

TEST(ProgramCheck, ProgramWithoutCudaPassesWithAWarning) {
  std::string warning;
  EXPECT_TRUE(checkProgram("/proc/self/exe", &warning).ok());
  EXPECT_NE(warning.find("does not use the CUDA runtime"), std::string::npos) << warning;
}

TEST(ProgramCheck, ScriptsAreNotChecked) {
  std::string path = ::testing::TempDir() + "/predatar_script.sh";
  std::ofstream(path) << "#!/bin/sh\necho hi\n";
  auto info = inspectProgram(path);
  ASSERT_TRUE(info.ok());
  EXPECT_FALSE(info->elf);
  EXPECT_TRUE(checkProgram(path).ok());
  std::remove(path.c_str());
}

TEST(ProgramCheck, MissingProgramIsNotFound) {
  EXPECT_EQ(checkProgram("/nonexistent/predatar/app").code(), absl::StatusCode::kNotFound);
}

TEST(ProgramCheck, FindsProgramsOnPath) {
  auto info = inspectProgram("sh");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_NE(info->path.find('/'), std::string::npos);
  EXPECT_TRUE(info->elf);
}

TEST(ProgramCheck, FindsTheRuntimeLibraryNextToTheExecutable) {
  // PREDATAR_FAKE_SHARED's RUNPATH-free sibling layout: <build>/lib/libcudart.so.13
  ::setenv("PREDATAR_CUDART_DIR", PREDATAR_CUDART_LIBDIR, 1);
  auto dir = findRuntimeLibraryDir();
  ::unsetenv("PREDATAR_CUDART_DIR");
  ASSERT_TRUE(dir.ok()) << dir.status();
  EXPECT_EQ(*dir, PREDATAR_CUDART_LIBDIR);
  auto missing = findRuntimeLibraryDir("/nonexistent/bin/predatar");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace predatar::cudart
