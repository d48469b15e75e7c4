// The textual forms MLIR and JAX print (docs/mlir-forms.md): each form parses to the same
// instructions as the pretty form the Lean printer writes, runs to the same values, prints in
// the normalised form and reads back; malformed attributes are located errors.
#include "ast/mlir_parse.hpp"
#include "ast/mlir_print.hpp"
#include "tests/support.hpp"

using namespace shlo;
using shlo::test::parse_error_of;
using shlo::test::module_text;
using shlo::test::run1;

namespace {

// A module around one instruction `%v0 = <op>` returning %v0.
std::string one_op(const std::string& args, const std::string& result, const std::string& op) {
  return module_text(args, result, "    %v0 = " + op + "\n", "%v0");
}

// `forms[0]` is the pretty form we print; every other form parses to the same function,
// prints as forms[0] prints, and reads back from its print.
void check_same(const std::string& args, const std::string& result, const std::vector<std::string>& forms) {
  const Module reference = parse_module(one_op(args, result, forms.at(0)), "reference.mlir");
  for (std::size_t i = 1; i < forms.size(); ++i) {
    INFO(forms[i]);
    const Module m = parse_module(one_op(args, result, forms[i]), "form.mlir");
    CHECK(m.function() == reference.function());
    CHECK(print_module(m) == print_module(reference));
    CHECK(parse_module(print_module(m)) == m);
  }
}

}  // namespace

TEST_CASE("locations, comments and location aliases are skipped, whole-line comments kept", "[mlir][forms][lexer]") {
  const std::string text =
      "#loc = loc(unknown)\n"
      "module @m {\n"
      "  func.func @f(%x: tensor<2xf32> loc(\"x\")) -> tensor<2xf32> {\n"
      "    %v0 = stablehlo.negate %x : tensor<2xf32> loc(#loc3)  // a trailing comment\n"
      "    // a whole-line comment\n"
      "    %v1 = stablehlo.add %v0, /* not a comment */ %v0 : tensor<2xf32> loc(callsite(\"f(a)\"(\"s).py\":1:2) at fused[\"b\", #loc1]))\n"
      "    return %v1 : tensor<2xf32> loc(#loc)\n"
      "  } loc(#loc)\n"
      "} loc(#loc)\n"
      "#loc1 = loc(\"s.py\":12:8)\n"
      "#loc3 = loc(\"jit(f)/neg\"(#loc1))\n";
  // `/* */` is not MLIR: the control that the text is read at all.
  CHECK(parse_error_of(text).find("t.mlir:6:30: expected an operand") == 0);
  std::string fixed = text;
  fixed.erase(fixed.find("/* not a comment */ "), 20);
  const Module m = parse_module(fixed, "t.mlir");
  REQUIRE(m.function().body.size() == 3);
  CHECK(std::get<Comment>(m.function().body[1]).text == "// a whole-line comment");
  const std::string plain = module_text("%x: tensor<2xf32>", "tensor<2xf32>",
                                        "    %v0 = stablehlo.negate %x : tensor<2xf32>\n"
                                        "    // a whole-line comment\n"
                                        "    %v1 = stablehlo.add %v0, %v0 : tensor<2xf32>\n",
                                        "%v1");
  CHECK(parse_module(plain).function() == m.function());
  CHECK(print_module(m) == plain);
  // Unterminated locations and strings are located errors.
  CHECK(parse_error_of(one_op("%x: tensor<2xf32>", "tensor<2xf32>", "stablehlo.negate %x : tensor<2xf32> loc(\"a.py\":1")) ==
        "t.mlir:3:47: unterminated location loc(...)");
}

TEST_CASE("string literals decode their escapes", "[mlir][forms][lexer]") {
  Lexer l("\"a\\22b\\\\c\\n\\t\" rest", "t");
  CHECK(l.string_literal() == "a\"b\\c\n\t");
  CHECK(l.identifier() == "rest");
  Lexer bad("\"a\\q\"", "t");
  CHECK_THROWS_WITH(bad.string_literal(), "t:1:4: unknown escape in string literal");
}

