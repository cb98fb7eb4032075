// Links the PTX of several translation units into one PTX text, as nvlink
// links a program built with nvcc -rdc=true: the fat binary carries one PTX
// unit per object, kernels call device functions and launch kernels of other
// units, and every unit may repeat the same weak definitions (templates,
// inline functions) and runtime declarations.
//
// The result is one unit the parser reads as one module:
//  * one .version/.target/.address_size header (the first unit's target,
//    the highest version);
//  * file indices renumbered per unit (.file, .loc, inlined_at), so that
//    source lines still name the right file;
//  * symbols without linkage (static functions and variables, printf format
//    strings `$str`, debug-string labels) renamed where two units use the
//    same name (`name$uN`), so each unit keeps its own;
//  * variables first (instructions may name one defined in a later unit),
//    then one prototype per function (calls and address-taking may precede
//    the definition), then the definitions: a weak definition repeated in
//    several units is kept once, a declaration only for what no unit defines;
//  * two non-weak definitions of one name are an error, as for nvlink.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace predatar::ptx {

struct PtxUnit {
  std::string name;  // for errors: the unit's source or container
  std::string_view text;
};

absl::StatusOr<std::string> linkUnits(const std::vector<PtxUnit>& units);

}  // namespace predatar::ptx
