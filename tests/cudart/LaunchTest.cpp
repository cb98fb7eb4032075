// Kernel launches through the replacement runtime, end to end: the nvcc
// fixtures' PTX runs on the emulator and the detectors' races reach the JSON
// report. Skipped while src/sim answers Unimplemented (emulator in progress).
// ctest sets PREDATAR_REPORT and PREDATAR_DETECTORS for this binary.
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cudart/FatBinary.h"
#include "cudart/runtime/Api.h"
#include "sim/Device.h"

namespace predatar::cudart {
namespace {

std::string readFixture(const std::string& name) {
  std::ifstream in(std::string(PREDATAR_CUDART_FIXTURES) + "/" + name, std::ios::binary);
  EXPECT_TRUE(in) << name;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

struct Wrapper {
  int magic;
  int version;
  const void* data;
  void* filename;
};

void** registerFixture(const char* fatbin) {
  // Registered fat binaries live as long as the process (as in a program).
  static std::vector<std::unique_ptr<std::vector<uint64_t>>> buffers;
  static std::vector<std::unique_ptr<Wrapper>> wrappers;
  std::string bytes = readFixture(fatbin);
  auto* storage = buffers.emplace_back(std::make_unique<std::vector<uint64_t>>((bytes.size() + 7) / 8)).get();
  std::memcpy(storage->data(), bytes.data(), bytes.size());
  const char* base = reinterpret_cast<const char*>(storage->data());
  size_t offset = 0, last = 0;
  while (offset + 16 <= bytes.size()) {
    uint32_t magic;
    std::memcpy(&magic, base + offset, 4);
    if (magic != kFatbinMagic) {
      offset += 8;
      continue;
    }
    last = offset;
    uint16_t header;
    uint64_t size;
    std::memcpy(&header, base + offset + 6, 2);
    std::memcpy(&size, base + offset + 8, 8);
    offset += header + size;
  }
  auto* wrapper = wrappers.emplace_back(new Wrapper{int(kFatbinWrapperMagic), 1, base + last, nullptr}).get();
  return __cudaRegisterFatBinary(wrapper);
}

void vectorAddStub() {}
void shiftSumStub() {}
int scaleShadow;
int launchesShadow;

bool emulatorReady() {
  static const bool ready = [] {
    sim::DeviceMemory memory;
    auto module = sim::loadPtx(readFixture("vector_add.ptx"), "probe", memory);
    return module.ok() || module.status().code() != absl::StatusCode::kUnimplemented;
  }();
  return ready;
}

class Launch : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    static bool once = [] {
      void** a = registerFixture("vector_add.none.fatbin");
      __cudaRegisterFunction(a, reinterpret_cast<const char*>(&vectorAddStub),
                             const_cast<char*>("_Z9vectorAddPKiS0_Pii"), "_Z9vectorAddPKiS0_Pii", -1, nullptr,
                             nullptr, nullptr, nullptr, nullptr);
      __cudaRegisterVar(a, reinterpret_cast<char*>(&scaleShadow), const_cast<char*>("scale"), "scale", 0, 4, 1, 0);
      __cudaRegisterFatBinaryEnd(a);
      void** b = registerFixture("shared_race.zstd.fatbin");
      __cudaRegisterFunction(b, reinterpret_cast<const char*>(&shiftSumStub),
                             const_cast<char*>("_Z8shiftSumPKiPi"), "_Z8shiftSumPKiPi", -1, nullptr, nullptr,
                             nullptr, nullptr, nullptr);
      __cudaRegisterVar(b, reinterpret_cast<char*>(&launchesShadow), const_cast<char*>("launches"), "launches", 0,
                        4, 0, 0);
      __cudaRegisterFatBinaryEnd(b);
      return true;
    }();
    (void)once;
  }
  void SetUp() override {
    if (!emulatorReady()) GTEST_SKIP() << "src/sim does not implement loadPtx/launch yet";
  }
};

TEST_F(Launch, SymbolsHoldPtxInitializersAndHostCopies) {
  int scale = -1;
  ASSERT_EQ(cudaMemcpyFromSymbol(&scale, &scaleShadow, 4, 0, cudaMemcpyDeviceToHost), 0);
  EXPECT_EQ(scale, 0);
  scale = 3;
  ASSERT_EQ(cudaMemcpyToSymbol(&scaleShadow, &scale, 4, 0, cudaMemcpyHostToDevice), 0);
  int back = 0;
  ASSERT_EQ(cudaMemcpyFromSymbol(&back, &scaleShadow, 4, 0, cudaMemcpyDeviceToHost), 0);
  EXPECT_EQ(back, 3);
  size_t size = 0;
  ASSERT_EQ(cudaGetSymbolSize(&size, &scaleShadow), 0);
  EXPECT_EQ(size, 4u);
  void* address = nullptr;
  ASSERT_EQ(cudaGetSymbolAddress(&address, &scaleShadow), 0);
  EXPECT_NE(address, nullptr);
  EXPECT_EQ(cudaMemcpyToSymbol(&scaleShadow, &scale, 8, 0, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  cudaGetLastError();
}

TEST_F(Launch, VectorAddComputesOnTheEmulator) {
  int scale = 3;
  ASSERT_EQ(cudaMemcpyToSymbol(&scaleShadow, &scale, 4, 0, cudaMemcpyHostToDevice), 0);
  const int n = 100;
  std::vector<int> a(n), b(n), c(n, -1);
  for (int i = 0; i < n; ++i) a[i] = i, b[i] = 2 * i;
  int *da, *db, *dc;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&da), n * 4), 0);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&db), n * 4), 0);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dc), n * 4), 0);
  ASSERT_EQ(cudaMemcpy(da, a.data(), n * 4, cudaMemcpyHostToDevice), 0);
  ASSERT_EQ(cudaMemcpy(db, b.data(), n * 4, cudaMemcpyHostToDevice), 0);
  // The <<<>>> path: push, pop, get kernel, launch with argument pointers only.
  ASSERT_EQ(__cudaPushCallConfiguration(dim3{2, 1, 1}, dim3{64, 1, 1}, 0, nullptr), 0u);
  dim3 grid, block;
  size_t shared;
  cudaStream_t stream;
  ASSERT_EQ(__cudaPopCallConfiguration(&grid, &block, &shared, &stream), 0);
  cudaKernel_t kernel;
  ASSERT_EQ(__cudaGetKernel(&kernel, reinterpret_cast<const void*>(&vectorAddStub)), 0);
  int count = n;
  void* args[] = {&da, &db, &dc, &count};
  cudaError_t launched = __cudaLaunchKernel(kernel, grid, block, args, shared, stream);
  if (launched == cudaErrorNotSupported) GTEST_SKIP() << "sim::launch is not implemented yet";
  ASSERT_EQ(launched, 0) << cudaGetErrorString(launched);
  ASSERT_EQ(cudaDeviceSynchronize(), 0);
  ASSERT_EQ(cudaMemcpy(c.data(), dc, n * 4, cudaMemcpyDeviceToHost), 0);
  for (int i = 0; i < n; ++i) EXPECT_EQ(c[i], 3 * (a[i] + b[i])) << i;
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
}

