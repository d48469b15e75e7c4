// Helpers shared by the sampled domain's translation units (sampled.cpp, nonfinite.cpp): draw
// keys and the values that carry no coordinates (exact, sure infinities and NaN, unbounded).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "interp/sampled/sampled.hpp"
#include "num/rational.hpp"  // splitmix64

namespace shlo::sampled_detail {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline std::uint64_t mix(std::uint64_t z) { return splitmix64(z); }
inline std::uint64_t bits_of(double x) { return std::bit_cast<std::uint64_t>(x); }
/// A key naming one value: its number and first coordinates.
inline std::uint64_t identity(const SampledWide& s) { return mix(bits_of(s.value) ^ mix(bits_of(s.tangent[0]) ^ mix(bits_of(s.sketch[0])))); }
inline SampledWide unbounded(double value) {
  SampledWide s;
  s.value = value;
  s.infinite = true;
  return s;
}
inline SampledWide exact_value(double v) {
  SampledWide s;
  s.value = v;
  if (std::isinf(v)) s.floor = v > 0 ? v : -v;  // an exact infinity
  return s;
}
/// A sure infinity (sampled.hpp) whose exact value is at least `floor` in magnitude.
inline SampledWide sure_inf(double sign, double floor) {
  SampledWide s;
  s.value = sign > 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  s.floor = floor > 0 ? floor : 0;
  return s;
}
/// A sure infinity or NaN (sampled.hpp): every float evaluation gives it, but for an improbable
/// event; or an exact infinity.
inline bool sure(const SampledWide& s) { return !s.infinite && !std::isfinite(s.value); }
inline bool sure_nan(const SampledWide& s) { return sure(s) && std::isnan(s.value); }
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
/// The smallest float magnitude that no flush to zero makes 0.
inline constexpr double kSmallestNormal = 0x1p-126;

}  // namespace shlo::sampled_detail
