// Accuracy profiles of float32 evaluations: what the bound analysis assumes of the machine
// that produced the numbers. Each allowance is the largest error, in ulps of the result,
// against the exact (real) value of the op applied to the float operands: a correctly
// rounded op is 0.5; a library function documented "k ulps from the correctly rounded
// result" is k + 0.5.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
  /// Allowances set by hand (`shlo check --allow exp=2.5`), in the order given, already
  /// applied to the fields above; kept so that the wider profiles a check tries get them too,
  /// and so that the report can say them.
  std::vector<std::pair<std::string, double>> allowances;
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
/// The functions whose allowance `with_allowance` sets: "div sqrt rsqrt exp log tanh logistic".
inline constexpr const char* kAllowanceFunctions = "div sqrt rsqrt exp log tanh logistic";
/// `p` with function `fn`'s allowance set to `ulps` (the largest error of that function's
/// float result against its exact value, in ulps of the result: 0.5 is correctly rounded, so
/// less is refused) and recorded in p.allowances. For a library less accurate than the
/// profile says, e.g. a SIMD exp. Throws std::invalid_argument naming the accepted functions.
FloatProfile with_allowance(FloatProfile p, std::string_view fn, double ulps);
/// `p` with every allowance of `from` set by hand applied to it (a wider profile tried for the
/// report keeps what the user said of the functions).
FloatProfile with_allowances_of(FloatProfile p, const FloatProfile& from);
/// "exp 2.5, log 4 (ulps, set by hand)" or "" when none was set.
std::string allowances_text(const FloatProfile& p);
inline constexpr const char* kProfileNames = "ieee | cuda | tf32 | bf16";
/// The profiles a float32 matmul may have been computed under, narrowest first: an output
/// consistent with one is consistent with every later one.
inline constexpr const char* kMatmulProfiles[] = {"ieee", "tf32", "bf16"};

}  // namespace shlo
