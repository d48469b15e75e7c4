// The sampled domain's rules (the model and its argument: sampled.hpp, docs/sampled_tier.md).
#include "interp/sampled/sampled.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <type_traits>
#include <unordered_map>

#include "interp/domain/ieee.hpp"
#include "interp/sampled/detail.hpp"
#include "num/rational.hpp"

namespace shlo {

using namespace sampled_detail;

namespace {

constexpr std::uint64_t kRestKey = 0x7c1f3a9e52d4b681ull;

/// The standard normal quantile (Acklam's rational approximation, relative error below 1.2e-9).
double normal_quantile(double p) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                 1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01,  -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00};
  constexpr double low = 0.02425;
  if (p < low) {
    const double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - low) {
    const double q = std::sqrt(-2 * std::log1p(-p));
    return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  const double q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}
/// Pass p's standard normal draw for `key`.
double draw(std::uint64_t key, int p) {
  const std::uint64_t h = mix(key ^ mix(static_cast<std::uint64_t>(p) * 0xd1b54a32d192ed03ull));
  return normal_quantile((static_cast<double>(h >> 11) + 0.5) * 0x1p-53);
}
/// Pass p's standard Cauchy draw for `key`: tan(pi (w - 1/2)), w uniform in (0, 1).
double cauchy(std::uint64_t key, int p) {
  const std::uint64_t h = mix(key ^ mix(static_cast<std::uint64_t>(p) * 0x9e6c63d0676a9a99ull + 0x5851f42d4c957f2dull));
  return tan_pi((static_cast<double>(h >> 11) + 0.5) * 0x1p-53 - 0.5);
}
/// Adds sd * z_p to every tangent.
void add_noise(SampledWide& s, double sd, std::uint64_t key) {
  if (sd == 0) return;
  for (int p = 0; p < P; ++p) s.tangent[static_cast<std::size_t>(p)] += sd * draw(key, p);
}
/// The stand-in, per pass, for the rest R of a value's error (what its tangents do not sample)
/// where a product or a kink takes it per pass: R's bound times a normal draw keyed by the
/// value, the same at every use of it (docs/sampled_tier.md, "The rest per pass").
std::array<double, kSampledPasses> rest_stand_in(const SampledWide& s, double rest_bound) {
  std::array<double, kSampledPasses> out{};
  if (rest_bound == 0) return out;
  const std::uint64_t key = mix(identity(s) ^ kRestKey);
  for (int p = 0; p < P; ++p) out[static_cast<std::size_t>(p)] = rest_bound * draw(key, p);
  return out;
}
/// r's coordinates = ca a's + cb b's.
void combine(SampledWide& r, const SampledWide& a, double ca, const SampledWide& b, double cb) {
  for (std::size_t k = 0; k < static_cast<std::size_t>(P); ++k) {
    r.tangent[k] = ca * a.tangent[k] + cb * b.tangent[k];
    r.sketch[k] = ca * a.sketch[k] + cb * b.sketch[k];
  }
  r.infinite = a.infinite || b.infinite;
}
/// An open sum's sure infinite or NaN term.
void add_nonfinite_term(SampledWide& acc, const SampledWide& t) {
  acc.nonfinite_terms |= std::isnan(t.value) ? 3 : t.value > 0 ? 1 : 2;
  acc.floor += t.floor;  // used only where every such term has one sign
  acc.log_floor = std::max(acc.log_floor, ln_floor(t));
  acc.exact_most += std::isnan(t.value) ? t.exact_most : std::exp(t.log_high);
}

}  // namespace

SampledRules::SampledRules(FloatProfile profile, SampledFactors rest)
    : profile_(std::move(profile)),
      rest_(rest),
      operand_unit_(profile_.reduced_operands() ? std::ldexp(1.0, -(profile_.operand_bits + 1)) : 0) {}

void SampledRules::add_source(Scalar& s, double bound, std::uint64_t key) const {
  if (bound == 0) return;
  if (!std::isfinite(bound)) {
    s.infinite = true;
    return;
  }
  const std::uint64_t k = mix(key ^ 0x2545f4914f6cdd1dull);
  for (int p = 0; p < P; ++p) s.sketch[static_cast<std::size_t>(p)] += bound * cauchy(k, p);
}

// Round to nearest is monotone: a rounding of a value at least x >= 0 is at least x (1 - unit),
// less what gradual underflow or a flush to zero may take, and never below 0.
double SampledRules::rounded_floor(double x, double unit) const {
  if (!std::isfinite(x)) return -kInf;
  const double tiny = profile_.flush_to_zero ? kSmallestNormal : 0x1p-149;
  return x >= 0 ? std::max(0.0, x * (1 - unit) - tiny) : x * (1 + unit) - tiny;
}

// ---- Values in ----------------------------------------------------------------------------

SampledWide SampledRules::from_rational(const Rational& q) const {
  // The float program holds the nearest float32: its distance is a source (not random).
  const double v = round_rational<double>(q);
  const double f = static_cast<double>(round_rational<float>(q));
  if (!std::isfinite(f)) return unbounded(v);
  Scalar s = exact_value(v);
  add_source(s, std::fabs(v - f) + kDouble * std::fabs(v), bits_of(v));
  if (v >= 0 && f >= 0) s.low = std::min(v, f) * (1 - kDouble);  // q itself within 2^-53 of v
  return s;
}

