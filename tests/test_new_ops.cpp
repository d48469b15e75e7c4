// The elementwise ops issue 15 adds (floor, ceil, the two roundings, sign, remainder, power,
// sine, cosine, log_plus_one, exponential_minus_one, clamp, bitcast_convert) in every domain
// that defines them: the spec's examples, the edge cases of the ops plan, and a control each.
#include <catch2/catch.hpp>

#include <cmath>

#include "ast/mlir_print.hpp"
#include "interp/bound/bound.hpp"
#include "interp/cuda/backend.hpp"
#include "interp/cuda/executor.hpp"
#include "tests/typed_support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

std::string unary_op(const std::string& op, const std::string& type, const std::string& x) {
  return program({"%a = stablehlo.constant dense<" + x + "> : " + type, "%r = stablehlo." + op + " %a : " + type}, type);
}

std::string binary_op(const std::string& op, const std::string& type, const std::string& lhs, const std::string& rhs) {
  return program({"%a = stablehlo.constant dense<" + lhs + "> : " + type, "%b = stablehlo.constant dense<" + rhs + "> : " + type,
                  "%r = stablehlo." + op + " %a, %b : " + type},
                 type);
}

double as_double(const std::string& s) { return std::stod(s); }

}  // namespace

TEST_CASE("floor, ceil and the two roundings (spec examples)", "[new_ops]") {
  const std::string t = "tensor<5xf32>";
  // spec example (floor, ceil): ceil keeps the negative zeros in IEEE.
  const std::string x = "[-0.8166, -0.2530, 0.2530, 0.8166, 2.0]";
  CHECK(run_typed(E, unary_op("floor", t, x)) == Strings{"-1", "-1", "0", "0", "2"});
  CHECK(run_typed(F32, unary_op("floor", t, x)) == Strings{"-1", "-1", "0", "0", "2"});
  CHECK(run_typed(F32, unary_op("ceil", t, x)) == Strings{"-0", "-0", "1", "1", "2"});
  CHECK(run_typed(E, unary_op("ceil", t, x)) == Strings{"0", "0", "1", "1", "2"});  // no signed zero in exact
  // spec examples (round_nearest_even, round_nearest_afz)
  const std::string halves = "[-2.5, 0.4, 0.5, 0.6, 2.5]";
  CHECK(run_typed(E, unary_op("round_nearest_even", t, halves)) == Strings{"-2", "0", "0", "1", "2"});
  CHECK(run_typed(F64, unary_op("round_nearest_even", t, halves)) == Strings{"-2", "0", "0", "1", "2"});
  CHECK(run_typed(MpfrDomain(53), unary_op("round_nearest_even", t, halves)) == Strings{"-2.0", "0.0", "0.0", "1.0", "2.0"});
  CHECK(run_typed(E, unary_op("round_nearest_afz", t, halves)) == Strings{"-3", "0", "1", "1", "3"});
  CHECK(run_typed(F32, unary_op("round_nearest_afz", t, halves)) == Strings{"-3", "0", "1", "1", "3"});
  CHECK(run_typed(MpfrDomain(53), unary_op("round_nearest_afz", t, halves)) == Strings{"-3.0", "0.0", "1.0", "1.0", "3.0"});
  // inf, NaN and values beyond 2^52 are unchanged.
  CHECK(run_typed(F64, unary_op("floor", "tensor<3xf64>", "[0x7FF0000000000000, 0x7FF8000000000000, 9007199254740993.0]")) ==
        Strings{"inf", "nan", "9007199254740992"});
  // An interval straddling a jump gives the enclosure of both sides: floor([0.9.., 1.1..]).
  const std::string around_one = program({"%a = stablehlo.constant dense<0.1> : tensor<f32>", "%t = stablehlo.constant dense<10.0> : tensor<f32>",
                                          "%m = stablehlo.multiply %a, %t : tensor<f32>", "%r = stablehlo.floor %m : tensor<f32>"},
                                         "tensor<f32>");
  CHECK(run_typed(IntervalDomain(24), around_one) == Strings{"[0.0, 1.0]"});
  CHECK(run_typed(E, around_one) == Strings{"1"});  // control: exact is on the integer
}

