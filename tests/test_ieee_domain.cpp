// The element-typed IEEE domain `ieee` (interp/domain/ieee_typed.hpp): each float tensor in the
// arithmetic of its element type, f16 and bf16 rounded after every operation. Values are
// worked out by hand on the formats' grids; each check has a control (the `f32` or `f64`
// domain, or the value one rounding less would give) that must differ.
#include <catch2/catch.hpp>

#include <cmath>

#include "interp/domain/domain_spec.hpp"
#include "interp/domain/ieee_typed.hpp"
#include "interp/ops/integer.hpp"
#include "tests/typed_support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

const F64Domain IEEE = F64Domain::element_typed_domain();

// reduce(x, add) over the one dimension of a constant x of type tensor<N x E>, from 0.
std::string sum(const std::string& values, std::int64_t n, const std::string& e) {
  const std::string t = "tensor<" + std::to_string(n) + "x" + e + ">", s = "tensor<" + e + ">";
  return program({"%x = stablehlo.constant dense<" + values + "> : " + t, "%z = stablehlo.constant dense<0.0> : " + s,
                  "%r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (" + t + ", " + s + ") -> " + s},
                 s);
}

// The dot product of x with ones, of type tensor<N x E> -> E.
std::string dot_ones(const std::string& values, std::int64_t n, const std::string& e) {
  const std::string t = "tensor<" + std::to_string(n) + "x" + e + ">", s = "tensor<" + e + ">";
  return program({"%x = stablehlo.constant dense<" + values + "> : " + t, "%o = stablehlo.constant dense<1.0> : " + t,
                  "%r = stablehlo.dot_general %x, %o, contracting_dims = [0] x [0] : (" + t + ", " + t + ") -> " + s},
                 s);
}

std::string binary(const std::string& op, const std::string& a, const std::string& b, const std::string& e) {
  const std::string s = "tensor<" + e + ">";
  return program({"%a = stablehlo.constant dense<" + a + "> : " + s, "%b = stablehlo.constant dense<" + b + "> : " + s,
                  "%r = stablehlo." + op + " %a, %b : " + s},
                 s);
}

}  // namespace

TEST_CASE("ieee: rounding to each element type's grid", "[ieee]") {
  // f16: 11 significand bits, least normal 2^-14, largest 65504.
  CHECK(round_to_element_type(1.0 + std::ldexp(1.0, -11), ElementType::F16) == 1.0);  // a tie: to even
  CHECK(round_to_element_type(1.0 + 3 * std::ldexp(1.0, -11), ElementType::F16) == 1.0 + std::ldexp(1.0, -9));  // tie: to even (up)
  CHECK(round_to_element_type(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30), ElementType::F16) == 1.0 + std::ldexp(1.0, -10));
  CHECK(round_to_element_type(65519.0, ElementType::F16) == 65504.0);
  CHECK(std::isinf(round_to_element_type(65520.0, ElementType::F16)));  // the tie with 2^16 rounds up: inf
  CHECK(round_to_element_type(std::ldexp(3.0, -26), ElementType::F16) == std::ldexp(1.0, -24));  // subnormal grid 2^-24
  CHECK(round_to_element_type(std::ldexp(1.0, -25), ElementType::F16) == 0.0);  // half the least subnormal: to even 0
  CHECK(std::signbit(round_to_element_type(-std::ldexp(1.0, -26), ElementType::F16)));  // -0 keeps its sign
  // bf16: 8 significand bits: 257 is a tie between 256 and 258, to even 256; 259 -> 260.
  CHECK(round_to_element_type(257.0, ElementType::BF16) == 256.0);
  CHECK(round_to_element_type(259.0, ElementType::BF16) == 260.0);
  CHECK(std::isinf(round_to_element_type(std::ldexp(1.0, 128), ElementType::BF16)));
  CHECK(round_to_element_type(0.1, ElementType::F32) == static_cast<double>(0.1f));
  CHECK(round_to_element_type(0.1, ElementType::F64) == 0.1);
  CHECK(round_to_element_type(0.1, ElementType::F32) != 0.1);  // control
  // Literals round once from their exact decimal value: 0.1 in f16 is 1638/16384.
  CHECK(ElementTypedIeee(ElementType::F16).from_literal("0.1") == 1638.0 / 16384.0);
  CHECK(ElementTypedIeee(ElementType::BF16).from_literal("1e39") == INFINITY);
}

