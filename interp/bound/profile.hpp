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
  /// dot_general and convolution operands may be reduced to fewer stored mantissa bits before
  /// the products (TF32 10, bf16 7; 23 is float32 itself). The sound tier allows truncation
  /// (relative error below 2^-bits); the statistical tier models a conversion that rounds
  /// to nearest (mean-zero, unit 2^-(bits+1)), as cuBLAS's and PTX's cvt.rna do.
  int operand_bits = 23;
  bool reduced_operands() const { return operand_bits < 23; }
  /// Subnormal inputs and results may be flushed to zero (absolute error below 2^-126).
  bool flush_to_zero = false;
};

/// "ieee": + - * / sqrt correctly rounded; exp, log 1 ulp, tanh 2 (glibc's documented float
///         maxima on x86-64); rsqrt = 1/sqrt (2), logistic = 1/(1 + exp(-x)) composed (4).
/// "cuda": CUDA C Programming Guide, single precision: expf 2, logf 1, tanhf 2, rsqrtf 2,
///         x/y 2 (-prec-div=false), sqrtf 1 (-prec-sqrt=false), each + 0.5 to the exact
///         value; logistic composed of expf, + and / (9); subnormals may flush to zero.
/// "tf32": "ieee" with dot_general and convolution operands rounded to TF32 (10 bits).
/// "bf16": "ieee" with dot_general and convolution operands rounded to bfloat16 (7 bits).
/// Throws std::invalid_argument naming the accepted profiles.
FloatProfile float_profile(std::string_view name);
inline constexpr const char* kProfileNames = "ieee | cuda | tf32 | bf16";
/// The profiles a float32 matmul may have been computed under, narrowest first: an output
/// consistent with one is consistent with every later one.
inline constexpr const char* kMatmulProfiles[] = {"ieee", "tf32", "bf16"};

}  // namespace shlo