TEST_CASE("sign", "[new_ops]") {
  CHECK(run_typed(E, unary_op("sign", "tensor<3xi8>", "[-7, 0, 7]")) == Strings{"-1", "0", "1"});
  CHECK(run_typed(F32, unary_op("sign", "tensor<7xf32>", "[-0.0, 0.0, -3.14, 3.14, 0x7FC00000, 0xFF800000, 0x7F800000]")) ==
        Strings{"-0", "0", "-1", "1", "nan", "-1", "1"});
  CHECK(run_typed(E, unary_op("sign", "tensor<3xf32>", "[-2.5, 0.0, 0x7F800000]")) == Strings{"-1", "0", "1"});
  CHECK(run_typed(MpfrDomain(30), unary_op("sign", "tensor<2xf32>", "[-2.5, 0.25]")) == Strings{"-1.0", "1.0"});
  CHECK(run_typed(IntervalDomain(30), unary_op("sign", "tensor<2xf32>", "[-2.5, 0.25]")) == Strings{"[-1.0, -1.0]", "[1.0, 1.0]"});
}

TEST_CASE("remainder on floats", "[new_ops]") {
  // spec example (remainder) in floats; f64 17.1 % 3 (fmod is exact: 17.1 is not 171/10).
  CHECK(run_typed(E, binary_op("remainder", "tensor<4xf32>", "[17.0, -17.0, 17.0, -17.0]", "[3.0, 3.0, -3.0, -3.0]")) ==
        Strings{"2", "-2", "2", "-2"});
  CHECK(run_typed(F64, binary_op("remainder", "tensor<f64>", "17.1", "3.0")) == Strings{"2.1000000000000014"});
  CHECK(run_typed(E, binary_op("remainder", "tensor<f64>", "17.1", "3.0")) == Strings{"21/10"});  // exact on the rational 171/10
  CHECK(run_typed(E, binary_op("remainder", "tensor<f32>", "5.5", "0x7F800000")) == Strings{"11/2"});
  CHECK(run_typed(F32, binary_op("remainder", "tensor<2xf32>", "[-0.0, 0x7F800000]", "[1.0, 2.0]")) == Strings{"-0", "nan"});
  CHECK_THROWS_WITH(run_typed(E, binary_op("remainder", "tensor<f32>", "1.0", "0.0")), Catch::Contains("remainder by zero"));
  CHECK(run_typed(IntervalDomain(30), binary_op("remainder", "tensor<f32>", "7.5", "2.0")) == Strings{"[1.5, 1.5]"});
}

