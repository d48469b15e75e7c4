// Forward-mode dual numbers over any domain: a scalar is a value and a tangent (a + b eps,
// eps^2 = 0), every operation applies the chain rule in the base domain. den over
// DualDomain<Base> is den over Base plus the directional derivative of den, for every
// constructor, with no per-constructor code: the Jacobian-vector product J v of the VJP
// property family (fuzz/vjp.cpp), an independent route to the numbers a backward constructor
// claims (exact over ExactDomain, certified over IntervalDomain).
//
// Which inputs carry a tangent: den reads every real field through from_rational, so the
// domain is told, as a table from exact value to tangent, which values are the variables. The
// caller draws those values so that no other field and no constant of den can take them (the
// VJP family offsets them by multiples of 1/1000003; see fuzz/vjp.cpp); every other value is a
// constant (tangent 0).
//
// Where the function is not differentiable (max or min at a tie whose tangents differ, abs at
// 0, a rounding of convertF) the operation is a DomainError saying "not differentiable", never
// a guess.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "interp/domain/domain.hpp"

namespace shlo {

template <Domain Base>
class DualDomain {
 public:
  struct Scalar {
    typename Base::Scalar value, tangent;
  };
  using Seeds = std::map<Rational, Rational>;  // exact value of an input -> its tangent

  explicit DualDomain(Base base, Seeds seeds = {}) : base_(std::move(base)), seeds_(std::make_shared<const Seeds>(std::move(seeds))) {}
  const Base& base() const { return base_; }
  std::string name() const { return "dual(" + std::string(base_.name()) + ")"; }

  Scalar from_rational(const Rational& q) const {
    const auto it = seeds_->find(q);
    return {base_.from_rational(q), base_.from_rational(it == seeds_->end() ? Rational(0) : it->second)};
  }
  Scalar from_literal(std::string_view text) const { return constant(base_.from_literal(text)); }
  Scalar from_bits(std::uint64_t bits, FloatFormat format) const { return constant(base_.from_bits(bits, format)); }
  Scalar from_double(double x) const { return constant(base_.from_double(x)); }
  /// "value ; tangent", or a plain value (tangent 0).
  Scalar parse(std::string_view text) const {
    const auto at = text.find(" ; ");
    if (at == std::string_view::npos) return constant(base_.parse(text));
    return {base_.parse(text.substr(0, at)), base_.parse(text.substr(at + 3))};
  }
  std::string to_string(const Scalar& a) const { return base_.to_string(a.value) + " ; " + base_.to_string(a.tangent); }
  double to_double(const Scalar& a) const { return base_.to_double(a.value); }

  Scalar add(const Scalar& a, const Scalar& b) const { return {base_.add(a.value, b.value), base_.add(a.tangent, b.tangent)}; }
  Scalar sub(const Scalar& a, const Scalar& b) const { return {base_.sub(a.value, b.value), base_.sub(a.tangent, b.tangent)}; }
  Scalar mul(const Scalar& a, const Scalar& b) const {
    return {base_.mul(a.value, b.value), base_.add(base_.mul(a.tangent, b.value), base_.mul(a.value, b.tangent))};
  }
  Scalar div(const Scalar& a, const Scalar& b) const {  // (a/b)' = (a' - (a/b) b') / b
    auto q = base_.div(a.value, b.value);
    auto t = base_.div(base_.sub(a.tangent, base_.mul(q, b.tangent)), b.value);
    return {std::move(q), std::move(t)};
  }
  Scalar neg(const Scalar& a) const { return {base_.neg(a.value), base_.neg(a.tangent)}; }
  Scalar abs(const Scalar& a) const {
    const auto zero = base_.from_rational(0);
    if (base_.compare(CompareDirection::GT, a.value, zero) == Tri::True) return a;
    if (base_.compare(CompareDirection::LT, a.value, zero) == Tri::True) return neg(a);
    throw not_differentiable("abs", a);
  }
  Scalar max(const Scalar& a, const Scalar& b) const { return pick(CompareDirection::GT, "max", a, b); }
  Scalar min(const Scalar& a, const Scalar& b) const { return pick(CompareDirection::LT, "min", a, b); }
  Scalar exp(const Scalar& a) const {
    auto e = base_.exp(a.value);
    auto t = base_.mul(e, a.tangent);
    return {std::move(e), std::move(t)};
  }
  Scalar log(const Scalar& a) const { return {base_.log(a.value), base_.div(a.tangent, a.value)}; }
  Scalar sqrt(const Scalar& a) const {  // (sqrt a)' = a' / (2 sqrt a)
    auto r = base_.sqrt(a.value);
    auto t = base_.div(a.tangent, base_.add(r, r));
    return {std::move(r), std::move(t)};
  }
  Scalar rsqrt(const Scalar& a) const {  // (a^-1/2)' = -a' a^-1/2 / (2 a)
    auto r = base_.rsqrt(a.value);
    auto t = base_.neg(base_.div(base_.mul(a.tangent, r), base_.add(a.value, a.value)));
    return {std::move(r), std::move(t)};
  }
  Scalar tanh(const Scalar& a) const {  // (1 - tanh^2) a'
    auto th = base_.tanh(a.value);
    auto t = base_.mul(base_.sub(base_.from_rational(1), base_.mul(th, th)), a.tangent);
    return {std::move(th), std::move(t)};
  }
  Scalar logistic(const Scalar& a) const {  // s (1 - s) a'
    auto s = base_.logistic(a.value);
    auto t = base_.mul(base_.mul(s, base_.sub(base_.from_rational(1), s)), a.tangent);
    return {std::move(s), std::move(t)};
  }
  Scalar pi() const { return constant(base_.pi()); }
  Scalar map_monotone(const Scalar& a, const RationalMap&) const { throw not_differentiable("a rounding (convertF)", a); }
  Tri compare(CompareDirection d, const Scalar& a, const Scalar& b) const { return base_.compare(d, a.value, b.value); }
  Scalar select(bool p, const Scalar& a, const Scalar& b) const { return p ? a : b; }
  void mac(Scalar& acc, const Scalar& a, const Scalar& b) const { acc = add(acc, mul(a, b)); }

 private:
  Scalar constant(typename Base::Scalar v) const { return {std::move(v), base_.from_rational(0)}; }
  DomainError not_differentiable(const std::string& op, const Scalar& a) const {
    return DomainError(name() + ": " + op + " is not differentiable at " + base_.to_string(a.value));
  }
  // max (dir GT) or min (dir LT): the winner's tangent; at a tie only if both tangents agree.
  Scalar pick(CompareDirection dir, const char* op, const Scalar& a, const Scalar& b) const {
    const Tri first = base_.compare(dir, a.value, b.value);
    if (first == Tri::True) return a;
    const Tri second = base_.compare(dir, b.value, a.value);
    if (second == Tri::True) return b;
    if (first == Tri::False && second == Tri::False &&
        base_.compare(CompareDirection::EQ, a.tangent, b.tangent) == Tri::True)
      return a;
    if (first == Tri::Undecided || second == Tri::Undecided)
      throw DomainError(name() + ": " + op + " is undecided (the enclosures overlap)");
    throw not_differentiable(std::string(op) + " at a tie", a);
  }

  Base base_;
  std::shared_ptr<const Seeds> seeds_;
};

}  // namespace shlo