TEST_CASE("attribute aliases are resolved where they are used", "[mlir][forms][aliases]") {
  const std::string body =
      "    %v0 = \"stablehlo.transpose\"(%x) <{permutation = #perm}> : (tensor<2x3xf32>) -> tensor<3x2xf32>\n";
  const std::string text = "#perm = array<i64: 1, 0>\n" + module_text("%x: tensor<2x3xf32>", "tensor<3x2xf32>", body, "%v0");
  const Module m = parse_module(text);
  const Module pretty = parse_module(one_op("%x: tensor<2x3xf32>", "tensor<3x2xf32>",
                                            "stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>"));
  CHECK(m.function() == pretty.function());
  // Control: an alias naming another permutation is read as that permutation (and fails the type).
  std::string other = text;
  other.replace(other.find("1, 0"), 4, "0, 1");
  CHECK(parse_error_of(other).find("the result type must be tensor<2x3xf32>") != std::string::npos);
  // An unknown alias is a located error.
  CHECK(parse_error_of(module_text("%x: tensor<2x3xf32>", "tensor<3x2xf32>", body, "%v0")) ==
        "t.mlir:3:53: unknown attribute alias #perm");
}

TEST_CASE("generic and pretty forms of the data-movement ops bind to one instruction", "[mlir][forms][generic]") {
  const std::string x = "%x: tensor<2x3xf32>, %x0: tensor<f32>";
  check_same(x, "tensor<3x2xf32>",
             {"stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>",
              "\"stablehlo.transpose\"(%x) <{permutation = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>",
              "\"stablehlo.transpose\"(%x) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<2x3xf32>) -> tensor<3x2xf32>"});
  check_same(x, "tensor<2x1xf32>",
             {"stablehlo.slice %x [0:2, 1:3:2] : (tensor<2x3xf32>) -> tensor<2x1xf32>",
              "\"stablehlo.slice\"(%x) <{limit_indices = array<i64: 2, 3>, start_indices = array<i64: 0, 1>, strides = array<i64: 1, 2>}> : (tensor<2x3xf32>) -> tensor<2x1xf32>",
              "\"stablehlo.slice\"(%x) {start_indices = dense<[0, 1]> : tensor<2xi64>, limit_indices = dense<[2, 3]> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>} : (tensor<2x3xf32>) -> tensor<2x1xf32>"});
  check_same(x, "tensor<2x3xf32>",
             {"stablehlo.reverse %x, dims = [1] : tensor<2x3xf32>",
              "stablehlo.reverse %x, dims = [1] : (tensor<2x3xf32>) -> tensor<2x3xf32>",
              "\"stablehlo.reverse\"(%x) <{dimensions = array<i64: 1>}> : (tensor<2x3xf32>) -> tensor<2x3xf32>",
              "\"stablehlo.reverse\"(%x) {dimensions = dense<1> : tensor<1xi64>} : (tensor<2x3xf32>) -> tensor<2x3xf32>"});
  check_same(x, "tensor<2x4x3xf32>",
             {"stablehlo.broadcast_in_dim %x, dims = [0, 2] : (tensor<2x3xf32>) -> tensor<2x4x3xf32>",
              "\"stablehlo.broadcast_in_dim\"(%x) <{broadcast_dimensions = array<i64: 0, 2>}> : (tensor<2x3xf32>) -> tensor<2x4x3xf32>",
              "\"stablehlo.broadcast_in_dim\"(%x) {broadcast_dimensions = dense<[0, 2]> : tensor<2xi64>} : (tensor<2x3xf32>) -> tensor<2x4x3xf32>"});
  check_same(x, "tensor<3x2xf32>",
             {"stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<3x2xf32>",
              "\"stablehlo.reshape\"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>"});
  check_same(x, "tensor<2x3xbf16>",
             {"stablehlo.convert %x : (tensor<2x3xf32>) -> tensor<2x3xbf16>",
              "\"stablehlo.convert\"(%x) : (tensor<2x3xf32>) -> tensor<2x3xbf16>"});
  check_same(x, "tensor<3x4xf32>",
             {"stablehlo.pad %x, %x0, low = [1, 0], high = [0, 1], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x4xf32>",
              "\"stablehlo.pad\"(%x, %x0) <{edge_padding_high = array<i64: 0, 1>, edge_padding_low = array<i64: 1, 0>, interior_padding = array<i64: 0, 0>}> : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x4xf32>",
              "\"stablehlo.pad\"(%x, %x0) {edge_padding_low = dense<[1, 0]> : tensor<2xi64>, edge_padding_high = dense<[0, 1]> : tensor<2xi64>, interior_padding = dense<0> : tensor<2xi64>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x4xf32>"}
             );
  check_same(x, "tensor<4x3xf32>",
             {"stablehlo.concatenate %x, %x, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>",
              "\"stablehlo.concatenate\"(%x, %x) <{dimension = 0 : i64}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>"});
  check_same("", "tensor<2x3xf32>",
             {"stablehlo.iota dim = 1 : tensor<2x3xf32>",
              "\"stablehlo.iota\"() <{iota_dimension = 1 : i64}> : () -> tensor<2x3xf32>",
              "stablehlo.iota dim = 1 {some.tag = \"x\"} : tensor<2x3xf32>"});
  check_same("", "tensor<2xf32>",
             {"stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>",
              "\"stablehlo.constant\"() <{value = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>",
              "\"stablehlo.constant\"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>"});
}

