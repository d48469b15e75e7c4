// The spec's type rules for one instruction: operand ranks and shapes, dimensions in range,
// attribute sizes, and the result type the op must have. Errors are ParseErrors located at
// the instruction.
#pragma once

#include <string>

#include "ast/mlir_lexer.hpp"
#include "ast/program.hpp"

namespace shlo {

void verify_instruction(const Instruction& inst, const std::string& file);

/// Number of windows along one dimension (the spec's num_windows, shared by convolution,
/// reduce_window and select_and_scatter): 0 for an empty window.
std::int64_t num_windows(std::int64_t padded_size, std::int64_t dilated_window, std::int64_t stride);
/// (size - 1) * dilation + 1, or 0 for size 0.
std::int64_t dilated_size(std::int64_t size, std::int64_t dilation);

}  // namespace shlo
