// The verifier's rules for the ops whose regions run as programs (spec §reduce, §sort,
// §while, §if, §case): counts, types and the regions' signatures, with located errors.
#pragma once

#include <string>
#include <vector>

#include "ast/program.hpp"

namespace shlo {

/// Checks reduce with a region body (any number of inputs), sort, while, if and case; throws
/// ParseError at the instruction's location.
void verify_region_op(const Instruction& inst, const std::string& file);

/// For reduce and reduce_window with N inputs and N init values (an even operand count, one
/// region): checks the inputs' shapes, the inits' types and the body's signature
/// (E0..EN-1, E0..EN-1) -> (E0..EN-1), each Ei promotable from input i (the spec's
/// constraint `rule`); returns E0..EN-1. Throws ParseError at the instruction.
std::vector<ElementType> verify_reducer_body(const Instruction& inst, const std::string& file, const std::string& rule);

/// The spec's `is_promotable(x, y)` (Notation): a region may compute in type y on operands of
/// type x when both are i1, both integers or both floats, and y is at least as wide as x (so
/// f16 to bf16 is promotable: the spec compares widths only). Integers of different
/// signedness are refused unless every value of x is one of y (ui8 to i16): the spec's text
/// would let ui8 promote to i8, which changes values.
bool is_promotable(ElementType x, ElementType y);

}  // namespace shlo