SampledWide SampledRules::from_literal(std::string_view text) const {
  const Literal lit = parse_literal(text);
  switch (lit.kind) {
    case Literal::Kind::Finite: return from_rational(lit.value);
    case Literal::Kind::PosInf: return exact_value(kInf);  // exact: max pool's padding
    case Literal::Kind::NegInf: return exact_value(-kInf);
    case Literal::Kind::NaN: return unbounded(std::numeric_limits<double>::quiet_NaN());
  }
  return exact_value(0);
}

SampledWide SampledRules::from_bits(std::uint64_t bits, FloatFormat f) const {
  const double v = F64Domain{}.from_bits(bits, f);
  if (std::isnan(v)) return unbounded(v);
  if (std::isinf(v)) return exact_value(v);
  if (f == FloatFormat::Binary32) {
    Scalar s = exact_value(v);
    if (v >= 0) s.low = v;
    return s;
  }
  return from_rational(rational_from_double(v));
}

SampledWide SampledRules::from_double(double x) const {
  if (std::isnan(x)) return unbounded(x);
  if (std::isinf(x)) return exact_value(x);
  return from_rational(rational_from_double(x));  // exact when x is a float32 (an f32 input)
}

std::string SampledRules::to_string(const Scalar& a) const {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.17g", a.value);
  return buf;
}

// ---- Roundings and sums -------------------------------------------------------------------

// r holds the op's exact result as a function of its perturbed operands, to first order in its
// coordinates, the rest already a source; the op's own rounding is added here.
SampledWide SampledRules::rounded(Scalar r, std::uint64_t key, double ulps) const {
  if (r.infinite || !std::isfinite(r.value)) return unbounded(r.value);
  const double rest_part = rest_.Q * sketch_rank(r);  // the order statistic once: bound_of's and the rounding's
  const double inherited = rest_.K * sigma_hat(r) + rest_part, magnitude = std::fabs(r.value) + inherited;
  // Beyond 2^128 (where round-to-nearest gives inf) by more than the bound and the allowance:
  // +-inf in every evaluation but for an improbable event.
  if (std::fabs(r.value) - inherited > 0x1p128 * (1 + (std::max(ulps, 0.5) + 1) * 0x1p-22))
    return sure_inf(r.value, std::fabs(r.value) - inherited, -kInf, std::log(std::fabs(r.value) + inherited));
  // Within its bound of the float range: +-inf where the rounding overflows, else a number as
  // the model has it (an alternative: sampled.hpp).
  if (magnitude * (1 + 2 * kUnit) > kFloatMax)
    r = with_alternatives(r, std::fabs(r.value) > inherited ? (r.value > 0 ? kAltPosInf : kAltNegInf) : kAltPosInf | kAltNegInf);
  double rest = (profile_.flush_to_zero ? 0x1p-126 : 0x1p-150) + kDouble * std::fabs(r.value);
  // d (v + e), d mean-zero within u given the past; a library function's error within its
  // allowance taken the same way (a model: see docs/sampled_tier.md).
  add_relative_rounding(r, std::max(ulps, 0.5) * kUlp, rest_part, key);
  add_source(r, rest, key);
  return r;
}

// A rounding d (v + e) of a value v whose error is e = T + R, with d mean-zero within `unit`
// given everything before it: all of it, the second-order d e included, is a martingale's
// increment (mean-zero given the past, within unit (|v| + |e|)), which is all Hoeffding-Azuma
// asks of a term in the tangents. Each pass adds unit z_p (v + t_p), its own sample of d (v + T),
// and d R in the same draw, R taken at its bound with the sign that widens the increment. (As a
// source instead, d R added linearly over every rounding downstream where it is independent:
// the sketch's scale is the worst case over the sources' signs.)
void SampledRules::add_relative_rounding(Scalar& r, double unit, double rest, std::uint64_t key) {
  const double sign = r.value < 0 ? -1 : 1;
  for (int p = 0; p < P; ++p) {
    const std::size_t k = static_cast<std::size_t>(p);
    const double carried = std::fabs(r.value) + sign * r.tangent[k];
    r.tangent[k] += unit * draw(key, p) * (carried + std::copysign(rest, carried));
  }
}

SampledWide SampledRules::operand_rounded(const Scalar& a) const {
  // The converted operand is a~ (1 + d) = a + e + d (a + e), d one draw per operand value (a
  // value is converted the same way at every use): a rounding as rounded() takes it.
  if (operand_unit_ == 0 || a.infinite || sure(a)) return a;  // an infinity or NaN converts to itself
  Scalar r = a;
  r.low = rounded_floor(a.low, operand_unit_);
  const std::uint64_t key = key_of(kOperand, a);
  add_relative_rounding(r, operand_unit_, rest_.Q * sketch_rank(a), key);
  add_source(r, 0x1p-150, key);
  return r;
}

// An open sum's alternatives are its terms' (an open sum holds their union): with a sure
// infinity among its terms, another infinity's sign decides between it and NaN; else +inf and
// -inf terms may meet (NaN).
SampledWide SampledRules::closed(const Scalar& s) const {
  if (!s.open) return s;
  const std::uint8_t terms = alternatives(s);
  const Scalar r = closed_numbers(without_alternatives(s));
  if (terms == 0) return r;
  if (sure(r)) {
    if (std::isnan(r.value)) return r;
    return with_alternatives(r, terms & (kAltNaN | (r.value > 0 ? kAltNegInf : kAltPosInf)) ? kAltNaN : 0);
  }
  const bool both = (terms & kAltPosInf) && (terms & kAltNegInf);
  return with_alternatives(r, static_cast<std::uint8_t>(terms | (both ? kAltNaN : 0)));
}

