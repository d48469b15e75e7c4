// Literal parsing: exact values, one rounding to f32/f64, hex bit patterns, bad literals.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include "fuzz/literal_props.hpp"
#include "interp/domain/domain_spec.hpp"
#include "oracle/agree.hpp"
#include "tests/support.hpp"

using namespace shlo;
using shlo::fuzz::binary_by_fields;
using shlo::fuzz::decimal_by_digits;
using shlo::fuzz::through_double;

namespace {
Rational q(long n, long d = 1) { return Rational(n) / Rational(d); }
}  // namespace

TEST_CASE("the reader agrees with the digits-over-a-power-of-ten route on non-dyadic decimals", "[literal]") {
  const std::vector<std::pair<std::string, Rational>> cases = {
      {"0.1", q(1, 10)}, {"0.3", q(3, 10)}, {"0.00078125", q(1, 1280)}, {"-7.5e-3", q(-3, 400)}, {"2.5E+2", q(250)}};
  for (const auto& [text, value] : cases) {
    INFO(text);
    CHECK(decimal_by_digits(text) == value);  // the route itself, by hand
    CHECK(parse_literal(text).value == value);
    // Control: through double, 0.1, 0.3 and 1/1280 are not what they say.
    if (text == "0.1" || text == "0.3" || text == "0.00078125") CHECK_FALSE(through_double(text) == value);
  }
  // A long mantissa that double cannot tell from 0.1.
  const std::string long_mantissa = "0.1000000000000000055511151231257827";
  CHECK(parse_literal(long_mantissa).value == decimal_by_digits(long_mantissa));
  CHECK_FALSE(parse_literal(long_mantissa).value == q(1, 10));
  CHECK(through_double(long_mantissa) == through_double("0.1"));  // control: double merges them
  // Through the whole text path: a constant's exact value, as the exact domain prints it.
  for (const std::string& text : std::vector<std::string>{"0.1", "0.00078125", "-1.25e-7", long_mantissa}) {
    TextCase tc;
    tc.text = "module @m {\n  func.func @f(%x: tensor<f32>) -> tensor<f32> {\n    %c = stablehlo.constant dense<" + text +
              "> : tensor<f32>\n    return %c : tensor<f32>\n  }\n}\n";
    tc.inputs = {{{"%x", {q(0)}}}};
    INFO(text);
    CHECK(run_text_case(tc, "exact")[0][0] == rational_to_string(decimal_by_digits(text)));
  }
}

TEST_CASE("property: the reader equals the independent route, through double it does not", "[literal][property]") {
  int through_double_differs = 0;
  rc::prop("parse_literal(s) == digits / 10^k", [&] {
    const std::string text = *fuzz::gen_literal_text();
    const Rational want = decimal_by_digits(text);
    RC_ASSERT(parse_literal(text).value == want);
    RC_ASSERT(ExactDomain().from_literal(text) == ExtRational(want));
    // f32 and f64: one rounding of the exact value (never through double for f32); a zero
    // (or an underflow) keeps the literal's sign.
    const bool minus = text[0] == '-';
    const float f = round_rational<float>(want);
    const double d = round_rational<double>(want);
    RC_ASSERT(float_bits(F32Domain().from_literal(text)) == float_bits(f == 0 && minus ? -f : f));
    RC_ASSERT(double_bits(F64Domain().from_literal(text)) == double_bits(d == 0 && minus ? -d : d));
    if (!(through_double(text) == want)) ++through_double_differs;
  });
  CHECK(through_double_differs > 0);  // the control: a reader through double is caught
}

TEST_CASE("property: hex bit patterns equal their sign, exponent and fraction fields", "[literal][property]") {
  rc::prop("binary32", [] {
    const std::uint32_t bits = *rc::gen::arbitrary<std::uint32_t>();
    RC_PRE((bits & 0x7F800000u) != 0x7F800000u);  // infinities and NaN: "hex bit patterns"
    const ExtRational got = ExactDomain().from_bits(bits, FloatFormat::Binary32);
    RC_ASSERT(got == ExtRational(binary_by_fields(bits, 8, 23)));
    RC_ASSERT(!(got == ExtRational(Rational(Integer(bits)))) || bits == 0);  // control: the integer reading
  });
  rc::prop("binary64", [] {
    const std::uint64_t bits = *rc::gen::arbitrary<std::uint64_t>();
    RC_PRE((bits & 0x7FF0000000000000ull) != 0x7FF0000000000000ull);
    RC_ASSERT(ExactDomain().from_bits(bits, FloatFormat::Binary64) == ExtRational(binary_by_fields(bits, 11, 52)));
  });
  CHECK(binary_by_fields(0x3DCCCCCD, 8, 23) == q(13421773, 134217728));  // f32 nearest 0.1, by hand
  CHECK(binary_by_fields(0x00000001, 8, 23) == Rational(1) / Rational(Integer(1) << 149));
}

