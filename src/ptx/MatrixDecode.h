// Opcode decoding of the warp-matrix (wmma), asynchronous-copy (cp.async) and
// memory-barrier (mbarrier) families, apart from the general parser: it reads
// the opcode's dot-separated parts and says which operands the instruction
// takes; the parser resolves those operands (ptx/ParserInstructions.cpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ptx/Ir.h"

namespace predatar::ptx {

// Whether `base` (the opcode before its first dot) is one of these families.
bool isMatrixFamily(std::string_view base);

// Decodes `parts` (parts[0] is the base) into `in` (op, space, semantics) and
// `mo` (shape, layouts, types), and writes the operand signature: one letter
// per operand in order, a '?' before the optional ones:
//   D  a register list written (mo.d)     A, B, C  register lists read (mo.a, mo.b, mo.c)
//   M  the address (in.addr)              N  a second address (mo.source)
//   d  a register written (in.dst[])      s  a register or immediate read (in.src[])
// Returns "" on success, "unsupported" for a form the emulator refuses when
// it executes it, or an error message for malformed text.
std::string decodeMatrixOpcode(const std::vector<std::string_view>& parts, Instr& in, MatrixOperands& mo,
                               std::string& signature);

}  // namespace predatar::ptx
