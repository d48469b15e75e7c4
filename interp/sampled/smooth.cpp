// The sampled domain's smooth functions (sampled.hpp; docs/sampled_tier.md, "What each value
// carries" and "Floors"): exp, log, sqrt, rsqrt, tanh, logistic, each pass's sample taken through
// the function exactly, the rest of the error through its slope.
#include <algorithm>
#include <cmath>

#include "interp/sampled/detail.hpp"
#include "interp/sampled/sampled.hpp"

namespace shlo {

using namespace sampled_detail;

// f(a) for a smooth f: value f(a), slope f'(a), change(v, t) = f(v + t) - f(v) computed without
// cancellation, curvature a bound on |f''| over a's bound, ulps the profile's allowance. Each pass
// takes its own tangent sample through f (as a product of two errors does: the curvature's mean,
// a bias, is in the passes; as a bound per value it entered linearly every element downstream).
// The rest R of a's error (its sketch part) goes through f' (a): f(v + t + R) -
// f(v + t) - f'(v) R is within curvature (|t| + |R|) |R|, |t| within K sigma_hat, a source; and
// within (steepest + |f'(v)|) |R|, steepest the largest |f'| over a's range (a root near its
// floor: the curvature there makes the first bound far the wider), and within width + |f'(v)| |R|,
// width the spread of f's values over all reals or over a's range (tanh: 2; rsqrt above a floor:
// floor^-1/2), for a rest as wide as the value itself.
SampledWide SampledRules::smooth(const Scalar& a, double value, double slope, double curvature, Change change, double ulps,
                                    std::uint64_t op, double steepest, double width) const {
  if (!std::isfinite(value) || !std::isfinite(curvature) || a.infinite) return unbounded(value);
  const double first = rest_.K * sigma_hat(a), rest = rest_.Q * sketch_rank(a);
  Scalar r;
  r.value = value;
  const double linear = std::fabs(slope) * rest;
  const double remainder = std::min({curvature * (first + rest) * rest, (steepest + std::fabs(slope)) * rest, width + linear});
  // A rest that moves f across more than its spread: f(v + t + R) - f(v + t) is within the width
  // itself, a source, and the rest's first-order part (the sketch through f'(v)) is dropped.
  const bool by_width = width < linear + remainder;
  for (std::size_t k = 0; k < static_cast<std::size_t>(P); ++k) {
    const double c = change(a.value, a.tangent[k]);
    r.tangent[k] = std::isfinite(c) ? c : slope * a.tangent[k];  // beyond f's domain: past every bound
    r.sketch[k] = by_width ? 0 : slope * a.sketch[k];
  }
  add_source(r, by_width ? width : remainder, key_of(op, a) + 1);
  return rounded(r, key_of(op, a), ulps);
}

namespace {
// f(v + t) - f(v) for the smooth functions, without cancellation.
double exp_change(double v, double t) { return std::exp(v) * std::expm1(t); }
double log_change(double v, double t) { return std::log1p(t / v); }
double sqrt_change(double v, double t) { return t / (std::sqrt(v + t) + std::sqrt(v)); }
double rsqrt_change(double v, double t) {
  const double a = std::sqrt(v), b = std::sqrt(v + t);
  return -t / (a * b * (a + b));
}
double tanh_change(double v, double t) { return std::sinh(t) / (std::cosh(v + t) * std::cosh(v)); }
double logistic_change(double v, double t) { return tanh_change(v / 2, t / 2) / 2; }
}  // namespace

SampledWide SampledRules::exp(const Scalar& a_in) const {
  const Scalar a = closed(a_in);
  if (alternatives(a)) return unary_alternatives(a, exp(without_alternatives(a)), kInf, 0, key_of(kExp, a));
  if (sure(a)) {
    if (std::isnan(a.value)) return sure_nan_within(std::exp(a.exact_most));  // the exact e^x within e^|x|
    if (a.value > 0) return sure_inf(1, std::exp(a.floor), a.floor, exact_bound_of(a));
    return finite_of_sure(a, 0, std::exp(-a.floor));  // exp(-inf) = 0, the exact value within e^-floor of it
  }
  const double ba = bound_of(a), e = std::exp(a.value);
  // ln of a bound on the exact value e^x (and on the float's numbers, with the allowance): e^(x + B).
  const double high = a.value + ba, log_high = high + std::fabs(high) * 0x1p-50 + (profile_.exp + 2) * 0x1p-23;
  // Beyond ln(FLT_MAX) = 88.72283905... by more than its bound and the allowance (k ulps of e^x,
  // about k 2^-23 in x): +inf in every evaluation but for an improbable event.
  if (a.value - ba > 88.72284 + (profile_.exp + 1) * 0x1p-22) return sure_inf(1, std::exp(a.value - ba), a.value - ba, log_high);
  // Within its bound of it: +inf where the float exp overflows, else a number as below (an
  // alternative: sampled.hpp).
  const bool may_overflow = a.value + ba > 88.72;
  Scalar r = smooth(a, e, e, std::exp(a.value + ba), exp_change, profile_.exp, kExp);
  if (may_overflow && r.infinite) {  // no bound on its numbers: at least 0 or +inf (a bounded operand is never NaN)
    r = unbounded(e);
    r.at_least_zero = std::isfinite(ba);
    if (r.at_least_zero) r.log_high = log_high;
    return r;
  }
  // The float and exact values are at least e^(x - B) (less the allowance and a margin).
  if (!r.infinite) r.low = rounded_floor(std::exp(a.value - ba), (profile_.exp + 2) * kUlp);
  // An exp's float is at least 0: a rounding that may overflow does so to +inf.
  r.may_inf &= 1;
  return may_overflow ? with_alternatives(r, kAltPosInf) : r;
}

// Below 0 by more than its bound: a log's or a root's operand that is negative in every evaluation
// but for its bound's event (a second moment drawn negative), whose result is then NaN in every
// one (IEEE 754, section 9.2), as the exact value has none.
bool SampledRules::surely_negative(const Scalar& a) const { return !a.infinite && a.value + bound_of(a) < 0; }

// The least value a's float and exact values may take, for a log, a root or a divisor: a - B_a
// where that is positive; else a's floor where it has a positive one; else 0 (none: the caller's
// result is unbounded).
double SampledRules::positive_low(const Scalar& a) const {
  const double ba = bound_of(a);
  if (a.value > ba) return a.value - ba;
  return a.low > 0 && a.value > 0 ? a.low : 0;
}

// a with every pass's sample raised to `low` where it falls below it. No evaluation reaches
// below the floor (but for its event), but a pass's sample may, through the parts of the error
// the model takes apart: a square's pass is (d + T)^2 + 2 T R~ (R~ the rest's stand-in, the rest's
// first-order part 2 d R in the sketch), not (d + T + R)^2. Such a sample is taken at the floor,
// the nearest value an evaluation may have (f there is f's extreme over the floor's range).
SampledWide SampledRules::at_least(Scalar a, double low) {
  for (double& t : a.tangent) t = std::max(t, low - a.value);
  return a;
}

SampledWide SampledRules::log(const Scalar& a_in) const {
  const Scalar a = closed(a_in);
  if (alternatives(a)) return unary_alternatives(a, log(without_alternatives(a)), kInf, kNaN, key_of(kLog, a));
  if (sure(a)) return a.value > 0 ? sure_inf(1, a.floor > 1 ? std::log(a.floor) : 0) : exact_value(kNaN);
  if (surely_negative(a)) return exact_value(kNaN);
  const double low = positive_low(a);
  if (!(low > 0)) return unbounded(std::log(a.value));
  return smooth(at_least(a, low), std::log(a.value), 1 / a.value, 1 / (low * low), log_change, profile_.log, kLog, 1 / low);
}

SampledWide SampledRules::sqrt(const Scalar& a_in) const {
  const Scalar a = closed(a_in);
  if (alternatives(a)) return unary_alternatives(a, sqrt(without_alternatives(a)), kInf, kNaN, key_of(kSqrt, a));
  // A sure NaN's exact counterpart, where the exact run has a root, is within sqrt of its bound.
  if (sure(a)) return a.value > 0 ? sure_inf(1, std::sqrt(a.floor)) : sure_nan_within(std::sqrt(exact_bound_of(a)));
  if (surely_negative(a)) return exact_value(kNaN);
  if (bound_of(a) == 0 && a.value == 0) return exact_value(0);
  const double low = positive_low(a), r = std::sqrt(a.value);
  if (!(low > 0)) return root_near_zero(a);
  Scalar out = smooth(at_least(a, low), r, 1 / (2 * r), 1 / (4 * low * std::sqrt(low)), sqrt_change, profile_.sqrt, kSqrt,
                      1 / (2 * std::sqrt(low)));
  if (!out.infinite) out.low = rounded_floor(std::sqrt(low), (profile_.sqrt + 1) * kUlp);
  return out;
}

// sqrt of a value within its bound of 0 and without a positive floor (Adam's second moment drawn
// of either sign): NaN where the float operand is negative (an alternative); else the root of a
// value in [0, v + B], within sqrt(max(v, 0) + B) of sqrt(max(v, 0)) as the exact root is (both
// lie in [0, sqrt(v + B)]): a source, then the root's own rounding. Every correlation through it
// is dropped (its tangents are 0): a loose bound, where before there was none.
SampledWide SampledRules::root_near_zero(const Scalar& a) const {
  const double ba = bound_of(a), base = std::max(a.value, 0.0);
  if (!std::isfinite(ba)) return unbounded(std::sqrt(a.value));
  Scalar r = exact_value(std::sqrt(base));
  add_source(r, std::sqrt(base + ba), key_of(kSqrt, a) + 1);
  r = rounded(r, key_of(kSqrt, a), profile_.sqrt);
  r.low = 0;
  return a.value - ba < 0 ? with_alternatives(r, kAltNaN) : r;
}

SampledWide SampledRules::rsqrt(const Scalar& a_in) const {
  const Scalar a = closed(a_in);
  if (alternatives(a)) return unary_alternatives(a, rsqrt(without_alternatives(a)), 0, kNaN, key_of(kRsqrt, a));
  if (sure(a)) return a.value > 0 ? finite_of_sure(a, 0, 1 / std::sqrt(a.floor)) : exact_value(kNaN);  // rsqrt(inf) = 0
  if (surely_negative(a)) return exact_value(kNaN);
  const double low = positive_low(a), r = 1 / std::sqrt(a.value);
  if (!(low > 0)) return unbounded(r);
  return smooth(at_least(a, low), r, -r / (2 * a.value), 3 / (4 * low * low * std::sqrt(low)), rsqrt_change, profile_.rsqrt, kRsqrt,
                1 / (2 * low * std::sqrt(low)), 1 / std::sqrt(low));
}

SampledWide SampledRules::tanh(const Scalar& a_in) const {
  const Scalar a = closed(a_in);
  if (alternatives(a)) return unary_alternatives(a, tanh(without_alternatives(a)), 1, -1, key_of(kTanh, a));
  if (sure(a)) return std::isnan(a.value) ? sure_nan_within(1) : finite_of_sure(a, a.value > 0 ? 1 : -1, 2 * std::exp(-2 * a.floor));
  const double t = std::tanh(a.value);
  return smooth(a, t, 1 - t * t, 0.7699, tanh_change, profile_.tanh, kTanh, 1, 2);  // |tanh''| <= 4 / (3 sqrt 3)
}

SampledWide SampledRules::logistic(const Scalar& a_in) const {
  const Scalar a = closed(a_in);
  if (alternatives(a)) return unary_alternatives(a, logistic(without_alternatives(a)), 1, 0, key_of(kLogistic, a));
  if (sure(a)) return std::isnan(a.value) ? sure_nan_within(1) : finite_of_sure(a, a.value > 0 ? 1 : 0, std::exp(-a.floor));
  const double s = 1 / (1 + std::exp(-a.value));
  return smooth(a, s, s * (1 - s), 0.0963, logistic_change, profile_.logistic, kLogistic, 0.25, 1);  // |s''| <= 1 / (6 sqrt 3)
}

}  // namespace shlo
