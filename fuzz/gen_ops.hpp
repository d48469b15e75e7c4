// Op-level programs straight from the spec's op rules (not through SHlo): random sequences of
// elementwise ops, transpose, reverse, slice, pad, concatenate, broadcast_in_dim, reduce and
// dot_general over small 2-D tensors, for testing the interpreter's domains against each other.
#pragma once

#include <rapidcheck.h>

#include "oracle/text_case.hpp"

namespace shlo::fuzz {

/// A module and its inputs (one replica). `transcendental` adds exponential, logistic, tanh
/// and sqrt (of a positive value). `float_ops` adds what float32 error analysis needs beyond
/// that: divide, log and rsqrt (of |x| + 1), relu-style select(compare(x, y), x, y), max
/// reduce, a max-pool reduce_window, select_and_scatter and a 1-D convolution; programs with
/// them need the f32 and bound domains (their comparisons are undecidable in intervals).
rc::Gen<TextCase> gen_op_program(bool transcendental, bool float_ops = false);

}  // namespace shlo::fuzz