SampledWide SampledRules::closed_numbers(const Scalar& s) const {
  Scalar result = s;
  result.open = false;
  result.terms = 0;
  result.nonfinite_terms = 0;
  result.floor = 0;
  result.log_floor = -kInf;
  result.log_high = kInf;
  result.at_least_zero = false;
  result.low = -kInf;
  result.low_terms = 0;
  result.magnitude = result.squares = result.sources = 0;
  // The sure terms' exact bounds and the finite terms' magnitudes bound the exact sum.
  const double exact_most = s.infinite || s.at_least_zero ? kInf : s.exact_most + s.magnitude;
  result.exact_most = kInf;
  if (s.nonfinite_terms == 3) return sure_nan_within(exact_most);  // a NaN term, or +inf and -inf: NaN in any order
  if (s.infinite || !std::isfinite(s.magnitude) || !std::isfinite(s.value)) return unbounded(s.value);
  // Terms that are at least 0 or +inf (an exp that may overflow) leave a sum with a sure +inf term
  // +inf, and any other unbounded.
  if (s.at_least_zero && s.nonfinite_terms != 1) return unbounded(s.value);
  const double n = s.terms;
  // Every partial sum, in any order, lies within the magnitude widened by the additions' own
  // errors (gamma_(n-1) of it): beyond the float range, the sum may overflow.
  const double gamma = n > 1 ? (n - 1) * kUnit / (1 - (n - 1) * kUnit) : 0;
  const double partial = s.magnitude * (1 + gamma);
  // Beyond the float range, a partial sum may overflow: then the sum is +-inf or NaN (an
  // alternative: sampled.hpp), else a number as below. Terms that are all at least 0 overflow to
  // +inf only.
  const bool all_nonnegative = s.terms > 0 && s.low_terms == s.terms;
  const std::uint8_t overflow = !(partial > kFloatMax) ? 0 : all_nonnegative ? kAltPosInf : kAltPosInf | kAltNegInf | kAltNaN;
  // Sure infinities of one sign and finite terms: that infinity in any order (NaN where the
  // finite part may overflow to the other sign).
  if (s.nonfinite_terms != 0) {
    const double sign = s.nonfinite_terms == 1 ? 1 : -1;
    // Past the double range, the floor by its logarithm: e^log_floor - partial (unknown where
    // the partial sums may reach it).
    double floor = s.floor - partial, log_floor = -kInf;
    if (!std::isfinite(s.floor)) {
      const double share = partial * std::exp(-s.log_floor);
      if (share < 1) log_floor = s.log_floor + std::log1p(-share);
      else floor = 0;
    }
    return with_alternatives(sure_inf(sign, floor, log_floor, std::log(exact_most)), overflow & (sign > 0 ? kAltNegInf : kAltPosInf) ? kAltNaN : 0);
  }
  result = with_alternatives(result, overflow);
  // Each addition's rounding is d_k times a computed partial sum, each product's d_i times the
  // computed product; each d is mean-zero given what came before, so every such rounding, second
  // order included, is a martingale's increment, within u times what it rounds (rounded() above):
  // a product within |p_i| + its bound (`squares` sums their squares), a partial sum within the
  // exact terms' magnitudes A, their errors M (their summed bounds), and the earlier roundings',
  // a martingale whose largest value over the sum is within K times its deviation D but for an
  // event (Doob). Together a martingale of variance proxy D^2 = (n - 1) u^2 (A + M + K D)^2 +
  // u^2 squares, in any order: one normal draw of standard deviation D in the tangents.
  const double a = n > 1 ? kUnit * std::sqrt(n - 1) : 0, b2 = kUnit * kUnit * s.squares, c = s.magnitude;
  const double aK = a * rest_.K;
  if (!(aK < 0.5)) return unbounded(s.value);
  // D^2 (1 - a^2 K^2) - 2 a^2 c K D - (a^2 c^2 + b^2) = 0, its positive root.
  const double deviation = (a * a * c * rest_.K + std::sqrt(std::pow(a * a * c * rest_.K, 2) + (1 - aK * aK) * (a * a * c * c + b2))) /
                           (1 - aK * aK) * (1 + 0x1p-40);
  const std::uint64_t key = mix(kSumClose ^ mix(identity(s) ^ mix(bits_of(s.magnitude))));
  add_noise(result, deviation, key);
  // The terms' own sources (one G for all: the sum's), the double run's additions, underflow.
  add_source(result, s.sources + (n > 1 ? (n - 1) * 0x1p-53 * s.magnitude : 0) + 2 * n * (profile_.flush_to_zero ? 0x1p-126 : 0x1p-150),
             key);
  // Every term with a floor of at least 0: the exact sum is at least theirs, the float one (each
  // partial sum a sum of nonnegative floats) at least that less gamma_(n-1) of it.
  if (s.terms > 0 && s.low_terms == s.terms) result.low = rounded_floor(s.low, gamma);
  return result;
}

