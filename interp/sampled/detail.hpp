// Helpers shared by the sampled domain's translation units (sampled.cpp, smooth.cpp,
// nonfinite.cpp, packed.cpp): draw keys, constants, and the values that carry no coordinates
// (exact, sure infinities and NaN, unbounded).
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
/// A sure infinity (sampled.hpp) whose exact value is at least `floor` in magnitude, and at least
/// e^log_floor where that is known (past the double range, the floor itself is +inf).
/// log_high: ln of a bound above its exact magnitude (+inf where none is known).
inline SampledWide sure_inf(double sign, double floor, double log_floor = -kInf, double log_high = kInf) {
  SampledWide s;
  s.value = sign > 0 ? kInf : -kInf;
  s.floor = floor > 0 ? floor : 0;
  s.log_floor = log_floor;
  s.log_high = std::isnan(log_high) ? kInf : log_high;
  return s;
}
/// A NaN in every float evaluation whose exact counterpart is at most `most` in magnitude (+inf:
/// nothing known; a NaN bound, as 0 times inf, is none).
inline SampledWide sure_nan_within(double most) {
  SampledWide s;
  s.value = std::numeric_limits<double>::quiet_NaN();
  s.exact_most = std::isnan(most) ? kInf : most;
  return s;
}
/// ln of a sure infinity's floor (+inf for a literal infinity, -inf where none is known).
inline double ln_floor(const SampledWide& s) { return s.log_floor > -kInf ? s.log_floor : std::log(s.floor); }
/// A bound on |x| / |b| for |x| at most `most` (at most e^ln_most) and b a sure infinity: the
/// exact value of a finite float over b (IEEE: +-0), by the logarithms where b's floor is past
/// the double range.
inline double over_floor_ln(double ln_most, const SampledWide& b) { return std::exp(ln_most - ln_floor(b)); }
inline double over_floor(double most, const SampledWide& b) {
  if (most == 0) return 0;
  return std::isfinite(b.floor) ? most / b.floor : over_floor_ln(std::log(most), b);
}
/// A sure infinity or NaN (sampled.hpp): every float evaluation gives it, but for an improbable
/// event; or an exact infinity.
inline bool sure(const SampledWide& s) { return !s.infinite && !std::isfinite(s.value); }
inline bool sure_nan(const SampledWide& s) { return sure(s) && std::isnan(s.value); }
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
/// tan(pi t) for |t| < 1/2, within 1e-15 of itself: Lambert's continued fraction for tan z cut
/// after seven levels (z P(z^2) / Q(z^2), a Pade approximant) on z = pi |t| <= pi / 4, and
/// tan(pi t) = 1 / tan(pi (1/2 - t)) beyond. The Cauchy draws' tan was a fifth of the tier's
/// time in libm.
inline double tan_pi(double t) {
  const double a = std::fabs(t);
  const bool beyond = a > 0.25;
  const double z = 3.141592653589793 * (beyond ? 0.5 - a : a), x = z * z;  // 0.5 - a: exact
  const double p = z * (2027025 + x * (-270270 + x * (6930 - 36 * x)));
  const double q = 2027025 + x * (-945945 + x * (51975 + x * (-630 + x)));
  return std::copysign(beyond ? q / p : p / q, t);
}
/// A tensor element's whole content, for telling equal elements apart exactly (packed.cpp): its
/// parts and its coordinates, bit for bit (two packings of the same doubles may differ: then they
/// count as two).
std::uint64_t content_hash(const SampledScalar& s);
bool same_content(const SampledScalar& a, const SampledScalar& b);
std::uint64_t content_hash(const SampledWide& s);
bool same_content(const SampledWide& a, const SampledWide& b);
/// The smallest float magnitude that no flush to zero makes 0.
inline constexpr double kSmallestNormal = 0x1p-126;

inline constexpr int P = kSampledPasses;
inline constexpr double kUnit = 0x1p-24;    // float32's unit roundoff
inline constexpr double kUlp = 0x1p-23;     // an ulp of a float32 in [1, 2)
inline constexpr double kDouble = 0x1p-52;  // the double run's own error, relative, per op (libm within 1 ulp)
inline constexpr double kFloatMax = 3.4028234663852886e38;

/// Operation numbers for the draws' keys.
enum OpKey : std::uint64_t {
  kAdd = 1, kSub, kMul, kDiv, kExp, kLog, kSqrt, kRsqrt, kTanh, kLogistic, kOperand, kSumClose, kPi, kSelect, kScatter, kAbs
};
/// A draw's key for op on a (and b): the op and its operands' identities.
inline std::uint64_t key_of(std::uint64_t op, const SampledWide& a) { return mix(op ^ mix(identity(a))); }
inline std::uint64_t key_of(std::uint64_t op, const SampledWide& a, const SampledWide& b) {
  return mix(op ^ mix(identity(a) ^ mix(identity(b) + 0x632be59bd9b4e019ull)));
}
/// The non-finite values a float evaluation may give besides a value's numbers (sampled.hpp,
/// "Alternatives"), as bits: NaN, +inf, -inf.
inline constexpr std::uint8_t kAltNaN = 1, kAltPosInf = 2, kAltNegInf = 4;
inline std::uint8_t alternatives(const SampledWide& s) {
  return static_cast<std::uint8_t>((s.may_nan ? kAltNaN : 0) | (s.may_inf & 1 ? kAltPosInf : 0) | (s.may_inf & 2 ? kAltNegInf : 0));
}
/// The bit of a non-finite double (0 for a number).
inline std::uint8_t alternative_of(double x) {
  return std::isnan(x) ? kAltNaN : x == std::numeric_limits<double>::infinity() ? kAltPosInf : x == -std::numeric_limits<double>::infinity() ? kAltNegInf : 0;
}
/// The value with its alternatives off, for an op's rule on its numbers.
inline SampledWide without_alternatives(SampledWide s) {
  s.may_nan = false;
  s.may_inf = 0;
  return s;
}
/// The value with `alt` added to its alternatives; a sure value's own one is not an alternative.
inline SampledWide with_alternatives(SampledWide s, std::uint8_t alt) {
  if (sure(s)) alt = static_cast<std::uint8_t>(alt & ~alternative_of(s.value));
  s.may_nan = s.may_nan || (alt & kAltNaN);
  s.may_inf = static_cast<std::uint8_t>(s.may_inf | (alt & kAltPosInf ? 1 : 0) | (alt & kAltNegInf ? 2 : 0));
  return s;
}

}  // namespace shlo::sampled_detail
