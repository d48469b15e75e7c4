// Integer and boolean element types (issue 15): parsing and printing of every element type,
// integer literals, wrapping arithmetic, the implementation-defined cases, compare on i1 and
// the comparison type rule, movement ops on i1 and ui8, reductions, contractions with a wider
// result type, and convert between all element types. Values are computed by hand or are
// the spec's examples (spec.md, "Examples" of each op).
#include <catch2/catch.hpp>

#include "ast/mlir_print.hpp"
#include "ast/verify.hpp"
#include "interp/bound/bound.hpp"
#include "tests/typed_support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

// `%r = OP %a, %b : T` over two constants of type T.
std::string binary(const std::string& op, const std::string& type, const std::string& lhs, const std::string& rhs) {
  return program({"%a = stablehlo.constant dense<" + lhs + "> : " + type, "%b = stablehlo.constant dense<" + rhs + "> : " + type,
                  "%r = stablehlo." + op + " %a, %b : " + type},
                 type);
}

std::string unary(const std::string& op, const std::string& type, const std::string& x) {
  return program({"%a = stablehlo.constant dense<" + x + "> : " + type, "%r = stablehlo." + op + " %a : " + type}, type);
}

std::string compare(const std::string& dir, const std::string& type, const std::string& result, const std::string& lhs,
                    const std::string& rhs) {
  return program({"%a = stablehlo.constant dense<" + lhs + "> : " + type, "%b = stablehlo.constant dense<" + rhs + "> : " + type,
                  "%r = stablehlo.compare " + dir + ", %a, %b : (" + type + ", " + type + ") -> " + result},
                 result);
}

std::string convert(const std::string& from, const std::string& to, const std::string& x) {
  return program({"%a = stablehlo.constant dense<" + x + "> : " + from, "%r = stablehlo.convert %a : (" + from + ") -> " + to}, to);
}

}  // namespace