// acc + a * b as an open sum's term: a and b closed (and converted, under tf32 / bf16).
// a~ b~ - a b = a e_b + b e_a + e_a e_b: the first two in the coordinates, the product of errors
// split as mul's (second_order).
void SampledRules::add_product(Scalar& acc, const Operand& a, const Operand& b) const {
  if (alternatives(a.s) | alternatives(b.s)) acc = with_alternatives(acc, pair_alternatives('*', a.s, b.s).bits);
  if (sure(a.s) || sure(b.s)) {  // an infinity or NaN term (mul's rule), or unbounded
    const Scalar t = nonfinite_binary('*', a.s, b.s);
    acc.open = true;
    if (sure(t)) add_nonfinite_term(acc, t);
    else acc.infinite = true;
    return;
  }
  const double p = a.s.value * b.s.value;
  const double inherited = std::fabs(a.s.value) * b.bound + std::fabs(b.s.value) * a.bound + a.bound * b.bound;
  if (p == 0 && inherited == 0) return;  // an exact zero (padding): not a term
  for (int pass = 0; pass < P; ++pass) {
    const std::size_t k = static_cast<std::size_t>(pass);
    acc.tangent[k] += a.s.value * b.s.tangent[k] + b.s.value * a.s.tangent[k] + second_order(a, b, pass);
    acc.sketch[k] += a.s.value * b.s.sketch[k] + b.s.value * a.s.sketch[k];
  }
  acc.infinite = acc.infinite || a.s.infinite || b.s.infinite;
  acc.value += p;
  acc.open = true;
  acc.terms += 1;
  acc.magnitude += std::fabs(p) + inherited;  // |the float product| at most
  acc.squares += (std::fabs(p) + inherited) * (std::fabs(p) + inherited);
  acc.sources += second_order_rest(a, b);
}

SampledRules::Operand SampledRules::operand(const Scalar& closed_value) const {
  Operand o;
  o.s = closed_value;
  o = with_parts(o);
  // bound_of(s), from the parts just taken (each an order statistic or a sum of 64 squares).
  o.bound = o.s.infinite ? kInf : !std::isfinite(o.s.value) ? 0 : o.first + o.rest;
  return o;
}

SampledRules::Operand SampledRules::with_parts(Operand o) const {
  o.first = rest_.K * sigma_hat(o.s);
  o.rest = rest_.Q * sketch_rank(o.s);
  o.stand_in = rest_stand_in(o.s, o.rest);
  return o;
}

// e_a e_b with e = T + R (T the tangents' part, R the rest): T_a T_b + T_a R_b + R_a T_b per
// pass, R by its stand-in (rest_stand_in): their mean is the errors' covariance, a bias a bound per
// product would add linearly, and the T R terms are mean-zero under the Gaussian model (R fixed,
// or even in the errors) with a scale sigma R that a source would add linearly downstream.
double SampledRules::second_order(const Operand& a, const Operand& b, int p) {
  const std::size_t k = static_cast<std::size_t>(p);
  return a.s.tangent[k] * (b.s.tangent[k] + b.stand_in[k]) + b.s.tangent[k] * a.stand_in[k];
}

// R_a R_b, what second_order leaves: a source.
double SampledRules::second_order_rest(const Operand& a, const Operand& b) { return a.rest * b.rest; }

namespace {
// acc as an open sum (a closed value becomes its first term).
SampledWide as_open(const SampledWide& acc, double bound) {
  if (acc.open) return acc;
  SampledWide s = acc;
  s.open = true;
  s.exact_most = 0;  // from here, the sure terms' exact bounds summed
  if (sure(acc)) {  // an infinite or NaN first term
    s.value = 0;
    s.terms = 0;
    s.magnitude = 0;
    s.floor = 0;
    s.log_floor = -kInf;
    s.log_high = kInf;
    add_nonfinite_term(s, acc);
    return s;
  }
  if (acc.infinite && acc.at_least_zero) {  // an exp that may overflow, its numbers unbounded: as accumulate takes it
    s.infinite = false;
    s.value = 0;
    s.terms = 0;
    s.magnitude = 0;
    s.log_high = kInf;
    return s;
  }
  s.terms = acc.value != 0 || bound != 0 ? 1 : 0;
  s.magnitude = std::fabs(acc.value) + bound;
  s.low_terms = s.terms == 1 && acc.low >= 0 ? 1 : 0;
  if (s.low_terms == 0) s.low = 0;  // from here, the sum of its terms' floors
  return s;
}
}  // namespace

double SampledRules::converted_bound(const Scalar& a) const {
  // |e + d a + d e| with |d| <= the unit: no statistical factor on the conversion's part.
  const double b = bound_of(a);
  return operand_unit_ == 0 || sure(a) ? b : b * (1 + operand_unit_) + operand_unit_ * std::fabs(a.value);
}

SampledRules::Operand SampledRules::converted(const Scalar& a) const {
  Operand o;
  o.bound = converted_bound(a);
  o.s = operand_rounded(a);
  return with_parts(o);
}

void SampledRules::mac(Scalar& acc, const Scalar& a, const Scalar& b) const {
  const Operand ca = converted(closed(a)), cb = converted(closed(b));
  acc = as_open(acc, acc.open ? 0 : bound_of(acc));
  add_product(acc, ca, cb);
}


