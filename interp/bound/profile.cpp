// The accuracy profiles (profile.hpp): the named ones, and allowances set by hand.
#include "interp/bound/profile.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace shlo {

FloatProfile float_profile(std::string_view name) {
  FloatProfile p;
  p.name = std::string(name);
  if (name == "ieee") return p;
  if (name == "tf32" || name == "bf16") {
    p.operand_bits = name == "tf32" ? 10 : 7;
    return p;
  }
  if (name == "cuda") {
    p.exp = 2.5;
    p.log = 1.5;
    p.tanh = 2.5;
    p.rsqrt = 2.5;
    p.div = 2.5;
    p.sqrt = 1.5;
    p.logistic = 9;
    p.flush_to_zero = true;
    return p;
  }
  throw std::invalid_argument("unknown accuracy profile '" + std::string(name) + "' (expected " + kProfileNames + ")");
}

FloatProfile with_allowance(FloatProfile p, std::string_view fn, double ulps) {
  double* field = fn == "div" ? &p.div : fn == "sqrt" ? &p.sqrt : fn == "rsqrt" ? &p.rsqrt : fn == "exp" ? &p.exp
                : fn == "log" ? &p.log : fn == "tanh" ? &p.tanh : fn == "logistic" ? &p.logistic : nullptr;
  if (!field) throw std::invalid_argument("no allowance for '" + std::string(fn) + "' (expected one of " + kAllowanceFunctions + ")");
  if (!(ulps >= 0.5 && std::isfinite(ulps)))  // NaN fails too
    throw std::invalid_argument("the allowance of " + std::string(fn) + " must be a number of ulps >= 0.5 (correctly rounded), got " +
                                std::to_string(ulps));
  *field = ulps;
  const auto same = std::find_if(p.allowances.begin(), p.allowances.end(), [&](const auto& a) { return a.first == fn; });
  if (same != p.allowances.end())
    same->second = ulps;  // said twice: the last word, said once
  else
    p.allowances.emplace_back(fn, ulps);
  return p;
}

FloatProfile with_allowances_of(FloatProfile p, const FloatProfile& from) {
  for (const auto& [fn, ulps] : from.allowances) p = with_allowance(std::move(p), fn, ulps);
  return p;
}

std::string allowances_text(const FloatProfile& p) {
  std::string s;
  for (const auto& [fn, ulps] : p.allowances) {
    char number[32];
    std::snprintf(number, sizeof number, "%g", ulps);
    s += (s.empty() ? "" : ", ") + fn + " " + number;
  }
  return s.empty() ? s : s + " (ulps, set by hand)";
}

}  // namespace shlo