TEST_CASE("a generic pad with other padding is another instruction", "[mlir][forms][generic]") {
  const std::string args = "%x: tensor<2x3xf32>, %x0: tensor<f32>";
  const std::string pretty = "stablehlo.pad %x, %x0, low = [1, 0], high = [0, 1], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x4xf32>";
  const std::string generic = "\"stablehlo.pad\"(%x, %x0) <{edge_padding_high = array<i64: 0, 1>, edge_padding_low = array<i64: 1, 0>, interior_padding = array<i64: 0, 0>}> : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x4xf32>";
  const Module a = parse_module(one_op(args, "tensor<3x4xf32>", pretty));
  const Module b = parse_module(one_op(args, "tensor<3x4xf32>", generic));
  CHECK(a.function() == b.function());
  // Control: another padding is another instruction.
  std::string other = generic;
  other.replace(other.find("interior_padding = array<i64: 0, 0>"), 35, "interior_padding = array<i64: 1, 0>");
  other.replace(other.find("tensor<3x4xf32>"), 15, "tensor<4x4xf32>");
  CHECK(parse_module(one_op(args, "tensor<4x4xf32>", other)).function().body != a.function().body);
}

TEST_CASE("elementwise ops, select and compare in every type form", "[mlir][forms][generic]") {
  const std::string xy = "%x: tensor<2x3xf32>, %y: tensor<2x3xf32>, %p: tensor<2x3xi1>";
  check_same(xy, "tensor<2x3xf32>",
             {"stablehlo.add %x, %y : tensor<2x3xf32>",
              "stablehlo.add %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>",
              "\"stablehlo.add\"(%x, %y) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>",
              "stablehlo.add %x, %y {mhlo.frontend_attributes = {_xla_stream_annotation = \"1\"}, mhlo.sharding = \"{replicated}\"} : tensor<2x3xf32>"});
  check_same(xy, "tensor<2x3xf32>",
             {"stablehlo.exponential %x : tensor<2x3xf32>",
              "stablehlo.exponential %x : (tensor<2x3xf32>) -> tensor<2x3xf32>",
              "\"stablehlo.exponential\"(%x) {result_accuracy = #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<DEFAULT>>} : (tensor<2x3xf32>) -> tensor<2x3xf32>"});
  check_same(xy, "tensor<2x3xf32>",
             {"stablehlo.select %p, %x, %y : tensor<2x3xi1>, tensor<2x3xf32>",
              "stablehlo.select %p, %x, %y : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>",
              "\"stablehlo.select\"(%p, %x, %y) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>"});
  check_same(xy, "tensor<2x3xi1>",
             {"stablehlo.compare LT, %x, %y, FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>",
              "stablehlo.compare  LT, %x, %y,  FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>",
              "\"stablehlo.compare\"(%x, %y) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>",
              "\"stablehlo.compare\"(%x, %y) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>"});
  // Without a type, and with MLIR's NOTYPE, compare is the Lean printer's form.
  check_same(xy, "tensor<2x3xi1>",
             {"stablehlo.compare GE, %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>",
              "\"stablehlo.compare\"(%x, %y) {comparison_direction = #stablehlo<comparison_direction GE>, compare_type = #stablehlo<comparison_type NOTYPE>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>"});
  // The comparison type is kept: FLOAT and TOTALORDER are two instructions, and neither is the untyped one.
  const auto parsed = [&](const std::string& op) { return parse_module(one_op(xy, "tensor<2x3xi1>", op)).function(); };
  const auto ty = " : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>";
  CHECK(parsed(std::string("stablehlo.compare LT, %x, %y, TOTALORDER") + ty) != parsed(std::string("stablehlo.compare LT, %x, %y, FLOAT") + ty));
  CHECK(parsed(std::string("stablehlo.compare LT, %x, %y") + ty) != parsed(std::string("stablehlo.compare LT, %x, %y, FLOAT") + ty));
  // Integer comparison types on floats: a located error; the same line with FLOAT is the control above.
  CHECK(parse_error_of(one_op(xy, "tensor<2x3xi1>", std::string("stablehlo.compare  LT, %x, %y,  UNSIGNED") + ty)) ==
        "t.mlir:3:5: stablehlo.compare: comparison type UNSIGNED does not apply to tensor<2x3xf32> (floats compare as FLOAT or TOTALORDER)");
  CHECK(parse_error_of(one_op(xy, "tensor<2x3xi1>", std::string("\"stablehlo.compare\"(%x, %y) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>}") + ty))
            .find("comparison type SIGNED does not apply") != std::string::npos);
  // The select's written predicate type is checked against the operand, in both type forms.
  CHECK(parse_error_of(one_op(xy, "tensor<2x3xf32>", "stablehlo.select %p, %x, %y : (tensor<i1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>")) ==
        "t.mlir:3:5: operand %p has type tensor<2x3xi1> but the instruction says tensor<i1>");
}

