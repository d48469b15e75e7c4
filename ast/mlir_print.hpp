// Op-level program -> text, in exactly the Lean printer's format (indentation, separators,
// region layout), so that print(parse(text)) reproduces the printer's lines byte for byte.
#pragma once

#include <string>

#include "ast/program.hpp"

namespace shlo {

std::string print_module(const Module& m);
/// One instruction (possibly several lines, each ending in '\n'), indented by `indent` spaces.
std::string print_instruction(const Instruction& inst, int indent = 4);
/// dense<...> contents: "0.0", "[[0, 1]]".
std::string print_dense(const DenseLiteral& d);

}  // namespace shlo
