#include "fuzz/literal_props.hpp"

#include <cctype>
#include <cstdlib>

#include "fuzz/gen.hpp"
#include "interp/domain/exact.hpp"

namespace shlo::fuzz {

Rational decimal_by_digits(const std::string& text) {
  std::size_t i = 0;
  auto digit = [&] { return i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); };
  const bool negative = !text.empty() && text[0] == '-';
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) ++i;
  Integer digits = 0;
  long scale = 0;  // value = digits * 10^scale
  for (; digit(); ++i) digits = digits * 10 + (text[i] - '0');
  if (i < text.size() && text[i] == '.')
    for (++i; digit(); ++i, --scale) digits = digits * 10 + (text[i] - '0');
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    const bool down = i < text.size() && text[i] == '-';
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    long e = 0;
    for (; digit(); ++i) e = e * 10 + (text[i] - '0');
    scale += down ? -e : e;
  }
  Integer power = 1;
  for (long k = 0; k < std::labs(scale); ++k) power *= 10;
  const Rational value = scale >= 0 ? Rational(digits * power) : Rational(digits) / Rational(power);
  return negative ? Rational(-value) : value;
}

Rational binary_by_fields(std::uint64_t bits, int exponent_bits, int fraction_bits) {
  const std::uint64_t fraction = bits & ((std::uint64_t{1} << fraction_bits) - 1);
  const long biased = static_cast<long>((bits >> fraction_bits) & ((std::uint64_t{1} << exponent_bits) - 1));
  const long bias = (1L << (exponent_bits - 1)) - 1;
  const bool negative = (bits >> (fraction_bits + exponent_bits)) & 1;
  Integer significand = Integer(fraction);
  long exponent = 1 - bias - fraction_bits;  // a subnormal: no hidden bit
  if (biased != 0) {
    significand += Integer(1) << fraction_bits;
    exponent = biased - bias - fraction_bits;
  }
  const Rational value = exponent >= 0 ? Rational(significand << exponent) : Rational(significand) / Rational(Integer(1) << -exponent);
  return negative ? Rational(-value) : value;
}

rc::Gen<std::string> gen_literal_text() {
  return rc::gen::exec([] {
    auto digits = [](int n) {
      std::string s;
      for (int k = 0; k < n; ++k) s += static_cast<char>('0' + *rc::gen::inRange(0, 10));
      return s;
    };
    std::string s = *rc::gen::element<std::string>("", "-", "+");
    s += digits(*rc::gen::inRange(1, 21));
    if (*rc::gen::arbitrary<bool>()) s += "." + digits(*rc::gen::inRange(0, 31));
    if (*rc::gen::arbitrary<bool>())
      s += *rc::gen::element<std::string>("e", "E", "e-", "E+", "e+") + std::to_string(*rc::gen::inRange(0, 41));
    return s;
  });
}

Rational through_double(const std::string& text) { return rational_from_double(std::strtod(text.c_str(), nullptr)); }

namespace {

// A decimal (the generators' own, or a random long one) or a binary32/binary64 hex pattern.
rc::Gen<Instance> literal_case() {
  return rc::gen::exec([] {
    Instance i;
    switch (*rc::gen::inRange(0, 4)) {
      case 0: i.data = {{"decimal", *gen_decimal_literal()}}; break;
      case 1: i.data = {{"hex32", *rc::gen::inRange<std::uint32_t>(0, 0x7F800000u) | (*rc::gen::arbitrary<bool>() ? 0x80000000u : 0u)}}; break;
      case 2: i.data = {{"hex64", *rc::gen::inRange<std::uint64_t>(0, 0x7FF0000000000000ull)}}; break;
      default: i.data = {{"decimal", *gen_literal_text()}};
    }
    return i;
  });
}

// The reader against the independent route; the control reads decimals through double and
// hex patterns as integers.
Verdict reader(const Instance& i, bool careless) {
  const ExactDomain exact;
  if (i.data.contains("decimal")) {
    const std::string text = i.data["decimal"];
    const Rational want = decimal_by_digits(text);
    const Rational got = careless ? through_double(text) : parse_literal(text).value;
    if (!(got == want)) return Verdict::fail("'" + text + "' reads as " + rational_to_string(got) + ", its digits say " + rational_to_string(want));
    if (!careless && !(exact.from_literal(text) == ExtRational(want))) return Verdict::fail("exact reads '" + text + "' differently");
    return Verdict::pass();
  }
  const bool wide = i.data.contains("hex64");
  const std::uint64_t bits = wide ? i.data["hex64"].get<std::uint64_t>() : i.data["hex32"].get<std::uint64_t>();
  const Rational want = wide ? binary_by_fields(bits, 11, 52) : binary_by_fields(bits, 8, 23);
  const ExtRational got = careless ? ExtRational(Rational(Integer(bits))) : exact.from_bits(bits, wide ? FloatFormat::Binary64 : FloatFormat::Binary32);
  if (!(got == ExtRational(want)))
    return Verdict::fail("bits " + std::to_string(bits) + " read as " + exact.to_string(got) + ", their fields say " + rational_to_string(want));
  return Verdict::pass();
}

}  // namespace

std::vector<Property> literal_properties() {
  return {{"text.literal_reader",
           "decimal literals (non-dyadic, exponents, long mantissas) read as their digits over a power of ten, hex patterns as their fields",
           "", literal_case, [](const Instance& i) { return reader(i, false); }, [](const Instance& i) { return reader(i, true); }}};
}

}  // namespace shlo::fuzz