TEST_CASE("dot_general's and convolution's attributes in every spelling", "[mlir][forms][attributes]") {
  const std::string ab = "%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>";
  const std::string ty = " : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>";
  check_same(ab, "tensor<2x3x5xf32>",
             {"stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT]" + ty,
              "stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>" + ty,
              "\"stablehlo.dot_general\"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}>" + ty,
              "\"stablehlo.dot_general\"(%a, %b) {precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], dot_dimension_numbers = #stablehlo.dot<\n"
              "      lhs_batching_dimensions = [0],\n      rhs_batching_dimensions = [0],\n"
              "      lhs_contracting_dimensions = [2],\n      rhs_contracting_dimensions = [1]\n    >}" + ty});
  // Control: without the precision list it is another instruction.
  CHECK(parse_module(one_op(ab, "tensor<2x3x5xf32>", "stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1]" + ty)).function() !=
        parse_module(one_op(ab, "tensor<2x3x5xf32>", "stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT]" + ty)).function());
  CHECK(parse_error_of(one_op(ab, "tensor<2x3x5xf32>", "stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [FAST, DEFAULT]" + ty)) ==
        "t.mlir:3:111: unknown precision 'FAST' (DEFAULT, HIGH, HIGHEST)");

  const std::string xk = "%x: tensor<1x4x4x2xf32>, %k: tensor<3x3x2x5xf32>";
  const std::string cty = " : (tensor<1x4x4x2xf32>, tensor<3x3x2x5xf32>) -> tensor<1x2x1x5xf32>";
  const std::string lean = "stablehlo.convolution(%x, %k)\n      dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],\n"
                           "      window = {stride = [1, 2], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]}\n"
                           "      {batch_group_count = 1 : i64, feature_group_count = 1 : i64}" + cty;
  check_same(xk, "tensor<1x2x1x5xf32>",
             {lean,
              "stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 2], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}" + cty,
              "stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 2], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [0, 0]} {feature_group_count = 1 : i64, batch_group_count = 1 : i64}" + cty,
              "\"stablehlo.convolution\"(%x, %k) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, padding = dense<0> : tensor<2x2xi64>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, window_strides = array<i64: 1, 2>}>" + cty,
              "\"stablehlo.convolution\"(%x, %k) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<raw\n"
              "  input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2],\n"
              "  kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1],\n"
              "  output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>,\n"
              "  feature_group_count = 1 : i64, lhs_dilation = dense<1> : tensor<2xi64>, padding = dense<[[0, 0], [0, 0]]> : tensor<2x2xi64>, window_reversal = dense<false> : tensor<2xi1>, window_strides = dense<[1, 2]> : tensor<2xi64>}" + cty});
  // precision_config on a convolution is kept, printed in its trailing dictionary, read back.
  const Module with_precision = parse_module(one_op(xk, "tensor<1x2x1x5xf32>",
      "stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]}" + cty));
  CHECK(std::get<Instruction>(with_precision.function().body[0]).attributes.precision_config == std::vector<std::string>{"DEFAULT", "HIGHEST"});
  CHECK(parse_module(print_module(with_precision)) == with_precision);
  // A reversed window is refused where it is written; the all-false control is the forms above.
  CHECK(parse_error_of(one_op(xk, "tensor<1x2x1x5xf32>", "stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 2], reverse = [false, true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}" + cty)) ==
        "t.mlir:3:123: a reversed convolution window (reverse = true) is not supported");
  CHECK(parse_error_of(one_op(xk, "tensor<1x2x1x5xf32>", "\"stablehlo.convolution\"(%x, %k) <{dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, window_reversal = array<i1: true, false>, window_strides = array<i64: 1, 2>}>" + cty))
            .find("a reversed convolution window (window_reversal true) is not supported") != std::string::npos);
  // A raw form without all nine fields.
  CHECK(parse_error_of(one_op(xk, "tensor<1x2x1x5xf32>", "\"stablehlo.convolution\"(%x, %k) <{dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0>}>" + cty))
            .find("needs all nine dimension fields") != std::string::npos);
}

