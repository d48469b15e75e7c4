#include "interp/domain/exact.hpp"

#include <limits>

#include "interp/domain/rounding.hpp"

namespace shlo {

namespace {

using Kind = ExtRational::Kind;

[[noreturn]] void fail(const std::string& op, const std::string& why) {
  throw DomainError("exact: " + op + ": " + why);
}

std::string show(const ExtRational& a) { return ExactDomain().to_string(a); }

[[noreturn]] void irrational(const char* op, const ExtRational& a) {
  fail(std::string(op) + "(" + show(a) + ")",
       "the result is irrational; use an interval or mpfr domain for it");
}

ExtRational infinity(int sign) { return sign > 0 ? ExtRational::pos_inf() : ExtRational::neg_inf(); }

// Exact square root of a non-negative rational, if it is rational.
bool exact_sqrt(const Rational& q, Rational& out) {
  const mpz_srcptr num = mpq_numref(q.backend().data());
  const mpz_srcptr den = mpq_denref(q.backend().data());
  if (!mpz_perfect_square_p(num) || !mpz_perfect_square_p(den)) return false;
  Integer n, d;
  mpz_sqrt(n.backend().data(), num);
  mpz_sqrt(d.backend().data(), den);
  out = Rational(n, d);
  return true;
}

}  // namespace

int ExtRational::sign() const {
  switch (kind) {
    case Kind::PosInf: return 1;
    case Kind::NegInf: return -1;
    case Kind::Finite: return q.sign();
  }
  return 0;
}

ExtRational ExactDomain::from_literal(std::string_view text) const {
  Literal lit = parse_literal(text);
  switch (lit.kind) {
    case Literal::Kind::Finite: return lit.value;
    case Literal::Kind::PosInf: return ExtRational::pos_inf();
    case Literal::Kind::NegInf: return ExtRational::neg_inf();
    case Literal::Kind::NaN: break;
  }
  fail("literal '" + std::string(text) + "'", "NaN is not a real number");
}

ExtRational ExactDomain::from_bits(std::uint64_t bits, FloatFormat format) const {
  Literal lit = literal_from_bits(bits, format);
  switch (lit.kind) {
    case Literal::Kind::Finite: return lit.value;
    case Literal::Kind::PosInf: return ExtRational::pos_inf();
    case Literal::Kind::NegInf: return ExtRational::neg_inf();
    case Literal::Kind::NaN: break;
  }
  fail("hex literal", "the bit pattern is a NaN, which is not a real number");
}

ExtRational ExactDomain::from_double(double x) const {
  if (x != x) fail("input", "NaN is not a real number");
  if (x - x != 0) return x > 0 ? ExtRational::pos_inf() : ExtRational::neg_inf();
  return rational_from_double(x);
}

std::string ExactDomain::to_string(const ExtRational& a) const {
  switch (a.kind) {
    case Kind::PosInf: return "inf";
    case Kind::NegInf: return "-inf";
    case Kind::Finite: break;
  }
  return rational_to_string(a.q);
}

double ExactDomain::to_double(const ExtRational& a) const {
  if (!a.finite()) return a.sign() * std::numeric_limits<double>::infinity();
  return round_rational<double>(a.q);
}

ExtRational ExactDomain::add(const ExtRational& a, const ExtRational& b) const {
  if (a.finite() && b.finite()) return Rational(a.q + b.q);
  if (!a.finite() && !b.finite() && a.kind != b.kind)
    fail(show(a) + " + " + show(b), "undefined (inf - inf)");
  return a.finite() ? b : a;
}

ExtRational ExactDomain::sub(const ExtRational& a, const ExtRational& b) const {
  if (a.finite() && b.finite()) return Rational(a.q - b.q);
  if (!a.finite() && !b.finite() && a.kind == b.kind)
    fail(show(a) + " - " + show(b), "undefined (inf - inf)");
  return a.finite() ? neg(b) : a;
}

ExtRational ExactDomain::mul(const ExtRational& a, const ExtRational& b) const {
  if (a.finite() && b.finite()) return Rational(a.q * b.q);
  const int s = a.sign() * b.sign();
  if (s == 0) fail(show(a) + " * " + show(b), "undefined (0 * inf)");
  return infinity(s);
}

ExtRational ExactDomain::div(const ExtRational& a, const ExtRational& b) const {
  if (b.sign() == 0) fail(show(a) + " / " + show(b), "division by zero");
  if (a.finite() && b.finite()) return Rational(a.q / b.q);
  if (!a.finite() && !b.finite()) fail(show(a) + " / " + show(b), "undefined (inf / inf)");
  if (a.finite()) return Rational(0);  // finite / inf
  return infinity(a.sign() * b.sign());
}

void ExactDomain::mac(ExtRational& acc, const ExtRational& a, const ExtRational& b) const {
  if (!(acc.finite() && a.finite() && b.finite())) {
    acc = add(acc, mul(a, b));
    return;
  }
  thread_local Rational product;
  mpq_mul(product.backend().data(), a.q.backend().data(), b.q.backend().data());
  mpq_add(acc.q.backend().data(), acc.q.backend().data(), product.backend().data());
}

ExtRational ExactDomain::neg(const ExtRational& a) const {
  if (a.finite()) return Rational(-a.q);
  return infinity(-a.sign());
}

ExtRational ExactDomain::abs(const ExtRational& a) const { return a.sign() < 0 ? neg(a) : a; }

int ExactDomain::cmp(const ExtRational& a, const ExtRational& b) {
  if (a.finite() && b.finite()) return a.q.compare(b.q) < 0 ? -1 : (a.q == b.q ? 0 : 1);
  auto rank = [](const ExtRational& x) { return x.finite() ? 0 : x.sign(); };
  int ra = rank(a), rb = rank(b);
  return ra < rb ? -1 : (ra > rb ? 1 : 0);
}

ExtRational ExactDomain::max(const ExtRational& a, const ExtRational& b) const {
  return cmp(a, b) >= 0 ? a : b;
}

ExtRational ExactDomain::min(const ExtRational& a, const ExtRational& b) const {
  return cmp(a, b) <= 0 ? a : b;
}

ExtRational ExactDomain::exp(const ExtRational& a) const {
  if (a.kind == Kind::NegInf) return Rational(0);
  if (a.kind == Kind::PosInf) return a;
  if (a.sign() == 0) return Rational(1);
  irrational("exp", a);
}

ExtRational ExactDomain::log(const ExtRational& a) const {
  if (a.sign() < 0) fail("log(" + show(a) + ")", "logarithm of a negative number");
  if (a.sign() == 0) fail("log(0)", "logarithm of zero (a pole)");
  if (a.kind == Kind::PosInf) return a;
  if (a.q == 1) return Rational(0);
  irrational("log", a);
}

ExtRational ExactDomain::sqrt(const ExtRational& a) const {
  if (a.sign() < 0) fail("sqrt(" + show(a) + ")", "square root of a negative number");
  if (!a.finite()) return a;
  Rational r;
  if (!exact_sqrt(a.q, r)) irrational("sqrt", a);
  return r;
}

ExtRational ExactDomain::rsqrt(const ExtRational& a) const {
  if (a.sign() < 0) fail("rsqrt(" + show(a) + ")", "square root of a negative number");
  if (a.sign() == 0) fail("rsqrt(0)", "division by zero");
  if (!a.finite()) return Rational(0);
  Rational r;
  if (!exact_sqrt(a.q, r)) irrational("rsqrt", a);
  return Rational(1 / r);
}

ExtRational ExactDomain::tanh(const ExtRational& a) const {
  if (!a.finite()) return Rational(a.sign());
  if (a.sign() == 0) return a;
  irrational("tanh", a);
}

ExtRational ExactDomain::logistic(const ExtRational& a) const {
  if (a.kind == Kind::PosInf) return Rational(1);
  if (a.kind == Kind::NegInf) return Rational(0);
  if (a.sign() == 0) return Rational(1, 2);
  irrational("logistic", a);
}

ExtRational ExactDomain::pi() const { fail("pi", "the constant is irrational; use an interval or mpfr domain"); }

Tri ExactDomain::compare(CompareDirection d, const ExtRational& a, const ExtRational& b) const {
  const int c = cmp(a, b);
  switch (d) {
    case CompareDirection::EQ: return tri(c == 0);
    case CompareDirection::NE: return tri(c != 0);
    case CompareDirection::LT: return tri(c < 0);
    case CompareDirection::LE: return tri(c <= 0);
    case CompareDirection::GT: return tri(c > 0);
    case CompareDirection::GE: return tri(c >= 0);
  }
  return Tri::Undecided;
}

// ---- the issue-15 ops ----

namespace {

// The exact n-th root (n > 0) of a non-negative rational, if it is rational.
bool exact_root(const Rational& q, unsigned long n, Rational& out) {
  Integer num, den;
  if (!mpz_root(num.backend().data(), mpq_numref(q.backend().data()), n)) return false;
  if (!mpz_root(den.backend().data(), mpq_denref(q.backend().data()), n)) return false;
  out = Rational(num, den);
  return true;
}

// q^n for an integer n (q != 0 when n < 0).
Rational integer_power(const Rational& q, const Integer& n) {
  if (abs(n) > Integer(1) << 20) throw DomainError("exact: pow: the exponent " + n.str() + " is too large to expand exactly");
  const auto e = static_cast<unsigned long>(abs(n));
  Integer num, den;
  mpz_pow_ui(num.backend().data(), mpq_numref(q.backend().data()), e);
  mpz_pow_ui(den.backend().data(), mpq_denref(q.backend().data()), e);
  return n < 0 ? Rational(den, num) : Rational(num, den);
}

}  // namespace

ExtRational ExactDomain::floor(const ExtRational& a) const { return a.finite() ? ExtRational(Rational(floor_integer(a.q))) : a; }
ExtRational ExactDomain::ceil(const ExtRational& a) const { return a.finite() ? ExtRational(Rational(ceil_integer(a.q))) : a; }
ExtRational ExactDomain::round_even(const ExtRational& a) const { return a.finite() ? ExtRational(Rational(round_half_even(a.q))) : a; }
ExtRational ExactDomain::round_away(const ExtRational& a) const { return a.finite() ? ExtRational(Rational(round_half_away(a.q))) : a; }

ExtRational ExactDomain::sin(const ExtRational& a) const {
  if (!a.finite()) fail("sin(" + show(a) + ")", "the sine of an infinity is NaN");
  if (a.sign() == 0) return Rational(0);
  irrational("sin", a);
}

ExtRational ExactDomain::cos(const ExtRational& a) const {
  if (!a.finite()) fail("cos(" + show(a) + ")", "the cosine of an infinity is NaN");
  if (a.sign() == 0) return Rational(1);
  irrational("cos", a);
}

ExtRational ExactDomain::log1p(const ExtRational& a) const {
  if (a.kind == Kind::PosInf) return a;
  if (a.kind == Kind::NegInf || a.q < -1) fail("log1p(" + show(a) + ")", "logarithm of a negative number");
  if (a.q == -1) fail("log1p(-1)", "logarithm of zero (a pole)");
  if (a.sign() == 0) return Rational(0);
  irrational("log1p", a);
}

ExtRational ExactDomain::expm1(const ExtRational& a) const {
  if (a.kind == Kind::NegInf) return Rational(-1);
  if (a.kind == Kind::PosInf) return a;
  if (a.sign() == 0) return Rational(0);
  irrational("expm1", a);
}

// a^b: an integer exponent expands exactly (0^0 = 1, as IEEE pow); a rational exponent m/n
// needs the n-th root of a non-negative base to be rational.
ExtRational ExactDomain::pow(const ExtRational& a, const ExtRational& b) const {
  const std::string expr = "pow(" + show(a) + ", " + show(b) + ")";
  if (!a.finite() || !b.finite()) fail(expr, "infinite operands are not supported exactly");
  if (b.q.sign() == 0) return Rational(1);
  if (a.q.sign() == 0) {
    if (b.q < 0) fail(expr, "zero to a negative power (a pole)");
    return Rational(0);
  }
  if (denominator(b.q) == 1) return integer_power(a.q, numerator(b.q));
  if (a.q < 0) fail(expr, "a negative base to a non-integer power is NaN");
  const Integer n = denominator(b.q);
  Rational root;
  if (n > Integer(1) << 20 || !exact_root(a.q, static_cast<unsigned long>(n), root)) irrational("pow", a);
  return integer_power(root, numerator(b.q));
}

// a - trunc(a / b) * b (fmod): the dividend's sign, |result| < |b|.
ExtRational ExactDomain::rem(const ExtRational& a, const ExtRational& b) const {
  const std::string expr = "rem(" + show(a) + ", " + show(b) + ")";
  if (!a.finite()) fail(expr, "the remainder of an infinity is NaN");
  if (b.sign() == 0) fail(expr, "the remainder by zero is NaN");
  if (!b.finite()) return a;
  return Rational(a.q - Rational(trunc_integer(a.q / b.q)) * b.q);
}

Truncated ExactDomain::truncate(const ExtRational& a) const {
  if (a.kind == Kind::PosInf) return {Truncated::Kind::PosInf, {}};
  if (a.kind == Kind::NegInf) return {Truncated::Kind::NegInf, {}};
  return {Truncated::Kind::Finite, trunc_integer(a.q)};
}

}  // namespace shlo