TEST_CASE("every element type parses, verifies and prints back", "[int_types]") {
  for (const char* e : {"i1", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64", "f16", "bf16", "f32", "f64"}) {
    INFO(e);
    const std::string t = std::string("tensor<2x") + e + ">";
    const std::string text = module_text("%x: " + t, t, "", "%x");
    const Module m = parse_module(text, "t.mlir");
    CHECK(to_string(m.function().arguments[0].type.element) == std::string(e));
    CHECK(print_module(m) == text);
  }
  // Not in the set: a located message naming the type; the control (i8) parses above.
  CHECK_THROWS_WITH(parse_module(module_text("%x: tensor<2xi4>", "tensor<2xi4>", "", "%x"), "t.mlir"),
                    Catch::Contains("t.mlir:2:") && Catch::Contains("unsupported element type 'i4'"));
  CHECK(bit_width(ElementType::UI16) == 16);
  CHECK(is_signed_integer(ElementType::I8));
  CHECK_FALSE(is_signed_integer(ElementType::UI8));
  CHECK_FALSE(is_integer(ElementType::I1));
}

TEST_CASE("integer literals: decimals in range and hex bit patterns", "[int_types]") {
  auto constant = [](const std::string& literal, const std::string& type) {
    return run_typed(E, program({"%r = stablehlo.constant dense<" + literal + "> : " + type}, type));
  };
  CHECK(constant("[-128, 127, 0xFF, 0x80]", "tensor<4xi8>") == Strings{"-128", "127", "-1", "-128"});
  CHECK(constant("[4294967295, 0]", "tensor<2xui32>") == Strings{"4294967295", "0"});
  CHECK(constant("-2147483648", "tensor<i32>") == Strings{"-2147483648"});
  CHECK(constant("0xFFFFFFFFFFFFFFFF", "tensor<ui64>") == Strings{"18446744073709551615"});
  CHECK(constant("0xFFFFFFFFFFFFFFFF", "tensor<i64>") == Strings{"-1"});
  // Out of range: located parse errors (the controls above are in range).
  CHECK_THROWS_WITH(constant("128", "tensor<i8>"), Catch::Contains("test.mlir:3:5") && Catch::Contains("out of range [-128, 127]"));
  CHECK_THROWS_WITH(constant("-1", "tensor<ui8>"), Catch::Contains("out of range [0, 255]"));
  CHECK_THROWS_WITH(constant("0x100", "tensor<ui8>"), Catch::Contains("wider than 8 bits"));
  CHECK_THROWS_WITH(constant("1.5", "tensor<i32>"), Catch::Contains("not a decimal integer"));
}

TEST_CASE("integer arithmetic wraps modulo 2^N", "[int_types]") {
  CHECK(run_typed(E, binary("add", "tensor<2xi8>", "[127, -128]", "[1, -1]")) == Strings{"-128", "127"});
  CHECK(run_typed(E, binary("add", "tensor<2xui8>", "[255, 254]", "[1, 1]")) == Strings{"0", "255"});
  CHECK(run_typed(E, binary("subtract", "tensor<2xui8>", "[0, 7]", "[1, 5]")) == Strings{"255", "2"});
  CHECK(run_typed(E, binary("multiply", "tensor<2xi32>", "[65536, 3]", "[65536, -5]")) == Strings{"0", "-15"});
  CHECK(run_typed(E, unary("negate", "tensor<3xi8>", "[-128, 5, 0]")) == Strings{"-128", "-5", "0"});
  CHECK(run_typed(E, unary("abs", "tensor<3xi8>", "[-128, -5, 7]")) == Strings{"-128", "5", "7"});
  // ui64 values above 2^63 keep their unsigned meaning.
  CHECK(run_typed(E, binary("add", "tensor<ui64>", "9223372036854775808", "1")) == Strings{"9223372036854775809"});
}

TEST_CASE("integer division and remainder, with the reference interpreter's undefined cases", "[int_types]") {
  CHECK(run_typed(E, binary("divide", "tensor<4xi32>", "[-7, 7, 7, -7]", "[2, -2, 2, -2]")) == Strings{"-3", "-3", "3", "3"});
  // spec example (remainder): the sign of the dividend.
  CHECK(run_typed(E, binary("remainder", "tensor<4xi64>", "[17, -17, 17, -17]", "[3, 3, -3, -3]")) == Strings{"2", "-2", "2", "-2"});
  CHECK(run_typed(E, binary("divide", "tensor<2xui8>", "[200, 7]", "[3, 2]")) == Strings{"66", "3"});
  // Implementation-defined (spec "Errors"): x / 0 = 0, x % 0 = 0, INT_MIN / -1 = 0 and
  // INT_MIN % -1 = 0, as the reference interpreter's tests divide.mlir and remainder.mlir.
  CHECK(run_typed(E, binary("divide", "tensor<3xi8>", "[5, -128, -128]", "[0, -1, 1]")) == Strings{"0", "0", "-128"});
  CHECK(run_typed(E, binary("remainder", "tensor<3xi8>", "[5, -128, -128]", "[0, -1, 3]")) == Strings{"0", "0", "-2"});
  CHECK(run_typed(E, binary("divide", "tensor<ui32>", "9", "0")) == Strings{"0"});
}

TEST_CASE("max, min and the bitwise ops on integers and booleans", "[int_types]") {
  CHECK(run_typed(E, binary("maximum", "tensor<2xui8>", "[200, 3]", "[100, 4]")) == Strings{"200", "4"});
  CHECK(run_typed(E, binary("maximum", "tensor<2xi8>", "[-1, 3]", "[1, 4]")) == Strings{"1", "4"});
  CHECK(run_typed(E, binary("minimum", "tensor<2xi8>", "[-1, 3]", "[1, 4]")) == Strings{"-1", "3"});
  CHECK(run_typed(E, binary("and", "tensor<2xi8>", "[-1, 12]", "[15, 10]")) == Strings{"15", "8"});
  // spec examples (or, xor, not)
  CHECK(run_typed(E, binary("or", "tensor<2x2xi32>", "[[1, 2], [3, 4]]", "[[5, 6], [7, 8]]")) == Strings{"5", "6", "7", "12"});
  CHECK(run_typed(E, binary("xor", "tensor<2x2xi32>", "[[1, 2], [3, 4]]", "[[5, 6], [7, 8]]")) == Strings{"4", "4", "4", "12"});
  CHECK(run_typed(E, unary("not", "tensor<2x2xi32>", "[[1, 2], [3, 4]]")) == Strings{"-2", "-3", "-4", "-5"});
  CHECK(run_typed(E, unary("not", "tensor<2xui8>", "[0, 255]")) == Strings{"255", "0"});
  CHECK(run_typed(E, binary("xor", "tensor<ui16>", "0xFF00", "0x0FF0")) == Strings{"61680"});  // 0xF0F0
  // Booleans: add and maximum are OR, multiply and minimum are AND (spec add, multiply).
  const std::string l = "[false, false, true, true]", r = "[false, true, false, true]";
  CHECK(run_typed(E, binary("add", "tensor<4xi1>", l, r)) == Strings{"false", "true", "true", "true"});
  CHECK(run_typed(E, binary("multiply", "tensor<4xi1>", l, r)) == Strings{"false", "false", "false", "true"});
  CHECK(run_typed(E, binary("maximum", "tensor<4xi1>", l, r)) == Strings{"false", "true", "true", "true"});
  CHECK(run_typed(E, binary("minimum", "tensor<4xi1>", l, r)) == Strings{"false", "false", "false", "true"});
  CHECK(run_typed(E, binary("xor", "tensor<4xi1>", l, r)) == Strings{"false", "true", "true", "false"});
  CHECK(run_typed(E, binary("or", "tensor<4xi1>", l, r)) == Strings{"false", "true", "true", "true"});
  CHECK(run_typed(E, unary("not", "tensor<2xi1>", "[false, true]")) == Strings{"true", "false"});
}

TEST_CASE("compare on integers and booleans (was an internal error on i1)", "[int_types]") {
  CHECK(run_typed(E, compare("EQ", "tensor<4xi1>", "tensor<4xi1>", "[false, false, true, true]", "[false, true, false, true]")) ==
        Strings{"true", "false", "false", "true"});
  CHECK(run_typed(E, compare("LT", "tensor<4xi1>", "tensor<4xi1>", "[false, false, true, true]", "[false, true, false, true]")) ==
        Strings{"false", "true", "false", "false"});  // false < true
  // The order is the type's: -1 < 1 in i64, but 2^64 - 1 > 1 in ui64.
  CHECK(run_typed(E, compare("LT", "tensor<i64>", "tensor<i1>", "-1", "1")) == Strings{"true"});
  CHECK(run_typed(E, compare("LT", "tensor<ui64>", "tensor<i1>", "18446744073709551615", "1")) == Strings{"false"});
  CHECK(run_typed(E, compare("GE", "tensor<ui8>", "tensor<i1>", "200", "100")) == Strings{"true"});
}

TEST_CASE("the comparison type must fit the element type (compare C3)", "[int_types]") {
  Instruction inst;
  inst.op = Op::Compare;
  inst.result = "%r";
  inst.operands = {"%a", "%b"};
  inst.attributes.comparison_direction = "LT";
  auto check = [&](ElementType e, const std::string& type) {
    inst.operand_types = {TensorType{{2}, e}, TensorType{{2}, e}};
    inst.result_type = TensorType{{2}, ElementType::I1};
    inst.attributes.compare_type = type;
    verify_instruction(inst, "c.mlir");
  };
  CHECK_NOTHROW(check(ElementType::I32, "SIGNED"));
  CHECK_NOTHROW(check(ElementType::UI8, "UNSIGNED"));
  CHECK_NOTHROW(check(ElementType::I1, "UNSIGNED"));
  CHECK_NOTHROW(check(ElementType::F32, "TOTALORDER"));
  CHECK_NOTHROW(check(ElementType::F32, ""));  // not written
  CHECK_THROWS_WITH(check(ElementType::I32, "UNSIGNED"), Catch::Contains("comparison type UNSIGNED does not fit i32") &&
                                                             Catch::Contains("expected SIGNED"));
  CHECK_THROWS_WITH(check(ElementType::F32, "SIGNED"), Catch::Contains("expected FLOAT or TOTALORDER"));
  CHECK_THROWS_WITH(check(ElementType::UI16, "FLOAT"), Catch::Contains("expected UNSIGNED"));
}

TEST_CASE("the verifier's element type rules for integer and boolean operands", "[int_types]") {
  CHECK_THROWS_WITH(run_typed(E, unary("exponential", "tensor<2xi32>", "[1, 2]")),
                    Catch::Contains("stablehlo.exponential: the element type of operand %a must be float, found tensor<2xi32>"));
  CHECK_THROWS_WITH(run_typed(E, unary("abs", "tensor<2xui8>", "[1, 2]")), Catch::Contains("must be signed integer or float"));
  CHECK_THROWS_WITH(run_typed(E, binary("and", "tensor<2xf32>", "[1.0, 2.0]", "[1.0, 2.0]")),
                    Catch::Contains("must be integer or boolean (i1), found tensor<2xf32>"));
  CHECK_THROWS_WITH(run_typed(E, binary("subtract", "tensor<2xi1>", "[true, false]", "[true, true]")),
                    Catch::Contains("stablehlo.subtract: the element type of operand %a must be integer or float"));
  CHECK(run_typed(E, unary("abs", "tensor<2xi16>", "[-3, 2]")) == Strings{"3", "2"});  // control
}

TEST_CASE("select, iota and the movement ops on integers and booleans", "[int_types]") {
  // select with a rank-0 predicate and integer branches; with i1 branches elementwise.
  CHECK(run_typed(E, program({"%p = stablehlo.constant dense<false> : tensor<i1>", "%a = stablehlo.constant dense<[1, 2]> : tensor<2xui8>",
                              "%b = stablehlo.constant dense<[3, 4]> : tensor<2xui8>",
                              "%r = stablehlo.select %p, %a, %b : tensor<i1>, tensor<2xui8>"},
                             "tensor<2xui8>")) == Strings{"3", "4"});
  CHECK(run_typed(E, program({"%p = stablehlo.constant dense<[true, false]> : tensor<2xi1>",
                              "%a = stablehlo.constant dense<[true, true]> : tensor<2xi1>",
                              "%b = stablehlo.constant dense<[false, false]> : tensor<2xi1>",
                              "%r = stablehlo.select %p, %a, %b : tensor<2xi1>, tensor<2xi1>"},
                             "tensor<2xi1>")) == Strings{"true", "false"});
  // iota into i8 wraps (element 128 is -128, 299 is 43); into f16 it rounds (2049 -> 2048).
  const Strings wrapped = run_typed(E, program({"%r = stablehlo.iota dim = 0 : tensor<300xi8>"}, "tensor<300xi8>"));
  CHECK(wrapped[127] == "127");
  CHECK(wrapped[128] == "-128");
  CHECK(wrapped[299] == "43");
  const Strings halves = run_typed(E, program({"%r = stablehlo.iota dim = 0 : tensor<2050xf16>"}, "tensor<2050xf16>"));
  CHECK(halves[2047] == "2047");
  CHECK(halves[2049] == "2048");
  CHECK(run_typed(E, program({"%r = stablehlo.iota dim = 1 : tensor<2x3xi32>"}, "tensor<2x3xi32>")) ==
        Strings{"0", "1", "2", "0", "1", "2"});
  // movement: i1 and ui8 through broadcast, transpose, reverse, slice, pad, concatenate, reshape.
  const std::string bools = "%a = stablehlo.constant dense<[true, false, false]> : tensor<3xi1>";
  CHECK(run_typed(E, program({bools, "%r = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xi1>) -> tensor<2x3xi1>"},
                             "tensor<2x3xi1>")) == Strings{"true", "false", "false", "true", "false", "false"});
  CHECK(run_typed(E, program({bools, "%r = stablehlo.reverse %a, dims = [0] : tensor<3xi1>"}, "tensor<3xi1>")) ==
        Strings{"false", "false", "true"});
  const std::string bytes = "%a = stablehlo.constant dense<[[1, 2, 3], [4, 5, 255]]> : tensor<2x3xui8>";
  CHECK(run_typed(E, program({bytes, "%r = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xui8>) -> tensor<3x2xui8>"},
                             "tensor<3x2xui8>")) == Strings{"1", "4", "2", "5", "3", "255"});
  CHECK(run_typed(E, program({bytes, "%r = stablehlo.slice %a [1:2, 1:3] : (tensor<2x3xui8>) -> tensor<1x2xui8>"},
                             "tensor<1x2xui8>")) == Strings{"5", "255"});
  CHECK(run_typed(E, program({bytes, "%z = stablehlo.constant dense<9> : tensor<ui8>",
                              "%r = stablehlo.pad %a, %z, low = [0, 1], high = [0, 0], interior = [0, 0] : (tensor<2x3xui8>, tensor<ui8>) -> tensor<2x4xui8>"},
                             "tensor<2x4xui8>")) == Strings{"9", "1", "2", "3", "9", "4", "5", "255"});
  CHECK(run_typed(E, program({bytes, "%r = stablehlo.concatenate %a, %a, dim = 0 : (tensor<2x3xui8>, tensor<2x3xui8>) -> tensor<4x3xui8>"},
                             "tensor<4x3xui8>"))
            .size() == 12);
  CHECK(run_typed(E, program({bytes, "%r = stablehlo.reshape %a : (tensor<2x3xui8>) -> tensor<6xui8>"}, "tensor<6xui8>")) ==
        Strings{"1", "2", "3", "4", "5", "255"});
}

TEST_CASE("reductions and contractions on integers (spec i64 examples)", "[int_types]") {
  // spec example (reduce): [[0, 1, 2, 3, 4, 5]] summed over dimension 1 is [15].
  CHECK(run_typed(E, program({"%a = stablehlo.constant dense<[[0, 1, 2, 3, 4, 5]]> : tensor<1x6xi64>",
                              "%z = stablehlo.constant dense<0> : tensor<i64>",
                              "%r = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<1x6xi64>, tensor<i64>) -> tensor<1xi64>"},
                             "tensor<1xi64>")) == Strings{"15"});
  // JAX's all/any: reduce and/or over i1; an i8 sum wraps.
  const std::string flags = "%a = stablehlo.constant dense<[[true, false], [true, true]]> : tensor<2x2xi1>";
  CHECK(run_typed(E, program({flags, "%t = stablehlo.constant dense<true> : tensor<i1>",
                              "%r = stablehlo.reduce(%a init: %t) applies stablehlo.and across dimensions = [1] : (tensor<2x2xi1>, tensor<i1>) -> tensor<2xi1>"},
                             "tensor<2xi1>")) == Strings{"false", "true"});
  CHECK(run_typed(E, program({"%a = stablehlo.constant dense<[100, 100, 100]> : tensor<3xi8>", "%z = stablehlo.constant dense<0> : tensor<i8>",
                              "%r = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<3xi8>, tensor<i8>) -> tensor<i8>"},
                             "tensor<i8>")) == Strings{"44"});  // 300 - 256
  // spec example (reduce_window)
  CHECK(run_typed(E, program({"%a = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>",
                              "%z = stablehlo.constant dense<0> : tensor<i64>",
                              "%r = \"stablehlo.reduce_window\"(%a, %z) ({",
                              "  ^bb0(%pa: tensor<i64>, %pb: tensor<i64>):",
                              "    %pm = stablehlo.add %pa, %pb : tensor<i64>",
                              "    stablehlo.return %pm : tensor<i64>",
                              "}) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 4, 1>, base_dilations = array<i64: 2, 1>, "
                              "window_dilations = array<i64: 3, 1>, padding = dense<[[2, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<3x2xi64>, tensor<i64>) -> tensor<2x2xi64>"},
                             "tensor<2x2xi64>")) == Strings{"0", "0", "3", "4"});
  // spec example (dot_general): batched identity products.
  CHECK(run_typed(E, program({"%a = stablehlo.constant dense<[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]> : tensor<2x2x2xi64>",
                              "%b = stablehlo.constant dense<[[[1, 0], [0, 1]], [[1, 0], [0, 1]]]> : tensor<2x2x2xi64>",
                              "%r = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x2x2xi64>, tensor<2x2x2xi64>) -> tensor<2x2x2xi64>"},
                             "tensor<2x2x2xi64>")) == Strings{"1", "2", "3", "4", "5", "6", "7", "8"});
  // i8 x i8 -> i32: exact products accumulated in the wider type (127 * 127 * 2 = 32258),
  // and an i8 result wraps it (32258 mod 256 = 2).
  const std::string dot = "%a = stablehlo.constant dense<[127, 127]> : tensor<2xi8>";
  CHECK(run_typed(E, program({dot, "%r = stablehlo.dot_general %a, %a, contracting_dims = [0] x [0] : (tensor<2xi8>, tensor<2xi8>) -> tensor<i32>"},
                             "tensor<i32>")) == Strings{"32258"});
  CHECK(run_typed(E, program({dot, "%r = stablehlo.dot_general %a, %a, contracting_dims = [0] x [0] : (tensor<2xi8>, tensor<2xi8>) -> tensor<i8>"},
                             "tensor<i8>")) == Strings{"2"});
  // spec example (convolution), in the pretty form: lhs dilation 2, stride 4.
  CHECK(run_typed(E, program({"%a = stablehlo.constant dense<[[[[1], [2], [5], [6]], [[3], [4], [7], [8]], [[10], [11], [14], [15]], [[12], [13], [16], [17]]]]> : tensor<1x4x4x1xi64>",
                              "%k = stablehlo.constant dense<1> : tensor<3x3x1x1xi64>",
                              "%r = stablehlo.convolution(%a, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
                              "window = {stride = [4, 4], pad = [[0, 0], [0, 0]], lhs_dilate = [2, 2], rhs_dilate = [1, 1]} "
                              "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64>"},
                             "tensor<1x2x2x1xi64>")) == Strings{"10", "26", "46", "62"});
}

TEST_CASE("integers are exact and equal in every domain", "[int_types]") {
  const std::string text = binary("multiply", "tensor<2xi64>", "[3037000500, -7]", "[3037000500, 9]");
  // 3037000500^2 = 9223372037000250000 wraps to 9223372037000250000 - 2^64.
  const Strings expected = {"-9223372036709301616", "-63"};
  CHECK(run_typed(E, text) == expected);
  CHECK(run_typed(IntervalDomain(24), text) == expected);
  CHECK(run_typed(MpfrDomain(24), text) == expected);
  CHECK(run_typed(F32Domain(), text) == expected);
  CHECK(run_typed(F64Domain(), text) == expected);
  // The bound domain (float32 error analysis) refuses integer arithmetic by name.
  CHECK_THROWS_WITH(run_typed(BoundDomain(float_profile("ieee")), text),
                    Catch::Contains("stablehlo.multiply on i64 values is not supported in the"));
}

TEST_CASE("convert between integer, boolean and float types", "[int_types][convert]") {
  // float -> integer: toward zero, saturating, NaN -> 0 (the reference interpreter's choice).
  CHECK(run_typed(E, convert("tensor<5xf32>", "tensor<5xi32>", "[-0.5, 2.9, -2.9, 7.0, -0.0]")) == Strings{"0", "2", "-2", "7", "0"});
  CHECK(run_typed(E, convert("tensor<4xf32>", "tensor<4xi8>", "[300.0, -300.0, 0x7F800000, 0xFF800000]")) ==
        Strings{"127", "-128", "127", "-128"});
  CHECK(run_typed(E, convert("tensor<2xf32>", "tensor<2xui8>", "[-1.0, 255.9]")) == Strings{"0", "255"});
  CHECK(run_typed(F32Domain(), convert("tensor<2xf32>", "tensor<2xi32>", "[0x7FC00000, 1.5]")) == Strings{"0", "1"});
  // integer -> float: the exact value rounded to nearest even in the target type.
  CHECK(run_typed(E, convert("tensor<2xi32>", "tensor<2xf32>", "[16777217, 16777219]")) == Strings{"16777216", "16777220"});
  CHECK(run_typed(F64Domain(), convert("tensor<i32>", "tensor<f32>", "16777217")) == Strings{"16777216"});
  CHECK(run_typed(E, convert("tensor<i32>", "tensor<f64>", "16777217")) == Strings{"16777217"});  // control: f64 holds it
  CHECK(run_typed(E, convert("tensor<ui64>", "tensor<f16>", "18446744073709551615")) == Strings{"inf"});
  // integer -> integer wraps; i1 <-> numbers.
  CHECK(run_typed(E, convert("tensor<3xi64>", "tensor<3xui8>", "[-1, 256, 300]")) == Strings{"255", "0", "44"});
  CHECK(run_typed(E, convert("tensor<2xui8>", "tensor<2xi8>", "[255, 127]")) == Strings{"-1", "127"});
  CHECK(run_typed(E, convert("tensor<2xi1>", "tensor<2xf32>", "[true, false]")) == Strings{"1", "0"});
  CHECK(run_typed(E, convert("tensor<2xi1>", "tensor<2xi32>", "[true, false]")) == Strings{"1", "0"});
  CHECK(run_typed(E, convert("tensor<3xi32>", "tensor<3xi1>", "[0, -4, 1]")) == Strings{"false", "true", "true"});
  CHECK(run_typed(F32Domain(), convert("tensor<3xf32>", "tensor<3xi1>", "[0x7FC00000, -0.0, 0.5]")) ==
        Strings{"true", "false", "true"});
  // An interval whose truncation is not one integer is an error at the element (1/10 * 10
  // encloses 1 from both sides); the exact domain decides it (the control).
  const std::string tenth = program({"%a = stablehlo.constant dense<[0.1, 0.5]> : tensor<2xf32>",
                                     "%t = stablehlo.constant dense<10.0> : tensor<2xf32>", "%m = stablehlo.multiply %a, %t : tensor<2xf32>",
                                     "%r = stablehlo.convert %m : (tensor<2xf32>) -> tensor<2xi32>"},
                                    "tensor<2xi32>");
  CHECK_THROWS_WITH(run_typed(IntervalDomain(24), tenth), Catch::Contains("undecided") && Catch::Contains("at index [0]"));
  CHECK(run_typed(E, tenth) == Strings{"1", "5"});
}

TEST_CASE("convert between float types rounds to nearest even", "[int_types][convert]") {
  // f64 0.1 -> f32 is the float nearest 0.1 (0x3DCCCCCD), exactly.
  CHECK(run_typed(E, convert("tensor<f64>", "tensor<f32>", "0.1")) == Strings{E.to_string(E.from_double(static_cast<double>(0.1f)))});
  CHECK(run_typed(E, convert("tensor<f64>", "tensor<f64>", "0.1")) == Strings{"1/10"});  // control: no rounding
  // f32 -> bf16 ties to even: 1 + 2^-8 -> 1 (0x3F80), 1 + 2^-7 + 2^-8 -> 1 + 2^-6 (0x3F82).
  CHECK(run_typed(E, convert("tensor<2xf32>", "tensor<2xbf16>", "[0x3F808000, 0x3F818000]")) == Strings{"1", "65/64"});
  // f16: 65519 rounds to 65504, 65520 (the tie with 2^16) overflows to inf; on the subnormal
  // grid (step 2^-24) 2^-25 ties to 0 and 3 * 2^-25 ties to 2 * 2^-24 (even).
  CHECK(run_typed(E, convert("tensor<4xf32>", "tensor<4xf16>", "[65519.0, 65520.0, 2.98023223876953125e-8, 8.94069671630859375e-8]")) ==
        Strings{"65504", "inf", "0", "1/8388608"});
  CHECK(run_typed(F32Domain(), convert("tensor<2xf32>", "tensor<2xf16>", "[1.0009765625, 1.00048828125]")) == Strings{"1.0009766", "1"});
  // f16 hex literals read as binary16: 0x3C00 = 1, 0xC000 = -2, 0x7C00 = inf.
  CHECK(run_typed(E, program({"%r = stablehlo.constant dense<[0x3C00, 0xC000, 0x7C00]> : tensor<3xf16>"}, "tensor<3xf16>")) ==
        Strings{"1", "-2", "inf"});
}