TEST_CASE("ieee: f16 and bf16 sums round at every step, unlike f32", "[ieee]") {
  // f16 [1, 2^-11, 2^-11]: ieee 1 + 2^-11 = 1 (a tie, to even), again 1; f32 sums in float
  // (1 + 2^-10 exactly) and rounds once: 1.0009765625.
  const std::string halves = sum("[1.0, 0.00048828125, 0.00048828125]", 3, "f16");
  CHECK(run_typed(IEEE, halves) == Strings{"1"});
  CHECK(run_typed(F32, halves) == Strings{"1.0009766"});  // control: the f32 domain differs (float's shortest text)
  CHECK(run_typed(IEEE, dot_ones("[1.0, 0.00048828125, 0.00048828125]", 3, "f16")) == Strings{"1"});
  CHECK(run_typed(F32, dot_ones("[1.0, 0.00048828125, 0.00048828125]", 3, "f16")) == Strings{"1.0009766"});
  // In the other order the small terms add up first: 2^-10, then 1 + 2^-10 is exact.
  CHECK(run_typed(IEEE, sum("[0.00048828125, 0.00048828125, 1.0]", 3, "f16")) == Strings{"1.0009765625"});
  // bf16 [256, 1, 1]: 257 rounds to 256 (even), again 256; f32: 258, a bf16 value.
  const std::string bf = sum("[256.0, 1.0, 1.0]", 3, "bf16");
  CHECK(run_typed(IEEE, bf) == Strings{"256"});
  CHECK(run_typed(F32, bf) == Strings{"258"});  // control
  // One op: 1 + 2^-11 in f16 is 1 in both (the f32 domain rounds each op's result to f16).
  CHECK(run_typed(IEEE, binary("add", "1.0", "0.00048828125", "f16")) == Strings{"1"});
  CHECK(run_typed(IEEE, binary("add", "1.0", "0.0009765625", "f16")) == Strings{"1.0009765625"});  // control: one ulp
  // Overflow: 60000 + 6000 = 66000 > 65504 is inf in f16.
  CHECK(run_typed(IEEE, binary("add", "60000.0", "6000.0", "f16")) == Strings{"inf"});
  // Transcendentals in double, rounded once: exp(1) = 2.71828... on f16's grid of 2^-9 near
  // 2.7 is 1392 * 2^-9 = 2.71875.
  const std::string e1 = program({"%a = stablehlo.constant dense<1.0> : tensor<f16>", "%r = stablehlo.exponential %a : tensor<f16>"},
                                 "tensor<f16>");
  CHECK(run_typed(IEEE, e1) == Strings{"2.71875"});
  CHECK(run_typed(F64, e1) == Strings{"2.71875"});
}

TEST_CASE("ieee: f64 in double and f32 in float within one program", "[ieee]") {
  // f64: 1 + 2^-30 is exact in double; the f32 domain computes it in float: 1.
  const std::string f64 = binary("add", "1.0", "9.313225746154785e-10", "f64");
  CHECK(run_typed(IEEE, f64) == Strings{"1.0000000009313226"});
  CHECK(run_typed(F32, f64) == Strings{"1"});  // control
  // f32: 2^24 + 1 rounds to 2^24 in float; the f64 domain keeps it.
  const std::string f32 = binary("add", "16777216.0", "1.0", "f32");
  CHECK(run_typed(IEEE, f32) == Strings{"16777216"});
  CHECK(run_typed(F64, f32) == Strings{"16777217"});  // control
  // A reduce whose body is f64 on f32 inputs (is_promotable) accumulates in double.
  const std::string promoted = program(
      {"%x = stablehlo.constant dense<[16777216.0, 1.0, 1.0]> : tensor<3xf32>", "%z = stablehlo.constant dense<0.0> : tensor<f32>",
       "%r = \"stablehlo.reduce\"(%x, %z) ({\n    ^bb0(%a: tensor<f64>, %b: tensor<f64>):\n      %c = stablehlo.add %a, %b : tensor<f64>\n"
       "      stablehlo.return %c : tensor<f64>\n    }) {dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<f32>) -> tensor<f64>"},
      "tensor<f64>");
  CHECK(run_typed(IEEE, promoted) == Strings{"16777218"});
  CHECK(run_typed(F32, promoted) == Strings{"16777216"});  // control: the f32 domain computes the body in float
  // convert f64 -> f32 rounds once; f32 -> f16 rounds once: 0.1 -> 0.0999755859375.
  const std::string narrow = program({"%a = stablehlo.constant dense<0.1> : tensor<f64>", "%b = stablehlo.convert %a : (tensor<f64>) -> tensor<f32>",
                                      "%r = stablehlo.convert %b : (tensor<f32>) -> tensor<f16>"},
                                     "tensor<f16>");
  CHECK(run_typed(IEEE, narrow) == Strings{"0.0999755859375"});
  CHECK(run_typed(IEEE, narrow) != Strings{"0.1"});  // control
}

