// Rounding into the reduced-precision formats of the split revision (bfloat16, float8 E4M3FN):
// round to nearest, ties to even, computed exactly on rationals, and applied in any domain
// through its map_monotone (the rounding is non-decreasing, so an interval rounds its two
// endpoints and stays an enclosure).
//
// Formats (1 sign bit, e exponent bits, f fraction bits):
//   bfloat16   e = 8, f = 7, bias 127: binary32's exponent range; least subnormal 2^-133,
//              largest finite (2 - 2^-7) 2^127; beyond it IEEE rounds to infinity.
//   f8E4M3FN   e = 4, f = 3, bias 7, no infinities (only S.1111.111 is NaN): least subnormal
//              2^-9, least normal 2^-6, largest finite 1.75 * 2^8 = 448.
//
// Overflow. The StableHLO spec defines `convert` between float types only where the value is
// representable: an inexact float-to-float conversion is "TBD", and it says nothing of a value
// beyond the target's range. The oracle chooses what XLA's non-saturating conversion does
// (and ml_dtypes' float8_e4m3fn cast): round with an unbounded exponent first; a result above
// the largest finite value is +-infinity for bfloat16 and NaN for f8E4M3FN (it has no
// infinity). So 464 (the tie between 448 and 2^9 * 0.9375) rounds to 448 (even), and anything
// at or above 480 in the unbounded rounding is NaN. A rational cannot hold infinity or NaN:
// round_to_format throws RoundingOverflow, and a caller that can represent the IEEE result
// (the op-level interpreter's convert) catches it.
#pragma once

#include <cstdint>
#include <string>

#include "num/basics.hpp"
#include "num/rational.hpp"

namespace shlo {

/// Binary16 (IEEE half, f16): e = 5, f = 10, bias 15; least subnormal 2^-24, largest finite
/// 65504; beyond it IEEE rounds to infinity (65520, the tie with 2^16, rounds up: inf).
enum class LowPrecisionFormat { BFloat16, F8E4M3FN, Binary16 };
const char* to_string(LowPrecisionFormat f);  // "bf16", "f8E4M3FN", "f16"

/// Which rounding den applies where a reduced-precision constructor's text converts (Lean's
/// `rnd` parameter, which the renders set to the identity). Selected per run (DenOptions).
enum class RoundingModel {
  Identity,     // rnd = id: what the Lean renders pass; den is the f32 peer's
  NearestEven,  // rnd = the row's format, round to nearest even: what the text computes
};
/// "identity" or "nearest-even"; throws DomainError for anything else.
RoundingModel parse_rounding_model(const std::string& name);

/// A value outside the format's finite range (see the overflow policy above).
class RoundingOverflow : public DomainError {
 public:
  RoundingOverflow(const std::string& what, bool negative) : DomainError(what), negative_(negative) {}
  bool negative() const { return negative_; }

 private:
  bool negative_;
};

/// Round to nearest, ties to even, on the grid of `fraction_bits` fraction bits whose exponent
/// is at least `min_exponent` (the subnormal grid below it), exponent unbounded above.
Rational round_nearest_even(const Rational& q, int fraction_bits, int min_exponent);

/// q rounded into the format, exactly; throws RoundingOverflow beyond the largest finite value.
Rational round_to_format(const Rational& q, LowPrecisionFormat f);

/// The largest finite value of the format.
Rational largest_finite(LowPrecisionFormat f);

/// The value of a binary16 bit pattern (the low 16 bits); `special` is set for inf and NaN
/// (the exponent field all ones), whose value is then 0.
Rational binary16_from_bits(std::uint64_t bits, bool& special);

/// The value of an f8E4M3FN bit pattern (the low 8 bits); `nan` is set for S.1111.111.
Rational f8e4m3fn_from_bits(std::uint64_t bits, bool& nan);

/// The integer roundings of a rational: floor, ceil, truncation toward zero, and to nearest
/// with ties to even or away from zero (spec floor, ceil, round_nearest_even,
/// round_nearest_afz; convert's and remainder's truncation).
Integer floor_integer(const Rational& q);
Integer ceil_integer(const Rational& q);
Integer trunc_integer(const Rational& q);
Integer round_half_even(const Rational& q);
Integer round_half_away(const Rational& q);

/// x rounded into format f under the model, in any domain (exact on rationals, IEEE values
/// read exactly and rounded once, intervals by their endpoints).
template <class D>
typename D::Scalar round_value(const D& d, const typename D::Scalar& x, LowPrecisionFormat f, RoundingModel model) {
  if (model == RoundingModel::Identity) return x;
  return d.map_monotone(x, [f](const Rational& q) { return round_to_format(q, f); });
}

}  // namespace shlo