// Each operand element converted (tf32 / bf16) and bounded once per tile, not once per product,
// and equal elements once (a convolution's patches hold each input element at up to a window's
// positions, and its padding's zeros): the conversion is a function of the element. At most
// `budget` elements are taken at a time (a converted operand is about 1.6 KB: a whole 6272 x 512
// weight at once took 5 GB, once per thread). Every element of C still takes its products in
// increasing k, unpacked once and packed once, and draws are keyed by values, not by order or
// place: neither the tiles nor the sharing change any result.
template <class S>
void SampledRules::matmul_tiled(const S* A, const S* B, S* C, std::int64_t M, std::int64_t K, std::int64_t N,
                                std::int64_t budget) const {
  if (M <= 0 || N <= 0) return;
  const std::int64_t k = std::max<std::int64_t>(K, 1), lines = std::max<std::int64_t>(budget / k, 2);
  // All of A's rows with the rest for B's columns where they fit (then B is converted once),
  // else the same with the sides swapped, else half the budget each (A's tile converted once, B's
  // once per tile of rows).
  std::int64_t rows = 0, columns = 0;
  if (M < lines) rows = M, columns = std::min(N, lines - M);
  else if (N < lines) columns = N, rows = std::min(M, lines - N);
  else rows = columns = lines / 2;
  const auto u = [](std::int64_t i) { return static_cast<std::size_t>(i); };
  // One side's tile: its distinct elements converted (pool), and each place's index into it.
  struct Tile {
    std::vector<Operand> pool;
    std::vector<const S*> sources;
    std::vector<std::uint32_t> at;
    std::unordered_map<std::uint64_t, std::uint32_t> seen;
    void clear() {
      pool.clear();
      sources.clear();
      at.clear();
      seen.clear();
    }
  };
  auto take = [&](Tile& t, const S& x) {
    const std::uint64_t h = content_hash(x);
    if (const auto it = t.seen.find(h); it != t.seen.end() && same_content(*t.sources[it->second], x)) {
      t.at.push_back(it->second);
      return;
    }
    const auto i = static_cast<std::uint32_t>(t.pool.size());
    t.pool.push_back(converted(closed(unpack(x))));
    t.sources.push_back(&x);
    t.seen.emplace(h, i);  // on a collision the first stays: the other is converted apart
    t.at.push_back(i);
  };
  Tile a, b;
  for (std::int64_t m0 = 0; m0 < M; m0 += rows) {
    const std::int64_t m1 = std::min(M, m0 + rows);
    a.clear();
    for (std::int64_t i = m0 * K; i < m1 * K; ++i) take(a, A[i]);
    for (std::int64_t n0 = 0; n0 < N; n0 += columns) {
      const std::int64_t n1 = std::min(N, n0 + columns), width = n1 - n0;
      b.clear();
      for (std::int64_t kk = 0; kk < K; ++kk)
        for (std::int64_t n = n0; n < n1; ++n) take(b, B[kk * N + n]);
      for (std::int64_t m = m0; m < m1; ++m)
        for (std::int64_t n = n0; n < n1; ++n) {
          S& out = C[m * N + n];
          Scalar c = unpack(out);
          c = as_open(c, c.open ? 0 : bound_of(c));
          for (std::int64_t kk = 0; kk < K; ++kk)
            add_product(c, a.pool[a.at[u((m - m0) * K + kk)]], b.pool[b.at[u(kk * width + n - n0)]]);
          if constexpr (std::is_same_v<S, SampledWide>) out = c;
          else out = pack(c);
        }
    }
  }
}
template void SampledRules::matmul_tiled(const SampledWide*, const SampledWide*, SampledWide*, std::int64_t, std::int64_t,
                                         std::int64_t, std::int64_t) const;
template void SampledRules::matmul_tiled(const SampledScalar*, const SampledScalar*, SampledScalar*, std::int64_t,
                                         std::int64_t, std::int64_t, std::int64_t) const;

SampledWide SampledRules::accumulate(const Scalar& acc_in, const Scalar& x_in) const {
  const Scalar x = closed(x_in);
  Scalar acc = as_open(acc_in, acc_in.open ? 0 : bound_of(acc_in));
  acc = with_alternatives(acc, alternatives(x));
  if (sure(x)) {
    add_nonfinite_term(acc, x);
    return acc;
  }
  const double bx = bound_of(x);
  if (x.infinite && x.at_least_zero) {
    acc.at_least_zero = true;
    return acc;
  }
  if (!std::isfinite(bx)) {
    acc.infinite = true;  // unbounded, unless a NaN term decides the sum
    return acc;
  }
  if (x.value == 0 && bx == 0) return acc;
  for (std::size_t k = 0; k < static_cast<std::size_t>(P); ++k) {
    acc.tangent[k] += x.tangent[k];
    acc.sketch[k] += x.sketch[k];
  }
  acc.value += x.value;
  acc.terms += 1;
  acc.magnitude += std::fabs(x.value) + bx;
  if (x.low >= 0) {
    acc.low += x.low;
    acc.low_terms += 1;
  }
  return acc;
}

// ---- Elementwise ops ----------------------------------------------------------------------

SampledWide SampledRules::add(const Scalar& a_in, const Scalar& b_in) const {
  const Scalar a = closed(a_in), b = closed(b_in);
  if (alternatives(a) | alternatives(b)) return binary_alternatives('+', a, b, add(without_alternatives(a), without_alternatives(b)));
  if (sure(a) || sure(b)) return nonfinite_binary('+', a, b);
  Scalar r;
  r.value = a.value + b.value;
  combine(r, a, 1, b, 1);
  r = rounded(r, key_of(kAdd, a, b), 0.5);
  if (a.low >= 0 && b.low >= 0) r.low = rounded_floor(a.low + b.low, kUnit);  // a variance plus its epsilon
  return r;
}

SampledWide SampledRules::sub(const Scalar& a_in, const Scalar& b_in) const {
  const Scalar a = closed(a_in), b = closed(b_in);
  if (alternatives(a) | alternatives(b)) return binary_alternatives('-', a, b, sub(without_alternatives(a), without_alternatives(b)));
  if (sure(a) || sure(b)) return nonfinite_binary('-', a, b);
  Scalar r;
  r.value = a.value - b.value;
  combine(r, a, 1, b, -1);
  return rounded(r, key_of(kSub, a, b), 0.5);
}

