// The `f32` and `f64` domains: the hardware types, one generic implementation.
//
// Numeric model (that of the official StableHLO reference interpreter, which these domains
// reproduce bit for bit):
//   + - * /      the hardware operation, correctly rounded to nearest even, never fused
//                (the build uses -ffp-contract=off);
//   sqrt         std::sqrt in double, rounded once to T (correctly rounded for float too,
//                since double carries more than 2*24+2 bits);
//   exp log tanh computed in double with the host C library (glibc's libm on Debian 12),
//                then rounded once to T;
//   rsqrt        1.0 / std::sqrt(x) in double, then rounded once to T;
//   logistic     1.0 / (1.0 + std::exp(-x)) in double, then rounded once to T;
//   max min      IEEE 754-2019 maximum/minimum: NaN propagates, -0 < +0;
//   compare      IEEE quiet comparisons (NaN: only NE is true).
// Literals are read exactly and rounded once to T (never through double for float).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "interp/domain/domain.hpp"
#include "interp/domain/rational.hpp"

namespace shlo {

template <class T>
class IeeeDomain {
 public:
  using Scalar = T;
  std::string name() const;

  Scalar from_rational(const Rational& q) const { return round_rational<T>(q); }
  Scalar from_literal(std::string_view text) const;
  Scalar from_bits(std::uint64_t bits, FloatFormat format) const;
  Scalar from_double(double x) const { return static_cast<T>(x); }  // f32: one rounding
  Scalar parse(std::string_view text) const { return from_literal(text); }
  /// The shortest decimal that reads back to exactly this value.
  std::string to_string(Scalar a) const;
  double to_double(Scalar a) const { return static_cast<double>(a); }

  Scalar add(Scalar a, Scalar b) const { return a + b; }
  Scalar sub(Scalar a, Scalar b) const { return a - b; }
  Scalar mul(Scalar a, Scalar b) const { return a * b; }
  Scalar div(Scalar a, Scalar b) const { return a / b; }
  Scalar neg(Scalar a) const { return -a; }
  Scalar abs(Scalar a) const;
  Scalar max(Scalar a, Scalar b) const;
  Scalar min(Scalar a, Scalar b) const;
  Scalar exp(Scalar a) const;
  Scalar log(Scalar a) const;
  Scalar sqrt(Scalar a) const;
  Scalar rsqrt(Scalar a) const;
  Scalar tanh(Scalar a) const;
  Scalar logistic(Scalar a) const;
  Scalar map_monotone(Scalar a, const RationalMap& f) const {
    return a - a == 0 ? from_rational(f(rational_from_double(a))) : a;  // finite values only
  }
  Scalar pi() const { return static_cast<T>(3.141592653589793238462643383279502884L); }  // rounded once
  Tri compare(CompareDirection d, Scalar a, Scalar b) const;
  Scalar select(bool p, Scalar a, Scalar b) const { return p ? a : b; }
  void mac(Scalar& acc, Scalar a, Scalar b) const { acc = acc + a * b; }  // -ffp-contract=off: two roundings

  // The issue-15 ops: roundings exact in T (signed zeros kept: ceil(-0.5) = -0); sin cos
  // log1p expm1 pow in double with the host libm, rounded once to T (as the reference
  // interpreter); rem is fmod (exact, the dividend's sign).
  Scalar floor(Scalar a) const { return std::floor(a); }
  Scalar ceil(Scalar a) const { return std::ceil(a); }
  Scalar round_even(Scalar a) const { return std::nearbyint(a); }  // the default mode: to nearest even
  Scalar round_away(Scalar a) const { return std::round(a); }
  Scalar sign(Scalar a) const { return std::isnan(a) || a == 0 ? a : std::copysign(Scalar(1), a); }
  Scalar sin(Scalar a) const { return static_cast<T>(std::sin(static_cast<double>(a))); }
  Scalar cos(Scalar a) const { return static_cast<T>(std::cos(static_cast<double>(a))); }
  Scalar log1p(Scalar a) const { return static_cast<T>(std::log1p(static_cast<double>(a))); }
  Scalar expm1(Scalar a) const { return static_cast<T>(std::expm1(static_cast<double>(a))); }
  Scalar pow(Scalar a, Scalar b) const { return static_cast<T>(std::pow(static_cast<double>(a), static_cast<double>(b))); }
  Scalar rem(Scalar a, Scalar b) const { return std::fmod(a, b); }
  /// The `ieee` domain (interp/domain/ieee_typed.hpp): an f64 domain whose float tensors the
  /// interpreter computes in the arithmetic of their element type. Only for T = double.
  static IeeeDomain element_typed_domain()
    requires std::is_same_v<T, double>
  {
    IeeeDomain d;
    d.element_typed_ = true;
    return d;
  }
  bool element_typed() const { return element_typed_; }

  Truncated truncate(Scalar a) const {
    if (std::isnan(a)) return {Truncated::Kind::NaN, {}};
    if (std::isinf(a)) return {a > 0 ? Truncated::Kind::PosInf : Truncated::Kind::NegInf, {}};
    return {Truncated::Kind::Finite, numerator(rational_from_double(std::trunc(a)))};
  }

 private:
  bool element_typed_ = false;
};

using F32Domain = IeeeDomain<float>;
using F64Domain = IeeeDomain<double>;
static_assert(Domain<F32Domain> && Domain<F64Domain>);
extern template class IeeeDomain<float>;
extern template class IeeeDomain<double>;

/// The unit in the last place of T at |x| (the subnormal spacing below T's normal range).
template <class T>
double ieee_ulp(double x) {
  const int e = std::max(std::ilogb(std::max(std::fabs(x), static_cast<double>(std::numeric_limits<T>::min()))),
                         std::numeric_limits<T>::min_exponent - 1);
  return std::ldexp(1.0, e - std::numeric_limits<T>::digits + 1);
}

/// Bit pattern helpers (for tests and hex literals).
std::uint32_t float_bits(float x);
std::uint64_t double_bits(double x);

}  // namespace shlo
