// The set-up AccessHistory's unit tests share: one launch of a grid of
// 128-thread blocks (2 unless a test asks for more), its history and race
// log, and access records built from a few fields.
#pragma once

#include <gtest/gtest.h>

#include "analysis/AccessHistory.h"

namespace predatar {

class AccessHistoryFixture : public ::testing::Test {
 protected:
  explicit AccessHistoryFixture(uint32_t blocks = 2) {
    kernel_.grid = Dim3{blocks, 1, 1};
    kernel_.block = Dim3{128, 1, 1};
    kernel_.launch = 1;
    history_.beginLaunch(kernel_);
    log_.beginKernel("k");
  }
  // Thread `thread` of block 0 at instruction `pc` (also its trace position).
  static AccessRecord record(uint32_t thread, uint64_t pc, AccessType type, Clock clock = 1) {
    AccessRecord r;
    r.thread = thread;
    r.clock = clock;
    r.type = type;
    r.origin.pc = pc;
    r.origin.seq = pc;
    return r;
  }
  KernelInfo kernel_;
  AccessHistory history_;
  RaceLog log_;
};

}  // namespace predatar
