// The fat binary reader on corrupt and hostile inputs kept in
// tests/reliability/fatbin (hand-made headers and inputs found by the fuzz
// harness): every one is refused or read, never a crash, an out-of-bounds read
// or an allocation of what a header merely claims.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "cudart/FatBinary.h"

namespace predatar::cudart {
namespace {

const std::filesystem::path kInputs = std::filesystem::path(PREDATAR_SOURCE_DIR) / "tests/reliability/fatbin";

std::string readInput(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(FatBinaryInputs, EveryKeptInputIsReadOrRefused) {
  int seen = 0;
  for (const auto& file : std::filesystem::directory_iterator(kInputs)) {
    if (file.path().extension() != ".fatbin") continue;
    ++seen;
    std::string bytes = readInput(file.path());
    auto entries = parseFatbinSection(bytes);  // must return, whatever the bytes
    if (entries.ok()) {
      for (const auto& e : *entries) EXPECT_LE(e.payload.size(), bytes.size() * 65536) << file.path();
    }
  }
  EXPECT_GE(seen, 4);
}

TEST(FatBinaryInputs, OptionsOffsetNearFourGigabytesDoesNotWrap) {
  auto entries = parseFatbinSection(readInput(kInputs / "options_offset_wrap.fatbin"));
  ASSERT_TRUE(entries.ok()) << entries.status();
  ASSERT_EQ(entries->size(), 1u);
  EXPECT_EQ((*entries)[0].options, "");
}

TEST(FatBinaryInputs, CompressedSizesClaimedByHeadersAreNotAllocated) {
  for (const char* name : {"zstd_claims_16gib.fatbin", "lz4_claims_16gib.fatbin"}) {
    auto entries = parseFatbinSection(readInput(kInputs / name));
    ASSERT_FALSE(entries.ok()) << name;
    EXPECT_EQ(entries.status().code(), absl::StatusCode::kDataLoss) << entries.status();
  }
}

TEST(FatBinaryInputs, ContainerLargerThanItsBufferIsRefused) {
  auto entries = parseFatbinSection(readInput(kInputs / "truncated_container.fatbin"));
  ASSERT_FALSE(entries.ok());
  EXPECT_NE(entries.status().message().find("bad sizes"), std::string::npos) << entries.status();
}

}  // namespace
}  // namespace predatar::cudart
