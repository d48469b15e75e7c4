// The spec's constraints of dynamic_slice, dynamic_update_slice, gather and scatter (their
// numbered C-rules), as located ParseErrors; called by verify_instruction.
#pragma once

#include <string>

#include "ast/program.hpp"

namespace shlo {

void verify_indexing_op(const Instruction& inst, const std::string& file);

}  // namespace shlo
