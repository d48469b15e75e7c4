#include "interp/domain/interval.hpp"

#include "interp/domain/rounding.hpp"

#include <limits>

namespace shlo {

namespace {

[[noreturn]] void fail(const IntervalDomain& d, const std::string& what) {
  throw DomainError(d.name() + ": " + what);
}

}  // namespace

IntervalDomain::IntervalDomain(mpfr_prec_t precision) : precision_(precision) {
  if (precision < 2 || precision > 1 << 20)
    throw DomainError("interval: precision " + std::to_string(precision) +
                      " bits is out of range (2 to 1048576)");
}

void IntervalDomain::check(const Scalar& r, const char* op, const Scalar& a) const {
  if (mpfi_nan_p(r.get()))
    fail(*this, std::string(op) + "(" + to_string(a) + ") is undefined somewhere in the enclosure");
}

BigInterval IntervalDomain::from_rational(const Rational& q) const {
  Scalar r = make();
  mpfi_set_q(r.get(), q.backend().data());  // the smallest enclosure at this precision
  return r;
}

BigInterval IntervalDomain::from_literal(std::string_view text) const {
  Literal lit = parse_literal(text);
  Scalar r = make();
  switch (lit.kind) {
    case Literal::Kind::Finite: return from_rational(lit.value);
    case Literal::Kind::PosInf: mpfi_set_d(r.get(), std::numeric_limits<double>::infinity()); return r;
    case Literal::Kind::NegInf: mpfi_set_d(r.get(), -std::numeric_limits<double>::infinity()); return r;
    case Literal::Kind::NaN: break;
  }
  fail(*this, "literal '" + std::string(text) + "': NaN is not a real number");
}

BigInterval IntervalDomain::from_bits(std::uint64_t bits, FloatFormat format) const {
  Literal lit = literal_from_bits(bits, format);
  if (lit.kind == Literal::Kind::NaN) fail(*this, "hex literal: the bit pattern is a NaN");
  Scalar r = make();
  if (lit.kind == Literal::Kind::Finite) return from_rational(lit.value);
  mpfi_set_d(r.get(), (lit.kind == Literal::Kind::PosInf ? 1 : -1) *
                          std::numeric_limits<double>::infinity());
  return r;
}

BigInterval IntervalDomain::from_double(double x) const {
  if (x != x) fail(*this, "input: NaN is not a real number");
  Scalar r = make();
  mpfi_set_d(r.get(), x);  // exact, or the smallest enclosure when P < 53
  return r;
}

BigInterval IntervalDomain::parse(std::string_view text) const {
  if (text.empty() || text.front() != '[') return from_literal(text);
  const auto comma = text.find(',');
  if (text.back() != ']' || comma == std::string_view::npos)
    fail(*this, "expected an interval '[lo, hi]', found '" + std::string(text) + "'");
  auto trim = [](std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return std::string(s);
  };
  BigFloat lo = BigFloat::parse(trim(text.substr(1, comma - 1)), precision_, MPFR_RNDD);
  BigFloat hi = BigFloat::parse(trim(text.substr(comma + 1, text.size() - comma - 2)), precision_, MPFR_RNDU);
  if (mpfr_nan_p(lo.get()) || mpfr_nan_p(hi.get()) || mpfr_greater_p(lo.get(), hi.get()))
    fail(*this, "'" + std::string(text) + "' is not an interval (lo > hi or NaN)");
  return Scalar::from_endpoints(lo.get(), hi.get(), precision_);
}

std::string IntervalDomain::to_string(const BigInterval& a) const {
  // MPFI keeps 0 as [+0, -0]; the sign of a zero endpoint means nothing in an interval.
  // Each endpoint prints as the nearest decimal on the inner side, which parse() (reading
  // outward) maps back to exactly that endpoint.
  auto endpoint = [](const BigFloat& x, mpfr_rnd_t inward) {
    return mpfr_zero_p(x.get()) ? std::string("0.0") : x.to_string(inward);
  };
  return "[" + endpoint(a.lower(), MPFR_RNDU) + ", " + endpoint(a.upper(), MPFR_RNDD) + "]";
}

double IntervalDomain::to_double(const BigInterval& a) const {
  if (mpfr_equal_p(a.lo(), a.hi())) return mpfr_get_d(a.lo(), MPFR_RNDN);
  BigFloat mid(precision_ + 1);
  mpfi_mid(mid.get(), a.get());
  return mpfr_get_d(mid.get(), MPFR_RNDN);
}

BigInterval IntervalDomain::add(const BigInterval& a, const BigInterval& b) const {
  Scalar r = make();
  mpfi_add(r.get(), a.get(), b.get());
  if (mpfi_nan_p(r.get())) fail(*this, to_string(a) + " + " + to_string(b) + " is undefined (inf - inf)");
  return r;
}

BigInterval IntervalDomain::sub(const BigInterval& a, const BigInterval& b) const {
  Scalar r = make();
  mpfi_sub(r.get(), a.get(), b.get());
  if (mpfi_nan_p(r.get())) fail(*this, to_string(a) + " - " + to_string(b) + " is undefined (inf - inf)");
  return r;
}

BigInterval IntervalDomain::mul(const BigInterval& a, const BigInterval& b) const {
  Scalar r = make();
  mpfi_mul(r.get(), a.get(), b.get());
  if (mpfi_nan_p(r.get())) fail(*this, to_string(a) + " * " + to_string(b) + " is undefined (0 * inf)");
  return r;
}

BigInterval IntervalDomain::div(const BigInterval& a, const BigInterval& b) const {
  if (mpfi_has_zero(b.get())) {
    if (mpfr_zero_p(b.lo()) && mpfr_zero_p(b.hi()))
      fail(*this, to_string(a) + " / " + to_string(b) + ": division by zero");
    fail(*this, to_string(a) + " / " + to_string(b) +
                    ": the divisor's enclosure contains 0 (a zero divisor is not excluded at this precision)");
  }
  Scalar r = make();
  mpfi_div(r.get(), a.get(), b.get());
  if (mpfi_nan_p(r.get())) fail(*this, to_string(a) + " / " + to_string(b) + " is undefined (inf / inf)");
  return r;
}

void IntervalDomain::mac(BigInterval& acc, const BigInterval& a, const BigInterval& b) const {
  thread_local BigInterval product(2);
  if (product.precision() != precision_) product = make();
  mpfi_mul(product.get(), a.get(), b.get());
  mpfi_add(acc.get(), acc.get(), product.get());
  if (mpfi_nan_p(acc.get()))
    fail(*this, "multiply-accumulate of " + to_string(a) + " * " + to_string(b) + " is undefined (0 * inf or inf - inf)");
}

BigInterval IntervalDomain::neg(const BigInterval& a) const {
  Scalar r = make();
  mpfi_neg(r.get(), a.get());
  return r;
}

BigInterval IntervalDomain::abs(const BigInterval& a) const {
  Scalar r = make();
  mpfi_abs(r.get(), a.get());
  return r;
}

// max and min are monotone in each argument, so endpoint-wise is the exact image.
BigInterval IntervalDomain::max(const BigInterval& a, const BigInterval& b) const {
  BigFloat lo(precision_), hi(precision_);
  mpfr_max(lo.get(), a.lo(), b.lo(), MPFR_RNDD);
  mpfr_max(hi.get(), a.hi(), b.hi(), MPFR_RNDU);
  return Scalar::from_endpoints(lo.get(), hi.get(), precision_);
}

BigInterval IntervalDomain::min(const BigInterval& a, const BigInterval& b) const {
  BigFloat lo(precision_), hi(precision_);
  mpfr_min(lo.get(), a.lo(), b.lo(), MPFR_RNDD);
  mpfr_min(hi.get(), a.hi(), b.hi(), MPFR_RNDU);
  return Scalar::from_endpoints(lo.get(), hi.get(), precision_);
}

BigInterval IntervalDomain::exp(const BigInterval& a) const {
  Scalar r = make();
  mpfi_exp(r.get(), a.get());
  return r;
}

BigInterval IntervalDomain::log(const BigInterval& a) const {
  if (mpfr_sgn(a.hi()) <= 0) fail(*this, "log(" + to_string(a) + "): logarithm of a number <= 0");
  if (mpfr_sgn(a.lo()) <= 0)
    fail(*this, "log(" + to_string(a) + "): the enclosure reaches 0 (undecided at this precision)");
  Scalar r = make();
  mpfi_log(r.get(), a.get());
  return r;
}

BigInterval IntervalDomain::sqrt(const BigInterval& a) const {
  if (mpfr_sgn(a.hi()) < 0) fail(*this, "sqrt(" + to_string(a) + "): square root of a negative number");
  if (mpfr_sgn(a.lo()) < 0)
    fail(*this, "sqrt(" + to_string(a) + "): the enclosure reaches below 0 (undecided at this precision)");
  Scalar r = make();
  mpfi_sqrt(r.get(), a.get());
  return r;
}

BigInterval IntervalDomain::rsqrt(const BigInterval& a) const {
  if (mpfr_sgn(a.hi()) <= 0) fail(*this, "rsqrt(" + to_string(a) + "): argument <= 0");
  if (mpfr_sgn(a.lo()) <= 0)
    fail(*this, "rsqrt(" + to_string(a) + "): the enclosure reaches 0 (undecided at this precision)");
  Scalar s = make(), r = make();
  mpfi_sqrt(s.get(), a.get());
  mpfi_inv(r.get(), s.get());
  return r;
}

BigInterval IntervalDomain::tanh(const BigInterval& a) const {
  Scalar r = make();
  mpfi_tanh(r.get(), a.get());
  check(r, "tanh", a);
  return r;
}

// logistic(x) = 1 / (1 + exp(-x)): x occurs once and every step is monotone, so the
// composition of outward-rounded steps encloses the exact image.
BigInterval IntervalDomain::logistic(const BigInterval& a) const {
  Scalar t = make();
  mpfi_neg(t.get(), a.get());
  mpfi_exp(t.get(), t.get());
  mpfi_add_ui(t.get(), t.get(), 1);
  Scalar r = make();
  mpfi_inv(r.get(), t.get());
  check(r, "logistic", a);
  return r;
}

Tri IntervalDomain::compare(CompareDirection d, const BigInterval& a, const BigInterval& b) const {
  // lt: every point of a is below every point of b; ge: the opposite, certainly.
  auto certainly_lt = [](const BigInterval& x, const BigInterval& y) { return mpfr_less_p(x.hi(), y.lo()) != 0; };
  auto certainly_le = [](const BigInterval& x, const BigInterval& y) { return mpfr_lessequal_p(x.hi(), y.lo()) != 0; };
  auto decide = [](bool yes, bool no) { return yes ? Tri::True : (no ? Tri::False : Tri::Undecided); };
  const bool both_points_equal = mpfr_equal_p(a.lo(), a.hi()) && mpfr_equal_p(b.lo(), b.hi()) &&
                                 mpfr_equal_p(a.lo(), b.lo());
  const bool disjoint = certainly_lt(a, b) || certainly_lt(b, a);
  switch (d) {
    case CompareDirection::EQ: return decide(both_points_equal, disjoint);
    case CompareDirection::NE: return decide(disjoint, both_points_equal);
    case CompareDirection::LT: return decide(certainly_lt(a, b), certainly_le(b, a));
    case CompareDirection::LE: return decide(certainly_le(a, b), certainly_lt(b, a));
    case CompareDirection::GT: return decide(certainly_lt(b, a), certainly_le(a, b));
    case CompareDirection::GE: return decide(certainly_le(b, a), certainly_lt(a, b));
  }
  return Tri::Undecided;
}

BigInterval IntervalDomain::map_monotone(const BigInterval& a, const RationalMap& f) const {
  auto end = [&](mpfr_srcptr x, mpfr_rnd_t rnd) {
    BigFloat r(precision_);
    if (!mpfr_number_p(x)) {
      mpfr_set(r.get(), x, rnd);
      return r;
    }
    Rational q;
    mpfr_get_q(q.backend().data(), x);
    mpfr_set_q(r.get(), f(q).backend().data(), rnd);
    return r;
  };
  const BigFloat lo = end(a.lo(), MPFR_RNDD), hi = end(a.hi(), MPFR_RNDU);
  return Scalar::from_endpoints(lo.get(), hi.get(), precision_);
}

bool IntervalDomain::contains(const BigInterval& a, const Rational& q) {
  return mpfr_cmp_q(a.lo(), q.backend().data()) <= 0 && mpfr_cmp_q(a.hi(), q.backend().data()) >= 0;
}

bool IntervalDomain::contains(const BigInterval& a, mpfr_srcptr x) {
  return mpfr_lessequal_p(a.lo(), x) && mpfr_lessequal_p(x, a.hi());
}

double IntervalDomain::width(const BigInterval& a) {
  BigFloat w(53);
  mpfr_sub(w.get(), a.hi(), a.lo(), MPFR_RNDU);
  return mpfr_get_d(w.get(), MPFR_RNDU);
}

// ---- the issue-15 ops ----

BigInterval IntervalDomain::floor(const BigInterval& a) const {
  return map_monotone(a, [](const Rational& q) { return Rational(floor_integer(q)); });
}
BigInterval IntervalDomain::ceil(const BigInterval& a) const {
  return map_monotone(a, [](const Rational& q) { return Rational(ceil_integer(q)); });
}
BigInterval IntervalDomain::round_even(const BigInterval& a) const {
  return map_monotone(a, [](const Rational& q) { return Rational(round_half_even(q)); });
}
BigInterval IntervalDomain::round_away(const BigInterval& a) const {
  return map_monotone(a, [](const Rational& q) { return Rational(round_half_away(q)); });
}
BigInterval IntervalDomain::sign(const BigInterval& a) const {
  Scalar r = map_monotone(a, [](const Rational& q) { return Rational(q.sign()); });
  // An infinite endpoint stays infinite under map_monotone; its sign is +-1.
  BigFloat lo(precision_), hi(precision_);
  mpfr_set(lo.get(), r.lo(), MPFR_RNDD);
  mpfr_set(hi.get(), r.hi(), MPFR_RNDU);
  if (mpfr_inf_p(lo.get())) mpfr_set_si(lo.get(), mpfr_sgn(lo.get()), MPFR_RNDD);
  if (mpfr_inf_p(hi.get())) mpfr_set_si(hi.get(), mpfr_sgn(hi.get()), MPFR_RNDU);
  return Scalar::from_endpoints(lo.get(), hi.get(), precision_);
}

#define SHLO_MPFI_UNARY(name, fn)                             \
  BigInterval IntervalDomain::name(const BigInterval& a) const { \
    Scalar r = make();                                          \
    fn(r.get(), a.get());                                       \
    check(r, #name, a);                                         \
    return r;                                                   \
  }
SHLO_MPFI_UNARY(sin, mpfi_sin)
SHLO_MPFI_UNARY(cos, mpfi_cos)
SHLO_MPFI_UNARY(expm1, mpfi_expm1)
#undef SHLO_MPFI_UNARY

BigInterval IntervalDomain::log1p(const BigInterval& a) const {
  if (mpfr_cmp_si(a.hi(), -1) <= 0) fail(*this, "log1p(" + to_string(a) + "): logarithm of a number <= 0");
  if (mpfr_cmp_si(a.lo(), -1) <= 0)
    fail(*this, "log1p(" + to_string(a) + "): the enclosure reaches -1 (undecided at this precision)");
  Scalar r = make();
  mpfi_log1p(r.get(), a.get());
  return r;
}

BigInterval IntervalDomain::pow(const BigInterval& a, const BigInterval& b) const {
  const bool integer_exponent = mpfr_equal_p(b.lo(), b.hi()) && mpfr_integer_p(b.lo());
  if (integer_exponent) {
    Integer n;
    mpfr_get_z(n.backend().data(), b.lo(), MPFR_RNDZ);
    if (n == 0) return from_rational(1);
    const Integer magnitude = n < 0 ? Integer(-n) : n;
    if (magnitude > Integer(1) << 20) fail(*this, "pow: the exponent " + n.str() + " is too large");
    const auto e = static_cast<unsigned long>(magnitude);
    auto power = [e](const Rational& q) {
      Integer num, den;
      mpz_pow_ui(num.backend().data(), mpq_numref(q.backend().data()), e);
      mpz_pow_ui(den.backend().data(), mpq_denref(q.backend().data()), e);
      return Rational(num, den);
    };
    // q^e is non-decreasing for odd e, and for even e on [0, inf): |a| first.
    const Scalar base = (e % 2 == 1 || mpfr_sgn(a.lo()) >= 0) ? a : abs(a);
    const Scalar p = map_monotone(base, power);
    return n > 0 ? p : div(from_rational(1), p);
  }
  if (mpfr_sgn(a.lo()) <= 0)
    fail(*this, "pow(" + to_string(a) + ", " + to_string(b) +
                    "): a base reaching 0 or below with an exponent that is not one integer (undecided or NaN)");
  return exp(mul(b, log(a)));
}

BigInterval IntervalDomain::rem(const BigInterval& a, const BigInterval& b) const {
  const Truncated k = truncate(div(a, b));
  if (k.kind != Truncated::Kind::Finite) fail(*this, "rem(" + to_string(a) + ", " + to_string(b) + "): infinite quotient");
  return sub(a, mul(from_rational(Rational(k.value)), b));
}

Truncated IntervalDomain::truncate(const BigInterval& a) const {
  if (mpfr_inf_p(a.lo()) && mpfr_inf_p(a.hi()) && mpfr_sgn(a.lo()) == mpfr_sgn(a.hi()))
    return {mpfr_sgn(a.lo()) > 0 ? Truncated::Kind::PosInf : Truncated::Kind::NegInf, {}};
  if (!mpfr_number_p(a.lo()) || !mpfr_number_p(a.hi()))
    fail(*this, "truncation of " + to_string(a) + " is undecided (the enclosure is unbounded)");
  Integer lo, hi;
  mpfr_get_z(lo.backend().data(), a.lo(), MPFR_RNDZ);
  mpfr_get_z(hi.backend().data(), a.hi(), MPFR_RNDZ);
  if (lo != hi)
    fail(*this, "truncation of " + to_string(a) + " to an integer is undecided (the enclosure spans " + lo.str() + " and " +
                    hi.str() + "; try a higher precision)");
  return {Truncated::Kind::Finite, lo};
}

}  // namespace shlo
