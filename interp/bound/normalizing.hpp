// Normalisations found in the program's text, so that the bound analysis can use what it knows
// of them (interp/bound/bound.hpp): divides of a value by its own sum (softmax's
// `exp(x) / broadcast(sum(exp(x)))`), where the divisor's error holds the numerator's own error
// as one of its terms (BoundDomain::normalized_div); and batch or layer norms' centred second
// moments, where the mean's error cancels (BoundDomain::centering_sub, centered_square).
#pragma once

#include <unordered_set>

#include "ast/program.hpp"

namespace shlo {

/// The float instructions `%q = divide %a, %b` of every function of m where %b is
/// `broadcast_in_dim %s` back to %a's shape and %s is `reduce(%a init: ...) applies add`
/// across some dimensions of %a (the broadcast's dims the others, in order): element [i] of %b
/// is then the sum of a set of %a's elements that holds %a[i]. With `of_exps`, only those where
/// %a is `exponential` and the reduce starts from 0 (every term of the sum exactly positive).
std::unordered_set<const Instruction*> normalizing_divides(const Module& m, bool of_exps = false);

/// Batch normalisation's centred second moment, sum_i (x_i - m)^2 with m the mean of the x_i
/// (BoundDomain::centering_sub and centered_square): `%c = subtract %x, %m` where %m is
/// `divide %b, %n`, %b `broadcast_in_dim %s` back to %x's shape, %s `reduce(%x init: zero)
/// applies add` across dimensions D (the broadcast's dims the others, in order) and %n a splat
/// constant equal to the number of elements each sum takes; and `%q = multiply %c, %c` whose
/// one use in the whole function is a reduce of %q from zero that adds across the same D.
struct CenteredMoments {
  std::unordered_set<const Instruction*> subtracts, squares;
};
CenteredMoments centered_moments(const Module& m);

}  // namespace shlo
