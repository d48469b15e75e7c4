// Accuracy profiles of float32 evaluations: what the bound analysis assumes of the machine
// that produced the numbers. Each allowance is the largest error, in ulps of the result,
// against the exact (real) value of the op applied to the float operands: a correctly
// rounded op is 0.5; a library function documented "k ulps from the correctly rounded
// result" is k + 0.5.
#pragma once

#include <string>
#include <string_view>

namespace shlo {

struct FloatProfile {
  std::string name;
  double div = 0.5, sqrt = 0.5, rsqrt = 2, exp = 1, log = 1, tanh = 2, logistic = 4;
  /// dot_general and convolution operands may be reduced to TF32 (10 stored mantissa bits,
  /// truncated: relative error below 2^-10) before the products.
  bool tf32 = false;
  /// Subnormal inputs and results may be flushed to zero (absolute error below 2^-126).
  bool flush_to_zero = false;
};

/// "ieee": + - * / sqrt correctly rounded; exp, log 1 ulp, tanh 2 (glibc's documented float
///         maxima on x86-64); rsqrt = 1/sqrt (2), logistic = 1/(1 + exp(-x)) composed (4).
/// "cuda": CUDA C Programming Guide, single precision: expf 2, logf 1, tanhf 2, rsqrtf 2,
///         x/y 2 (-prec-div=false), sqrtf 1 (-prec-sqrt=false), each + 0.5 to the exact
///         value; logistic composed of expf, + and / (9); subnormals may flush to zero.
/// "tf32": "ieee" with dot_general and convolution operands rounded to TF32.
/// Throws std::invalid_argument naming the accepted profiles.
FloatProfile float_profile(std::string_view name);
inline constexpr const char* kProfileNames = "ieee | cuda | tf32";

}  // namespace shlo