SampledWide SampledRules::mul(const Scalar& a_in, const Scalar& b_in) const {
  const Scalar ca = closed(a_in), cb = closed(b_in);  // an open sum's closing draws its noise: once
  if (alternatives(ca) | alternatives(cb)) return binary_alternatives('*', ca, cb, mul(without_alternatives(ca), without_alternatives(cb)));
  if (sure(ca) || sure(cb)) return nonfinite_binary('*', ca, cb);
  const Operand a = operand(ca), b = operand(cb);
  Scalar r;
  r.value = a.s.value * b.s.value;
  combine(r, b.s, a.s.value, a.s, b.s.value);
  for (int p = 0; p < P; ++p) r.tangent[static_cast<std::size_t>(p)] += second_order(a, b, p);
  add_source(r, second_order_rest(a, b), key_of(kMul, a.s, b.s));
  r = rounded(r, key_of(kMul, a.s, b.s), 0.5);
  // A square (the same value twice: same number, same coordinates) is at least 0, float and
  // exact; a product of two values with floors of at least 0, at least theirs.
  const bool square = a.s.value == b.s.value && same_content(ca, cb);
  const double both = a.s.low >= 0 && b.s.low >= 0 ? rounded_floor(a.s.low * b.s.low, kUnit) : -kInf;
  r.low = std::max(both, square ? 0.0 : -kInf);
  return r;
}

SampledWide SampledRules::div(const Scalar& a_in, const Scalar& b_in) const {
  const Scalar a = closed(a_in), b = closed(b_in);
  if (alternatives(a) | alternatives(b)) return binary_alternatives('/', a, b, div(without_alternatives(a), without_alternatives(b)));
  if (sure(a) || sure(b)) return nonfinite_binary('/', a, b);
  const double ba = bound_of(a), bb = bound_of(b), d = std::fabs(b.value);
  if (!(d > bb)) return b.low > 0 && b.value > 0 && std::isfinite(ba) ? positive_div(a, b) : unbounded(a.value / b.value);
  Scalar r;
  const double q = a.value / b.value;
  r.value = q;
  combine(r, a, 1 / b.value, b, -q / b.value);
  // (a + e_a)/(b + e_b) - a/b = (e_a - q e_b)/b - (e_a - q e_b) e_b / (b (b + e_b)).
  add_source(r, (ba + std::fabs(q) * bb) * bb / (d * (d - bb)), key_of(kDiv, a, b));
  r = rounded(r, key_of(kDiv, a, b), profile_.div);
  if (a.low >= 0 && b.value > 0) r.low = rounded_floor(a.low / (b.value + bb), (profile_.div + 1) * kUlp);
  return r;
}

SampledWide SampledRules::normalized_div(const Scalar& a, const Scalar& b, bool exp_terms) const {
  Scalar r = div(a, b);
  if (!exp_terms) return r;
  // A positive term over a sum of positive terms that holds it: the exact quotient is in [0, 1].
  if (sure_nan(r)) r.exact_most = std::min(r.exact_most, 1.0);
  if (sure(r) || !(r.infinite || bound_of(r) > 1)) return r;
  // So is the float one, or NaN (inf / inf, or 0 / 0 where every exp underflows): each float
  // partial sum of terms at least 0 is at least each term in it (rounding is monotone), and the
  // quotient of a number by one at least as large rounds to at most 1. Where the rules give no
  // tighter bound (an exp that may overflow in the row, bf16 logits' errors of tens), the
  // element is within 1 of the exact value: a source, NaN one of its values.
  Scalar c = exact_value(std::isfinite(r.value) ? std::clamp(r.value, 0.0, 1.0) : 0.5);
  add_source(c, 1, key_of(kDiv, a, b) + 7);
  c.low = 0;
  return with_alternatives(c, kAltNaN);
}

// a / b for a positive divisor whose bound reaches 0 but whose floor does not (sampled.hpp,
// "Floors"): each pass exactly, (a + t_a) / (b + t_b) - a / b = (t_a - q t_b) / (b + t_b);
// the rests R (the sketch parts) to first order, (R_a - q R_b) / b, and what that leaves out as a
// source: the rests' whole effect (R_a - q' R_b) / (b + e_b), q' = (a + T_a) / (b + T_b), is
// within (R_a + |q'| R_b) / low, |q'| within (|a| + B_a) / low, and the first-order part within
// (R_a + |q| R_b) / b. A divisor's sample below its floor is taken at the floor (as at_least).
SampledWide SampledRules::positive_div(const Scalar& a, const Scalar& b) const {
  const double q = a.value / b.value, low = b.low;  // low > 0 (div's condition)
  Scalar r;
  r.value = q;
  for (std::size_t k = 0; k < static_cast<std::size_t>(P); ++k) {
    const double t_b = std::max(b.tangent[k], low - b.value), divisor = b.value + t_b;
    r.tangent[k] = (a.tangent[k] - q * t_b) / divisor;
    r.sketch[k] = (a.sketch[k] - q * b.sketch[k]) / b.value;
  }
  const double rest_a = rest_.Q * sketch_rank(a), rest_b = rest_.Q * sketch_rank(b);
  const double q_most = (std::fabs(a.value) + bound_of(a)) / low;
  add_source(r, (rest_a + q_most * rest_b) / low + (rest_a + std::fabs(q) * rest_b) / b.value, key_of(kDiv, a, b) + 1);
  r = rounded(r, key_of(kDiv, a, b), profile_.div);
  // Its floor: a's over b's largest value (b + B_b), the bound's event.
  if (a.low >= 0) r.low = rounded_floor(a.low / (b.value + bound_of(b)), (profile_.div + 1) * kUlp);
  return r;
}

