// Replays every kept bad input through what the fuzz harnesses do with an
// input (tests/fuzz/FuzzTargets.h), with the project's own compiler and, in
// the sanitizer build, ASan + UBSan: hand-made inputs in
// tests/reliability/{ptx,litmus,fatbin} and inputs the fuzzers found in
// tests/reliability/fuzz/{ptx,litmus,fatbin}.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "fuzz/FuzzTargets.h"

namespace predatar::fuzz {
namespace {

namespace fs = std::filesystem;

template <typename Harness>
int replay(const std::string& kind, Harness harness) {
  int count = 0;
  for (const fs::path& dir : {fs::path(PREDATAR_SOURCE_DIR) / "tests/reliability" / kind,
                              fs::path(PREDATAR_SOURCE_DIR) / "tests/reliability/fuzz" / kind}) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    for (const auto& file : fs::directory_iterator(dir)) {
      std::ifstream in(file.path(), std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      SCOPED_TRACE(file.path().string());
      harness(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ++count;
    }
  }
  return count;
}

TEST(FuzzRegression, PtxInputs) { EXPECT_GT(replay("ptx", fuzzPtx), 0); }
TEST(FuzzRegression, LitmusInputs) { EXPECT_GT(replay("litmus", fuzzLitmus), 0); }
TEST(FuzzRegression, FatbinInputs) { EXPECT_GT(replay("fatbin", fuzzFatbin), 0); }

}  // namespace
}  // namespace predatar::fuzz