TEST_CASE("reduce and reduce_window in the generic form", "[mlir][forms][generic]") {
  const std::string args = "%x: tensor<2x3xf32>, %z: tensor<f32>";
  const std::string region = "({\n      ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n        %s = stablehlo.add %a, %b : tensor<f32>\n        stablehlo.return %s : tensor<f32>\n    })";
  check_same(args, "tensor<2xf32>",
             {"stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>",
              "\"stablehlo.reduce\"(%x, %z) <{dimensions = array<i64: 1>}> " + region + " : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>",
              "\"stablehlo.reduce\"(%x, %z) " + region + " {dimensions = dense<1> : tensor<1xi64>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>"});
  // A body that is not one op of its two arguments in order is kept as a region, run as a
  // program (tests/test_regions.cpp).
  std::string swapped = "\"stablehlo.reduce\"(%x, %z) <{dimensions = array<i64: 1>}> " + region + " : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>";
  swapped.replace(swapped.find("subtract") == std::string::npos ? swapped.find("add %a, %b") : 0, 10, "subtract %b, %a");
  CHECK(parse_error_of(one_op(args, "tensor<2xf32>", swapped)).empty());

  const std::string lean =
      "\"stablehlo.reduce_window\"(%x, %z) ({\n      ^bb0(%pa: tensor<f32>, %pb: tensor<f32>):\n        %pm = stablehlo.maximum %pa, %pb : tensor<f32>\n"
      "        stablehlo.return %pm : tensor<f32>\n    }) {window_dimensions = array<i64: 1, 2>, window_strides = array<i64: 1, 1>, padding = dense<[[0, 0], [1, 0]]> : tensor<2x2xi64>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>";
  check_same(args, "tensor<2x3xf32>",
             {lean,
              "\"stablehlo.reduce_window\"(%x, %z) <{padding = dense<[[0, 0], [1, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 2>, window_strides = array<i64: 1, 1>}> ({\n"
              "^bb0(%pa: tensor<f32> loc(\"a\"), %pb: tensor<f32>):\n  %pm = \"stablehlo.maximum\"(%pa, %pb) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
              "  stablehlo.return %pm : tensor<f32>\n}) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>"});
}

