// The verifier's rules for the ops whose regions run as programs (spec §reduce, §sort,
// §while, §if, §case): counts, types and the regions' signatures, with located errors.
#pragma once

#include <string>

#include "ast/program.hpp"

namespace shlo {

/// Checks reduce with a region body (any number of inputs), sort, while, if and case; throws
/// ParseError at the instruction's location.
void verify_region_op(const Instruction& inst, const std::string& file);

}  // namespace shlo
