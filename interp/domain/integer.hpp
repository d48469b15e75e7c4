// The integer and boolean "domains": machine integers of one element type (i8 ... i64,
// ui8 ... ui64) and booleans (i1). They are not arithmetic domains of the oracle (no
// rounding, no enclosures): integer semantics are exact in every domain, so every domain's
// run computes integer and boolean tensors through these two, and the generic kernels
// (elementwise maps, reduce, reduce_window, dot_general, convolution, movement) serve them
// unchanged.
//
// Integers (spec "Types" and the ops' sections; the reference interpreter computes with LLVM
// APInt of the element width): an element is its bit pattern in 64 bits, sign-extended for
// signed types, zero-extended for unsigned ones (num/integer_literal.hpp). add, subtract,
// multiply, negate, abs, power and mac wrap modulo 2^N. The cases the spec leaves
// implementation-defined follow the reference interpreter (its tests divide.mlir and
// remainder.mlir): x / 0 = 0, x % 0 = 0, INT_MIN / -1 = 0, INT_MIN % -1 = 0; power with a
// negative exponent is (+-1)^|n| for x = +-1 and 0 otherwise, 0^0 = 1.
//
// Booleans: add and maximum are OR, multiply and minimum are AND (spec add, multiply,
// maximum, minimum); the order is false < true (compare).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "ast/program.hpp"
#include "interp/domain/domain.hpp"
#include "num/integer_literal.hpp"

namespace shlo {

class IntegerDomain {
 public:
  using Scalar = std::uint64_t;
  explicit IntegerDomain(ElementType type) : type_(type), width_(bit_width(type)), signed_(is_signed_integer(type)) {}
  ElementType type() const { return type_; }
  std::string name() const { return shlo::to_string(type_); }

  Scalar wrap(std::uint64_t x) const { return wrap_to_width(x, width_, signed_); }
  /// q must be an integer; it is reduced modulo 2^N (iota into a narrow type wraps).
  Scalar from_rational(const Rational& q) const;
  Scalar from_literal(std::string_view text) const { return parse_integer_literal(text, width_, signed_); }
  Scalar parse(std::string_view text) const { return from_literal(text); }
  std::string to_string(Scalar a) const { return integer_to_string(a, signed_); }
  double to_double(Scalar a) const { return signed_ ? static_cast<double>(static_cast<std::int64_t>(a)) : static_cast<double>(a); }
  bool is_signed() const { return signed_; }
  bool is_negative(Scalar a) const { return signed_ && static_cast<std::int64_t>(a) < 0; }
  /// The least value of the type (INT_MIN; 0 for unsigned).
  Scalar min_value() const { return signed_ ? wrap(std::uint64_t{1} << (width_ - 1)) : 0; }
  Scalar max_value() const { return signed_ ? (std::uint64_t{1} << (width_ - 1)) - 1 : wrap(~std::uint64_t{0}); }

  Scalar add(Scalar a, Scalar b) const { return wrap(a + b); }
  Scalar sub(Scalar a, Scalar b) const { return wrap(a - b); }
  Scalar mul(Scalar a, Scalar b) const { return wrap(a * b); }
  Scalar div(Scalar a, Scalar b) const;
  Scalar rem(Scalar a, Scalar b) const;
  Scalar pow(Scalar a, Scalar b) const;
  Scalar max(Scalar a, Scalar b) const { return less(a, b) ? b : a; }
  Scalar min(Scalar a, Scalar b) const { return less(b, a) ? b : a; }
  Scalar neg(Scalar a) const { return wrap(~a + 1); }
  Scalar abs(Scalar a) const { return is_negative(a) ? neg(a) : a; }
  Scalar sign(Scalar a) const { return a == 0 ? 0 : is_negative(a) ? wrap(~std::uint64_t{0}) : 1; }
  Scalar bit_and(Scalar a, Scalar b) const { return a & b; }
  Scalar bit_or(Scalar a, Scalar b) const { return a | b; }
  Scalar bit_xor(Scalar a, Scalar b) const { return a ^ b; }
  Scalar bit_not(Scalar a) const { return wrap(~a); }
  // Shifts (spec shift_left, shift_right_arithmetic, shift_right_logical) as the reference
  // interpreter computes them with APInt: the amount is read as an unsigned number of the
  // width, so an amount at or above the width (a negative one too) shifts every bit out: 0,
  // or for the arithmetic right shift the sign bit repeated (-1 or 0). The arithmetic shift
  // takes the top bit of the width as the sign for unsigned types too (APInt::ashr).
  Scalar shift_left(Scalar a, Scalar amount) const {
    const std::uint64_t n = low_bits(amount);
    return n >= static_cast<std::uint64_t>(width_) ? 0 : wrap(a << n);
  }
  Scalar shift_right_logical(Scalar a, Scalar amount) const {
    const std::uint64_t n = low_bits(amount);
    return n >= static_cast<std::uint64_t>(width_) ? 0 : wrap(low_bits(a) >> n);
  }
  Scalar shift_right_arithmetic(Scalar a, Scalar amount) const {
    const std::uint64_t n = std::min<std::uint64_t>(low_bits(amount), static_cast<std::uint64_t>(width_ - 1));
    const int unused = 64 - width_;
    const auto sign_extended = static_cast<std::int64_t>(a << unused) >> unused;
    return wrap(static_cast<std::uint64_t>(sign_extended >> n));
  }
  Tri compare(CompareDirection d, Scalar a, Scalar b) const;
  Scalar select(bool p, Scalar a, Scalar b) const { return p ? a : b; }
  void mac(Scalar& acc, Scalar a, Scalar b) const { acc = wrap(acc + a * b); }
  bool less(Scalar a, Scalar b) const {
    return signed_ ? static_cast<std::int64_t>(a) < static_cast<std::int64_t>(b) : a < b;
  }

 private:
  std::uint64_t low_bits(Scalar a) const { return width_ == 64 ? a : a & ((std::uint64_t{1} << width_) - 1); }
  ElementType type_;
  int width_;
  bool signed_;
};

class BoolDomain {
 public:
  using Scalar = std::uint8_t;  // Pred: 0 or 1
  std::string name() const { return "i1"; }
  Scalar from_rational(const Rational& q) const { return q != 0 ? 1 : 0; }
  Scalar from_literal(std::string_view text) const;
  std::string to_string(Scalar a) const { return a ? "true" : "false"; }
  double to_double(Scalar a) const { return a; }
  Scalar add(Scalar a, Scalar b) const { return a | b; }
  Scalar mul(Scalar a, Scalar b) const { return a & b; }
  Scalar max(Scalar a, Scalar b) const { return a | b; }
  Scalar min(Scalar a, Scalar b) const { return a & b; }
  Scalar bit_and(Scalar a, Scalar b) const { return a & b; }
  Scalar bit_or(Scalar a, Scalar b) const { return a | b; }
  Scalar bit_xor(Scalar a, Scalar b) const { return a ^ b; }
  Scalar bit_not(Scalar a) const { return a ^ 1; }
  Tri compare(CompareDirection d, Scalar a, Scalar b) const;
  Scalar select(bool p, Scalar a, Scalar b) const { return p ? a : b; }
  void mac(Scalar& acc, Scalar a, Scalar b) const { acc = acc | (a & b); }
};

}  // namespace shlo
