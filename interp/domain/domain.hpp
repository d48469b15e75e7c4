// The arithmetic domains: what every kernel is written against, stated once as a concept.
//
// A domain is a small value type (it may carry a precision) with a scalar type and the
// operations below; every op kernel and every den formula is a template over it, written
// once. Each domain's header checks itself with static_assert(Domain<...>); what a domain
// means by each operation (exact, enclosing, rounded once) is documented in its own header.
//
// Errors are thrown as DomainError with a message that names the domain, the op and the
// operand; nothing aborts and nothing is guessed.
#pragma once

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>

#include "num/basics.hpp"
#include "num/rational.hpp"

namespace shlo {

/// A float value truncated toward zero (convert to an integer type): the integer, or which
/// special value it was. Domains that run the issue-15 ops provide `truncate(a)`.
struct Truncated {
  enum class Kind { Finite, PosInf, NegInf, NaN };
  Kind kind = Kind::Finite;
  Integer value;  // when Finite
};

// Beyond the concept, the domains that run the rounding, transcendental and integer-valued ops
// (exact, interval, mpfr, f32, f64; not bound) provide: floor ceil round_even round_away sign
// sin cos log1p expm1 (unary), pow rem (binary) and truncate. A kernel asks for them with a
// requires-expression and refuses the op, naming it, in a domain without them.

template <class D>
concept Domain = std::copy_constructible<D> &&
    requires(const D d, const typename D::Scalar a, const typename D::Scalar b, typename D::Scalar acc, const Rational q,
             std::string_view text, std::uint64_t bits, double x, const RationalMap f, CompareDirection dir, bool p) {
  typename D::Scalar;
  { d.name() } -> std::convertible_to<std::string>;  // "exact", "interval:256", "f32", ...
  // Values in: nearest / enclosing / exact, as the domain can.
  { d.from_rational(q) } -> std::same_as<typename D::Scalar>;
  { d.from_literal(text) } -> std::same_as<typename D::Scalar>;  // a decimal of the text, read exactly, rounded once
  { d.from_bits(bits, FloatFormat::Binary32) } -> std::same_as<typename D::Scalar>;  // a hex pattern (0xFF800000 = -inf)
  { d.from_double(x) } -> std::same_as<typename D::Scalar>;  // inputs read from .npy files
  { d.parse(text) } -> std::same_as<typename D::Scalar>;      // inverse of to_string (and any literal)
  // Values out.
  { d.to_string(a) } -> std::convertible_to<std::string>;  // round-trips through parse
  { d.to_double(a) } -> std::convertible_to<double>;       // nearest double (an interval: its midpoint)
  // Arithmetic.
  { d.add(a, b) } -> std::same_as<typename D::Scalar>;
  { d.sub(a, b) } -> std::same_as<typename D::Scalar>;
  { d.mul(a, b) } -> std::same_as<typename D::Scalar>;
  { d.div(a, b) } -> std::same_as<typename D::Scalar>;
  { d.max(a, b) } -> std::same_as<typename D::Scalar>;
  { d.min(a, b) } -> std::same_as<typename D::Scalar>;
  { d.neg(a) } -> std::same_as<typename D::Scalar>;
  { d.abs(a) } -> std::same_as<typename D::Scalar>;
  { d.exp(a) } -> std::same_as<typename D::Scalar>;
  { d.log(a) } -> std::same_as<typename D::Scalar>;
  { d.sqrt(a) } -> std::same_as<typename D::Scalar>;
  { d.rsqrt(a) } -> std::same_as<typename D::Scalar>;
  { d.tanh(a) } -> std::same_as<typename D::Scalar>;
  { d.logistic(a) } -> std::same_as<typename D::Scalar>;
  { d.pi() } -> std::same_as<typename D::Scalar>;                // den's GELU constant sqrt(2/pi)
  { d.map_monotone(a, f) } -> std::same_as<typename D::Scalar>;  // f non-decreasing on the rationals
                                                                  // (convertF's roundings), applied exactly
  // Decisions: three-valued, since an interval may not decide.
  { d.compare(dir, a, b) } -> std::same_as<Tri>;
  { d.select(p, a, b) } -> std::same_as<typename D::Scalar>;
  // acc = acc + a*b, the product rounded first (never fused), in place: the inner loop of
  // dot_general and convolution.
  d.mac(acc, a, b);
};

}  // namespace shlo
