// What the parser, the printer and the interpreter share about ops with regions and ops with
// several results: the names of the results, and the values a region reads from outside it.
#pragma once

#include <string>
#include <vector>

#include "ast/program.hpp"

namespace shlo {

/// How many values `inst` defines (1 unless result_types lists several).
std::size_t result_count(const Instruction& inst);
/// The name uses write for result `i`: `%r` for a single result, `%r#i` for one of a pack
/// `%r:N`, or the i-th name of a list `%a, %b = ...`.
std::string result_name(const Instruction& inst, std::size_t i);
/// The type of result `i`.
const TensorType& result_type(const Instruction& inst, std::size_t i);

/// The values `inst`'s regions read but do not define (their captures, mlir-forms §12): names
/// of the enclosing scopes, each once, in order of first use. Empty for an op without regions.
/// The interpreter passes them to the region executor after the operands.
std::vector<std::string> captured_values(const Instruction& inst);

/// Whether the body of region `r` is exactly `op(arg0, arg1)` of its two arguments in order,
/// returned: the single-op bodies the fast kernels (reduce, reduce_window, ...) run without
/// the region executor.
bool is_single_binary_body(const Region& r);

/// Whether the fast kernels combine values with `op` when it is such a body (reduce_window,
/// select_and_scatter's scatter body, scatter's update): add, subtract, multiply, divide,
/// maximum, minimum, and, or, xor. Every other op needs the region executor.
bool is_kernel_combiner(Op op);

}  // namespace shlo
