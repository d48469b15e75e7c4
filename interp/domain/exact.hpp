// The `exact` domain: rationals (GMP), extended by +inf and -inf so that the text's max-pool
// initial value 0xFF800000 (-inf) means what it says. Every result that is a rational (or an
// infinity as an IEEE limit that is not a pole) is exact; anything else is a DomainError that
// names the op and the operand: an irrational value (exp(1/2)), a division by zero, log(0),
// inf - inf, 0 * inf, NaN.
#pragma once

#include <string>
#include <string_view>

#include "interp/domain/rational.hpp"
#include "interp/domain/domain.hpp"

namespace shlo {

/// An extended rational: a finite rational, +inf or -inf.
struct ExtRational {
  enum class Kind : unsigned char { Finite, PosInf, NegInf };
  Kind kind = Kind::Finite;
  Rational q;  // the value when kind == Finite, else 0

  ExtRational() = default;
  ExtRational(Rational v) : q(std::move(v)) {}  // NOLINT: a rational is an extended rational
  static ExtRational pos_inf() { return ExtRational(Kind::PosInf); }
  static ExtRational neg_inf() { return ExtRational(Kind::NegInf); }
  bool finite() const { return kind == Kind::Finite; }
  /// -1, 0, +1.
  int sign() const;
  friend bool operator==(const ExtRational& a, const ExtRational& b) {
    return a.kind == b.kind && a.q == b.q;
  }

 private:
  explicit ExtRational(Kind k) : kind(k) {}
};

class ExactDomain {
 public:
  using Scalar = ExtRational;
  std::string name() const { return "exact"; }

  Scalar from_rational(const Rational& q) const { return q; }
  Scalar from_literal(std::string_view text) const;
  Scalar from_bits(std::uint64_t bits, FloatFormat format) const;
  Scalar from_double(double x) const;
  Scalar parse(std::string_view text) const { return from_literal(text); }
  std::string to_string(const Scalar& a) const;
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
  Scalar pi() const;  // an error: pi is irrational
  Scalar map_monotone(const Scalar& a, const RationalMap& f) const { return a.finite() ? Scalar(f(a.q)) : a; }
  Tri compare(CompareDirection d, const Scalar& a, const Scalar& b) const;
  Scalar select(bool p, const Scalar& a, const Scalar& b) const { return p ? a : b; }
  void mac(Scalar& acc, const Scalar& a, const Scalar& b) const;

  // The issue-15 ops: exact where the result is rational (the roundings, sign, rem, pow with
  // an integer exponent or a perfect-power base), else the located "irrational" error; sin,
  // cos, log1p, expm1 only at 0. No NaN: inf - inf style cases are errors.
  Scalar floor(const Scalar& a) const;
  Scalar ceil(const Scalar& a) const;
  Scalar round_even(const Scalar& a) const;
  Scalar round_away(const Scalar& a) const;
  Scalar sign(const Scalar& a) const { return Rational(a.sign()); }
  Scalar sin(const Scalar& a) const;
  Scalar cos(const Scalar& a) const;
  Scalar log1p(const Scalar& a) const;
  Scalar expm1(const Scalar& a) const;
  Scalar pow(const Scalar& a, const Scalar& b) const;
  Scalar rem(const Scalar& a, const Scalar& b) const;
  Truncated truncate(const Scalar& a) const;

  /// -1, 0, +1 as for a <=> b on the extended line.
  static int cmp(const Scalar& a, const Scalar& b);
};
static_assert(Domain<ExactDomain>);

}  // namespace shlo
