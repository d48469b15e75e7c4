// The `interval:P` domain: MPFI intervals with endpoints of exactly P bits. Every operation
// returns an enclosure of the real result for every point of its operands' enclosures.
// Comparisons are three-valued (Undecided when the enclosures overlap); max and min are
// endpoint-wise and need no decision. An operation whose real value is undefined somewhere in
// the operands' enclosure (a divisor enclosure containing 0, log or sqrt reaching below 0) is
// a DomainError that says whether it is certain or only not excluded at this precision.
#pragma once

#include <string>
#include <string_view>

#include "interp/domain/big_interval.hpp"
#include "interp/domain/domain.hpp"
#include "interp/domain/rational.hpp"

namespace shlo {

class IntervalDomain {
 public:
  using Scalar = BigInterval;
  explicit IntervalDomain(mpfr_prec_t precision);
  mpfr_prec_t precision() const { return precision_; }
  std::string name() const { return "interval:" + std::to_string(precision_); }

  Scalar from_rational(const Rational& q) const;
  Scalar from_literal(std::string_view text) const;
  Scalar from_bits(std::uint64_t bits, FloatFormat format) const;
  Scalar from_double(double x) const;
  /// Reads "[lo, hi]" (endpoints rounded outward) or a single literal.
  Scalar parse(std::string_view text) const;
  /// "[lo, hi]", each endpoint as the decimal that parse() reads back to it exactly (the
  /// nearest on the inner side, within one ulp of the endpoint).
  std::string to_string(const Scalar& a) const;
  /// The midpoint, rounded to nearest double.
  double to_double(const Scalar& a) const;

  Scalar add(const Scalar& a, const Scalar& b) const;
  Scalar sub(const Scalar& a, const Scalar& b) const;
  Scalar mul(const Scalar& a, const Scalar& b) const;
  Scalar div(const Scalar& a, const Scalar& b) const;
  Scalar neg(const Scalar& a) const;
  Scalar abs(const Scalar& a) const;
  Scalar max(const Scalar& a, const Scalar& b) const;
  Scalar min(const Scalar& a, const Scalar& b) const;
  Scalar exp(const Scalar& a) const;
  Scalar log(const Scalar& a) const;
  Scalar sqrt(const Scalar& a) const;
  Scalar rsqrt(const Scalar& a) const;
  Scalar tanh(const Scalar& a) const;
  Scalar logistic(const Scalar& a) const;
  /// A non-decreasing map sends [lo, hi] into [f(lo), f(hi)] (endpoints exact).
  Scalar map_monotone(const Scalar& a, const RationalMap& f) const;
  Scalar pi() const {
    Scalar r = make();
    mpfi_const_pi(r.get());
    return r;
  }
  Tri compare(CompareDirection d, const Scalar& a, const Scalar& b) const;
  Scalar select(bool p, const Scalar& a, const Scalar& b) const { return p ? a : b; }
  void mac(Scalar& acc, const Scalar& a, const Scalar& b) const;
  // The issue-15 ops. The roundings and sign are non-decreasing: the images of the endpoints
  // (floor of [0.9, 1.1] is [0, 1]). sin cos log1p expm1: MPFI's enclosures. pow: an integer
  // point exponent by exact endpoint powers, otherwise exp(b log a) for a base above 0. rem
  // and truncate need the truncated quotient / value to be one integer over the enclosure,
  // else an "undecided" error.
  Scalar floor(const Scalar& a) const;
  Scalar ceil(const Scalar& a) const;
  Scalar round_even(const Scalar& a) const;
  Scalar round_away(const Scalar& a) const;
  Scalar sign(const Scalar& a) const;
  Scalar sin(const Scalar& a) const;
  Scalar cos(const Scalar& a) const;
  Scalar log1p(const Scalar& a) const;
  Scalar expm1(const Scalar& a) const;
  Scalar pow(const Scalar& a, const Scalar& b) const;
  Scalar rem(const Scalar& a, const Scalar& b) const;
  Truncated truncate(const Scalar& a) const;

  /// Does `a` contain the rational q / the point x?
  static bool contains(const Scalar& a, const Rational& q);
  static bool contains(const Scalar& a, mpfr_srcptr x);
  /// hi - lo rounded up, as a double.
  static double width(const Scalar& a);

 private:
  Scalar make() const { return Scalar(precision_); }
  void check(const Scalar& r, const char* op, const Scalar& a) const;
  mpfr_prec_t precision_;
};
static_assert(Domain<IntervalDomain>);

}  // namespace shlo
