#include "interp/domain/rounding.hpp"

namespace shlo {

namespace {

Rational power_of_two(long e) { return e >= 0 ? Rational(Integer(1) << e) : Rational(Integer(1), Integer(1) << -e); }

// floor(log2 |q|) for q != 0.
long exponent_of(const Rational& q) {
  const Integer num = abs(numerator(q)), den = denominator(q);
  long e = static_cast<long>(msb(num)) - static_cast<long>(msb(den));
  if (abs(q) < power_of_two(e)) --e;
  return e;
}

}  // namespace

const char* to_string(LowPrecisionFormat f) {
  switch (f) {
    case LowPrecisionFormat::BFloat16: return "bf16";
    case LowPrecisionFormat::F8E4M3FN: return "f8E4M3FN";
    case LowPrecisionFormat::Binary16: return "f16";
  }
  return "?";
}

RoundingModel parse_rounding_model(const std::string& name) {
  if (name == "identity") return RoundingModel::Identity;
  if (name == "nearest-even") return RoundingModel::NearestEven;
  throw DomainError("unknown rounding model '" + name + "' (identity, nearest-even)");
}

Integer floor_integer(const Rational& q) {
  Integer fl = numerator(q) / denominator(q);  // truncates toward zero
  if (q < 0 && Rational(fl) != q) fl -= 1;
  return fl;
}

Integer ceil_integer(const Rational& q) { return -floor_integer(-q); }

Integer trunc_integer(const Rational& q) { return numerator(q) / denominator(q); }

Integer round_half_even(const Rational& q) {
  Integer fl = floor_integer(q);
  const Rational rest = q - Rational(fl);  // in [0, 1)
  if (rest > Rational(1, 2) || (rest == Rational(1, 2) && (fl % 2) != 0)) fl += 1;
  return fl;
}

Integer round_half_away(const Rational& q) {
  const Integer magnitude = floor_integer(abs(q) + Rational(1, 2));
  return q < 0 ? Integer(-magnitude) : magnitude;
}

Rational round_nearest_even(const Rational& q, int fraction_bits, int min_exponent) {
  if (q == 0) return q;
  const long e = std::max<long>(exponent_of(q), min_exponent);
  const Rational step = power_of_two(e - fraction_bits);
  const Rational scaled = q / step;
  // floor(scaled), then to the nearer integer, the even one on a tie.
  Integer fl = numerator(scaled) / denominator(scaled);  // truncates toward zero
  if (scaled < 0 && Rational(fl) != scaled) fl -= 1;
  const Rational rest = scaled - Rational(fl);  // in [0, 1)
  if (rest > Rational(1, 2) || (rest == Rational(1, 2) && (fl % 2) != 0)) fl += 1;
  return Rational(fl) * step;
}

Rational largest_finite(LowPrecisionFormat f) {
  switch (f) {
    case LowPrecisionFormat::BFloat16: return (Rational(2) - power_of_two(-7)) * power_of_two(127);
    case LowPrecisionFormat::F8E4M3FN: return Rational(448);
    case LowPrecisionFormat::Binary16: return (Rational(2) - power_of_two(-10)) * power_of_two(15);
  }
  return Rational(0);
}

Rational round_to_format(const Rational& q, LowPrecisionFormat f) {
  const bool has_infinity = f != LowPrecisionFormat::F8E4M3FN;
  const Rational r = f == LowPrecisionFormat::BFloat16   ? round_nearest_even(q, 7, -126)
                     : f == LowPrecisionFormat::Binary16 ? round_nearest_even(q, 10, -14)
                                                         : round_nearest_even(q, 3, -6);
  if (abs(r) > largest_finite(f))
    throw RoundingOverflow(std::string(to_string(f)) + " rounding of " + q.str() + " overflows (" +
                               (has_infinity ? "to infinity" : "to NaN: f8E4M3FN has no infinity") + ")",
                           q < 0);
  return r;
}

Rational binary16_from_bits(std::uint64_t bits, bool& special) {
  const bool negative = (bits >> 15) & 1;
  const long exponent = static_cast<long>((bits >> 10) & 0x1F);
  const long fraction = static_cast<long>(bits & 0x3FF);
  special = exponent == 0x1F;
  if (special) return Rational(0);
  const Rational magnitude = exponent == 0 ? Rational(fraction) * power_of_two(-24)
                                           : Rational(1024 + fraction) * power_of_two(exponent - 15 - 10);
  return negative ? Rational(-magnitude) : magnitude;
}

Rational f8e4m3fn_from_bits(std::uint64_t bits, bool& nan) {
  const bool negative = (bits >> 7) & 1;
  const long exponent = static_cast<long>((bits >> 3) & 0xF);
  const long fraction = static_cast<long>(bits & 0x7);
  nan = exponent == 0xF && fraction == 0x7;
  if (nan) return Rational(0);
  const Rational magnitude = exponent == 0 ? Rational(fraction) * power_of_two(-9)
                                           : Rational(8 + fraction) * power_of_two(exponent - 7 - 3);
  return negative ? Rational(-magnitude) : magnitude;
}

}  // namespace shlo