TEST_CASE("power", "[new_ops]") {
  // The reference interpreter's integer cases (interpret/power.mlir): negative exponents.
  CHECK(run_typed(E, binary_op("power", "tensor<5xi64>", "[-1, -1, -3, -3, 0]", "[1, 0, -3, 3, 2]")) ==
        Strings{"-1", "1", "0", "-27", "0"});
  CHECK(run_typed(E, binary_op("power", "tensor<2xui64>", "[0, 2]", "[0, 64]")) == Strings{"1", "0"});  // 0^0 = 1, 2^64 wraps
  CHECK(run_typed(F64, binary_op("power", "tensor<5xf64>", "[-2.0, -0.0, -36.0, 3.0, 10000.0]", "[2.0, 2.0, 1.1, -1.0, 10.0]")) ==
        Strings{"4", "0", "nan", "0.3333333333333333", "1e+40"});
  // exact: integer exponents and perfect powers; an irrational power is the located error.
  CHECK(run_typed(E, binary_op("power", "tensor<3xf32>", "[4.0, 0.75, 0.25]", "[0.5, 0.0, 1.5]")) == Strings{"2", "1", "1/8"});
  CHECK(run_typed(E, binary_op("power", "tensor<2xf64>", "[1.5, -2.0]", "[-2.0, 3.0]")) == Strings{"4/9", "-8"});
  CHECK_THROWS_WITH(run_typed(E, binary_op("power", "tensor<f32>", "2.0", "0.5")), Catch::Contains("irrational"));
  CHECK_THROWS_WITH(run_typed(E, binary_op("power", "tensor<f32>", "0.0", "-1.0")), Catch::Contains("pole"));
  // interval: an enclosure of the true value (sqrt 2) and an exact integer power.
  const IntervalDomain I(64);
  const Strings root = run_typed(I, binary_op("power", "tensor<f64>", "2.0", "0.5"));
  CHECK(IntervalDomain::contains(I.parse(root[0]), BigFloat::parse("1.41421356237309504880168872420969807856967", 200).get()));
  CHECK(run_typed(I, binary_op("power", "tensor<f64>", "-3.0", "3.0")) == Strings{"[-2.7e1, -2.7e1]"});
  CHECK(as_double(run_typed(MpfrDomain(53), binary_op("power", "tensor<f64>", "2.0", "0.5"))[0]) == std::sqrt(2.0));
}

TEST_CASE("sine, cosine, log_plus_one, exponential_minus_one", "[new_ops]") {
  // spec example (sine, cosine) at 0, pi/2, pi, 3pi/2 in f32: almost 0, 1, 0, -1.
  const std::string angles = "[0.0, 1.57079632, 3.14159265, 4.71238898]";
  const Strings s = run_typed(F32, unary_op("sine", "tensor<4xf32>", angles));
  const Strings c = run_typed(F32, unary_op("cosine", "tensor<4xf32>", angles));
  const double want_sin[] = {0, 1, 0, -1}, want_cos[] = {1, 0, -1, 0};
  for (int k = 0; k < 4; ++k) {
    CHECK(std::fabs(as_double(s[static_cast<std::size_t>(k)]) - want_sin[k]) < 1e-6);
    CHECK(std::fabs(as_double(c[static_cast<std::size_t>(k)]) - want_cos[k]) < 1e-6);
  }
  CHECK(s[0] == "0");
  CHECK(c[0] == "1");
  // exact: only at 0; elsewhere the irrational error at the element.
  CHECK(run_typed(E, unary_op("sine", "tensor<f32>", "0.0")) == Strings{"0"});
  CHECK(run_typed(E, unary_op("cosine", "tensor<f32>", "0.0")) == Strings{"1"});
  CHECK_THROWS_WITH(run_typed(E, unary_op("sine", "tensor<2xf32>", "[0.0, 1.0]")),
                    Catch::Contains("sin(1)") && Catch::Contains("irrational") && Catch::Contains("at index [1]"));
  // interval: a certified enclosure of sin(1) = 0.8414709848078965...
  const IntervalDomain I(64);
  CHECK(IntervalDomain::contains(I.parse(run_typed(I, unary_op("sine", "tensor<f32>", "1.0"))[0]),
                                 BigFloat::parse("0.84147098480789650665250232163029899962", 200).get()));
  CHECK(IntervalDomain::contains(I.parse(run_typed(I, unary_op("cosine", "tensor<f32>", "1.0"))[0]),
                                 BigFloat::parse("0.54030230586813971740093660744297660373", 200).get()));
  CHECK_FALSE(IntervalDomain::contains(I.parse(run_typed(I, unary_op("cosine", "tensor<f32>", "1.0"))[0]),
                                       BigFloat::parse("0.8414709848078965", 200).get()));  // control
  // spec example (log_plus_one) in f64; the spec prints its values to about 8 digits (its
  // -6.90776825 for log(0.001) = -6.9077553 is off by 1.3e-5), hence the tolerance.
  const Strings l = run_typed(F64, unary_op("log_plus_one", "tensor<5xf64>", "[0.0, -0.999, 7.0, 6.38905621, 15.0]"));
  const double want_log[] = {0.0, -6.90776825, 2.07944155, 2.0, 2.77258873};
  for (int k = 0; k < 5; ++k) CHECK(std::fabs(as_double(l[static_cast<std::size_t>(k)]) - want_log[k]) < 2e-5);
  CHECK(run_typed(F64, unary_op("log_plus_one", "tensor<2xf64>", "[-1.0, -2.0]")) == Strings{"-inf", "nan"});
  CHECK_THROWS_WITH(run_typed(E, unary_op("log_plus_one", "tensor<f64>", "-1.0")), Catch::Contains("pole"));
  CHECK(run_typed(E, unary_op("log_plus_one", "tensor<f64>", "0.0")) == Strings{"0"});
  CHECK_THROWS_WITH(run_typed(IntervalDomain(30), unary_op("log_plus_one", "tensor<f64>", "-1.5")), Catch::Contains("log1p"));
  // expm1 keeps the precision exp(x) - 1 loses: expm1(1e-10) = 1.00000000005e-10.
  const Strings m = run_typed(F64, unary_op("exponential_minus_one", "tensor<f64>", "1.0e-10"));
  CHECK(std::fabs(as_double(m[0]) / 1.00000000005e-10 - 1) < 1e-15);
  CHECK(run_typed(E, unary_op("exponential_minus_one", "tensor<2xf64>", "[0.0, 0xFFF0000000000000]")) == Strings{"0", "-1"});
  CHECK(as_double(run_typed(MpfrDomain(53), unary_op("exponential_minus_one", "tensor<f64>", "1.0e-10"))[0]) == as_double(m[0]));
}

