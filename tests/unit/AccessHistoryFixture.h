// The set-up AccessHistory's unit tests share: one launch of a grid of
// 128-thread blocks (2 unless a test asks for more), its history and race
// log, and access records built from a few fields.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>

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
  // A history and its race log, for tests that feed two the same accesses
  // by two paths and compare them.
  struct Side {
    AccessHistory history;
    RaceLog log;
  };
  // kernel_ as the first launch of `blocks` blocks of `threads` threads, and
  // each of `sides` a new Side begun on it.
  void firstLaunch(uint32_t blocks, uint32_t threads, std::initializer_list<std::unique_ptr<Side>*> sides) {
    kernel_.grid = Dim3{blocks, 1, 1};
    kernel_.block = Dim3{threads, 1, 1};
    kernel_.launch = 1;
    kernel_.liveLaunches.clear();
    kernel_.unorderedLaunches.clear();
    for (std::unique_ptr<Side>* side : sides) {
      *side = std::make_unique<Side>();
      (*side)->history.beginLaunch(kernel_);
      (*side)->log.beginKernel("k");
    }
  }

  KernelInfo kernel_;
  AccessHistory history_;
  RaceLog log_;
};

}  // namespace predatar
