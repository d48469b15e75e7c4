#include "interp/bound/bound.hpp"

#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace shlo {

namespace {

using namespace bound_detail;

// The largest |r - x| for r in R, x in X.
double spread(Iv r, Iv x) { return std::max(gap(r.hi, x.lo), gap(x.hi, r.lo)); }
Iv iv_mul(Iv a, Iv b) {
  if (a.lo == a.hi && b.lo == b.hi) {  // points: one product
    const double p = a.lo * b.lo;
    if (p != p) return {-kInf, kInf};
    return {down(p), up(p)};
  }
  const double p[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
  double lo = kInf, hi = -kInf;
  for (double v : p) {
    if (v != v) return {-kInf, kInf};  // 0 * inf
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  return {down(lo), up(hi)};
}
Iv hull(Iv a, Iv b) { return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; }
Iv iv_add(Iv a, Iv b) { return {down(a.lo + b.lo), up(a.hi + b.hi)}; }
Iv iv_neg(Iv a) { return {-a.hi, -a.lo}; }
Iv iv_sub(Iv a, Iv b) { return iv_add(a, iv_neg(b)); }
Iv iv_abs(Iv a) {
  if (a.lo >= 0) return a;
  if (a.hi <= 0) return iv_neg(a);
  return {0, std::max(-a.lo, a.hi)};
}
bool contains_zero(Iv a) { return a.lo <= 0 && a.hi >= 0; }
Iv iv_recip(Iv b) { return {down(1 / b.hi), up(1 / b.lo)}; }  // 0 not in b
Iv iv_div(Iv a, Iv b) { return iv_mul(a, iv_recip(b)); }

// A monotone function through MPFR at 53 bits with directed rounding (certified endpoints).
using MpfrFn = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);
double directed(MpfrFn f, double x, mpfr_rnd_t rnd) {
  thread_local struct Reg {
    mpfr_t v;
    Reg() { mpfr_init2(v, 64); }
    ~Reg() { mpfr_clear(v); }
  } reg;
  mpfr_set_d(reg.v, x, MPFR_RNDN);  // exact: 64 >= 53 bits
  f(reg.v, reg.v, rnd);
  return mpfr_get_d(reg.v, rnd);
}
int mpfr_logistic(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd) {
  // 1 / (1 + exp(-x)), increasing in x: round exp(-x) against rnd, then 1 / (.) with rnd.
  const mpfr_rnd_t inner = rnd == MPFR_RNDD ? MPFR_RNDU : MPFR_RNDD;
  mpfr_neg(r, x, inner);
  mpfr_exp(r, r, inner);
  mpfr_add_ui(r, r, 1, inner);
  return mpfr_ui_div(r, 1, r, rnd);
}
Iv increasing(MpfrFn f, Iv a) { return {directed(f, a.lo, MPFR_RNDD), directed(f, a.hi, MPFR_RNDU)}; }
Iv iv_exp(Iv a) { return increasing(mpfr_exp, a); }
Iv iv_log(Iv a) { return increasing(mpfr_log, a); }
Iv iv_sqrt(Iv a) { return increasing(mpfr_sqrt, {std::max(a.lo, 0.0), a.hi}); }
Iv iv_rsqrt(Iv a) { return {directed(mpfr_rec_sqrt, a.hi, MPFR_RNDD), directed(mpfr_rec_sqrt, a.lo, MPFR_RNDU)}; }
Iv iv_tanh(Iv a) { return increasing(mpfr_tanh, a); }
Iv iv_logistic(Iv a) { return increasing(mpfr_logistic, a); }

Iv enclose(const Rational& q) {
  const double d = q.convert_to<double>();  // within an ulp of q
  return {down(d), up(d)};
}

// Three-valued comparison of two intervals.
Tri tri_compare(CompareDirection dir, Iv a, Iv b) {
  const bool equal_points = a.lo == a.hi && b.lo == b.hi && a.lo == b.lo;
  switch (dir) {
    case CompareDirection::EQ: return equal_points ? Tri::True : (a.hi < b.lo || b.hi < a.lo) ? Tri::False : Tri::Undecided;
    case CompareDirection::NE: return equal_points ? Tri::False : (a.hi < b.lo || b.hi < a.lo) ? Tri::True : Tri::Undecided;
    case CompareDirection::LT: return a.hi < b.lo ? Tri::True : a.lo >= b.hi ? Tri::False : Tri::Undecided;
    case CompareDirection::LE: return a.hi <= b.lo ? Tri::True : a.lo > b.hi ? Tri::False : Tri::Undecided;
    case CompareDirection::GT: return a.lo > b.hi ? Tri::True : a.hi <= b.lo ? Tri::False : Tri::Undecided;
    case CompareDirection::GE: return a.lo >= b.hi ? Tri::True : a.hi < b.lo ? Tri::False : Tri::Undecided;
  }
  return Tri::Undecided;
}

// The width of an interval times e, rounded up: how far a derivative over a widened operand
// may stray from its value at the exact operand, times the operand's error.
double width_times(Iv slope, double e) { return up_mul(gap(slope.hi, slope.lo), e); }

// An upper bound on |E relu(d + g) - relu(d)| for g mean-zero sub-Gaussian with proxy sigma^2
// and |d| >= distance (the header's "near a kink"): the smaller of sigma / 2 and the integral
// of the tail bound exp(-t^2 / (2 sigma^2)) from distance on,
// sigma sqrt(pi / 2) erfc(distance / (sigma sqrt 2)).
double kink_mean_bound(double sigma, double distance) {
  const double z = down(distance / up(sigma * 1.4142135623730951));  // erfc decreases: z low
  const double tail = std::erfc(z) * (1 + 0x1p-40);                 // libm's erfc within ulps
  return std::min(up(0.5 * sigma), up(up(sigma * 1.2533141373155003) * up(tail)));  // sqrt(pi / 2) above
}

// A float divisor that may be 0 leaves that tier unbounded.
Iv image_of_div(Iv num, Iv den) { return contains_zero(den) ? Iv{-kInf, kInf} : iv_div(num, den); }

[[noreturn]] void fail(const BoundDomain& d, const std::string& what) { throw DomainError(d.name() + ": " + what); }

std::string show(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

}  // namespace

double gamma_f32(std::uint64_t k) {
  if (k == 0) return 0;
  const double ku = up(static_cast<double>(k) * 0x1p-24);
  if (ku >= 1) return kInf;
  return up(ku / down(1 - ku));
}

// --- helpers ----------------------------------------------------------------------------

BoundScalar BoundDomain::result(Iv x, Iv r, Iv rp, double ulps, std::uint8_t flags, float events) const {
  Scalar s;
  s.lo = x.lo;
  s.hi = x.hi;
  s.flags = static_cast<std::uint8_t>(flags & ~(kOpenSum | kShared | kSharedTerms | kStatBytes));  // a new value: not a copy
  s.events = events + 1;  // the operands' statistical bounds used as plain bounds: an event
  // An exact infinity (max-pool padding) stays exact; not from an operand with no bound, which
  // may be NaN in float (max(-inf, NaN) is NaN).
  if (x.lo == x.hi && r.lo == r.hi && x.lo == r.lo && std::isinf(x.lo) && !(flags & kUnbounded)) return s;
  // One tier's bound from the image of the widened operands: infinite when that image is, or
  // when the float result may overflow.
  auto tier = [&](Iv image) {
    const double m = mag(image);
    if (!(m < kInf)) return kInf;
    const double e = up_sum(spread(image, x), ulps > 0 ? allowance(m, ulps) : 0);
    return up(m + e) > kFloatMax ? kInf : e;
  };
  s.err = flags & kUnbounded ? kInf : tier(r);
  s.pdet = up_float(std::min(tier(rp), s.err));
  if (s.err == kInf) {
    if (!(flags & kUnbounded)) note_unbounded();
    s.flags |= kUnbounded;
  }
  return s;
}

BoundScalar BoundDomain::with_sigma(Scalar s, double pdet, double sigma, double own_rounding) const {
  if (s.err == 0 || !std::isfinite(pdet) || !std::isfinite(sigma)) return s;
  // The op's own rounding is mean-zero in the model (a flush to zero is not: plain there), so
  // it joins the operands' random part, which a later sum adds in quadrature. As a plain bound
  // it is narrower for this one value: that form, and the generic bound s.pdet, cap it.
  double quad_pdet = pdet, quad_sigma = sigma;
  if (profile_.flush_to_zero) quad_pdet = up_sum(pdet, own_rounding);
  else if (own_rounding > 0) quad_sigma = up(std::sqrt(up_sum(up_mul(sigma, sigma), up_mul(own_rounding, own_rounding))));
  const double plain_pdet = up_sum(pdet, own_rounding), plain = up_sum(plain_pdet, up_mul(lambda_, sigma));
  if (quad_sigma == 0) {  // nothing random: the plain form where it is the narrower
    if (plain < s.pdet) s.pdet = up_float(plain);
    return s;
  }
  // A random part wider than the value's bound would make a later sum wider than the bound
  // added linearly: kept only within it (as after a short sum whose sound bound is the tighter).
  const double cap = std::min({static_cast<double>(s.pdet), plain, s.err});
  if (up(mag({s.lo, s.hi}) + cap) > kFloatMax) return s;
  if (quad_sigma <= cap) return keep_random(s, quad_pdet, quad_sigma, cap);
  return sigma > 0 && sigma <= cap ? keep_random(s, plain_pdet, sigma, cap) : s;  // the rounding plain
}

BoundScalar BoundDomain::keep_random(Scalar s, double pdet, double sigma, double cap) const {
  s.pdet = up_float(pdet);
  s.st.sigma = sigma;
  const float stored = up_float(cap);
  if (stored < up_sum(s.pdet, up_mul(lambda_, sigma)) && stored < s.err) {
    s.flags |= kPlainCap;
    s.st.lo = stored;
  } else {
    s.flags &= static_cast<std::uint8_t>(~kPlainCap);
  }
  return s;
}

BoundDomain::Closed BoundDomain::operand(const Scalar& a, std::int64_t& source) const {
  source = source_of(a);
  const Closed c = close_raw(a);
  if (source < 0) return c;
  if (source == 0 || c.sigma == 0) {  // its source unknown, or no random part to share
    source = -1;
    return plain_random(c);
  }
  return c;
}

BoundDomain::Operands BoundDomain::operands(const Scalar& a, const Scalar& b) const {
  Operands o;
  std::int64_t sb = -1;
  o.a = operand(a, o.source);
  o.b = operand(b, sb);
  if (sb > 0 && o.source > 0 && sb != o.source) o.b = plain_random(o.b);  // two sources: one kept
  else if (sb > 0) o.source = sb;
  return o;
}

BoundScalar BoundDomain::with_source(Scalar s, std::int64_t source) {
  if (source > 0 && s.st.sigma > 0 && !(s.flags & kOpenSum)) {
    s.flags |= kShared;
    s.set_source(static_cast<std::uint32_t>(source));
  }
  return s;
}

BoundScalar BoundDomain::unary(const Scalar& a, Iv (*f)(Iv), double ulps) const {
  const Closed c = close(a);
  return result(f(c.x), f(widened(c)), f(pwidened(c)), ulps, a.flags, c.events);
}

// --- constants and inputs ---------------------------------------------------------------------

BoundScalar BoundDomain::from_rational(const Rational& q) const {
  const float f = round_rational<float>(q);
  Scalar s;
  const double d = q.convert_to<double>();
  const Iv x = rational_from_double(d) == q ? Iv{d, d} : enclose(q);  // a double is a point
  s.lo = x.lo;
  s.hi = x.hi;
  if (std::isinf(f)) {
    s.err = kInf;
    s.pdet = std::numeric_limits<float>::infinity();
    s.flags = kUnbounded;
    note_unbounded();
    return s;
  }
  const Rational diff = rational_from_double(f) - q;
  s.err = diff == 0 ? 0 : up(std::fabs(diff.convert_to<double>()));
  if (profile_.flush_to_zero && std::fabs(f) < 0x1p-126 && f != 0) s.err = up(s.err + std::fabs(f));
  s.pdet = up_float(s.err);
  return s;
}

BoundScalar BoundDomain::from_literal_value(const Literal& lit, const std::string& what) const {
  Scalar s;
  switch (lit.kind) {
    case Literal::Kind::Finite: return from_rational(lit.value);
    case Literal::Kind::PosInf: s.lo = s.hi = kInf; return s;
    case Literal::Kind::NegInf: s.lo = s.hi = -kInf; return s;
    case Literal::Kind::NaN: break;
  }
  fail(*this, what + ": NaN is not a real number");
}

BoundScalar BoundDomain::from_literal(std::string_view text) const {
  return from_literal_value(parse_literal(text), "literal '" + std::string(text) + "'");
}

BoundScalar BoundDomain::from_bits(std::uint64_t bits, FloatFormat format) const {
  return from_literal_value(literal_from_bits(bits, format), "hex literal");
}

BoundScalar BoundDomain::from_double(double x) const {
  if (x != x) fail(*this, "input: NaN is not a real number");
  Scalar s;
  s.lo = s.hi = x;
  const float f = static_cast<float>(x);
  if (static_cast<double>(f) != x) s.err = up(std::fabs(static_cast<double>(f) - x));
  if (profile_.flush_to_zero && std::fabs(x) < 0x1p-126) s.err = up(s.err + std::fabs(x));
  s.pdet = up_float(s.err);
  return s;
}

std::string BoundDomain::to_string(const Scalar& a) const {
  if (nonfinite(a)) {
    const Kind k = kind(a);
    if (k != Kind::Unknown)
      return std::string(k == Kind::NaN ? "NaN" : k == Kind::PosInf ? "+inf" : "-inf") + " in every float evaluation" +
             (probable(a) ? " but for an improbable event" : "");
  }
  const Closed c = close(a);
  std::string s = "[" + show(c.x.lo) + ", " + show(c.x.hi) + "] +- " + show(c.err) + " (+- " + show(c.perr) + " statistically)";
  if (a.flags & kMayFlip) s += " (branch may flip)";
  if (may_be_nan(a)) s += " or NaN";
  return s;
}

BoundScalar BoundDomain::pi() const {
  Scalar s;
  s.lo = down(3.141592653589793);
  s.hi = up(3.141592653589793);
  s.err = 0x1p-22;  // float(pi) is within half an ulp (2^-23) of pi
  s.pdet = 0x1p-22f;
  return s;
}


// --- arithmetic -----------------------------------------------------------------------------------

BoundScalar BoundDomain::add_numbers(const Scalar& a, const Scalar& b) const {
  if (nonfinite(a) || nonfinite(b)) return nonfinite_binary(Binary::Add, a, b);
  const auto [ca, cb, source] = operands(a, b);
  const Iv rp = iv_add(pwidened(ca), pwidened(cb));
  const Scalar s = result(iv_add(ca.x, cb.x), iv_add(widened(ca), widened(cb)), rp, 0.5, a.flags | b.flags, ca.events + cb.events);
  return with_source(with_sigma(s, up_sum(ca.pdet, cb.pdet), up_sum(ca.sigma, cb.sigma), allowance(mag(rp), 0.5)), source);
}

BoundScalar BoundDomain::sub_numbers(const Scalar& a, const Scalar& b) const {
  if (nonfinite(a) || nonfinite(b)) return nonfinite_binary(Binary::Sub, a, b);
  const auto [ca, cb, source] = operands(a, b);
  const Iv rp = iv_sub(pwidened(ca), pwidened(cb));
  const Scalar s = result(iv_sub(ca.x, cb.x), iv_sub(widened(ca), widened(cb)), rp, 0.5, a.flags | b.flags, ca.events + cb.events);
  return with_source(with_sigma(s, up_sum(ca.pdet, cb.pdet), up_sum(ca.sigma, cb.sigma), allowance(mag(rp), 0.5)), source);
}

BoundScalar BoundDomain::mul_numbers(const Scalar& a, const Scalar& b) const {
  if (nonfinite(a) || nonfinite(b)) return nonfinite_binary(Binary::Mul, a, b);
  const auto [ca, cb, source] = operands(a, b);
  const Iv rp = iv_mul(pwidened(ca), pwidened(cb));
  const Scalar s = result(iv_mul(ca.x, cb.x), iv_mul(widened(ca), widened(cb)), rp, 0.5, a.flags | b.flags, ca.events + cb.events);
  // a~ b~ - a b = a eb + b ea + ea eb: the first two linear in the errors, the last a plain bound.
  const double ma = mag(ca.x), mb = mag(cb.x);
  return with_source(with_sigma(s, up_sum(up_sum(up_mul(ma, cb.pdet), up_mul(mb, ca.pdet)), up_mul(ca.perr, cb.perr)),
                                up_sum(up_mul(ma, cb.sigma), up_mul(mb, ca.sigma)), allowance(mag(rp), 0.5)),
                     source);
}

BoundScalar BoundDomain::div_generic(const Closed& ca, const Closed& cb, std::uint8_t flags) const {
  if (cb.x.lo == 0 && cb.x.hi == 0) fail(*this, "division by exactly 0");
  if (contains_zero(cb.x)) return unknown(flags);  // 0 not excluded at double precision
  return result(iv_div(ca.x, cb.x), image_of_div(widened(ca), widened(cb)), image_of_div(pwidened(ca), pwidened(cb)), profile_.div, flags,
                ca.events + cb.events);
}

BoundScalar BoundDomain::div_numbers(const Scalar& a, const Scalar& b) const {
  if (nonfinite(a) || nonfinite(b)) return nonfinite_binary(Binary::Div, a, b);
  const auto [ca, cb, source] = operands(a, b);
  const Scalar s = div_generic(ca, cb, a.flags | b.flags);
  const Iv pa = pwidened(ca), pb = pwidened(cb);
  if (s.err == kInf && s.pdet == std::numeric_limits<float>::infinity()) return s;
  if (contains_zero(pb)) return s;
  // First order (see the header): d(a/b) = da / b - a db / b^2; the partial derivatives' widths
  // over the widened operands bound the rest.
  const Iv over_pb = iv_recip(pb), pslope_b = iv_div(pa, iv_mul(pb, pb));
  const double la = mag(iv_recip(cb.x)), lb = mag(iv_div(ca.x, iv_mul(cb.x, cb.x)));
  const double rest = up_sum(width_times(over_pb, ca.perr), width_times(pslope_b, cb.perr));
  return with_source(smooth_result(s, up_sum(up_sum(up_mul(la, ca.pdet), up_mul(lb, cb.pdet)), rest),
                                   up_sum(up_mul(la, ca.sigma), up_mul(lb, cb.sigma)), mag(image_of_div(pa, pb)), profile_.div),
                     source);
}

BoundScalar BoundDomain::normalized_div_numbers(const Scalar& a, const Scalar& b, bool exp_terms) const {
  // A softmax's class whose own exp is finite while another's overflows: a float a at least 0
  // and finite over +inf is +0, and the exact quotient lies in [0, a / FLT_MAX] (b, a sum of
  // positive terms one of which exceeds FLT_MAX, is at least that). Sound where a's bound and b's
  // infinity are; else statistically, with no sound bound.
  if (exp_terms && !nonfinite(a) && nonfinite(b) && kind(b) == Kind::PosInf && large(b)) {
    const Closed ca = close(a);
    if (ca.perr < kInf && std::isfinite(ca.x.hi) && ca.x.lo >= 0) {
      const double q = up(ca.x.hi / kFloatMax);
      const bool sound = ca.err < kInf && !probable(b);
      return from_closed(closed_value({0, q}, sound ? q : kInf, q, 0, ca.events + 1), (a.flags | b.flags) & kMayFlip);
    }
  }
  // The numerator's random part entered the divisor's sum as a term in quadrature only when it
  // was not shared; a divisor whose source is unknown keeps no random part: then as div.
  const std::int64_t source = source_of(b);
  if (source_of(a) >= 0 || source == 0 || nonfinite(a) || nonfinite(b)) return div(a, b);
  const Closed ca = close_raw(a), cb = close_raw(b);
  const Scalar s = div_generic(ca, cb, a.flags | b.flags);
  if (s.err == kInf && s.pdet == std::numeric_limits<float>::infinity()) return s;
  // b = a + r, the rest r the other terms and the sum's roundings: its plain part is b's less
  // a's (a's entered b's linearly), its random part b's less a's in quadrature. With
  // f(a, r) = a / (a + r): df/da = r / b^2, df/dr = -a / b^2, a's and r's random parts
  // independent (terms of one sum), and the second-order rest from the derivatives' widths
  // over the widened box (a + r then within pwidened(a) + widened r).
  const double pdet_r = std::max(0.0, up(cb.pdet - ca.pdet));
  const double var_r = std::max(0.0, up(up_mul(cb.sigma, cb.sigma) - down(ca.sigma * ca.sigma)));
  const double perr_r = up_sum(cb.perr, ca.perr);
  const Iv xr = iv_sub(cb.x, ca.x), pr = widened(xr, perr_r), pa = pwidened(ca), psum = iv_add(pa, pr);
  if (contains_zero(cb.x) || contains_zero(psum)) return div(a, b);
  const Iv b2 = iv_mul(cb.x, cb.x), psum2 = iv_mul(psum, psum);
  const double la = mag(iv_div(xr, b2)), lr = mag(iv_div(ca.x, b2));
  const Iv pslope_a = iv_div(pr, psum2), pslope_r = iv_div(pa, psum2);
  const double rest = up_sum(width_times(pslope_a, ca.perr), width_times(pslope_r, perr_r));
  const double sigma = up(std::sqrt(up_sum(up_mul(up_mul(la, la), up_mul(ca.sigma, ca.sigma)), up_mul(up_mul(lr, lr), var_r))));
  return with_source(smooth_result(s, up_sum(up_sum(up_mul(la, ca.pdet), up_mul(lr, pdet_r)), rest), sigma,
                                   mag(image_of_div(pa, pwidened(cb))), profile_.div),
                     source);
}

BoundScalar BoundDomain::centering_sub_numbers(const Scalar& x, const Scalar& mean) const {
  if (nonfinite(x) || nonfinite(mean)) return sub(x, mean);
  Scalar s = sub(x, mean);
  if (!(s.err < kInf) || (s.flags & (kBranchGap | kOpenSum))) return s;
  // d = x's error plus the subtract's rounding (the header's "centred second moments"); x's
  // random part only where it is x's own (a shared x's is closed to a plain bound).
  const Closed cx = close(x), cm = close(mean);
  const double rounding = allowance(mag(iv_sub(widened(cx), widened(cm))), 0.5);
  const double prounding = allowance(mag(iv_sub(pwidened(cx), pwidened(cm))), 0.5);
  const bool plain_rounding = profile_.flush_to_zero;  // a flush is not mean-zero
  const double err_d = up_sum(cx.err, rounding);
  const double pdet_d = plain_rounding ? up_sum(cx.pdet, prounding) : cx.pdet;
  const double sigma_d = plain_rounding ? cx.sigma : up(std::sqrt(up_sum(up_mul(cx.sigma, cx.sigma), up_mul(prounding, prounding))));
  if (!(err_d < kInf) || !(up_sum(pdet_d, sigma_d) < kInf)) return s;
  s.st.hi = up_float(err_d);
  s.st.plo = up_float(pdet_d);
  s.st.phi = up_float(sigma_d);
  s.flags |= kCentered;
  return s;
}

BoundScalar BoundDomain::centered_square_numbers(const Scalar& c) const {
  if ((c.flags & (kCentered | kBranchGap | kOpenSum)) != kCentered) return mul(c, c);
  const Closed cc = close_raw(c);  // the whole error of c~ - c, for the second-order term
  const double m = mag(cc.x), err_d = c.st.hi, pdet_d = c.st.plo, sigma_d = c.st.phi;
  const double f = up_mul(up_sum(m, cc.err), up_sum(m, cc.err));  // bounds c~^2
  const double fp = up_mul(up_sum(m, cc.perr), up_sum(m, cc.perr));
  if (!(f <= kFloatMax)) return mul(c, c);  // may overflow: as any product
  Scalar s;
  const Iv x2 = contains_zero(cc.x) ? Iv{0, up(m * m)} : iv_mul(cc.x, cc.x);
  s.lo = x2.lo;
  s.hi = x2.hi;
  s.flags = static_cast<std::uint8_t>(c.flags & kMayFlip);  // a new value: not a copy, not shared
  s.events = cc.events + 1;
  // |c~^2 - c^2 + 2 c e_m| <= 2 |c| |d| + (c~ - c)^2, then the product's rounding.
  const double twice_m = up(2 * m);
  s.err = up_sum(up_sum(up_mul(twice_m, err_d), up_mul(cc.err, cc.err)), allowance(f, 0.5));
  const double pdet = up_sum(up_mul(twice_m, pdet_d), up_mul(cc.perr, cc.perr)), sigma = up_mul(twice_m, sigma_d);
  s.pdet = up_float(std::min(up_sum(up_sum(pdet, up_mul(lambda_, sigma)), allowance(fp, 0.5)), s.err));
  return with_sigma(s, pdet, sigma, allowance(fp, 0.5));
}

BoundScalar BoundDomain::smooth_result(const Scalar& s, double pdet, double sigma, double magnitude, double ulps) const {
  // A correctly rounded op's own rounding is mean-zero in the model; a library function's
  // error of more than half an ulp is a plain bound.
  if (ulps <= 0.5) return with_sigma(s, pdet, sigma, allowance(magnitude, ulps));
  return with_sigma(s, up_sum(pdet, allowance(magnitude, ulps)), sigma, 0);
}

BoundScalar BoundDomain::neg_numbers(const Scalar& a) const {
  if (nonfinite(a)) return nonfinite_unary(Unary::Neg, a);
  std::int64_t source;
  const Closed c = operand(a, source);
  return with_source(with_sigma(unary(a, iv_neg, 0), c.pdet, c.sigma, 0), source);
}

BoundScalar BoundDomain::abs_numbers(const Scalar& a) const {
  if (nonfinite(a)) return nonfinite_unary(Unary::Abs, a);
  std::int64_t source;
  const Closed c = operand(a, source);
  const Iv p = pwidened(c);
  const Scalar s = unary(a, iv_abs, 0);
  return p.lo >= 0 || p.hi <= 0 ? with_source(with_sigma(s, c.pdet, c.sigma, 0), source) : s;  // the sign is known: linear
}

BoundScalar BoundDomain::max_numbers(const Scalar& a, const Scalar& b) const {
  if (nonfinite(a) || nonfinite(b)) return nonfinite_binary(Binary::Max, a, b);
  const auto [ca, cb, source] = operands(a, b);
  const Iv ra = widened(ca), rb = widened(cb), pa = pwidened(ca), pb = pwidened(cb);
  const bool flip = tri_compare(CompareDirection::GE, ra, rb) == Tri::Undecided;
  const Scalar s = result({std::max(ca.x.lo, cb.x.lo), std::max(ca.x.hi, cb.x.hi)}, {std::max(ra.lo, rb.lo), std::max(ra.hi, rb.hi)},
                          {std::max(pa.lo, pb.lo), std::max(pa.hi, pb.hi)}, 0, a.flags | b.flags | (flip ? kMayFlip : 0),
                          ca.events + cb.events);
  // Decided in the statistical tier (relu away from its kink): the larger operand, as it is. Not
  // against an operand with no statistical bound, which may be NaN.
  const Tri likely = ca.perr < kInf && cb.perr < kInf ? tri_compare(CompareDirection::GE, pa, pb) : Tri::Undecided;
  if (likely == Tri::Undecided) return max_near_kink(s, a, b);
  const Closed& chosen = likely == Tri::True ? ca : cb;
  return with_source(with_sigma(s, chosen.pdet, chosen.sigma, 0), source);
}

BoundScalar BoundDomain::max_near_kink(Scalar s, const Scalar& a, const Scalar& b) const {
  if (s.err == 0 || !std::isfinite(s.pdet)) return s;  // (a sound infinity alone does not stop the statistical tier)
  const auto [ca, cb, source] = operands(a, b);
  if (ca.sigma == 0 && cb.sigma == 0) return s;
  // The header's "near a kink": the plain parts move the result by at most the larger; the
  // random parts enter as max(a + g_a, b + g_b) - max(a, b), with a random part of proxy
  // 2 (sigma_a^2 + sigma_b^2) and a mean within the tail integral at the operands' distance.
  const Iv d = iv_sub(ca.x, cb.x);
  const double distance = contains_zero(d) ? 0 : std::min(std::fabs(d.lo), std::fabs(d.hi));
  const double pdet = up_sum(std::max(ca.pdet, cb.pdet), kink_mean_bound(up_sum(ca.sigma, cb.sigma), distance));
  const double sigma = up(kSqrt2Above * up(std::sqrt(up_sum(up_mul(ca.sigma, ca.sigma), up_mul(cb.sigma, cb.sigma)))));
  // Kept when the plain part shrinks: that is what a later sum adds linearly (its random
  // parts in quadrature); the generic bound stays this value's own (the cap).
  if (!(pdet < s.pdet)) return s;
  return with_source(keep_random(s, pdet, sigma, s.pdet), source);
}

BoundScalar BoundDomain::min_numbers(const Scalar& a, const Scalar& b) const {
  return neg(max(neg(a), neg(b)));
}

BoundScalar BoundDomain::first_order(const Scalar& s, const Closed& c, std::int64_t source, Iv slope, Iv widened_slope,
                                      double magnitude, double ulps) const {
  const double l = mag(slope);
  return with_source(smooth_result(s, up_sum(up_mul(l, c.pdet), width_times(widened_slope, c.perr)), up_mul(l, c.sigma), magnitude, ulps),
                     source);
}

BoundScalar BoundDomain::exp_numbers(const Scalar& a) const {
  if (nonfinite(a)) return nonfinite_unary(Unary::Exp, a);
  std::int64_t source;
  const Closed c = operand(a, source);
  // Every float operand beyond ln(FLT_MAX) = 88.72283905..., by more than the allowance (k ulps
  // of e^x, i.e. about k 2^-23 in x, and a margin): the float result is +inf in every evaluation.
  const double threshold = 88.72284 + (profile_.exp + 1) * 0x1p-22;
  // Its exact value then exceeds e^88.72, above FLT_MAX (kLargeMark).
  if (c.err < kInf && widened(c).lo > threshold) {
    note_unbounded();
    Scalar s = certain(Kind::PosInf, a.flags, false);
    s.terms |= kLargeMark;
    return s;
  }
  // The same on the statistically widened operand: +inf but for an improbable event.
  // (Of a bounded operand it stays soundly finite and at least 0, or +inf.)
  if (c.perr < kInf && pwidened(c).lo > threshold) {
    note_unbounded();
    Scalar s = certain(Kind::PosInf, a.flags, true);
    if (c.err < kInf) s.terms = kProbablePosInfNonNegative;
    s.terms |= kLargeMark;
    return s;
  }
  const Iv rp = iv_exp(pwidened(c));
  const Scalar s = result(iv_exp(c.x), iv_exp(widened(c)), rp, profile_.exp, a.flags, c.events);
  Scalar out = first_order(s, c, source, iv_exp(c.x), rp, mag(rp), profile_.exp);  // exp' = exp
  // A bounded operand: the float result may overflow, but it is never NaN nor below 0 (but for
  // the allowance of a tiny result): a sum that holds a certain +inf stays +inf with it.
  if (c.err < kInf && !(out.err < kInf)) out.terms = kNonNegativeFloat;
  return out;
}

// A function defined for x > 0 (or x >= 0): the exact operand certainly outside is an error;
// one not certainly inside (an enclosure that reached infinity or straddles 0 at double
// precision) gives an unknown value; a float operand that may leave the domain, an
// unbounded one.
BoundScalar BoundDomain::positive_domain(const Scalar& a, Iv (*f)(Iv), double ulps, bool zero_allowed) const {
  const Closed c = close(a);
  const bool outside = zero_allowed ? c.x.hi < 0 : c.x.hi <= 0;
  if (outside) {
    // No real value. A float operand below -2^-126 (no flush makes it -0) gives NaN: in every
    // evaluation, or in every one but for an improbable event; else anything (-inf, NaN, a number).
    constexpr double kSmallestNormal = 0x1p-126;
    if (widened(c).hi <= -kSmallestNormal) return certain(Kind::NaN, a.flags, false);
    if (pwidened(c).hi <= -kSmallestNormal) return certain(Kind::NaN, a.flags, true);
    return unknown(a.flags);
  }
  const bool inside = zero_allowed ? c.x.lo >= 0 : c.x.lo > 0;
  if (!inside || !std::isfinite(c.x.hi)) return unknown(a.flags);
  // A float operand that may leave the domain leaves that tier unbounded.
  auto image = [&](Iv r) { return (zero_allowed ? r.lo >= 0 : r.lo > 0) ? f(r) : Iv{-kInf, kInf}; };
  return result(f(c.x), image(widened(c)), image(pwidened(c)), ulps, a.flags, c.events);
}

BoundScalar BoundDomain::unknown(std::uint8_t flags) const {
  Scalar s;
  s.lo = -kInf;
  s.hi = kInf;
  s.err = kInf;
  s.pdet = std::numeric_limits<float>::infinity();
  s.flags = static_cast<std::uint8_t>((flags & ~(kOpenSum | kShared | kSharedTerms | kStatBytes)) | kUnbounded);
  if (!(flags & kUnbounded)) note_unbounded();
  return s;
}

BoundScalar BoundDomain::smooth_positive(const Scalar& a, Iv (*f)(Iv), Iv (*slope)(Iv), double ulps, bool zero_allowed) const {
  const Scalar s = positive_domain(a, f, ulps, zero_allowed);
  std::int64_t source;
  const Closed c = operand(a, source);
  const Iv pa = pwidened(c);
  if (!std::isfinite(s.pdet) || !(c.x.lo > 0) || !(pa.lo > 0)) return s;
  return first_order(s, c, source, slope(c.x), slope(pa), mag(f(pa)), ulps);
}

// The derivatives, monotone on x > 0: log' = 1 / x, sqrt' = rsqrt / 2, rsqrt' = -rsqrt^3 / 2.
namespace {
Iv half(Iv a) { return {down(0.5 * a.lo), up(0.5 * a.hi)}; }
Iv sqrt_slope(Iv x) { return half(iv_rsqrt(x)); }
Iv rsqrt_slope(Iv x) {
  const Iv r = iv_rsqrt(x);
  return iv_neg(half(iv_mul(iv_mul(r, r), r)));
}
}  // namespace

BoundScalar BoundDomain::log_numbers(const Scalar& a) const {
  return nonfinite(a) ? nonfinite_unary(Unary::Log, a) : smooth_positive(a, iv_log, iv_recip, profile_.log, false);
}
BoundScalar BoundDomain::sqrt_numbers(const Scalar& a) const {
  return nonfinite(a) ? nonfinite_unary(Unary::Sqrt, a) : smooth_positive(a, iv_sqrt, sqrt_slope, profile_.sqrt, true);
}
BoundScalar BoundDomain::rsqrt_numbers(const Scalar& a) const {
  return nonfinite(a) ? nonfinite_unary(Unary::Rsqrt, a) : smooth_positive(a, iv_rsqrt, rsqrt_slope, profile_.rsqrt, false);
}

BoundScalar BoundDomain::tanh_numbers(const Scalar& a) const {
  return nonfinite(a) ? nonfinite_unary(Unary::Other, a) : unary(a, iv_tanh, profile_.tanh);
}
BoundScalar BoundDomain::logistic_numbers(const Scalar& a) const {
  return nonfinite(a) ? nonfinite_unary(Unary::Other, a) : unary(a, iv_logistic, profile_.logistic);
}

BoundScalar BoundDomain::map_monotone_numbers(const Scalar& a, const RationalMap& f) const {
  if (nonfinite(a)) return nonfinite_unary(Unary::Other, a);
  const Closed c = close(a);
  auto image = [&](Iv v) -> Iv {
    if (!std::isfinite(v.lo) || !std::isfinite(v.hi)) return {-kInf, kInf};
    return {enclose(f(rational_from_double(v.lo))).lo, enclose(f(rational_from_double(v.hi))).hi};
  };
  return result(image(c.x), image(widened(c)), image(pwidened(c)), 0, a.flags, c.events);
}

Tri BoundDomain::compare(CompareDirection d, const Scalar& a, const Scalar& b) const {
  return tri_compare(d, enclosure(a), enclosure(b));
}

// --- comparisons that may flip ---------------------------------------------------------------

std::uint8_t BoundDomain::compare_bits(CompareDirection d, const Scalar& a, const Scalar& b) const {
  if (may_be_nan(a) || may_be_nan(b)) {  // a NaN makes the float comparison false (NE: true), in any tier
    return static_cast<std::uint8_t>((compare_bits(d, numbers_of(a), numbers_of(b)) | kPredFloatMayFlip) & ~kPredStatDecided);
  }
  // Certain infinities and NaN (nonfinite.cpp): decided in every evaluation, or as unknown values.
  if (nonfinite(a) || nonfinite(b)) {
    const int decided = nonfinite_compare(d, a, b);
    // Decided with a value that is certain only but for an improbable event: the float
    // comparison may differ, improbably (a select on it keeps both branches' sound bounds).
    const std::uint8_t probably = probable(a) || probable(b) ? kPredFloatMayFlip | kPredStatDecided : 0;
    if (decided >= 0) return static_cast<std::uint8_t>((decided ? kPredValue : 0) | probably);
  }
  const Closed ca = close(a), cb = close(b);
  const Tri exact = tri_compare(d, ca.x, cb.x);
  const Tri floating = tri_compare(d, widened(ca), widened(cb));
  std::uint8_t bits = 0;
  if (exact == Tri::True) bits |= kPredValue;
  if (exact == Tri::Undecided) {
    bits |= kPredExactUndecided | kPredFloatMayFlip;
    const double ma = 0.5 * ca.x.lo + 0.5 * ca.x.hi, mb = 0.5 * cb.x.lo + 0.5 * cb.x.hi;
    if (tri_compare(d, {ma, ma}, {mb, mb}) == Tri::True) bits |= kPredValue;
    return bits;
  }
  if (floating == Tri::Undecided) {
    bits |= kPredFloatMayFlip;
    // Decided on the statistically widened operands: then the same way as the exact values.
    if (tri_compare(d, pwidened(ca), pwidened(cb)) != Tri::Undecided) bits |= kPredStatDecided;
  }
  return bits;
}

namespace {
// The open interval strictly between two closed ones, as floats rounded inward; empty
// (lo >= hi) when they overlap.
std::pair<float, float> gap_between(Iv a, Iv b) {
  if (a.lo > b.lo) std::swap(a, b);
  if (!(a.hi < b.lo) || !std::isfinite(a.hi) || !std::isfinite(b.lo)) return {0.0f, 0.0f};
  float lo = static_cast<float>(a.hi), hi = static_cast<float>(b.lo);
  if (static_cast<double>(lo) < a.hi) lo = std::nextafter(lo, std::numeric_limits<float>::infinity());
  if (static_cast<double>(hi) > b.lo) hi = std::nextafter(hi, -std::numeric_limits<float>::infinity());
  return lo < hi ? std::pair{lo, hi} : std::pair{0.0f, 0.0f};
}
}  // namespace

BoundScalar BoundDomain::select_widened(std::uint8_t pred, const Scalar& on_true, const Scalar& on_false) const {
  const bool value = pred & kPredValue;
  if (!(pred & (kPredFloatMayFlip | kPredExactUndecided))) return value ? on_true : on_false;
  if (nonfinite(on_true) || nonfinite(on_false)) {  // either branch: the same certain value, or unknown
    const Kind kt = kind(on_true);
    const bool same = kt != Kind::Finite && kt != Kind::Unknown && kt == kind(on_false);
    if (same) return certain(kt, kMayFlip, probable(on_true) || probable(on_false));
    // A comparison the statistical tier decides (the header's "probable non-finite values"): its
    // branch, but for an improbable event; a finite one keeps its statistical parts, and the sound
    // tier, for which the other branch stays possible, has no bound.
    if ((pred & kPredStatDecided) && !(pred & kPredExactUndecided)) {
      const Scalar& chosen = value ? on_true : on_false;
      if (nonfinite(chosen)) return certain(kind(chosen), kMayFlip, true);
      note_unbounded();
      const Closed c = close(chosen);
      if (!(c.perr < kInf)) return unknown(chosen.flags | kMayFlip);
      return or_nan(from_closed(closed_value(c.x, kInf, c.pdet, c.sigma, c.events, c.perr), kMayFlip), chosen);
    }
    // The exact comparison takes a branch while the float one may take the other, which is NaN in
    // every evaluation (a relu's gradient where the loss overflows): a float value there is NaN or
    // the chosen branch's (the header's "values that may be NaN"). Where that NaN is only probable,
    // the sound tier knows nothing and the statistical one keeps the chosen branch's bound.
    if (!(pred & kPredExactUndecided)) {
      const Scalar& chosen = value ? on_true : on_false;
      const Scalar& other = value ? on_false : on_true;
      if (!nonfinite(chosen) && kind(other) == Kind::NaN) {
        if (!probable(other)) {
          Scalar s = chosen;
          s.flags |= kMayFlip;
          return with_nan(s);
        }
        note_unbounded();
        const Closed c = close(chosen);
        if (c.perr < kInf) return with_nan(from_closed(closed_value(c.x, kInf, c.pdet, c.sigma, c.events, c.perr), kMayFlip));
      }
    }
    // Else unknown; NaN among its values where a branch is NaN (the float may take it).
    const Scalar u = unknown(on_true.flags | on_false.flags | kMayFlip);
    return kind(on_true) == Kind::NaN || kind(on_false) == Kind::NaN ? with_nan(u) : u;
  }
  const auto [t, f, source] = operands(on_true, on_false);
  const Closed& chosen = value ? t : f;
  const bool exact_undecided = pred & kPredExactUndecided;
  const bool likely_flip = !(pred & kPredStatDecided);
  const Iv x = exact_undecided ? hull(t.x, f.x) : chosen.x;
  const Iv rp = likely_flip ? hull(pwidened(t), pwidened(f)) : pwidened(chosen);
  Scalar s = result(x, hull(widened(t), widened(f)), rp, 0, on_true.flags | on_false.flags | kMayFlip, t.events + f.events);
  if (!likely_flip && !exact_undecided) s = with_source(with_sigma(s, chosen.pdet, chosen.sigma, 0), source);
  // Per element: a float value between the two branches is near neither.
  const auto [lo, hi] = gap_between(widened(t), widened(f));
  const auto [plo, phi] = likely_flip ? gap_between(pwidened(t), pwidened(f)) : std::pair{0.0f, 0.0f};
  if (lo < hi || plo < phi) {
    s.flags &= static_cast<std::uint8_t>(~kStatBytes);  // the gap takes the stat bytes; pdet + lambda sigma bounds the value
    s.st.lo = lo;
    s.st.hi = hi;
    s.st.plo = plo;
    s.st.phi = phi;
    s.flags |= kBranchGap;
  }
  return or_nan(s, on_true, on_false);
}

std::vector<BoundDomain::Membership> BoundDomain::window_selection(CompareDirection select,
                                                                   const std::vector<const Scalar*>& candidates) const {
  const std::size_t n = candidates.size();
  std::vector<Membership> out(n);
  if (n == 0) return out;
  // Every candidate the fold "selected = k unless select(selected, k)" may end on, when each
  // comparison is decided on the given intervals or may go either way.
  auto possible = [&](auto interval) {
    std::vector<std::size_t> now = {0};
    for (std::size_t k = 1; k < n; ++k) {
      std::vector<std::size_t> next;
      for (std::size_t c : now) {
        const Tri t = tri_compare(select, interval(c), interval(k));
        if (t != Tri::False && std::find(next.begin(), next.end(), c) == next.end()) next.push_back(c);
        if (t != Tri::True && std::find(next.begin(), next.end(), k) == next.end()) next.push_back(k);
      }
      now.swap(next);
    }
    return now;
  };
  const auto exact = possible([&](std::size_t i) { return enclosure(*candidates[i]); });
  const auto floating = possible([&](std::size_t i) { return widened(close(*candidates[i])); });
  const auto likely = possible([&](std::size_t i) { return pwidened(close(*candidates[i])); });
  for (auto c : exact) out[c].exact = exact.size() == 1 ? 1 : 2;
  for (auto c : floating) out[c].floating = floating.size() == 1 ? 1 : 2;
  for (auto c : likely) out[c].likely = likely.size() == 1 ? 1 : 2;
  // A candidate that may be NaN makes every float comparison with it false: any may end chosen.
  const bool nan = std::any_of(candidates.begin(), candidates.end(), [](const Scalar* c) { return may_be_nan(*c); });
  if (nan && n > 1)
    for (auto& m : out) m.floating = m.likely = 2;
  return out;
}

BoundScalar BoundDomain::scatter_term(const Scalar& source, Membership m) const {
  if (may_be_nan(source)) {  // its NaN where it may be chosen
    const Scalar t = scatter_term(numbers_of(source), m);
    return m.floating != 0 ? with_nan(t) : t;
  }
  if (nonfinite(source)) {  // never chosen: no term; surely chosen: the value
    if (m.exact == 0 && m.floating == 0) return from_double(0);
    if (m.exact == 1 && m.floating == 1) return source;
    // Else a select between the source and 0 on a comparison that may flip (a NaN source the
    // exact choice leaves out: 0 or NaN).
    std::uint8_t pred = kPredFloatMayFlip;
    if (m.exact == 1) pred |= kPredValue;
    if (m.exact == 2) pred |= kPredExactUndecided;
    if (m.exact != 2 && m.likely == m.exact) pred |= kPredStatDecided;
    return select_widened(pred, source, from_double(0));
  }
  std::int64_t shared;
  const Closed c = operand(source, shared);
  const Iv zero{0, 0};
  auto pick = [&](std::uint8_t member, Iv v) { return member == 0 ? zero : member == 1 ? v : hull(zero, v); };
  if (m.exact == 1 && m.floating == 1) return source;
  const std::uint8_t flags = source.flags | (m.exact == 2 || m.floating == 2 || m.exact != m.floating ? kMayFlip : 0);
  const Scalar s = result(pick(m.exact, c.x), pick(m.floating, widened(c)), pick(m.likely, pwidened(c)), 0, flags, c.events);
  return m.exact == 1 && m.likely == 1 ? with_source(with_sigma(s, c.pdet, c.sigma, 0), shared) : s;
}

}  // namespace shlo
