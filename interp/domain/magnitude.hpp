// The `magnitude` domain: den's value in double together with a magnitude M, the scale of the
// rounding error that any float evaluation of the same formula may make. shlo agree
// (oracle/program_agree.cpp) allows |den - text| <= gamma_K (|den| + |text| + M) in f64 and
// f32; this domain computes that M.
//
// M bounds, to first order, the effect on the value of a relative perturbation of every input
// and every intermediate result: if each carries a relative error of at most gamma, the
// value's error is at most gamma * M (the accumulated gamma_K of the allowance takes the
// place of the many gammas). It is a running error bound (Higham, "Accuracy and Stability of
// Numerical Algorithms", 3.3), in the form that keeps sums order-free:
//   a leaf (an input, a constant)   |v|
//   a + b, a - b                    Ma + Mb            (no cancellation: the terms' magnitudes)
//   a * b, and each mac product     Ma Mb
//   a / b                           (Ma + |v| Mb) / |b|
//   sqrt a                          Ma / |v|           (sqrt is 1/(2 sqrt a)-Lipschitz near a)
//   rsqrt a                         |v| (1 + Ma / |a|)
//   exp a                           |v| (1 + Ma)
//   log a                           |v| + Ma / |a|
//   tanh a, logistic a              |v| + Ma, |v| + Ma / 4   (1- and 1/4-Lipschitz)
//   max, min                        max(Ma, Mb)        (1-Lipschitz in each operand)
//   -a, |a|, a rounding map         Ma, Ma, |v| + Ma
//   select                          the chosen operand's M
// M >= |v| throughout. For a polynomial formula M is the formula evaluated on the absolute
// values of its inputs, which is what agree used before; where a formula divides by, takes the
// root of, or exponentiates a value that cancelled (Adam's theta - lr dir with theta near
// lr dir, for instance), M grows as the error does, where |inputs| would not.
//
// Comparisons decide on v; a branch that the rounding may flip is not modelled (as before).
// A root of a value that is 0 with a non-zero M has no first-order bound: the domain throws
// DomainError, and agree reports the node not comparable. A quotient by 0, a log or rsqrt of 0
// is not finite, and neither is its M.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>

#include "interp/domain/domain.hpp"
#include "interp/domain/ieee.hpp"

namespace shlo {

struct Magnitude {
  double v = 0;  // den's value, in double
  double m = 0;  // the magnitude M >= |v|
};

class MagnitudeDomain {
 public:
  using Scalar = Magnitude;
  std::string name() const { return "magnitude"; }

  static Scalar leaf(double x) { return {x, std::fabs(x)}; }
  Scalar from_rational(const Rational& q) const { return leaf(f_.from_rational(q)); }
  Scalar from_literal(std::string_view t) const { return leaf(f_.from_literal(t)); }
  Scalar from_bits(std::uint64_t b, FloatFormat fmt) const { return leaf(f_.from_bits(b, fmt)); }
  Scalar from_double(double x) const { return leaf(x); }
  Scalar parse(std::string_view t) const { return leaf(f_.parse(t)); }
  std::string to_string(const Scalar& a) const { return f_.to_string(a.v) + " (M " + f_.to_string(a.m) + ")"; }
  double to_double(const Scalar& a) const { return a.v; }

  Scalar add(const Scalar& a, const Scalar& b) const { return {a.v + b.v, a.m + b.m}; }
  Scalar sub(const Scalar& a, const Scalar& b) const { return {a.v - b.v, a.m + b.m}; }
  Scalar mul(const Scalar& a, const Scalar& b) const { return {a.v * b.v, a.m * b.m}; }
  Scalar div(const Scalar& a, const Scalar& b) const {
    const double v = a.v / b.v;
    if (b.v == 0) return {v, b.m == 0 && a.m == 0 ? 0.0 : kInf};  // the value is not finite either
    return {v, (a.m + std::fabs(v) * b.m) / std::fabs(b.v)};
  }
  Scalar max(const Scalar& a, const Scalar& b) const { return {f_.max(a.v, b.v), std::max(a.m, b.m)}; }
  Scalar min(const Scalar& a, const Scalar& b) const { return {f_.min(a.v, b.v), std::max(a.m, b.m)}; }
  Scalar neg(const Scalar& a) const { return {-a.v, a.m}; }
  Scalar abs(const Scalar& a) const { return {std::fabs(a.v), a.m}; }
  Scalar exp(const Scalar& a) const {
    const double v = std::exp(a.v);
    return {v, v * (1 + a.m)};
  }
  Scalar log(const Scalar& a) const {
    const double v = std::log(a.v);
    if (a.v == 0) return {v, kInf};  // -inf: not finite
    return {v, std::fabs(v) + a.m / std::fabs(a.v)};
  }
  Scalar sqrt(const Scalar& a) const {
    const double v = std::sqrt(a.v);
    if (v == 0 && a.m != 0)  // the slope is unbounded at 0: no first-order bound
      throw DomainError("magnitude: sqrt of a value that is 0 here but subject to rounding (M = " + std::to_string(a.m) +
                        ") has no first-order error bound");
    return {v, v == 0 ? 0 : a.m / v};
  }
  Scalar rsqrt(const Scalar& a) const {
    const double v = 1 / std::sqrt(a.v);
    if (a.v == 0) return {v, kInf};  // inf: not finite
    return {v, std::fabs(v) * (1 + a.m / std::fabs(a.v))};
  }
  Scalar tanh(const Scalar& a) const {
    const double v = std::tanh(a.v);
    return {v, std::fabs(v) + a.m};
  }
  Scalar logistic(const Scalar& a) const {
    const double v = 1 / (1 + std::exp(-a.v));
    return {v, v + a.m / 4};
  }
  Scalar map_monotone(const Scalar& a, const RationalMap& f) const {
    const double v = f_.map_monotone(a.v, f);
    return {v, std::fabs(v) + a.m};
  }
  Scalar pi() const { return leaf(f_.pi()); }
  Tri compare(CompareDirection d, const Scalar& a, const Scalar& b) const { return f_.compare(d, a.v, b.v); }
  Scalar select(bool p, const Scalar& a, const Scalar& b) const { return p ? a : b; }
  void mac(Scalar& acc, const Scalar& a, const Scalar& b) const {
    acc.v += a.v * b.v;
    acc.m += a.m * b.m;
  }

 private:
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  F64Domain f_;
};

static_assert(Domain<MagnitudeDomain>);

}  // namespace shlo
