// Exact rationals and the literal grammar of the text.
#pragma once

#include <boost/multiprecision/gmp.hpp>

#include <cstdint>
#include <string>
#include <string_view>

#include "interp/domain/basics.hpp"

namespace shlo {

// et_off: xtensor-like generic code takes decltype(a+b) as a value type; with expression
// templates on that is a proxy holding references to temporaries (see TOOLCHAIN notes).
using Rational = boost::multiprecision::number<boost::multiprecision::gmp_rational,
                                               boost::multiprecision::et_off>;
using Integer = boost::multiprecision::number<boost::multiprecision::gmp_int,
                                              boost::multiprecision::et_off>;

/// A literal of the text or of a saved case, read exactly.
///   decimal:   [+-]? digits ( '.' digits? )? ( [eE] [+-]? digits )?     "0.00078125", "1.0e-05"
///   rational:  [+-]? digits '/' digits                                   "3/4" (denominator > 0)
///   special:   [+-]? ("inf" | "nan")
struct Literal {
  enum class Kind { Finite, PosInf, NegInf, NaN };
  Kind kind = Kind::Finite;
  Rational value;         // meaningful when kind == Finite
  bool negative = false;  // the text had a minus sign: "-0.0" is a negative zero in IEEE domains
};

/// Parses a literal exactly; throws DomainError naming the text and the position of the
/// first offending character.
Literal parse_literal(std::string_view text);

/// The exact value of an IEEE bit pattern. NaN and infinities come back as such.
Literal literal_from_bits(std::uint64_t bits, FloatFormat format);

/// Rounds a rational to the nearest value of the IEEE type T (float or double), ties to
/// even, once, with gradual underflow and overflow to infinity, through MPFR's IEEE emulation
/// (an independent route from the C library's strtof/strtod).
template <class T>
T round_rational(const Rational& q);

/// A non-decreasing function of the rationals (the roundings of convertF).
using RationalMap = std::function<Rational(const Rational&)>;

/// Round to nearest on a grid of p fractional significand bits, unbounded exponent, ties
/// upward (Mathlib's round(x) = floor(x + 1/2)): the Lean model rndP(p); rndP(p)(0) = 0.
Rational round_rndp(const Rational& q, int p);
/// IEEE round to nearest even into binary32, and into bfloat16 (8 significand bits, the
/// binary32 exponent range), with infinities as the largest finite value's successor.
Rational round_binary32(const Rational& q);
Rational round_bfloat16(const Rational& q);

/// The exact rational value of a finite double or float.
Rational rational_from_double(double x);

/// Decimal form of a rational when its denominator is 2^a 5^b ("0.125"), else "p/q".
std::string rational_to_string(const Rational& q);

}  // namespace shlo