TEST_CASE("clamp", "[new_ops]") {
  // spec example (clamp): per-element bounds.
  CHECK(run_typed(E, program({"%lo = stablehlo.constant dense<[5, 10, 15]> : tensor<3xi32>", "%x = stablehlo.constant dense<[3, 13, 23]> : tensor<3xi32>",
                              "%hi = stablehlo.constant dense<[10, 15, 20]> : tensor<3xi32>", "%r = stablehlo.clamp %lo, %x, %hi : tensor<3xi32>"},
                             "tensor<3xi32>")) == Strings{"5", "13", "20"});
  const std::string scalar_bounds = "%r = stablehlo.clamp %lo, %x, %hi : (tensor<f32>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>";
  CHECK(run_typed(F32, program({"%lo = stablehlo.constant dense<0.0> : tensor<f32>", "%x = stablehlo.constant dense<[-1.0, 0.5, 0x7FC00000]> : tensor<3xf32>",
                                "%hi = stablehlo.constant dense<1.0> : tensor<f32>", scalar_bounds},
                               "tensor<3xf32>")) == Strings{"0", "0.5", "nan"});
  // min > max gives max (the formula's order).
  CHECK(run_typed(E, program({"%lo = stablehlo.constant dense<2.0> : tensor<f32>", "%x = stablehlo.constant dense<[-1.0, 0.5, 3.0]> : tensor<3xf32>",
                              "%hi = stablehlo.constant dense<1.0> : tensor<f32>", scalar_bounds},
                             "tensor<3xf32>")) == Strings{"1", "1", "1"});
  // It prints back in both forms.
  const std::string text = program({"%lo = stablehlo.constant dense<2.0> : tensor<f32>", "%x = stablehlo.constant dense<[-1.0, 0.5, 3.0]> : tensor<3xf32>",
                                    "%hi = stablehlo.constant dense<1.0> : tensor<f32>", scalar_bounds},
                                   "tensor<3xf32>");
  CHECK(print_module(parse_module(text, "c.mlir")) == text);
  CHECK_THROWS_WITH(parse_module(program({"%lo = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>", "%x = stablehlo.constant dense<[-1.0, 0.5, 3.0]> : tensor<3xf32>",
                                          "%r = stablehlo.clamp %lo, %x, %lo : (tensor<2xf32>, tensor<3xf32>, tensor<2xf32>) -> tensor<3xf32>"},
                                         "tensor<3xf32>"),
                                 "c.mlir"),
                    Catch::Contains("min and max must be rank 0 or have the operand's shape"));
}