TEST_CASE("decimal literals are read exactly", "[literal]") {
  CHECK(parse_literal("0.00078125").value == q(78125, 100000000));
  CHECK(parse_literal("0.00078125").value == q(1, 1280));
  CHECK(parse_literal("1.0e-05").value == q(1, 100000));
  CHECK(parse_literal("1.0e-8").value == q(1, 100000000));
  CHECK(parse_literal("0.999").value == q(999, 1000));
  CHECK(parse_literal("-2.5E+2").value == q(-250));
  CHECK(parse_literal("128.0").value == q(128));
  CHECK(parse_literal("7").value == q(7));
  CHECK(parse_literal("3/4").value == q(3, 4));
  CHECK(parse_literal("-6/8").value == q(-3, 4));
  CHECK(parse_literal("1.").value == q(1));
  CHECK(parse_literal("-inf").kind == Literal::Kind::NegInf);
  CHECK(parse_literal("inf").kind == Literal::Kind::PosInf);
  CHECK(parse_literal("nan").kind == Literal::Kind::NaN);
}

TEST_CASE("malformed literals are errors that point at the character", "[literal]") {
  CHECK_THROWS_WITH(parse_literal(""), Catch::Contains("empty"));
  CHECK_THROWS_WITH(parse_literal("1.0x"), Catch::Contains("character 4"));
  CHECK_THROWS_WITH(parse_literal(".5"), Catch::Contains("character 1"));
  CHECK_THROWS_WITH(parse_literal("1e"), Catch::Contains("exponent"));
  CHECK_THROWS_WITH(parse_literal("1/0"), Catch::Contains("zero denominator"));
  CHECK_THROWS_WITH(parse_literal("1e999999999"), Catch::Contains("exponent too large"));
  CHECK_THROWS_AS(parse_literal("--1"), DomainError);
}

TEST_CASE("f32 literals are rounded once, never through double", "[literal][f32]") {
  // 1 + 2^-24 is the midpoint between 1 and the next float; this decimal lies just above it,
  // so the correct float is 1 + 2^-23. Through double it first becomes exactly the midpoint,
  // which then ties to even: 1.0. The control shows the trap is real.
  const char* above_midpoint = "1.000000059604644775390625000000001";
  CHECK(static_cast<float>(std::strtod(above_midpoint, nullptr)) == 1.0f);  // control: double rounding
  CHECK(float_bits(F32Domain().from_literal(above_midpoint)) == 0x3F800001u);
  CHECK(float_bits(std::strtof(above_midpoint, nullptr)) == 0x3F800001u);  // glibc agrees

  // Gradual underflow and overflow.
  CHECK(float_bits(F32Domain().from_literal("1e-45")) == 0x00000001u);
  CHECK(float_bits(F32Domain().from_literal("7e-46")) == 0x00000000u);   // below half the least subnormal
  CHECK(float_bits(F32Domain().from_literal("7.1e-46")) == 0x00000001u);  // above it
  CHECK(float_bits(F32Domain().from_literal("-7e-46")) == 0x80000000u);   // keeps the sign
  CHECK(std::isinf(F32Domain().from_literal("3.5e38")));
  CHECK(float_bits(F32Domain().from_literal("-0.0")) == 0x80000000u);
  CHECK(F32Domain().from_literal("0.1") == 0.1f);
  CHECK(F64Domain().from_literal("0.1") == 0.1);
}