TEST_CASE("dense literals in every form", "[mlir][forms][dense]") {
  const auto constant = [](const std::string& literal, const std::string& type) {
    const Module m = parse_module(one_op("", type, "stablehlo.constant " + literal + " : " + type));
    return std::get<Instruction>(m.function().body.at(0)).attributes.literal;
  };
  // Hex strings: little-endian element bytes; one element's bytes are a splat.
  const DenseLiteral two = constant("dense<\"0x0000803F00000040\">", "tensor<2xf32>");
  CHECK(two.elements == std::vector<std::string>{"0x3F800000", "0x40000000"});
  CHECK(!two.splat);
  const DenseLiteral splat = constant("dense<\"0x0000C03F\">", "tensor<3xf32>");
  CHECK(splat.splat);
  CHECK(splat.elements == std::vector<std::string>{"0x3FC00000"});
  CHECK(constant("dense<\"0x000000000000F03F\">", "tensor<f64>").elements == std::vector<std::string>{"0x3FF0000000000000"});
  CHECK(constant("dense<\"0x803F0040\">", "tensor<2xbf16>").elements == std::vector<std::string>{"0x3F80", "0x4000"});
  CHECK(constant("dense<\"0x0100\">", "tensor<2xi1>").elements == std::vector<std::string>{"true", "false"});
  CHECK(constant("dense<\"0x05\">", "tensor<3xi1>").elements == std::vector<std::string>{"true", "false", "true"});  // packed bits
  CHECK(constant("dense<\"0xFF\">", "tensor<4xi1>").elements == std::vector<std::string>{"true"});  // splat
  // Booleans, nested lists, empty tensors; the Lean printer's literals stay verbatim.
  CHECK(constant("dense<[true, false]>", "tensor<2xi1>").elements == std::vector<std::string>{"true", "false"});
  CHECK(constant("dense<[[1.0e-05, 0xFF800000]]>", "tensor<1x2xf32>").elements == std::vector<std::string>{"1.0e-05", "0xFF800000"});
  const DenseLiteral empty = constant("dense<>", "tensor<2x0xf32>");
  CHECK(empty.elements.empty());
  CHECK(empty.list_shape == std::vector<std::int64_t>{2, 0});
  // A hex constant runs to the values of its decimal spelling (an independent route).
  const ExactDomain exact;
  const std::string hex = one_op("", "tensor<2xf32>", "stablehlo.constant dense<\"0x0000803F000020C0\"> : tensor<2xf32>");
  const std::string decimal = one_op("", "tensor<2xf32>", "stablehlo.constant dense<[1.0, -2.5]> : tensor<2xf32>");
  CHECK(run1(exact, hex, {}) == run1(exact, decimal, {}));
  CHECK(run1(exact, hex, {}) != run1(exact, one_op("", "tensor<2xf32>", "stablehlo.constant dense<[1.0, 2.5]> : tensor<2xf32>"), {}));
  // Malformed hex: located errors.
  CHECK(parse_error_of(one_op("", "tensor<3xf32>", "stablehlo.constant dense<\"0x0000803F00000040\"> : tensor<3xf32>")) ==
        "t.mlir:3:30: the hex string holds 8 byte(s); tensor<3xf32> needs 12 (or 4 for a splat)");
  CHECK(parse_error_of(one_op("", "tensor<2xf32>", "stablehlo.constant dense<\"0x0000803G\"> : tensor<2xf32>")) ==
        "t.mlir:3:30: a dense string must be hex bytes \"0x...\"");
  CHECK(parse_error_of(one_op("", "tensor<2xf32>", "stablehlo.constant dense<> : tensor<2xf32>")) ==
        "t.mlir:3:30: dense<> is empty but tensor<2xf32> has 2 element(s)");
}

