// The op-level properties of the catalogue (fuzz/op_props.cpp): the printer on generated
// programs, bit-identity with the naive evaluator, and the domains at the edges of the real
// domain (log, sqrt, rsqrt, divide at and below zero).
#pragma once

#include <string>
#include <vector>

#include "fuzz/property.hpp"

namespace shlo::fuzz {

/// An op-level program (gen_op_program) as an instance: data.program, data.inputs (exact
/// rationals as strings, per argument) and data.precision (24, 53 or 113).
rc::Gen<Instance> op_program(bool transcendental, bool float_ops = false, bool infinities = false);

std::vector<Property> op_properties();

/// The domain-edge cases: an op of log, sqrt, rsqrt, divide applied to an edge operand.
extern const std::vector<std::string> kEdgeOps;
extern const std::vector<std::string> kEdges;
/// The domain-edge check on one case: each domain against the hand-derived expectation.
/// `absolute` is the control: the op reads |operand| (a kernel that drops the sign).
Verdict domain_edge(const std::string& op, const std::string& edge, const std::string& x, int precision, bool absolute);

}  // namespace shlo::fuzz
