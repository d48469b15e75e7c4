// Sure infinities and NaN in the sampled domain (sampled.hpp, "Sure infinities and NaN";
// docs/sampled_tier.md, "Sure overflows"): IEEE 754 on values that every float evaluation makes
// an infinity or NaN, as the bound analysis' certain values (interp/bound/nonfinite.cpp).
#include <algorithm>
#include <cmath>

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

// IEEE 754 (section 7.2: invalid operations give NaN) on a sure infinity or NaN and a closed
// value, as the bound analysis' certain values (interp/bound/nonfinite.cpp).
SampledWide SampledRules::nonfinite_binary(char op, const Scalar& a, const Scalar& b) const {
  if (sure_nan(a) || sure_nan(b)) return exact_value(kNaN);  // NaN in, NaN out
  if (a.infinite || b.infinite) return unbounded(kNaN);
  // |a finite operand's exact value| at most, and at least (its float is finite: bound finite).
  auto most = [&](const Scalar& x) { return std::fabs(x.value) + bound_of(x); };
  auto least = [&](const Scalar& x) { return std::max(0.0, std::fabs(x.value) - bound_of(x)); };
  switch (op) {
    case '+':
    case '-': {
      const double v = op == '+' ? a.value + b.value : a.value - b.value;  // inf + finite = inf, inf - inf = NaN
      if (std::isnan(v)) return exact_value(kNaN);
      return sure_inf(v, sure(a) && sure(b) ? a.floor + b.floor : sure(a) ? a.floor - most(b) : b.floor - most(a));
    }
    case '*': {
      const int sa = sure_sign(a), sb = sure_sign(b);
      if (sa == 0 || sb == 0) return exact_value(kNaN);  // inf * 0
      if (sa == 2 || sb == 2) return unbounded(kNaN);    // a factor that may be 0 or flip its sign
      return sure_inf(sa * sb, (sure(a) ? a.floor : least(a)) * (sure(b) ? b.floor : least(b)));
    }
    case '/': {
      if (sure(a) && sure(b)) return exact_value(kNaN);  // inf / inf
      if (sure(b)) return finite_of_sure(b, 0, most(a) / b.floor);  // finite / inf = +-0, the exact within |a| / floor
      const int sb = sure_sign(b);
      if (sb == 0 || sb == 2) return unbounded(kNaN);
      return sure_inf(a.value * sb, a.floor / most(b));
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

}  // namespace shlo
