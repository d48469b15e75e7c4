// Float runs against certified enclosures, op by op: each instruction's f32 (or f64) result
// must lie within the interval enclosure of the exact operation on the same float operands,
// widened by a documented per-op allowance:
//   exact ops (negate abs maximum minimum select compare and data movement)   0
//   + - * / sqrt (correctly rounded)                                          1/2 ulp of the result
//   exp log tanh logistic rsqrt, f32 (double and libm, then rounded once)    1 ulp
//   the same in f64 (glibc's documented errors; composites summed)   exp log 1, tanh rsqrt 2,
//                                                                    logistic 3 ulps
//   dot_general, reduce (n-term sums, any order)      gamma_n * sum |terms|, gamma_n = n u / (1 - n u)
// with u = 2^-24 (f32) or 2^-53 (f64). A per-op check is local: it says each op did what its
// float semantics allows on the values it was given; the composed error of a whole program is
// the float-check work's bound.
#pragma once

#include <string>

#include "oracle/text_case.hpp"

namespace shlo {

struct FloatCheck {
  bool within = true;
  std::string detail;  // the first op and element outside its allowance
  int ops_checked = 0;
};

/// `domain`: "f32" or "f64". `perturb` (the control) moves the last op's first element by
/// four allowances (or one ulp where the allowance is 0).
FloatCheck float_run_within_allowance(const TextCase& tc, const std::string& domain, bool perturb = false);

}  // namespace shlo
