// The `mpfr:P` domain: MPFR point values of exactly P bits, IEEE-style special values
// (NaN, +-inf, signed zeros). + - * / sqrt rsqrt exp log tanh are correctly rounded to
// nearest; logistic is 1/(1+exp(-x)) evaluated with 32 guard bits, then rounded once to P.
#pragma once

#include <string>
#include <string_view>

#include "interp/domain/big_float.hpp"
#include "interp/domain/domain.hpp"
#include "interp/domain/rational.hpp"

namespace shlo {

class MpfrDomain {
 public:
  using Scalar = BigFloat;
  explicit MpfrDomain(mpfr_prec_t precision);
  mpfr_prec_t precision() const { return precision_; }
  std::string name() const { return "mpfr:" + std::to_string(precision_); }

  Scalar from_rational(const Rational& q) const;
  Scalar from_literal(std::string_view text) const;
  Scalar from_bits(std::uint64_t bits, FloatFormat format) const;
  Scalar from_double(double x) const {
    Scalar r = make();
    mpfr_set_d(r.get(), x, MPFR_RNDN);
    return r;
  }
  /// Reads to_string's output (any exponent MPFR holds) or a literal.
  Scalar parse(std::string_view text) const;
  std::string to_string(const Scalar& a) const { return a.to_string(); }
  double to_double(const Scalar& a) const { return mpfr_get_d(a.get(), MPFR_RNDN); }

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
  Scalar map_monotone(const Scalar& a, const RationalMap& f) const {
    if (!mpfr_number_p(a.get())) return a;
    Rational q;
    mpfr_get_q(q.backend().data(), a.get());
    return from_rational(f(q));
  }
  Scalar pi() const {
    Scalar r = make();
    mpfr_const_pi(r.get(), MPFR_RNDN);
    return r;
  }
  Tri compare(CompareDirection d, const Scalar& a, const Scalar& b) const;
  Scalar select(bool p, const Scalar& a, const Scalar& b) const { return p ? a : b; }
  void mac(Scalar& acc, const Scalar& a, const Scalar& b) const;
  // The issue-15 ops, each correctly rounded to nearest (mpfr_rint_*, mpfr_sin, ...; rem is
  // mpfr_fmod, the truncated quotient's remainder).
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

 private:
  Scalar make() const { return Scalar(precision_); }
  Scalar from_parsed(const Literal& lit) const;
  mpfr_prec_t precision_;
};
static_assert(Domain<MpfrDomain>);

}  // namespace shlo
