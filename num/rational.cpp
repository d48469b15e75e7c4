#include "num/rational.hpp"

#include <mpfr.h>

#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace shlo {

const char* to_string(CompareDirection d) {
  switch (d) {
    case CompareDirection::EQ: return "EQ";
    case CompareDirection::NE: return "NE";
    case CompareDirection::LT: return "LT";
    case CompareDirection::LE: return "LE";
    case CompareDirection::GT: return "GT";
    case CompareDirection::GE: return "GE";
  }
  return "?";
}

CompareDirection parse_compare_direction(std::string_view s) {
  for (auto d : {CompareDirection::EQ, CompareDirection::NE, CompareDirection::LT,
                 CompareDirection::LE, CompareDirection::GT, CompareDirection::GE})
    if (s == to_string(d)) return d;
  throw DomainError("unknown comparison direction '" + std::string(s) +
                    "' (expected EQ, NE, LT, LE, GT or GE)");
}

const char* to_string(Tri t) {
  switch (t) {
    case Tri::False: return "false";
    case Tri::True: return "true";
    case Tri::Undecided: return "undecided";
  }
  return "?";
}

namespace {

[[noreturn]] void bad_literal(std::string_view text, std::size_t pos, const char* what) {
  throw DomainError("bad literal '" + std::string(text) + "' at character " +
                    std::to_string(pos + 1) + ": " + what);
}

// Exponents beyond this are refused rather than expanded into gigantic integers.
constexpr long kMaxDecimalExponent = 100000;

// Boost reads a leading 0 as octal; the text's digits are always decimal.
Integer decimal_integer(const std::string& digits) {
  Integer r;
  if (mpz_set_str(r.backend().data(), digits.c_str(), 10) != 0)
    throw DomainError("bad decimal digits '" + digits + "'");
  return r;
}

Integer pow10(long n) {
  Integer r = 1;
  mpz_ui_pow_ui(r.backend().data(), 10, static_cast<unsigned long>(n));
  return r;
}

}  // namespace

Literal parse_literal(std::string_view text) {
  std::size_t i = 0;
  const std::size_t n = text.size();
  if (n == 0) bad_literal(text, 0, "empty");
  bool negative = false;
  if (text[i] == '+' || text[i] == '-') negative = text[i++] == '-';
  std::string_view rest = text.substr(i);
  if (rest == "inf") return {negative ? Literal::Kind::NegInf : Literal::Kind::PosInf, 0, negative};
  if (rest == "nan") return {Literal::Kind::NaN, 0, negative};

  auto digits = [&](const char* what) {
    std::size_t start = i;
    while (i < n && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    if (i == start) bad_literal(text, i, what);
    return std::string(text.substr(start, i - start));
  };

  std::string int_part = digits("expected a digit");
  if (i < n && text[i] == '/') {
    ++i;
    std::string den = digits("expected the denominator's digits");
    if (i != n) bad_literal(text, i, "unexpected character after the denominator");
    Integer d = decimal_integer(den);
    if (d == 0) bad_literal(text, i - 1, "zero denominator");
    Rational q(decimal_integer(int_part), d);
    return {Literal::Kind::Finite, negative ? Rational(-q) : q, negative};
  }
  std::string frac_part;
  if (i < n && text[i] == '.') {
    ++i;
    std::size_t start = i;
    while (i < n && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    frac_part = std::string(text.substr(start, i - start));
  }
  long exponent = 0;
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < n && (text[i] == '+' || text[i] == '-')) exp_negative = text[i++] == '-';
    std::size_t start = i;
    std::string e = digits("expected the exponent's digits");
    if (e.size() > 7 || std::stol(e) > kMaxDecimalExponent)
      bad_literal(text, start, "exponent too large");
    exponent = exp_negative ? -std::stol(e) : std::stol(e);
  }
  if (i != n) bad_literal(text, i, "unexpected character");

  // value = (int_part frac_part) * 10^(exponent - len(frac_part)), exactly.
  Integer mantissa = decimal_integer(int_part + frac_part);
  long scale = exponent - static_cast<long>(frac_part.size());
  Rational q = scale >= 0 ? Rational(mantissa * pow10(scale)) : Rational(mantissa, pow10(-scale));
  if (negative) q = -q;
  return {Literal::Kind::Finite, q, negative};
}

Literal literal_from_bits(std::uint64_t bits, FloatFormat format) {
  double value;
  if (format == FloatFormat::Binary32) {
    if (bits > 0xFFFFFFFFull)
      throw DomainError("hex pattern 0x" + std::to_string(bits) + " does not fit in 32 bits");
    std::uint32_t b32 = static_cast<std::uint32_t>(bits);
    float f;
    std::memcpy(&f, &b32, sizeof f);
    value = f;  // exact widening
  } else {
    std::memcpy(&value, &bits, sizeof value);
  }
  const bool negative = std::signbit(value);
  if (value != value) return {Literal::Kind::NaN, 0, negative};
  if (value == std::numeric_limits<double>::infinity()) return {Literal::Kind::PosInf, 0, false};
  if (value == -std::numeric_limits<double>::infinity()) return {Literal::Kind::NegInf, 0, true};
  return {Literal::Kind::Finite, rational_from_double(value), negative};
}

