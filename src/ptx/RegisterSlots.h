// Register slots: PTX registers whose live ranges do not overlap share one
// slot of the emulator's register file.
//
// nvcc declares a virtual register for nearly every value (simpleAWBarrier's
// kernel declares 596), and the emulator gives each an 8-byte slot per lane:
// 152 KB per warp, 1.29 GB for that grid's resident warps, most of it
// registers that are dead. This pass renumbers each function's registers to
// the slots of a linear scan over live intervals, so the register file (and
// Function::numRegs) follows the values alive at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ptx/Ir.h"

namespace predatar::ptx {

// Renumbers the registers of every defined function of `module` in place
// (instruction operands, addresses and matrix operand lists); numRegs
// becomes the number of slots. Function::regNames keeps the PTX names of the
// original numbering.
void shareRegisterSlots(Module& module);

// The slot of each of function `f`'s registers (UINT32_MAX: never used), and
// the slot count: what shareRegisterSlots applies (for tests). The liveness
// dataflow takes registers in batches whose sets hold at most `maxSetWords`
// 64-bit words for all blocks together (bounded memory for any function).
struct SlotAssignment {
  std::vector<uint32_t> slotOf;
  uint32_t slots = 0;
};
inline constexpr size_t kLivenessSetWords = size_t(1) << 20;
SlotAssignment assignRegisterSlots(const Module& module, uint32_t f, size_t maxSetWords = kLivenessSetWords);

}  // namespace predatar::ptx