TEST_CASE("unknown attributes are skipped, ops outside the set are refused by name", "[mlir][forms][errors]") {
  const std::string x = "%x: tensor<2x3xf32>";
  CHECK(parse_error_of(one_op(x, "tensor<2x3xf32>", "\"stablehlo.fft\"(%x) {fft_type = #stablehlo<fft_type FFT>, fft_length = array<i64: 3>} : (tensor<2x3xf32>) -> tensor<2x3xf32>")) ==
        "t.mlir:3:11: unsupported op 'stablehlo.fft'");
  CHECK(parse_error_of(one_op(x, "tensor<2x3xf32>", "stablehlo.cholesky %x, lower = true : tensor<2x3xf32>")) ==
        "t.mlir:3:11: unsupported op 'stablehlo.cholesky'");
  CHECK(parse_error_of(one_op(x, "tensor<2x3xf32>", "chlo.erf %x : tensor<2x3xf32>")) == "t.mlir:3:11: unsupported op 'chlo.erf'");
  // Skipped metadata of any nesting; the control is the same op with a broken value.
  const std::string meta = "\"stablehlo.negate\"(%x) {mhlo.sharding = \"{devices=[2,1]<=[2]}\", sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}]>, "
                           "result_layouts = [dense<[0, 1]> : tensor<2xindex>], fn = (tensor<f32>) -> tensor<f32>, flag} : (tensor<2x3xf32>) -> tensor<2x3xf32>";
  CHECK(parse_error_of(one_op(x, "tensor<2x3xf32>", meta)) == "");
  std::string broken = meta;
  broken.replace(broken.find("[{\"x\"}, {}]"), 11, "[{\"x\"}, {]");
  CHECK(parse_error_of(one_op(x, "tensor<2x3xf32>", broken)).find("unbalanced") != std::string::npos);
  // Missing and malformed attributes: located, each beside a control that parses.
  CHECK(parse_error_of(one_op(x, "tensor<3x2xf32>", "\"stablehlo.transpose\"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>")) ==
        "t.mlir:3:11: stablehlo.transpose needs the attribute 'permutation'");
  CHECK(parse_error_of(one_op(x, "tensor<3x2xf32>", "\"stablehlo.transpose\"(%x) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>")) == "");
  CHECK(parse_error_of(one_op(x, "tensor<3x2xf32>", "\"stablehlo.transpose\"(%x) {permutation = array<i64: 1, 0} : (tensor<2x3xf32>) -> tensor<3x2xf32>")) ==
        "t.mlir:3:67: expected '>' or ',' '>', found '}'");
  CHECK(parse_error_of(one_op(x, "tensor<3x2xf32>", "\"stablehlo.transpose\"(%x) {permutation = dense<[1, 0]> : tensor<2xf32>} : (tensor<2x3xf32>) -> tensor<3x2xf32>")) ==
        "t.mlir:3:52: an integer list must have a rank-1 i64 type, found tensor<2xf32>");
  CHECK(parse_error_of(one_op(x, "tensor<3x2xf32>", "\"stablehlo.transpose\"(%x) {permutation = array<i64: 1, 0>, permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>")) ==
        "t.mlir:3:70: attribute 'permutation' is given twice");
  CHECK(parse_error_of(one_op(x, "tensor<2x3xf32>", "\"stablehlo.add\"(%x, %x) ({\n^bb0(%a: tensor<f32>):\n  stablehlo.return %a : tensor<f32>\n}) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>")) ==
        "t.mlir:3:5: stablehlo.add takes no regions");
  CHECK(parse_error_of(one_op(x, "tensor<2x3xi1>", "stablehlo.compare LT, %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>")) == "");
  CHECK(parse_error_of(one_op(x, "tensor<2x3xi1>", "\"stablehlo.compare\"(%x, %x) {comparison_direction = #stablehlo<comparison_type LT>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>")) ==
        "t.mlir:3:74: expected #stablehlo<comparison_direction ...>, found #stablehlo<comparison_type ...>");
}