SampledWide SampledRules::neg(const Scalar& a_in) const {
  Scalar r = closed(a_in);
  if (r.infinite) return unbounded(-r.value);
  r.value = -r.value;
  r.may_inf = static_cast<std::uint8_t>((r.may_inf & 1) << 1 | (r.may_inf & 2) >> 1);  // +inf and -inf swap
  r.low = -kInf;
  for (double& t : r.tangent) t = -t;
  for (double& t : r.sketch) t = -t;
  return r;
}

SampledWide SampledRules::abs(const Scalar& a_in) const {
  if (const Scalar c = closed(a_in); alternatives(c)) return unary_alternatives(c, abs(without_alternatives(c)), kInf, kInf, key_of(kAbs, c));
  // |x| = max(x, -x): the reference's sign picks the winner (so no coordinate depends on the
  // passes); near 0 the float's may differ, a kink at distance 2 |a|.
  const Scalar a = closed(a_in);
  if (sure(a)) {
    Scalar r = a;
    r.value = std::fabs(a.value);
    return r;
  }
  Scalar r = a.value < 0 ? neg(a) : a;
  r.low = std::max(r.low, 0.0);
  if (std::fabs(a.value) > bound_of(a)) return r;
  Scalar d;  // the loser's error minus the winner's: -2 sign(a) e_a
  combine(d, r, -2, r, 0);
  return near_kink(r, d, 2 * std::fabs(a.value), 1);
}

bool SampledRules::decided(const Scalar& a, const Scalar& b) const {
  if (a.infinite || b.infinite) return false;
  // A sure NaN makes every float comparison false (NE true); two sure values compare as they are.
  if (sure_nan(a) || sure_nan(b) || (sure(a) && sure(b))) return true;
  if (a.value == b.value) return false;
  if (std::isinf(a.value) || std::isinf(b.value)) return bound_of(a) == 0 || bound_of(b) == 0;
  Scalar d;
  combine(d, a, 1, b, -1);  // the difference's own coordinates: errors that cancel in it do not count
  return std::fabs(a.value - b.value) > bound_of(d);
}

SampledWide SampledRules::pick(const Scalar& a_in, const Scalar& b_in, bool larger) const {
  const Scalar a = closed(a_in), b = closed(b_in);
  if (alternatives(a) | alternatives(b)) {
    // The infinity that wins (+inf for a max) and NaN stay alternatives; where an operand may be
    // the one that loses, the float is the other's: its number (a source) or its sure value.
    Scalar r = pick(without_alternatives(a), without_alternatives(b), larger);
    const std::uint8_t wins = larger ? kAltPosInf : kAltNegInf, loses = larger ? kAltNegInf : kAltPosInf;
    std::uint8_t alt = (alternatives(a) | alternatives(b)) & (kAltNaN | wins);
    for (const Scalar* x : {&a, &b}) {
      if (!(alternatives(*x) & loses)) continue;
      const Scalar& other = x == &a ? b : a;
      if (sure(other)) alt |= alternative_of(other.value);
      else r = with_number(r, other.value, bound_of(other), key_of(kSelect, r, other));
    }
    return with_alternatives(r, alt);
  }
  // IEEE maximum and minimum propagate NaN; the exact max or min is within the larger bound.
  if (sure_nan(a) || sure_nan(b)) return sure_nan_within(std::max(exact_bound_of(a), exact_bound_of(b)));
  const bool a_wins = larger ? a.value >= b.value : a.value <= b.value;
  if (decided(a, b)) {
    Scalar r = a_wins ? a : b;
    if (larger) r.low = std::max(a.low, b.low);  // a max is at least each operand's float
    return r;
  }
  if (a.infinite || b.infinite) return unbounded(a_wins ? a.value : b.value);
  const Scalar& winner = a_wins ? a : b;
  const Scalar& loser = a_wins ? b : a;
  Scalar d;  // the loser's error minus the winner's, as coordinates
  combine(d, loser, 1, winner, -1);
  Scalar r = near_kink(winner, d, std::fabs(a.value - b.value), larger ? 1 : -1);
  // A max is at least each operand's float (a relu's: 0), a min at least the lesser floor.
  r.low = larger ? std::max(a.low, b.low) : std::min(a.low, b.low);
  return r;
}

// The float result of a max (s = 1) or min (s = -1) near its kink, g its operands' distance:
// its error is the winner's e_w plus s h(s (e_l - e_w)), h(x) = max(0, x - g), which is not
// linear. Each pass takes its own sample of the difference through h, its tangent and its rest's
// stand-in (rest_stand_in): a channel's shared error moves all its elements' kinks in the same
// passes, and no bound per element near a kink is added linearly downstream. A flip rarer than
// the passes can show is not covered (docs/sampled_tier.md, "What the model leaves open").
SampledWide SampledRules::near_kink(const Scalar& winner, const Scalar& difference, double g, double s) const {
  Scalar r = winner;
  const auto rest = rest_stand_in(difference, rest_.Q * sketch_rank(difference));
  for (std::size_t k = 0; k < static_cast<std::size_t>(P); ++k)
    r.tangent[k] += s * std::max(0.0, s * (difference.tangent[k] + rest[k]) - g);
  return r;
}

SampledWide SampledRules::pi() const {
  Scalar s = exact_value(M_PI);
  add_source(s, kUnit * M_PI + kDouble * M_PI, kPi);
  return s;
}

