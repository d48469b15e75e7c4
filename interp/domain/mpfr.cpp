#include "interp/domain/mpfr.hpp"

namespace shlo {

MpfrDomain::MpfrDomain(mpfr_prec_t precision) : precision_(precision) {
  if (precision < 2 || precision > 1 << 20)
    throw DomainError("mpfr: precision " + std::to_string(precision) +
                      " bits is out of range (2 to 1048576)");
}

BigFloat MpfrDomain::from_rational(const Rational& q) const {
  Scalar r = make();
  mpfr_set_q(r.get(), q.backend().data(), MPFR_RNDN);
  return r;
}

BigFloat MpfrDomain::from_literal(std::string_view text) const {
  return from_parsed(parse_literal(text));
}

BigFloat MpfrDomain::parse(std::string_view text) const {
  if (text.find('/') != std::string_view::npos) return from_literal(text);  // a rational "p/q"
  return BigFloat::parse(std::string(text), precision_, MPFR_RNDN);
}

BigFloat MpfrDomain::from_parsed(const Literal& lit) const {
  if (lit.kind == Literal::Kind::Finite) {
    Scalar r = from_rational(lit.value);
    if (lit.value == 0 && lit.negative) mpfr_neg(r.get(), r.get(), MPFR_RNDN);  // "-0.0"
    return r;
  }
  Scalar r = make();
  if (lit.kind == Literal::Kind::NaN) mpfr_set_nan(r.get());
  else mpfr_set_inf(r.get(), lit.kind == Literal::Kind::PosInf ? 1 : -1);
  return r;
}

BigFloat MpfrDomain::from_bits(std::uint64_t bits, FloatFormat format) const {
  return from_parsed(literal_from_bits(bits, format));
}

#define SHLO_MPFR_BINARY(name, fn)                                     \
  BigFloat MpfrDomain::name(const BigFloat& a, const BigFloat& b) const { \
    Scalar r = make();                                                 \
    fn(r.get(), a.get(), b.get(), MPFR_RNDN);                          \
    return r;                                                          \
  }
#define SHLO_MPFR_UNARY(name, fn)                      \
  BigFloat MpfrDomain::name(const BigFloat& a) const { \
    Scalar r = make();                                 \
    fn(r.get(), a.get(), MPFR_RNDN);                   \
    return r;                                          \
  }
SHLO_MPFR_BINARY(add, mpfr_add)
SHLO_MPFR_BINARY(sub, mpfr_sub)
SHLO_MPFR_BINARY(mul, mpfr_mul)
SHLO_MPFR_BINARY(div, mpfr_div)
SHLO_MPFR_UNARY(neg, mpfr_neg)
SHLO_MPFR_UNARY(abs, mpfr_abs)
SHLO_MPFR_UNARY(exp, mpfr_exp)
SHLO_MPFR_UNARY(log, mpfr_log)
SHLO_MPFR_UNARY(sqrt, mpfr_sqrt)
SHLO_MPFR_UNARY(tanh, mpfr_tanh)
SHLO_MPFR_UNARY(floor, mpfr_rint_floor)
SHLO_MPFR_UNARY(ceil, mpfr_rint_ceil)
SHLO_MPFR_UNARY(round_even, mpfr_rint_roundeven)
SHLO_MPFR_UNARY(round_away, mpfr_rint_round)
SHLO_MPFR_UNARY(sin, mpfr_sin)
SHLO_MPFR_UNARY(cos, mpfr_cos)
SHLO_MPFR_UNARY(log1p, mpfr_log1p)
SHLO_MPFR_UNARY(expm1, mpfr_expm1)
SHLO_MPFR_BINARY(pow, mpfr_pow)
SHLO_MPFR_BINARY(rem, mpfr_fmod)
#undef SHLO_MPFR_BINARY
#undef SHLO_MPFR_UNARY

// mpfr_rec_sqrt gives +inf at -0, where IEEE 754's rSqrt (and the f32/f64 domains' 1/sqrt)
// gives -inf: a zero keeps its sign through 1/x.
BigFloat MpfrDomain::rsqrt(const BigFloat& a) const {
  Scalar r = make();
  if (mpfr_zero_p(a.get())) mpfr_set_inf(r.get(), mpfr_signbit(a.get()) ? -1 : 1);
  else mpfr_rec_sqrt(r.get(), a.get(), MPFR_RNDN);
  return r;
}

void MpfrDomain::mac(BigFloat& acc, const BigFloat& a, const BigFloat& b) const {
  thread_local BigFloat product(2);
  if (product.precision() != precision_) product = make();
  mpfr_mul(product.get(), a.get(), b.get(), MPFR_RNDN);
  mpfr_add(acc.get(), acc.get(), product.get(), MPFR_RNDN);
}

// IEEE 754-2019 maximum/minimum: NaN propagates, -0 < +0.
BigFloat MpfrDomain::max(const BigFloat& a, const BigFloat& b) const {
  if (mpfr_nan_p(a.get())) return a;
  if (mpfr_nan_p(b.get())) return b;
  if (mpfr_zero_p(a.get()) && mpfr_zero_p(b.get())) return mpfr_signbit(a.get()) ? b : a;
  return mpfr_greaterequal_p(a.get(), b.get()) ? a : b;
}

BigFloat MpfrDomain::min(const BigFloat& a, const BigFloat& b) const {
  if (mpfr_nan_p(a.get())) return a;
  if (mpfr_nan_p(b.get())) return b;
  if (mpfr_zero_p(a.get()) && mpfr_zero_p(b.get())) return mpfr_signbit(a.get()) ? a : b;
  return mpfr_lessequal_p(a.get(), b.get()) ? a : b;
}

BigFloat MpfrDomain::logistic(const BigFloat& a) const {
  BigFloat t(precision_ + 32);
  mpfr_neg(t.get(), a.get(), MPFR_RNDN);
  mpfr_exp(t.get(), t.get(), MPFR_RNDN);
  mpfr_add_ui(t.get(), t.get(), 1, MPFR_RNDN);
  Scalar r = make();
  mpfr_ui_div(r.get(), 1, t.get(), MPFR_RNDN);
  return r;
}

// IEEE quiet comparisons: every direction but NE is false when an operand is NaN.
Tri MpfrDomain::compare(CompareDirection d, const BigFloat& a, const BigFloat& b) const {
  switch (d) {
    case CompareDirection::EQ: return tri(mpfr_equal_p(a.get(), b.get()));
    case CompareDirection::NE: return tri(!mpfr_equal_p(a.get(), b.get()));
    case CompareDirection::LT: return tri(mpfr_less_p(a.get(), b.get()));
    case CompareDirection::LE: return tri(mpfr_lessequal_p(a.get(), b.get()));
    case CompareDirection::GT: return tri(mpfr_greater_p(a.get(), b.get()));
    case CompareDirection::GE: return tri(mpfr_greaterequal_p(a.get(), b.get()));
  }
  return Tri::Undecided;
}

// NaN and signed zeros pass through; anything else is +-1.
BigFloat MpfrDomain::sign(const BigFloat& a) const {
  if (mpfr_nan_p(a.get()) || mpfr_zero_p(a.get())) return a;
  Scalar r = make();
  mpfr_set_si(r.get(), mpfr_sgn(a.get()) < 0 ? -1 : 1, MPFR_RNDN);
  return r;
}

Truncated MpfrDomain::truncate(const BigFloat& a) const {
  if (mpfr_nan_p(a.get())) return {Truncated::Kind::NaN, {}};
  if (mpfr_inf_p(a.get())) return {mpfr_sgn(a.get()) > 0 ? Truncated::Kind::PosInf : Truncated::Kind::NegInf, {}};
  Truncated t;
  mpfr_get_z(t.value.backend().data(), a.get(), MPFR_RNDZ);
  return t;
}

}  // namespace shlo
