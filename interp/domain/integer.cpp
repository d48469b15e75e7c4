#include "interp/domain/integer.hpp"

namespace shlo {

IntegerDomain::Scalar IntegerDomain::from_rational(const Rational& q) const {
  if (denominator(q) != 1) throw DomainError(name() + ": " + q.str() + " is not an integer");
  Integer n = numerator(q) % (Integer(1) << 64);
  if (n < 0) n += Integer(1) << 64;
  return wrap(static_cast<std::uint64_t>(n));
}

// Truncating division; the undefined cases as the reference interpreter (header).
IntegerDomain::Scalar IntegerDomain::div(Scalar a, Scalar b) const {
  if (b == 0) return 0;
  if (!signed_) return a / b;
  if (a == min_value() && b == wrap(~std::uint64_t{0})) return 0;
  const auto x = static_cast<std::int64_t>(a), y = static_cast<std::int64_t>(b);
  return wrap(static_cast<std::uint64_t>(x / y));
}

// lhs - (lhs / rhs) * rhs: the sign of the dividend (C++'s % on the truncated quotient).
IntegerDomain::Scalar IntegerDomain::rem(Scalar a, Scalar b) const {
  if (b == 0) return 0;
  if (!signed_) return a % b;
  if (a == min_value() && b == wrap(~std::uint64_t{0})) return 0;
  const auto x = static_cast<std::int64_t>(a), y = static_cast<std::int64_t>(b);
  return wrap(static_cast<std::uint64_t>(x % y));
}

// Exponentiation by squaring, wrapping; negative exponents as the header says.
IntegerDomain::Scalar IntegerDomain::pow(Scalar base, Scalar exponent) const {
  if (is_negative(exponent)) {
    if (base == 1) return 1;
    if (base == wrap(~std::uint64_t{0})) return (exponent & 1) ? base : 1;
    return 0;
  }
  Scalar result = 1;
  for (std::uint64_t e = exponent; e != 0; e >>= 1) {
    if (e & 1) result = mul(result, base);
    base = mul(base, base);
  }
  return result;
}

Tri IntegerDomain::compare(CompareDirection d, Scalar a, Scalar b) const {
  if (signed_) return compare_ordered(d, static_cast<std::int64_t>(a), static_cast<std::int64_t>(b));
  return compare_ordered(d, a, b);
}

BoolDomain::Scalar BoolDomain::from_literal(std::string_view text) const {
  if (text == "true" || text == "1") return 1;
  if (text == "false" || text == "0") return 0;
  throw DomainError("an i1 literal must be true or false, found '" + std::string(text) + "'");
}

Tri BoolDomain::compare(CompareDirection d, Scalar a, Scalar b) const { return compare_ordered(d, a & 1, b & 1); }

}  // namespace shlo
