// Multiply-add contraction, as ptxas does it when it compiles PTX for a GPU.
//
// The PTX ISA lets the code generator fuse a mul and an add (or sub) that
// carry no rounding modifier into one fused multiply-add (ptxas --fmad=true,
// its default), which rounds once where the PTX rounds twice. nvcc leaves
// many such pairs to ptxas, so a GPU's results differ from the PTX read
// literally in their last bits, and programs that compare floats (dxtc picks
// the permutation of least error) take other branches. This pass fuses what
// ptxas fuses: a mul.f32/f64 whose product only an add/sub of the same type
// uses, both without rounding modifier, saturation or guard and with the same
// .ftz, when the mul's operands hold the same values at the add (nothing
// writes them in between in one block, or each is written once, outside any
// loop). With both terms products, the first is fused. So fused, NVIDIA's
// dxtc sample computes bit for bit what an H200 does (bench/native/RESULTS.md,
// round 48); read literally, 136 of its 16,384 blocks differed.
#pragma once

#include "ptx/Ir.h"

namespace predatar::ptx {

// Instr::mode of an Op::Fma this pass made: which of its terms are negated.
inline constexpr uint8_t kFmaNegateProduct = 1, kFmaNegateAddend = 2;

// Rewrites every such add/sub of `module` into an Op::Fma of the mul's
// operands and the other term (the mul stays, its result unused); returns
// how many it fused.
uint32_t contractMultiplyAdds(Module& module);

}  // namespace predatar::ptx