SampledWide SampledRules::map_monotone(const Scalar&, const RationalMap&) const {
  throw DomainError("sampled: a rounding to another float type (convertF) has no error model in the sampled tier");
}

// ---- Comparisons --------------------------------------------------------------------------

Tri SampledRules::compare(CompareDirection d, const Scalar& a_in, const Scalar& b_in) const {
  const Scalar a = closed(a_in), b = closed(b_in);
  if (!decided(a, b) || !alternatives_agree(d, a, b)) return Tri::Undecided;
  return holds(d, a.value, b.value) ? Tri::True : Tri::False;
}

std::uint8_t SampledRules::compare_bits(CompareDirection d, const Scalar& a_in, const Scalar& b_in) const {
  const Scalar a = closed(a_in), b = closed(b_in);
  const std::uint8_t value = holds(d, a.value, b.value) ? kPredValue : 0;
  // An operand that may be NaN or an infinity may make the float comparison go the other way.
  return decided(a, b) && alternatives_agree(d, a, b) ? value : static_cast<std::uint8_t>(value | kPredFloatMayFlip);
}

SampledWide SampledRules::select_widened(std::uint8_t pred, const Scalar& on_true, const Scalar& on_false) const {
  const Scalar& chosen_in = pred & kPredValue ? on_true : on_false;
  if (!(pred & (kPredFloatMayFlip | kPredExactUndecided))) return chosen_in;
  const Scalar chosen = closed(chosen_in), other = closed(pred & kPredValue ? on_false : on_true);
  // A branch that is an infinity or NaN in every evaluation (a relu's gradient after an
  // overflow): the float value is that or the other branch's. Where the reference chooses the
  // sure one, the exact value is its exact counterpart, within its exact bound of 0: the other
  // branch's numbers then carry that and their own distance from 0 as a source (none known:
  // unbounded, the sure value an alternative).
  if (sure(other)) return with_alternatives(chosen, alternative_of(other.value) | alternatives(other));
  if (sure(chosen)) {
    const std::uint8_t alt = alternative_of(chosen.value) | alternatives(chosen);
    const double distance = exact_bound_of(chosen) + std::fabs(other.value) + bound_of(other);
    if (!(distance < kInf)) return with_alternatives(unbounded(other.value), alt | alternatives(other));
    Scalar r = other;
    r.low = -kInf;
    add_source(r, distance, key_of(kSelect, other) + 3);
    return with_alternatives(r, alt);
  }
  // The float run may take the other branch: its error is then other~ - chosen, within
  // |other - chosen| + B_other of 0, so within that plus B_chosen of the chosen one's own.
  Scalar r = chosen;
  r = with_alternatives(r, alternatives(other));
  r.low = std::min(chosen.low, other.low);  // either branch's float
  add_source(r, std::fabs(other.value - chosen.value) + bound_of(other) + bound_of(chosen), key_of(kSelect, chosen, other));
  return r;
}

std::vector<SampledRules::Membership> SampledRules::window_selection(CompareDirection select,
                                                                       const std::vector<const Scalar*>& candidates) const {
  // The reference's choice as StableHLO makes it: keep the current one while select(current,
  // candidate) holds; every candidate whose comparison with it is not decided may be the
  // float run's.
  std::vector<Scalar> c;
  c.reserve(candidates.size());
  for (const Scalar* s : candidates) c.push_back(closed(*s));
  std::vector<Membership> out(c.size());
  if (c.empty()) return out;
  std::size_t chosen = 0;
  for (std::size_t k = 1; k < c.size(); ++k)
    if (!holds(select, c[chosen].value, c[k].value)) chosen = k;
  // A candidate that may be NaN or an infinity may win or lose any float comparison: any may be chosen.
  const bool nan = std::any_of(c.begin(), c.end(), [](const Scalar& x) { return alternatives(x) != 0; });
  bool alone = true;
  for (std::size_t k = 0; k < c.size(); ++k)
    if (k != chosen && (nan || !decided(c[chosen], c[k]))) {
      out[k].floating = 1;
      alone = false;
    }
  out[chosen] = {1, 1, static_cast<std::uint8_t>(alone ? 1 : 0)};
  return out;
}

SampledWide SampledRules::scatter_term(const Scalar& source_in, Membership m) const {
  const Scalar s = closed(source_in);
  if (m.exact && m.likely) return s;  // surely chosen in both runs
  // An infinity or NaN that the float run may choose: the float term is that value (an
  // alternative) or nothing, 0 where the reference does not choose it; where it does, the exact
  // term is the source's exact counterpart, a number every evaluation overflows: within its
  // exact bound of the float's 0, a source (none known: unbounded numbers).
  if (sure(s)) {
    if (!m.exact) return with_alternatives(exact_value(0), alternative_of(s.value));
    const double most = exact_bound_of(s);
    Scalar r = exact_value(0);
    if (!(most < kInf)) r = unbounded(0);
    else add_source(r, most, key_of(kScatter, s) + 2);
    return with_alternatives(r, alternative_of(s.value));
  }
  const double bs = bound_of(s);
  if (!std::isfinite(bs)) return unbounded(m.exact ? s.value : 0);
  // Chosen in one run and maybe not in the other: the float term is the source or nothing.
  Scalar r = m.exact ? s : exact_value(0);
  r = with_alternatives(r, alternatives(s));
  r.low = std::min(s.low, 0.0);
  add_source(r, std::fabs(s.value) + (m.exact ? 2 : 1) * bs, key_of(kScatter, s) + m.exact);
  return r;
}

}  // namespace shlo
