// Op-level programs straight from the spec's op rules (not through SHlo): random sequences of
// the subset's ops over small tensors of rank 0 to 4, drawing every attribute value the spec
// allows (asymmetric, negative and interior padding; strides; lhs and rhs dilation; group
// counts; permutations of every rank; broadcast, reduced, contracting and batching
// dimensions; window dilations), for testing the interpreter's domains against each other and
// against the naive evaluator.
#pragma once

#include <rapidcheck.h>

#include <string>
#include <vector>

#include "ast/program.hpp"
#include "oracle/text_case.hpp"

namespace shlo::fuzz {

/// A module and its inputs (one replica). `transcendental` adds exponential, logistic, tanh
/// and sqrt (of a positive value). `float_ops` adds what needs the IEEE domains (comparisons
/// that enclosures cannot decide): divide, log and rsqrt (of |x| + 1), compare/select and
/// select_and_scatter. `infinities` (implied by `float_ops`) lets maximum and minimum folds
/// start from -inf (0xFF800000), which a window wholly in the padding returns.
rc::Gen<TextCase> gen_op_program(bool transcendental, bool float_ops = false, bool infinities = false);

/// The attribute values an instruction shows, as short names ("negative low", "cycle",
/// "rank 3"), from a fixed per-op table: what `shlo prop --coverage` counts.
std::vector<std::string> drawn_attributes(const Instruction& inst);
/// Every (op, attribute) of that table, so that the coverage report lists what was never drawn.
std::vector<std::pair<std::string, std::string>> attribute_table();

}  // namespace shlo::fuzz