TEST_CASE("bitcast_convert between types of one width", "[new_ops]") {
  auto bitcast = [](const auto& d, const std::string& from, const std::string& to, const std::string& x) {
    return run_typed(d, program({"%a = stablehlo.constant dense<" + x + "> : " + from, "%r = stablehlo.bitcast_convert %a : (" + from + ") -> " + to}, to));
  };
  CHECK(bitcast(F32, "tensor<2xf32>", "tensor<2xi32>", "[1.0, -2.0]") == Strings{"1065353216", "-1073741824"});
  CHECK(bitcast(E, "tensor<2xf32>", "tensor<2xui32>", "[1.0, -2.0]") == Strings{"1065353216", "3221225472"});
  CHECK(bitcast(E, "tensor<i32>", "tensor<f32>", "1065353216") == Strings{"1"});
  CHECK(bitcast(F64, "tensor<f64>", "tensor<i64>", "1.0") == Strings{"4607182418800017408"});
  CHECK(bitcast(E, "tensor<bf16>", "tensor<i16>", "-2.0") == Strings{"-16384"});  // 0xC000
  CHECK(bitcast(E, "tensor<i16>", "tensor<f16>", "15360") == Strings{"1"});       // 0x3C00
  CHECK(bitcast(E, "tensor<ui8>", "tensor<i8>", "200") == Strings{"-56"});
  // In exact, a value that is not one f32 has no bits: 1/3 after a division.
  CHECK_THROWS_WITH(run_typed(E, program({"%a = stablehlo.constant dense<1.0> : tensor<f32>", "%b = stablehlo.constant dense<3.0> : tensor<f32>",
                                          "%q = stablehlo.divide %a, %b : tensor<f32>", "%r = stablehlo.bitcast_convert %q : (tensor<f32>) -> tensor<i32>"},
                                         "tensor<i32>")),
                    Catch::Contains("not one value of f32"));
  CHECK_THROWS_WITH(parse_module(program({"%a = stablehlo.constant dense<1.0> : tensor<f32>", "%r = stablehlo.bitcast_convert %a : (tensor<f32>) -> tensor<i64>"},
                                         "tensor<i64>"),
                                 "b.mlir"),
                    Catch::Contains("differ in bit width"));
}

TEST_CASE("the new ops print back and are refused by name where unsupported", "[new_ops]") {
  const std::string text = program({"%a = stablehlo.constant dense<[1.5, -2.5]> : tensor<2xf32>", "%s = stablehlo.sine %a : tensor<2xf32>",
                                     "%f = stablehlo.floor %s : tensor<2xf32>", "%p = stablehlo.power %f, %a : tensor<2xf32>",
                                     "%r = stablehlo.remainder %p, %a : tensor<2xf32>"},
                                    "tensor<2xf32>");
  CHECK(print_module(parse_module(text, "p.mlir")) == text);
  // The bound domain (float32 error analysis) and the CUDA kernels refuse them, naming the op.
  CHECK_THROWS_WITH(run_typed(BoundDomain(float_profile("ieee")), text), Catch::Contains("stablehlo.sine is not supported on"));
  CHECK_NOTHROW(run_typed(BoundDomain(float_profile("ieee")), unary_op("negate", "tensor<f32>", "1.0")));  // control
  auto host = cuda::make_host_backend();
  CHECK_THROWS_WITH(cuda::run_on_backend(parse_module(text, "p.mlir"), *host, {{}}, 1),
                    Catch::Contains("stablehlo.sine is not supported by the CUDA backend"));
}
