// Op-level programs straight from the spec's op rules (not through SHlo): random sequences of
// elementwise ops, transpose, reverse, slice, pad, concatenate, broadcast_in_dim, reduce and
// dot_general over small 2-D tensors, for testing the interpreter's domains against each other.
#pragma once

#include <rapidcheck.h>

#include "oracle/text_case.hpp"

namespace shlo::fuzz {

/// A module and its inputs (one replica). `transcendental` adds exponential, logistic, tanh
/// and sqrt (of a positive value).
rc::Gen<TextCase> gen_op_program(bool transcendental);

}  // namespace shlo::fuzz