TEST_CASE("hex bit patterns", "[literal]") {
  CHECK(ExactDomain().from_bits(0xFF800000, FloatFormat::Binary32) == ExtRational::neg_inf());
  CHECK(ExactDomain().from_bits(0x3F800000, FloatFormat::Binary32) == ExtRational(q(1)));
  CHECK(ExactDomain().from_bits(0xBE000000, FloatFormat::Binary32) == ExtRational(q(-1, 8)));
  CHECK(ExactDomain().from_bits(0x3FF8000000000000ull, FloatFormat::Binary64) == ExtRational(q(3, 2)));
  CHECK(ExactDomain().from_bits(0x00000001, FloatFormat::Binary32).q ==
        Rational(1) / Rational(Integer(1) << 149));
  CHECK_THROWS_WITH(ExactDomain().from_bits(0x7FC00000, FloatFormat::Binary32), Catch::Contains("NaN"));
  CHECK(std::isinf(F32Domain().from_bits(0xFF800000, FloatFormat::Binary32)));
  CHECK(F64Domain().from_bits(0xFF800000, FloatFormat::Binary32) < 0);
  CHECK(std::isnan(F64Domain().from_bits(0x7FC00000, FloatFormat::Binary32)));
  const auto lo = IntervalDomain(64).from_bits(0xFF800000, FloatFormat::Binary32);
  CHECK(mpfr_inf_p(lo.lo()));
  CHECK(mpfr_inf_p(lo.hi()));
  CHECK_THROWS_AS(F32Domain().from_bits(0x1FFFFFFFFull, FloatFormat::Binary32), DomainError);
}

// Every scalar literal that the original printer wrote into the artifacts, with its value:
// by hand for the first forms seen, by the independent digits route for every form.
TEST_CASE("every literal form in the artifacts parses to its value", "[literal][artifacts]") {
  SHLO_REQUIRE_ARTIFACTS(dir);
  // Values worked out by hand from the digits (e.g. 0.003125 = 3125/10^6 = 1/320).
  const std::map<std::string, Rational> expected = {
      {"0.0", q(0)},          {"0.00078125", q(1, 1280)}, {"2.0", q(2)},
      {"1.0e-05", q(1, 100000)}, {"1.0e-5", q(1, 100000)}, {"128.0", q(128)},
      {"0.9", q(9, 10)},      {"0.900000", q(9, 10)},      {"1.0e-8", q(1, 100000000)},
      {"0.999", q(999, 1000)}, {"0.1", q(1, 10)},          {"0.100000", q(1, 10)},
      {"0.0078125", q(1, 128)}, {"0.001", q(1, 1000)},     {"0.0001", q(1, 10000)},
      {"0.010000", q(1, 100)}, {"-0.010000", q(-1, 100)}, {"0.00390625", q(1, 256)},
      {"0.003125", q(1, 320)}, {"0.05", q(1, 20)},          {"0.3", q(3, 10)},
      {"0.125", q(1, 8)},     {"0.5", q(1, 2)},             {"1.0", q(1)},
      {"6.0", q(6)},          {"1.0e-6", q(1, 1000000)},    {"0.044715", q(8943, 200000)},
      {"0.134145", q(26829, 200000)}, {"0.7978845608028654", q(3989422804014327, 5000000000000000)},
      {"16.0", q(16)},        {"32.0", q(32)},              {"49.0", q(49)},
      {"64.0", q(64)},        {"96.0", q(96)},              {"192.0", q(192)},
      {"196.0", q(196)},      {"256.0", q(256)},            {"384.0", q(384)},
      {"768.0", q(768)},      {"784.0", q(784)},            {"1024.0", q(1024)},
      {"1568.0", q(1568)},    {"3136.0", q(3136)},          {"6272.0", q(6272)},
      {"12544.0", q(12544)},  {"25088.0", q(25088)},        {"100352.0", q(100352)},
      {"401408.0", q(401408)}};
  std::set<std::string> seen;
  const std::regex dense(R"(dense<([^>\[]+)>)");
  for (const auto& path : shlo::test::mlir_files(dir)) {
    const std::string s = shlo::test::read_file(path);
    for (std::sregex_iterator it(s.begin(), s.end(), dense), end; it != end; ++it) seen.insert((*it)[1]);
  }
  REQUIRE(seen.count("0xFF800000") == 1);
  seen.erase("0xFF800000");  // the hex form is covered by "hex bit patterns"
  for (const auto& [lit, value] : expected) CHECK(decimal_by_digits(lit) == value);  // the route, by hand
  for (const auto& lit : seen) {
    INFO("literal " << lit);
    const Rational value = decimal_by_digits(lit);
    if (expected.count(lit)) CHECK(value == expected.at(lit));
    CHECK(ExactDomain().from_literal(lit) == ExtRational(value));
    CHECK(float_bits(F32Domain().from_literal(lit)) == float_bits(std::strtof(lit.c_str(), nullptr)));
    CHECK(double_bits(F64Domain().from_literal(lit)) == double_bits(std::strtod(lit.c_str(), nullptr)));
    CHECK(IntervalDomain::contains(IntervalDomain(24).from_literal(lit), value));
  }
  CHECK(seen.size() >= expected.size());
}