TEST_CASE("a program in generic form runs to the values of its pretty form", "[mlir][forms][run]") {
  const std::string args = "%x: tensor<2x3xf32>, %z: tensor<f32>";
  const std::string pretty =
      "    %v0 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
      "    %v1 = stablehlo.reverse %v0, dims = [0] : tensor<3x2xf32>\n"
      "    %v2 = stablehlo.slice %v1 [0:3:2, 0:2] : (tensor<3x2xf32>) -> tensor<2x2xf32>\n"
      "    %v3 = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<2x2xf32>\n"
      "    %v4 = stablehlo.compare GT, %v2, %v3, FLOAT : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xi1>\n"
      "    %v5 = stablehlo.select %v4, %v2, %v3 : tensor<2x2xi1>, tensor<2x2xf32>\n"
      "    %v6 = stablehlo.reduce(%v5 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x2xf32>, tensor<f32>) -> tensor<2xf32>\n";
  const std::string generic =
      "    %v0 = \"stablehlo.transpose\"(%x) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
      "    %v1 = \"stablehlo.reverse\"(%v0) <{dimensions = array<i64: 0>}> : (tensor<3x2xf32>) -> tensor<3x2xf32>\n"
      "    %v2 = \"stablehlo.slice\"(%v1) <{limit_indices = array<i64: 3, 2>, start_indices = array<i64: 0, 0>, strides = array<i64: 2, 1>}> : (tensor<3x2xf32>) -> tensor<2x2xf32>\n"
      "    %v3 = \"stablehlo.broadcast_in_dim\"(%z) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<2x2xf32>\n"
      "    %v4 = \"stablehlo.compare\"(%v2, %v3) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xi1>\n"
      "    %v5 = stablehlo.select %v4, %v2, %v3 : (tensor<2x2xi1>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>\n"
      "    %v6 = \"stablehlo.reduce\"(%v5, %z) <{dimensions = array<i64: 1>}> ({\n"
      "      ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
      "        %s = \"stablehlo.add\"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
      "        \"stablehlo.return\"(%s) : (tensor<f32>) -> ()\n"
      "    }) : (tensor<2x2xf32>, tensor<f32>) -> tensor<2xf32>\n";
  const Module p = parse_module(module_text(args, "tensor<2xf32>", pretty, "%v6"));
  const Module g = parse_module(module_text(args, "tensor<2xf32>", generic, "%v6"));
  CHECK(g.function() == p.function());
  CHECK(print_module(g) == print_module(p));
  // x = [[1, 2, 3], [4, 5, 6]]: transpose [[1, 4], [2, 5], [3, 6]], reverse rows [[3, 6], [2, 5], [1, 4]],
  // rows 0 and 2: [[3, 6], [1, 4]]; max with z = 2 where greater: [[3, 6], [2, 4]]; row sums + z: [11, 8].
  const ExactDomain exact;
  const std::vector<std::vector<std::string>> inputs{{"1", "2", "3", "4", "5", "6"}, {"2"}};
  CHECK(run1(exact, print_module(g), inputs) == test::Strings{"11", "8"});
  CHECK(run1(exact, print_module(p), inputs) == test::Strings{"11", "8"});
  CHECK(run1(exact, print_module(g), {{"1", "2", "3", "4", "5", "6"}, {"0"}}) == test::Strings{"9", "5"});  // control: z moves the sums
}

TEST_CASE("no internal error on any prefix or one-byte change of the new forms", "[mlir][forms][errors]") {
  const std::string text =
      "#perm = array<i64: 1, 0>\n#loc1 = loc(\"a.py\":1:2)\n" +
      module_text("%x: tensor<2x3xf32>, %z: tensor<f32>", "tensor<2xf32>",
                  "    %c = \"stablehlo.constant\"() <{value = dense<\"0x0000803F\"> : tensor<2xf32>}> : () -> tensor<2xf32>\n"
                  "    %t = \"stablehlo.transpose\"(%x) <{permutation = #perm}> {mhlo.sharding = \"{a\\22}\"} : (tensor<2x3xf32>) -> tensor<3x2xf32> loc(#loc1)\n"
                  "    %p = stablehlo.compare  GT, %t, %t,  FLOAT : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xi1>\n"
                  "    %d = \"stablehlo.dot_general\"(%t, %x) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<3x2xf32>, tensor<2x3xf32>) -> tensor<3x3xf32>\n"
                  "    %r = \"stablehlo.reduce\"(%x, %z) <{dimensions = dense<1> : tensor<1xi64>}> ({\n"
                  "      ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n        %s = stablehlo.add %a, %b : tensor<f32>\n"
                  "        \"stablehlo.return\"(%s) : (tensor<f32>) -> ()\n    }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>\n",
                  "%r");
  REQUIRE(parse_error_of(text) == "");  // the control: the whole text parses
  int errors = 0;
  const std::string replacements = "\"<>{}[](),:=#%@x0 \n";
  for (std::size_t cut = 0; cut < text.size(); ++cut) {
    INFO("prefix of " << cut << " bytes");
    std::string shown;
    CHECK_NOTHROW(shown = parse_error_of(text.substr(0, cut)));
    errors += !shown.empty();
    for (char c : {replacements[cut % replacements.size()], replacements[(cut * 7 + 3) % replacements.size()]}) {
      std::string changed = text;
      changed[cut] = c;
      INFO("byte " << cut << " changed to '" << c << "'");
      CHECK_NOTHROW(parse_error_of(changed));
    }
  }
  // Every proper prefix but the one without the final line break is an error with a message.
  CHECK(errors == static_cast<int>(text.size()) - 1);
}
