#include "interp/domain/ieee_typed.hpp"

#include <limits>

#include "interp/domain/rounding.hpp"

namespace shlo {

namespace {

// x to nearest even on the grid of a binary format with `digits` significand bits (the leading
// one included) and least normal exponent `min_exponent` (subnormals below it); beyond
// `largest` +-inf. x / ulp is exact (a power of two, never out of double's range here), and
// nearbyint rounds ties to even in the default rounding mode.
double round_to_binary(double x, int digits, int min_exponent, double largest) {
  if (!std::isfinite(x) || x == 0) return x;
  const double ulp = std::ldexp(1.0, std::max(std::ilogb(x), min_exponent) - digits + 1);
  const double r = std::nearbyint(x / ulp) * ulp;
  return std::fabs(r) > largest ? std::copysign(std::numeric_limits<double>::infinity(), x) : r;
}

}  // namespace

double round_to_element_type(double x, ElementType t) {
  switch (t) {
    case ElementType::F32: return static_cast<double>(static_cast<float>(x));
    case ElementType::F16: return round_to_binary(x, 11, -14, 65504.0);
    case ElementType::BF16: return round_to_binary(x, 8, -126, std::ldexp(255.0, 120));  // (2 - 2^-7) 2^127
    case ElementType::F8E4M3FN: {
      if (!std::isfinite(x)) return std::numeric_limits<double>::quiet_NaN();
      try {
        return round_rational<double>(round_to_format(rational_from_double(x), LowPrecisionFormat::F8E4M3FN));
      } catch (const RoundingOverflow&) {
        return std::numeric_limits<double>::quiet_NaN();  // no infinity in the format
      }
    }
    default: return x;  // f64
  }
}

double ElementTypedIeee::from_rational(const Rational& q) const {
  switch (element_) {
    case ElementType::F32: return static_cast<double>(round_rational<float>(q));
    case ElementType::F16: case ElementType::BF16: case ElementType::F8E4M3FN: {
      const LowPrecisionFormat f = element_ == ElementType::F16    ? LowPrecisionFormat::Binary16
                                   : element_ == ElementType::BF16 ? LowPrecisionFormat::BFloat16
                                                                   : LowPrecisionFormat::F8E4M3FN;
      try {
        return round_rational<double>(round_to_format(q, f));  // exact: a value of the format is a double
      } catch (const RoundingOverflow& overflow) {
        if (f == LowPrecisionFormat::F8E4M3FN) return std::numeric_limits<double>::quiet_NaN();
        return overflow.negative() ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
      }
    }
    default: return round_rational<double>(q);  // f64 (and the zero a convert to i1 compares with)
  }
}

double ElementTypedIeee::from_literal(std::string_view text) const {
  const Literal lit = parse_literal(text);
  if (lit.kind == Literal::Kind::Finite && !(lit.value == 0 && lit.negative)) return from_rational(lit.value);
  return round(F64Domain::from_literal(text));  // +-0, +-inf, NaN: the same in every type
}

}  // namespace shlo