Rational rational_from_double(double x) {
  if (x != x || x - x != 0) throw DomainError("rational_from_double: not a finite number");
  Rational q;
  mpq_set_d(q.backend().data(), x);  // exact for every finite double
  return q;
}

template <class T>
T round_rational(const Rational& q) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  // MPFR's recipe for emulating IEEE binary formats: precision p, exponent range
  // [emin, emax] with subnormals, then subnormalize.
  constexpr int precision = std::numeric_limits<T>::digits;                    // 24 or 53
  // Fast path, exact: an integer of at most `precision` bits over a power of two below 2^64
  // (what den reads back from a float run) is a normal value of T; the division is exact.
  const mpz_srcptr num = mpq_numref(q.backend().data()), den = mpq_denref(q.backend().data());
  if (mpz_size(num) == 1 && mpz_size(den) == 1) {
    const auto n = static_cast<std::uint64_t>(mpz_getlimbn(num, 0)), d = static_cast<std::uint64_t>(mpz_getlimbn(den, 0));
    const int bits = 64 - __builtin_clzll(n), shift = __builtin_ctzll(d);
    if ((d & (d - 1)) == 0 && bits <= precision && bits - 1 - shift >= std::numeric_limits<T>::min_exponent - 1) {
      const double v = static_cast<double>(n) / static_cast<double>(d);
      return static_cast<T>(mpz_sgn(num) < 0 ? -v : v);
    }
  }
  constexpr mpfr_exp_t emax = std::numeric_limits<T>::max_exponent;            // 128 or 1024
  constexpr mpfr_exp_t emin = std::numeric_limits<T>::min_exponent - precision + 1;  // -148, -1073
  const mpfr_exp_t old_emin = mpfr_get_emin(), old_emax = mpfr_get_emax();
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  mpfr_t x;
  mpfr_init2(x, precision);
  int t = mpfr_set_q(x, q.backend().data(), MPFR_RNDN);
  t = mpfr_check_range(x, t, MPFR_RNDN);
  mpfr_subnormalize(x, t, MPFR_RNDN);
  T result;
  if constexpr (std::is_same_v<T, float>)
    result = mpfr_get_flt(x, MPFR_RNDN);
  else
    result = mpfr_get_d(x, MPFR_RNDN);
  mpfr_clear(x);
  mpfr_set_emin(old_emin);
  mpfr_set_emax(old_emax);
  return result;
}

template float round_rational<float>(const Rational&);
template double round_rational<double>(const Rational&);

std::string rational_to_string(const Rational& q) { return q.str(); }

Rational round_rndp(const Rational& q, int p) {
  if (q == 0) return q;
  // |q| in [2^e, 2^(e+1)): the grid step is 2^(e - p).
  const Integer num = abs(numerator(q)), den = denominator(q);
  long e = static_cast<long>(msb(num)) - static_cast<long>(msb(den));
  if (Rational(num, den) < (e >= 0 ? Rational(Integer(1) << e) : Rational(Integer(1), Integer(1) << -e))) --e;
  const long shift = p - e;  // q * 2^shift has p + 1 integer bits
  const Rational scaled = shift >= 0 ? Rational(q * Rational(Integer(1) << shift)) : Rational(q / Rational(Integer(1) << -shift));
  const Rational half_up = scaled + Rational(1, 2);
  Integer fl = numerator(half_up) / denominator(half_up);  // truncation toward zero
  if (half_up < 0 && Rational(fl) != half_up) fl -= 1;      // floor
  return shift >= 0 ? Rational(fl, Integer(1) << shift) : Rational(fl * (Integer(1) << -shift));
}

Rational round_binary32(const Rational& q) { return rational_from_double(round_rational<float>(q)); }

Rational round_bfloat16(const Rational& q) {
  // MPFR's IEEE emulation at 8 bits with the binary32 exponent range.
  const mpfr_exp_t old_emin = mpfr_get_emin(), old_emax = mpfr_get_emax();
  mpfr_set_emin(-132);  // least bfloat16 subnormal 2^-133
  mpfr_set_emax(128);
  mpfr_t x;
  mpfr_init2(x, 8);
  int t = mpfr_set_q(x, q.backend().data(), MPFR_RNDN);
  t = mpfr_check_range(x, t, MPFR_RNDN);
  mpfr_subnormalize(x, t, MPFR_RNDN);
  const double d = mpfr_get_d(x, MPFR_RNDN);
  mpfr_clear(x);
  mpfr_set_emin(old_emin);
  mpfr_set_emax(old_emax);
  if (d != d || d - d != 0) throw DomainError("bfloat16 rounding of " + q.str() + " overflows");
  return rational_from_double(d);
}

}  // namespace shlo
