// The fat binary reader on fatbins nvcc 13 produced (tests/cudart/fixtures,
// extracted from the .nv_fatbin section of tests/cuda/run programs built with
// `nvcc -cudart shared -lineinfo` and the compression modes named in the file
// names; the .ptx files are nvcc's own PTX from --keep).
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "cudart/FatBinary.h"
#include "cudart/FatBinaryWriter.h"

namespace predatar::cudart {
namespace {

std::string readFile(const std::string& name) {
  std::ifstream in(std::string(PREDATAR_CUDART_FIXTURES) + "/" + name, std::ios::binary);
  EXPECT_TRUE(in) << name;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The fixtures hold whole sections; wrappers point at one 8-byte aligned container.
struct AlignedBuffer {
  explicit AlignedBuffer(const std::string& bytes) : words((bytes.size() + 7) / 8) {
    std::memcpy(words.data(), bytes.data(), bytes.size());
  }
  const char* data() const { return reinterpret_cast<const char*>(words.data()); }
  std::vector<uint64_t> words;
};

// Offset of the first container holding a PTX entry (the other one is nvlink's stub).
size_t ptxContainerOffset(const std::string& bytes) {
  size_t offset = 0;
  while (offset + 16 <= bytes.size()) {
    uint32_t magic;
    std::memcpy(&magic, bytes.data() + offset, 4);
    if (magic != kFatbinMagic) {
      offset += 8;
      continue;
    }
    auto entries = parseFatbinContainer(bytes.data() + offset, bytes.size() - offset);
    EXPECT_TRUE(entries.ok()) << entries.status();
    for (const auto& e : *entries)
      if (e.isPtx()) return offset;
    uint16_t header;
    uint64_t size;
    std::memcpy(&header, bytes.data() + offset + 6, 2);
    std::memcpy(&size, bytes.data() + offset + 8, 8);
    offset += header + size;
  }
  return std::string::npos;
}

// nvcc's fatbinary strips comments and indentation from the PTX it embeds;
// compare modulo that: no comments, trimmed lines, single spaces, no blank lines.
std::string normalizePtx(const std::string& ptx) {
  std::string out, line;
  std::istringstream in(ptx);
  while (std::getline(in, line)) {
    if (auto c = line.find("//"); c != std::string::npos) line.erase(c);
    std::string norm;
    bool space = false;
    for (char ch : line) {
      if (ch == ' ' || ch == '\t') {
        space = true;
        continue;
      }
      if (space && !norm.empty()) norm += ' ';
      space = false;
      norm += ch;
    }
    if (!norm.empty()) out += norm + "\n";
  }
  return out;
}

struct Case {
  const char* fatbin;
  const char* ptx;
  Compression compression;
};

class FatBinaryFixture : public ::testing::TestWithParam<Case> {};

TEST_P(FatBinaryFixture, ExtractsNvccsPtx) {
  const Case& c = GetParam();
  auto entries = parseFatbinSection(readFile(c.fatbin));
  ASSERT_TRUE(entries.ok()) << entries.status();
  auto ptx = selectPtx(*entries, c.fatbin);
  ASSERT_TRUE(ptx.ok()) << ptx.status();
  EXPECT_EQ((*ptx)->compression, c.compression);
  EXPECT_EQ((*ptx)->arch, 75u);
  EXPECT_EQ((*ptx)->major, 9);
  EXPECT_EQ((*ptx)->minor, 0);
  EXPECT_EQ(normalizePtx((*ptx)->payload), normalizePtx(readFile(c.ptx)));
  EXPECT_NE((*ptx)->payload.find(".version 9.0"), std::string::npos);
  EXPECT_EQ((*ptx)->payload.back(), '\n');  // no trailing NULs
  EXPECT_NE((*ptx)->name.find(".cu"), std::string::npos) << (*ptx)->name;
  EXPECT_NE((*ptx)->options.find("--generate-line-info"), std::string::npos) << (*ptx)->options;
  int elf = 0;
  for (const auto& e : *entries)
    if (e.isElf()) {
      ++elf;
      ASSERT_GE(e.payload.size(), 4u);
      EXPECT_EQ(e.payload.substr(0, 4), "\x7f" "ELF");
    }
  EXPECT_EQ(elf, 2);  // the program's sm_75 cubin and the device-link stub
}

TEST_P(FatBinaryFixture, ReadsThroughTheRegistrationWrapper) {
  const Case& c = GetParam();
  std::string bytes = readFile(c.fatbin);
  size_t offset = ptxContainerOffset(bytes);
  ASSERT_NE(offset, std::string::npos);
  AlignedBuffer buffer(bytes);
  struct {
    int magic;
    int version;
    const void* data;
    void* filename;
  } wrapper{int(kFatbinWrapperMagic), 1, buffer.data() + offset, nullptr};
  auto entries = parseFatbinWrapper(&wrapper);
  ASSERT_TRUE(entries.ok()) << entries.status();
  auto ptx = selectPtx(*entries);
  ASSERT_TRUE(ptx.ok()) << ptx.status();
  EXPECT_EQ(normalizePtx((*ptx)->payload), normalizePtx(readFile(c.ptx)));
}

// PTX that NVRTC's "cubin" stands for runs where that cubin would: sm_90 and
// sm_90-compatible code on the emulated sm_90 device, not an sm_75 or sm_100 cubin.
TEST(FatBinary, PtxStandingForACubinRunsOnlyWhereTheCubinWould) {
  const char* ptx = ".version 9.0\n.target sm_75\n.address_size 64\n";
  for (uint32_t arch : {90u, 75u, 100u, 0u}) {
    std::vector<uint8_t> container = ptxContainer({PtxUnit{ptx, "jit.cu", arch}});
    auto entries = parseFatbinContainer(container.data(), container.size());
    ASSERT_TRUE(entries.ok()) << entries.status();
    auto chosen = selectPtx(*entries, "jit.cu");
    if (arch == 90 || arch == 0) {
      EXPECT_TRUE(chosen.ok()) << arch << ": " << chosen.status();
      continue;
    }
    ASSERT_FALSE(chosen.ok()) << arch;
    EXPECT_NE(chosen.status().message().find("NVRTC compiled for sm_" + std::to_string(arch)), std::string::npos)
        << chosen.status();
  }
}

TEST(FatBinary, AllCompressionModesGiveTheSamePtx) {
  std::string reference;
  for (const char* fatbin : {"vector_add.none.fatbin", "vector_add.zstd.fatbin", "vector_add.lz4.fatbin"}) {
    auto entries = parseFatbinSection(readFile(fatbin));
    ASSERT_TRUE(entries.ok()) << entries.status();
    auto ptx = selectPtx(*entries);
    ASSERT_TRUE(ptx.ok()) << ptx.status();
    if (reference.empty()) reference = (*ptx)->payload;
    EXPECT_EQ((*ptx)->payload, reference) << fatbin;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Nvcc13, FatBinaryFixture,
    ::testing::Values(Case{"vector_add.zstd.fatbin", "vector_add.ptx", Compression::Zstd},
                      Case{"vector_add.none.fatbin", "vector_add.ptx", Compression::None},
                      Case{"vector_add.lz4.fatbin", "vector_add.ptx", Compression::Lz4},
                      Case{"shared_race.zstd.fatbin", "shared_race.ptx", Compression::Zstd},
                      Case{"shared_race.none.fatbin", "shared_race.ptx", Compression::None}));

TEST(FatBinary, SassOnlyModuleSaysHowToRebuild) {
  auto entries = parseFatbinSection(readFile("vector_add.sass_only.fatbin"));
  ASSERT_TRUE(entries.ok()) << entries.status();
  auto ptx = selectPtx(*entries, "vector_add.cu");
  ASSERT_FALSE(ptx.ok());
  std::string message(ptx.status().message());
  EXPECT_NE(message.find("vector_add.cu"), std::string::npos) << message;
  EXPECT_NE(message.find("only SASS for sm_75"), std::string::npos) << message;
  EXPECT_NE(message.find("-gencode arch=compute_75,code=compute_75"), std::string::npos) << message;
  EXPECT_NE(message.find("-arch=sm_75"), std::string::npos) << message;
}

TEST(FatBinary, SeveralPtxEntriesPreferTheLowestModernArch) {
  // -gencode compute_75 (PTX) + compute_90 (PTX) + sm_80 (SASS)
  auto entries = parseFatbinSection(readFile("vector_add.multi.fatbin"));
  ASSERT_TRUE(entries.ok()) << entries.status();
  int ptxCount = 0;
  for (const auto& e : *entries) ptxCount += e.isPtx();
  EXPECT_EQ(ptxCount, 2);
  auto ptx = selectPtx(*entries);
  ASSERT_TRUE(ptx.ok());
  EXPECT_EQ((*ptx)->arch, 75u);
}

TEST(FatBinary, RejectsWhatIsNotAFatbin) {
  std::string junk(64, 'x');
  EXPECT_FALSE(parseFatbinSection(junk).ok());
  AlignedBuffer buffer(junk);
  EXPECT_FALSE(parseFatbinWrapper(buffer.data()).ok());
  EXPECT_FALSE(parseFatbinWrapper(nullptr).ok());
}

TEST(FatBinary, TruncatedContainerIsAnError) {
  std::string bytes = readFile("vector_add.zstd.fatbin");
  size_t offset = ptxContainerOffset(bytes);
  ASSERT_NE(offset, std::string::npos);
  std::string cut = bytes.substr(offset, 200);
  auto entries = parseFatbinContainer(cut.data(), cut.size());
  EXPECT_FALSE(entries.ok());
}

TEST(FatBinary, CorruptCompressedPayloadIsAnError) {
  std::string bytes = readFile("vector_add.zstd.fatbin");
  size_t zstd = bytes.find("\x28\xb5\x2f\xfd");
  ASSERT_NE(zstd, std::string::npos);
  for (size_t i = zstd + 8; i < zstd + 40; ++i) bytes[i] = char(0xff);
  auto entries = parseFatbinSection(bytes);
  ASSERT_FALSE(entries.ok());
  EXPECT_NE(std::string(entries.status().message()).find("zstd"), std::string::npos);
}

TEST(Lz4, LiteralsAndOverlappingMatches) {
  // "abc" then a match of 9 at offset 3 ("abcabcabc"), then literal "Z".
  std::string block = std::string("\x35" "abc" "\x03\x00", 6) + std::string("\x10" "Z", 2);
  auto out = lz4DecompressBlock(block, 13);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, "abcabcabcabcZ");
}

TEST(Lz4, LongLengthsUseExtensionBytes) {
  std::string literals(20, 'q');
  std::string block = std::string("\xf0\x05", 2) + literals;  // 15 + 5 literals
  auto out = lz4DecompressBlock(block, 20);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, literals);
}

TEST(Lz4, BadOffsetIsAnError) {
  std::string block = std::string("\x10" "a" "\x05\x00", 4);
  EXPECT_FALSE(lz4DecompressBlock(block, 10).ok());
}

}  // namespace
}  // namespace predatar::cudart
