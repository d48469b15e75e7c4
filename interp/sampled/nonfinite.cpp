// Sure infinities and NaN in the sampled domain (sampled.hpp, "Sure infinities and NaN";
// docs/sampled_tier.md, "Sure overflows"): IEEE 754 on values that every float evaluation makes
// an infinity or NaN, as the bound analysis' certain values (interp/bound/nonfinite.cpp).
#include <algorithm>
#include <cmath>
#include <vector>

#include "interp/sampled/detail.hpp"
#include "interp/sampled/sampled.hpp"

namespace shlo {

using namespace sampled_detail;

int SampledRules::sure_sign(const Scalar& a) const {
  if (sure(a)) return std::isnan(a.value) ? 2 : a.value > 0 ? 1 : -1;
  if (a.infinite) return 2;
  const double b = bound_of(a);
  if (a.value == 0 && b == 0) return 0;
  if (std::fabs(a.value) - b >= kSmallestNormal) return a.value > 0 ? 1 : -1;
  return 2;
}

double SampledRules::exact_bound_of(const Scalar& a) const {
  if (a.infinite) return kInf;
  if (sure_nan(a)) return a.exact_most;
  if (sure(a)) return std::exp(a.log_high);  // +inf for a literal infinity
  return std::fabs(a.value) + bound_of(a);
}

double SampledRules::exact_least_of(const Scalar& a) const {
  if (a.infinite || sure_nan(a)) return 0;
  if (sure(a)) return a.floor;
  const int sign = sure_sign(a);
  return sign == 1 || sign == -1 ? std::max(0.0, std::fabs(a.value) - bound_of(a)) : 0;
}

// IEEE 754 (section 7.2: invalid operations give NaN) on a sure infinity or NaN and a closed
// value, as the bound analysis' certain values (interp/bound/nonfinite.cpp).
SampledWide SampledRules::nonfinite_binary(char op, const Scalar& a, const Scalar& b) const {
  if (sure_nan(a) || sure_nan(b)) {  // NaN in, NaN out; its exact counterpart by the operands' bounds
    const double ma = exact_bound_of(a), mb = exact_bound_of(b);
    switch (op) {
      case '+':
      case '-': return sure_nan_within(ma + mb);
      case '*': return sure_nan_within(ma * mb);  // 0 * inf: none
      case '/': return sure_nan_within(sure_nan(b) ? kInf : ma / exact_least_of(b));
    }
    return exact_value(kNaN);
  }
  // An exp without bounded numbers (at least 0 or +inf, its exact value and numbers at most
  // e^log_high): plus +inf it is +inf; over an infinity +-0 (the exact quotient within
  // e^log_high over the floor), or NaN where it overflowed (inf / inf).
  auto at_least_zero = [](const Scalar& x) { return x.infinite && x.at_least_zero; };
  if (op == '+' && ((a.value == kInf && sure(a) && at_least_zero(b)) || (b.value == kInf && sure(b) && at_least_zero(a)))) {
    Scalar r = sure(a) ? a : b;
    r.log_high = std::log(std::exp(a.log_high) + std::exp(b.log_high));
    return r;
  }
  if (op == '/' && sure(b) && at_least_zero(a) && a.log_high < kInf)
    return with_alternatives(finite_of_sure(b, 0, over_floor_ln(a.log_high, b)), kAltNaN);
  if (a.infinite || b.infinite) return unbounded(kNaN);
  // |a finite operand's exact value| at most, and at least (its float is finite: bound finite).
  auto most = [&](const Scalar& x) { return std::fabs(x.value) + bound_of(x); };
  auto least = [&](const Scalar& x) { return std::max(0.0, std::fabs(x.value) - bound_of(x)); };
  switch (op) {
    case '+':
    case '-': {
      const double v = op == '+' ? a.value + b.value : a.value - b.value;  // inf + finite = inf, inf - inf = NaN
      const double high = exact_bound_of(a) + exact_bound_of(b);
      if (std::isnan(v)) return sure_nan_within(high);
      return sure_inf(v, sure(a) && sure(b) ? a.floor + b.floor : sure(a) ? a.floor - most(b) : b.floor - most(a), -kInf, std::log(high));
    }
    case '*': {
      const int sa = sure_sign(a), sb = sure_sign(b);
      if (sa == 0 || sb == 0) return sure_nan_within(exact_bound_of(a) * exact_bound_of(b));  // inf * 0
      if (sa == 2 || sb == 2) return unbounded(kNaN);    // a factor that may be 0 or flip its sign
      return sure_inf(sa * sb, (sure(a) ? a.floor : least(a)) * (sure(b) ? b.floor : least(b)), -kInf,
                      std::log(exact_bound_of(a)) + std::log(exact_bound_of(b)));
    }
    case '/': {
      // inf / inf (a softmax's class after its exps overflowed): NaN, the exact quotient within
      // e^log_high of a over b's floor.
      if (sure(a) && sure(b)) return sure_nan_within(a.log_high < kInf ? std::exp(a.log_high - ln_floor(b)) : kInf);
      if (sure(b)) return finite_of_sure(b, 0, over_floor(most(a), b));  // finite / inf = +-0, the exact within |a| / floor
      const int sb = sure_sign(b);
      if (sb == 0 || sb == 2) return unbounded(kNaN);
      return sure_inf(a.value * sb, a.floor / most(b), -kInf, std::log(exact_bound_of(a)) - std::log(exact_least_of(b)));
    }
  }
  return unbounded(kNaN);
}

// A finite float result `value` of an op on a sure infinity (IEEE: finite / inf, exp(-inf),
// tanh(inf)), whose exact counterpart lies within `distance` of it: a source. Unbounded where the
// infinity has no floor (distance not finite).
SampledWide SampledRules::finite_of_sure(const Scalar& from, double value, double distance) const {
  if (!(distance < kInf)) return unbounded(value);
  Scalar r = exact_value(value);
  add_source(r, distance, mix(identity(from) ^ bits_of(value)));
  return r;
}

// ---- Alternatives (sampled.hpp) ------------------------------------------------------------

namespace {
/// A float value a closed value may take, for IEEE 754 on its alternatives: its sure value, or its
/// numbers, which stand for themselves by the signs they may have (sign: sure_sign's +-1, 0 or 2)
/// or, for a comparison with an infinity or NaN (whose result no finite value changes), by its
/// value (sign 3); then each alternative.
struct Candidate {
  double x;
  bool own;  // one of the value's numbers or its sure value (not an alternative)
};
std::vector<Candidate> candidates(const SampledWide& s, int sign) {
  std::vector<Candidate> c;
  if (sure(s) || sign == 3) c.push_back({s.value, true});
  else {
    if (sign == 2 || sign == 1) c.push_back({1, true});
    if (sign == 2 || sign == -1) c.push_back({-1, true});
    if (sign == 2 || sign == 0) c.push_back({0, true});
  }
  const std::uint8_t alt = alternatives(s);
  if (alt & kAltNaN) c.push_back({kNaN, false});
  if (alt & kAltPosInf) c.push_back({kInf, false});
  if (alt & kAltNegInf) c.push_back({-kInf, false});
  return c;
}
}  // namespace

SampledRules::PairAlternatives SampledRules::pair_alternatives(char op, const Scalar& a, const Scalar& b) const {
  PairAlternatives out;
  for (const Candidate& x : candidates(a, a.infinite ? 2 : sure_sign(a)))
    for (const Candidate& y : candidates(b, b.infinite ? 2 : sure_sign(b))) {
      if (x.own && y.own) continue;  // the op's own rule
      const double r = op == '+' ? x.x + y.x : op == '-' ? x.x - y.x : op == '*' ? x.x * y.x : x.x / y.x;
      if (std::isfinite(r)) out.zero = true;  // a number over an infinity: +-0
      else out.bits = static_cast<std::uint8_t>(out.bits | alternative_of(r));
    }
  return out;
}

// Whether a d b comes out as on the values' numbers for every alternative (inf > 1 whatever the
// 1; NaN compares false but for NE).
bool SampledRules::alternatives_agree(CompareDirection d, const Scalar& a, const Scalar& b) const {
  if (!alternatives(a) && !alternatives(b)) return true;
  const bool value = holds(d, a.value, b.value);
  for (const Candidate& x : candidates(a, 3))
    for (const Candidate& y : candidates(b, 3))
      if (!(x.own && y.own) && holds(d, x.x, y.x) != value) return false;
  return true;
}

SampledWide SampledRules::binary_alternatives(char op, const Scalar& a, const Scalar& b, Scalar main) const {
  const PairAlternatives p = pair_alternatives(op, a, b);
  if (p.zero) main = with_number(main, 0, 0, key_of(kDiv, a, b) + 5);
  return with_alternatives(main, p.bits);
}

SampledWide SampledRules::unary_alternatives(const Scalar& a, Scalar main, double at_pos_inf, double at_neg_inf, std::uint64_t key) const {
  const std::uint8_t alt = alternatives(a);
  std::uint8_t out = alt & kAltNaN;
  auto take = [&](double fx) {
    if (std::isfinite(fx)) main = with_number(main, fx, 0, key + 5);
    else out = static_cast<std::uint8_t>(out | alternative_of(fx));
  };
  if (alt & kAltPosInf) take(at_pos_inf);
  if (alt & kAltNegInf) take(at_neg_inf);
  return with_alternatives(main, out);
}

// The float may be c (within c_bound of it) where the op's numbers are r's: its distance from
// r's value is a source, as a select that may take its other branch adds that branch's.
SampledWide SampledRules::with_number(Scalar r, double c, double c_bound, std::uint64_t key) const {
  if (r.infinite) return r;
  if (sure(r)) {  // an infinity or NaN that may be a number: no bound
    Scalar u = unbounded(r.value);
    return with_alternatives(u, alternatives(r) | alternative_of(r.value));
  }
  add_source(r, std::fabs(c - r.value) + c_bound, key);
  r.low = std::min(r.low, c - c_bound);
  return r;
}

}  // namespace shlo
