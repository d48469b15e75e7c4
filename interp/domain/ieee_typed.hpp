// The element-typed IEEE domain `ieee` (docs/mlir-ops-plan.md §1.3): every float tensor is
// computed in the arithmetic of its own element type, as StableHLO's reference interpreter
// computes it: f64 in double, f32 in float, f16, bf16 and f8E4M3FN rounded to their format
// after every operation. (The `f32` and `f64` domains compute every float type in one
// arithmetic.)
//
// One kernel set serves every type: the f64 domain's operations, each result rounded once to
// the element type (ElementTypedIeee below). That is exactly the type's own arithmetic:
//   + - * / sqrt  the double result rounded again to a format of p <= 24 significand bits is
//                 the correctly rounded result in that format, because double's 53 bits are at
//                 least 2p + 2 (the classical condition under which double rounding is
//                 innocuous; Figueroa, "When is double rounding innocuous?", 1995). So f32
//                 values come out bit for bit as the f32 domain's float arithmetic gives them,
//                 and f16/bf16 values as correctly rounded f16/bf16 operations.
//   mac           acc + a*b with both roundings to the type (no fused multiply-add).
//   exp log tanh logistic rsqrt sin cos log1p expm1 pow
//                 computed in double with the host libm and rounded once to the type, as the
//                 reference interpreter does (`mapWithUpcastToDouble` in its Element.cpp).
//   max min neg abs compare select floor ceil round sign rem truncate
//                 exact on values of the type, so no rounding is needed.
// Literals and integers are read exactly and rounded once to the type (never through double).
// Overflow gives +-inf (f8E4M3FN, which has none: NaN), as IEEE and XLA do.
#pragma once

#include <cmath>
#include <string>
#include <string_view>

#include "ast/program.hpp"
#include "interp/domain/ieee.hpp"

namespace shlo {

/// x rounded to nearest, ties to even, into element type t (a float type); exact for f64.
double round_to_element_type(double x, ElementType t);

/// The f64 domain's operations on values of one float element type, each result rounded to it.
class ElementTypedIeee : public F64Domain {
 public:
  explicit ElementTypedIeee(ElementType element) : element_(element) {}
  ElementType element() const { return element_; }
  double round(double x) const { return round_to_element_type(x, element_); }

  Scalar from_rational(const Rational& q) const;
  Scalar from_literal(std::string_view text) const;
  Scalar from_bits(std::uint64_t bits, FloatFormat format) const { return round(F64Domain::from_bits(bits, format)); }
  Scalar from_double(double x) const { return round(x); }
  Scalar parse(std::string_view text) const { return from_literal(text); }
  std::string name() const { return "ieee"; }
  Scalar pi() const { return round(F64Domain::pi()); }
  Scalar map_monotone(Scalar a, const RationalMap& f) const {
    return std::isfinite(a) ? from_rational(f(rational_from_double(a))) : a;  // one rounding of f's exact value
  }

#define SHLO_ROUNDED_UNARY(op) \
  Scalar op(Scalar a) const { return round(F64Domain::op(a)); }
#define SHLO_ROUNDED_BINARY(op) \
  Scalar op(Scalar a, Scalar b) const { return round(F64Domain::op(a, b)); }
  SHLO_ROUNDED_BINARY(add)
  SHLO_ROUNDED_BINARY(sub)
  SHLO_ROUNDED_BINARY(mul)
  SHLO_ROUNDED_BINARY(div)
  SHLO_ROUNDED_BINARY(pow)
  SHLO_ROUNDED_UNARY(exp)
  SHLO_ROUNDED_UNARY(log)
  SHLO_ROUNDED_UNARY(sqrt)
  SHLO_ROUNDED_UNARY(rsqrt)
  SHLO_ROUNDED_UNARY(tanh)
  SHLO_ROUNDED_UNARY(logistic)
  SHLO_ROUNDED_UNARY(sin)
  SHLO_ROUNDED_UNARY(cos)
  SHLO_ROUNDED_UNARY(log1p)
  SHLO_ROUNDED_UNARY(expm1)
#undef SHLO_ROUNDED_UNARY
#undef SHLO_ROUNDED_BINARY
  void mac(Scalar& acc, Scalar a, Scalar b) const { acc = add(acc, mul(a, b)); }

 private:
  ElementType element_;
};
static_assert(Domain<ElementTypedIeee>);

/// Calls f with the arithmetic of float element type `element` in domain d: d itself, or in
/// the `ieee` domain the element-typed one. f must return one type for both.
template <class D, class F>
decltype(auto) with_float_arithmetic(const D& d, ElementType element, F&& f) {
  if constexpr (std::is_same_v<D, F64Domain>)  // f64 is the domain's own arithmetic (and its fast kernels)
    if (d.element_typed() && element != ElementType::F64) return f(ElementTypedIeee(element));
  return f(d);
}

}  // namespace shlo