TEST_CASE("ieee: f32 programs give the f32 domain's values bit for bit", "[ieee]") {
  // Double rounding through double is innocuous for + - * / sqrt, and the libm ops are computed
  // in double and rounded once in both: every value agrees to the bit.
  const std::string text = program(
      {"%x = stablehlo.constant dense<[0.1, 0.7, 1.3, 2.9, -3.3, 1.0e-3, 7.0, 123.456]> : tensor<8xf32>",
       "%e = stablehlo.exponential %x : tensor<8xf32>", "%q = stablehlo.divide %e, %x : tensor<8xf32>",
       "%s = stablehlo.sqrt %e : tensor<8xf32>", "%t = stablehlo.tanh %q : tensor<8xf32>", "%m = stablehlo.multiply %s, %t : tensor<8xf32>",
       "%l = stablehlo.logistic %m : tensor<8xf32>", "%r = stablehlo.subtract %l, %x : tensor<8xf32>"},
      "tensor<8xf32>");
  const Strings f32 = run_typed(F32, text);
  const Strings ieee = run_typed(IEEE, text);
  REQUIRE(ieee.size() == 8);
  for (std::size_t i = 0; i < 8; ++i) CHECK(static_cast<float>(std::stod(ieee[i])) == std::stof(f32[i]));
  CHECK(run_typed(F64, text) != ieee);  // control: double arithmetic differs
}

TEST_CASE("ieee: the domain name", "[ieee]") {
  CHECK(std::get<F64Domain>(parse_domain("ieee")).element_typed());
  CHECK(std::get<F64Domain>(parse_domain("ieee")).name() == "ieee");
  CHECK_FALSE(std::get<F64Domain>(parse_domain("f64")).element_typed());  // control
  CHECK_THROWS_WITH(parse_domain("ieee16"), Catch::Contains("ieee"));
}

TEST_CASE("ieee: f16 bit patterns count units in the last place", "[ieee]") {
  // The check dialect counts f16 ulps as differences of these patterns.
  const auto binary16_ordinal = [](double x) { return ops::detail::binary16_bits_nearest(x); };
  CHECK(binary16_ordinal(1.0) == 0x3C00);
  CHECK(binary16_ordinal(1.0 + std::ldexp(1.0, -10)) == 0x3C01);
  CHECK(binary16_ordinal(65504.0) == 0x7BFF);
  CHECK(binary16_ordinal(INFINITY) == 0x7C00);
  CHECK(binary16_ordinal(std::ldexp(1.0, -14)) == 0x0400);  // least normal
  CHECK(binary16_ordinal(std::ldexp(1023.0, -24)) == 0x03FF);  // largest subnormal
  CHECK(binary16_ordinal(std::ldexp(1.0, -24)) == 1);
  CHECK(binary16_ordinal(0.0) == 0);
  CHECK(binary16_ordinal(2.0) != 0x3C01);  // control
}

TEST_CASE("ieee: converts between integers and low-precision floats", "[ieee]") {
  auto convert = [](const std::string& value, const std::string& from, const std::string& to) {
    return program({"%a = stablehlo.constant dense<" + value + "> : tensor<" + from + ">",
                    "%r = stablehlo.convert %a : (tensor<" + from + ">) -> tensor<" + to + ">"},
                   "tensor<" + to + ">");
  };
  // 2049 lies between the f16 values 2048 and 2050: a tie, to even 2048; 2051 -> 2052.
  CHECK(run_typed(IEEE, convert("2049", "i32", "f16")) == Strings{"2048"});
  CHECK(run_typed(IEEE, convert("2051", "i32", "f16")) == Strings{"2052"});
  CHECK(run_typed(IEEE, convert("2049", "i32", "f32")) == Strings{"2049"});  // control: exact in f32
  CHECK(run_typed(IEEE, convert("-2.75", "f16", "i32")) == Strings{"-2"});  // truncation
  CHECK(run_typed(IEEE, convert("0.0", "bf16", "i1")) == Strings{"false"});
  CHECK(run_typed(IEEE, convert("0.5", "bf16", "i1")) == Strings{"true"});
  // i64 2^60 + 2^36 + 1 to f32 rounds once from the exact integer: just above the midpoint of
  // 2^60 and 2^60 + 2^37 (float's spacing there), so up. Through double it would first become
  // the midpoint 2^60 + 2^36 (double's spacing is 2^8) and then round to even, 2^60: the f64
  // domain's two roundings (the control).
  const std::string above_tie = convert("1152921573326323713", "i64", "f32");
  CHECK(std::stod(run_typed(IEEE, above_tie).at(0)) == std::ldexp(1.0, 60) + std::ldexp(1.0, 37));
  CHECK(std::stod(run_typed(F64, above_tie).at(0)) == std::ldexp(1.0, 60));
}