TEST_F(Launch, MissingSyncthreadsIsReportedWithSourceLines) {
  const int n = 128;
  std::vector<int> host(n);
  for (int i = 0; i < n; ++i) host[i] = i;
  int *in, *out;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&in), n * 4), 0);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&out), n * 4), 0);
  ASSERT_EQ(cudaMemcpy(in, host.data(), n * 4, cudaMemcpyHostToDevice), 0);
  void* args[] = {&in, &out};
  cudaError_t launched = cudaLaunchKernel(reinterpret_cast<const void*>(&shiftSumStub), dim3{2, 1, 1},
                                          dim3{64, 1, 1}, args, 0, nullptr);
  if (launched == cudaErrorNotSupported) GTEST_SKIP() << "sim::launch is not implemented yet";
  ASSERT_EQ(launched, 0) << cudaGetErrorString(launched);
  // The report has a launch's races once the host waits for the device (the
  // detectors may still be on the latest launch when it returns).
  ASSERT_EQ(cudaDeviceSynchronize(), 0);

  const char* report = std::getenv("PREDATAR_REPORT");
  ASSERT_NE(report, nullptr) << "ctest sets PREDATAR_REPORT";
  std::ifstream file(report);
  ASSERT_TRUE(file) << report;
  nlohmann::json launches = nlohmann::json::parse(file);
  ASSERT_TRUE(launches.is_array());
  const nlohmann::json* shift = nullptr;
  for (const auto& l : launches)
    if (l["mangled"] == "_Z8shiftSumPKiPi") shift = &l;
  ASSERT_NE(shift, nullptr) << launches.dump(1);
  EXPECT_EQ((*shift)["kernel"], "shiftSum(int const*, int*)");
  EXPECT_EQ((*shift)["status"], "ok");
  bool sharedRace = false, counterRace = false;
  for (const auto& race : (*shift)["races"]) {
    const auto& first = race["first"];
    const auto& second = race["second"];
    ASSERT_TRUE(first["file"].is_string()) << race.dump();
    EXPECT_NE(first["file"].get<std::string>().find("shared_race.cu"), std::string::npos);
    int a = first["line"], b = second["line"];
    if (race["space"] == "shared" && ((a == 23 && b == 25) || (a == 25 && b == 23))) sharedRace = true;
    if (race["space"] == "global" && a == 27 && b == 27) counterRace = true;
  }
  EXPECT_TRUE(sharedRace) << (*shift)["races"].dump(1);
  EXPECT_TRUE(counterRace) << (*shift)["races"].dump(1);
  cudaFree(in);
  cudaFree(out);
}

}  // namespace
}  // namespace predatar::cudart
