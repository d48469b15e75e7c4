// Per-op tests: values computed by hand, and the spec's own examples (spec.md, "Examples").
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

const ExactDomain E;

std::string line(const std::string& s) { return "    " + s + "\n"; }

// A module with one instruction `%r = ...` over the given arguments.
std::string one(const std::string& args, const std::string& result_type, const std::string& inst) {
  return module_text(args, result_type, line("%r = " + inst), "%r");
}

}  // namespace

TEST_CASE("elementwise ops", "[ops]") {
  const std::string args = "%a: tensor<2x2xf32>, %b: tensor<2x2xf32>";
  const Strings a = {"1", "2", "3", "4"}, b = {"5", "6", "7", "8"};
  // spec example (add)
  CHECK(run1(E, one(args, "tensor<2x2xf32>", "stablehlo.add %a, %b : tensor<2x2xf32>"), {a, b}) == Strings{"6", "8", "10", "12"});
  CHECK(run1(E, one(args, "tensor<2x2xf32>", "stablehlo.subtract %a, %b : tensor<2x2xf32>"), {a, b}) == Strings{"-4", "-4", "-4", "-4"});
  CHECK(run1(E, one(args, "tensor<2x2xf32>", "stablehlo.multiply %a, %b : tensor<2x2xf32>"), {a, b}) == Strings{"5", "12", "21", "32"});
  CHECK(run1(E, one(args, "tensor<2x2xf32>", "stablehlo.divide %a, %b : tensor<2x2xf32>"), {a, b}) == Strings{"1/5", "1/3", "3/7", "1/2"});
  CHECK(run1(E, one(args, "tensor<2x2xf32>", "stablehlo.maximum %a, %b : tensor<2x2xf32>"), {{"1", "-inf", "3", "0"}, b}) ==
        Strings{"5", "6", "7", "8"});
  CHECK(run1(E, one(args, "tensor<2x2xf32>", "stablehlo.minimum %a, %b : tensor<2x2xf32>"), {a, {"0", "-1", "3", "9"}}) ==
        Strings{"0", "-1", "3", "4"});
  const std::string x = "%a: tensor<4xf32>";
  const Strings v = {"0", "9/4", "1", "1/4"};
  CHECK(run1(E, one(x, "tensor<4xf32>", "stablehlo.negate %a : tensor<4xf32>"), {v}) == Strings{"0", "-9/4", "-1", "-1/4"});
  CHECK(run1(E, one(x, "tensor<4xf32>", "stablehlo.abs %a : tensor<4xf32>"), {{"-2", "1/3", "0", "-1/4"}}) == Strings{"2", "1/3", "0", "1/4"});
  CHECK(run1(E, one(x, "tensor<4xf32>", "stablehlo.sqrt %a : tensor<4xf32>"), {v}) == Strings{"0", "3/2", "1", "1/2"});
  CHECK(run1(E, one(x, "tensor<4xf32>", "stablehlo.rsqrt %a : tensor<4xf32>"), {{"4", "9/4", "1", "1/4"}}) == Strings{"1/2", "2/3", "1", "2"});
  CHECK(run1(E, one(x, "tensor<4xf32>", "stablehlo.exponential %a : tensor<4xf32>"), {{"0", "0", "-inf", "0"}}) == Strings{"1", "1", "0", "1"});
  CHECK(run1(E, one(x, "tensor<4xf32>", "stablehlo.log %a : tensor<4xf32>"), {{"1", "1", "1", "inf"}}) == Strings{"0", "0", "0", "inf"});
  CHECK(run1(E, one(x, "tensor<4xf32>", "stablehlo.tanh %a : tensor<4xf32>"), {{"0", "inf", "-inf", "0"}}) == Strings{"0", "1", "-1", "0"});
  CHECK(run1(E, one(x, "tensor<4xf32>", "stablehlo.logistic %a : tensor<4xf32>"), {{"0", "inf", "-inf", "0"}}) ==
        Strings{"1/2", "1", "0", "1/2"});
  // Transcendental values in the interval domain enclose the truth.
  const IntervalDomain I(64);
  const Strings e = run1(I, one(x, "tensor<4xf32>", "stablehlo.exponential %a : tensor<4xf32>"), {{"1", "0", "-1", "2"}});
  CHECK(IntervalDomain::contains(I.parse(e[0]), BigFloat::parse("2.718281828459045235360287471352662", 200).get()));
  CHECK(e[1] == "[1.0, 1.0]");
}

TEST_CASE("compare, select, and", "[ops]") {
  const std::string args = "%a: tensor<3xf32>, %b: tensor<3xf32>";
  const Strings a = {"1", "2", "3"}, b = {"3", "2", "1"};
  auto cmp = [&](const char* dir) {
    return run1(E, one(args, "tensor<3xi1>", std::string("stablehlo.compare ") + dir +
                                                 ", %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>"),
                {a, b});
  };
  CHECK(cmp("LT") == Strings{"true", "false", "false"});
  CHECK(cmp("LE") == Strings{"true", "true", "false"});
  CHECK(cmp("EQ") == Strings{"false", "true", "false"});
  CHECK(cmp("NE") == Strings{"true", "false", "true"});
  CHECK(cmp("GT") == Strings{"false", "false", "true"});
  CHECK(cmp("GE") == Strings{"false", "true", "true"});
  CHECK(run1(E, one("%p: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<3xf32>", "tensor<3xf32>",
                    "stablehlo.select %p, %a, %b : tensor<3xi1>, tensor<3xf32>"),
             {{"true", "false", "true"}, a, b}) == Strings{"1", "2", "3"});
  CHECK(run1(E, one("%p: tensor<3xi1>, %q: tensor<3xi1>", "tensor<3xi1>", "stablehlo.and %p, %q : tensor<3xi1>"),
             {{"true", "false", "true"}, {"true", "true", "false"}}) == Strings{"true", "false", "false"});
}

TEST_CASE("an undecidable interval comparison is reported with the op and the index", "[ops][interval]") {
  // 1/3 and (1/3 computed as 1/3 * 3 / 3): overlapping enclosures at 24 bits.
  const std::string text = module_text(
      "%a: tensor<2xf32>, %b: tensor<2xf32>", "tensor<2xi1>",
      line("%t = stablehlo.constant dense<3.0> : tensor<2xf32>") + line("%m = stablehlo.multiply %b, %t : tensor<2xf32>") +
          line("%q = stablehlo.divide %m, %t : tensor<2xf32>") +
          line("%r = stablehlo.compare LT, %a, %q : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>"),
      "%r");
  const IntervalDomain I(24);
  CHECK_THROWS_WITH(run1(I, text, {{"0", "1/3"}, {"1", "1/3"}}),
                    Catch::Contains("test.mlir:6:5: %r = stablehlo.compare") && Catch::Contains("undecided") &&
                        Catch::Contains("at index [1]"));
  CHECK(run1(E, text, {{"0", "1/3"}, {"1", "1/3"}}) == Strings{"true", "false"});  // control: exact decides
}

TEST_CASE("data movement", "[ops]") {
  // spec example (broadcast_in_dim)
  CHECK(run1(E, one("%a: tensor<1x3xf32>", "tensor<2x3x2xf32>",
                    "stablehlo.broadcast_in_dim %a, dims = [2, 1] : (tensor<1x3xf32>) -> tensor<2x3x2xf32>"),
             {{"1", "2", "3"}}) == Strings{"1", "1", "2", "2", "3", "3", "1", "1", "2", "2", "3", "3"});
  // spec example (transpose)
  CHECK(run1(E, one("%a: tensor<2x3x2xf32>", "tensor<2x3x2xf32>",
                    "stablehlo.transpose %a, dims = [2, 1, 0] : (tensor<2x3x2xf32>) -> tensor<2x3x2xf32>"),
             {{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"}}) ==
        Strings{"1", "7", "3", "9", "5", "11", "2", "8", "4", "10", "6", "12"});
  // spec example (reverse)
  CHECK(run1(E, one("%a: tensor<3x2xf32>", "tensor<3x2xf32>", "stablehlo.reverse %a, dims = [1] : tensor<3x2xf32>"),
             {{"1", "2", "3", "4", "5", "6"}}) == Strings{"2", "1", "4", "3", "6", "5"});
  CHECK(run1(E, one("%a: tensor<2x3xf32>", "tensor<3x2xf32>", "stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<3x2xf32>"),
             {{"1", "2", "3", "4", "5", "6"}}) == Strings{"1", "2", "3", "4", "5", "6"});
  CHECK(run1(E, one("%a: tensor<3x4xf32>", "tensor<2x2xf32>", "stablehlo.slice %a [0:2, 1:4:2] : (tensor<3x4xf32>) -> tensor<2x2xf32>"),
             {{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"}}) == Strings{"1", "3", "5", "7"});
  // spec example (pad)
  CHECK(run1(E, one("%a: tensor<2x3xf32>, %z: tensor<f32>", "tensor<5x9xf32>",
                    "stablehlo.pad %a, %z, low = [0, 1], high = [2, 1], interior = [1, 2] : (tensor<2x3xf32>, tensor<f32>) -> tensor<5x9xf32>"),
             {{"1", "2", "3", "4", "5", "6"}, {"0"}}) ==
        Strings{"0", "1", "0", "0", "2", "0", "0", "3", "0",  //
                "0", "0", "0", "0", "0", "0", "0", "0", "0",  //
                "0", "4", "0", "0", "5", "0", "0", "6", "0",  //
                "0", "0", "0", "0", "0", "0", "0", "0", "0",  //
                "0", "0", "0", "0", "0", "0", "0", "0", "0"});
  // negative padding crops
  CHECK(run1(E, one("%a: tensor<4xf32>, %z: tensor<f32>", "tensor<3xf32>",
                    "stablehlo.pad %a, %z, low = [-2], high = [1], interior = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<3xf32>"),
             {{"1", "2", "3", "4"}, {"9"}}) == Strings{"3", "4", "9"});
  // spec example (concatenate)
  CHECK(run1(E, one("%a: tensor<3x2xf32>, %b: tensor<1x2xf32>", "tensor<4x2xf32>",
                    "stablehlo.concatenate %a, %b, dim = 0 : (tensor<3x2xf32>, tensor<1x2xf32>) -> tensor<4x2xf32>"),
             {{"1", "2", "3", "4", "5", "6"}, {"7", "8"}}) == Strings{"1", "2", "3", "4", "5", "6", "7", "8"});
  CHECK(run1(E, one("%a: tensor<2x1xf32>, %b: tensor<2x2xf32>", "tensor<2x3xf32>",
                    "stablehlo.concatenate %a, %b, dim = 1 : (tensor<2x1xf32>, tensor<2x2xf32>) -> tensor<2x3xf32>"),
             {{"1", "4"}, {"2", "3", "5", "6"}}) == Strings{"1", "2", "3", "4", "5", "6"});
  CHECK(run1(E, one("%a: tensor<f32>", "tensor<2x3xf32>", "stablehlo.iota dim = 1 : tensor<2x3xf32>"), {{"0"}}) ==
        Strings{"0", "1", "2", "0", "1", "2"});
  CHECK(run1(E, one("%a: tensor<f32>", "tensor<2x2xf32>", "stablehlo.constant dense<[[0.5, 1.0e-05], [0xFF800000, -3]]> : tensor<2x2xf32>"),
             {{"0"}}) == Strings{"1/2", "1/100000", "-inf", "-3"});
}

TEST_CASE("dot_general", "[ops]") {
  // spec example: batching [0] x [0], contracting [2] x [1]
  CHECK(run1(E, one("%a: tensor<2x2x2xf32>, %b: tensor<2x2x2xf32>", "tensor<2x2x2xf32>",
                    "stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : "
                    "(tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x2xf32>"),
             {{"1", "2", "3", "4", "5", "6", "7", "8"}, {"1", "0", "0", "1", "1", "0", "0", "1"}}) ==
        Strings{"1", "2", "3", "4", "5", "6", "7", "8"});
  // [[1,2,3],[4,5,6]] (2x3) contracted on dim 0 with [[1,1/2],[2,1/3]] (2x2): x^T y, 3x2
  CHECK(run1(E, one("%a: tensor<2x3xf32>, %b: tensor<2x2xf32>", "tensor<3x2xf32>",
                    "stablehlo.dot_general %a, %b, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : "
                    "(tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>"),
             {{"1", "2", "3", "4", "5", "6"}, {"1", "1/2", "2", "1/3"}}) == Strings{"9", "11/6", "12", "8/3", "15", "7/2"});
  // Two contracting dims: sum over both.
  CHECK(run1(E, one("%a: tensor<2x2xf32>, %b: tensor<2x2xf32>", "tensor<f32>",
                    "stablehlo.dot_general %a, %b, contracting_dims = [0, 1] x [1, 0] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<f32>"),
             {{"1", "2", "3", "4"}, {"1", "10", "100", "1000"}}) == Strings{"4231"});  // 1*1 + 2*100 + 3*10 + 4*1000
}

TEST_CASE("dot_general in f32 sums in the documented order", "[ops][f32]") {
  // 1e8 + 1 - 1e8 in f32: left to right gives 0 (1e8 + 1 rounds to 1e8); any other order
  // that adds the 1 last gives 1.
  const std::string text = one("%a: tensor<1x3xf32>, %b: tensor<3x1xf32>", "tensor<1x1xf32>",
                               "stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<1x3xf32>, tensor<3x1xf32>) -> tensor<1x1xf32>");
  CHECK(run1(F32Domain{}, text, {{"1e8", "1", "-1e8"}, {"1", "1", "1"}}) == Strings{"0"});
  CHECK(run1(F32Domain{}, text, {{"1e8", "-1e8", "1"}, {"1", "1", "1"}}) == Strings{"1"});
  CHECK(run1(E, text, {{"1e8", "1", "-1e8"}, {"1", "1", "1"}}) == Strings{"1"});  // the exact value
}

TEST_CASE("convolution", "[ops]") {
  // spec example: strides 4, lhs_dilation 2, dims [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]
  const std::string text = module_text(
      "%lhs: tensor<1x4x4x1xf32>, %rhs: tensor<3x3x1x1xf32>", "tensor<1x2x2x1xf32>",
      "    %r = stablehlo.convolution(%lhs, %rhs)\n"
      "      dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],\n"
      "      window = {stride = [4, 4], pad = [[0, 0], [0, 0]], lhs_dilate = [2, 2], rhs_dilate = [1, 1]}\n"
      "      {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>\n",
      "%r");
  CHECK(run1(E, text, {{"1", "2", "5", "6", "3", "4", "7", "8", "10", "11", "14", "15", "12", "13", "16", "17"}, Strings(9, "1")}) ==
        Strings{"10", "26", "46", "62"});
  // NCHW/OIHW with padding 1 (the printer's form): a 1x1x2x2 image, a 1x1x3x3 kernel of
  // 1..9; each output sums the kernel entries that land on the image.
  auto conv = [](const std::string& lhs, const std::string& rhs, const std::string& out, const std::string& pad,
                 const std::string& dilate, int fg, int bg) {
    return module_text("%x: tensor<" + lhs + "xf32>, %w: tensor<" + rhs + "xf32>", "tensor<" + out + "xf32>",
                       "    %r = stablehlo.convolution(%x, %w)\n      dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1],\n"
                       "      window = {stride = [1, 1], pad = " + pad + ", lhs_dilate = [1, 1], rhs_dilate = " + dilate + "}\n"
                       "      {batch_group_count = " + std::to_string(bg) + " : i64, feature_group_count = " + std::to_string(fg) +
                           " : i64} : (tensor<" + lhs + "xf32>, tensor<" + rhs + "xf32>) -> tensor<" + out + "xf32>\n",
                       "%r");
  };
  const Strings k9 = {"1", "2", "3", "4", "5", "6", "7", "8", "9"};
  // out[0][0] = x00*5 + x01*6 + x10*8 + x11*9 with x = [1, 10, 100, 1000]
  CHECK(run1(E, conv("1x1x2x2", "1x1x3x3", "1x1x2x2", "[[1, 1], [1, 1]]", "[1, 1]", 1, 1), {{"1", "10", "100", "1000"}, k9}) ==
        Strings{"9865", "8754", "6532", "5421"});
  // rhs dilation 2: a 3x3 kernel spread over 5x5 on a 5x5 image gives one output.
  Strings img(25);
  for (int i = 0; i < 25; ++i) img[static_cast<std::size_t>(i)] = std::to_string(i);
  // positions (0,0) (0,2) (0,4) (2,0) ... (4,4): values 0,2,4,10,12,14,20,22,24 times 1..9
  CHECK(run1(E, conv("1x1x5x5", "1x1x3x3", "1x1x1x1", "[[0, 0], [0, 0]]", "[2, 2]", 1, 1), {img, k9}) ==
        Strings{std::to_string(0 * 1 + 2 * 2 + 4 * 3 + 10 * 4 + 12 * 5 + 14 * 6 + 20 * 7 + 22 * 8 + 24 * 9)});
  // feature_group_count 2: 2 input features, 2 output features, each output sees one input.
  CHECK(run1(E, conv("1x2x1x1", "2x1x1x1", "1x2x1x1", "[[0, 0], [0, 0]]", "[1, 1]", 2, 1), {{"3", "5"}, {"10", "100"}}) ==
        Strings{"30", "500"});
  // batch_group_count 2: batch 2 split in two groups, output feature g reads batch g.
  CHECK(run1(E, conv("2x1x1x1", "2x1x1x1", "1x2x1x1", "[[0, 0], [0, 0]]", "[1, 1]", 1, 2), {{"3", "5"}, {"10", "100"}}) ==
        Strings{"30", "500"});
}

TEST_CASE("reduce, reduce_window, select_and_scatter", "[ops]") {
  // spec example (reduce)
  CHECK(run1(E, one("%a: tensor<1x6xf32>, %z: tensor<f32>", "tensor<1xf32>",
                    "stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<1x6xf32>, tensor<f32>) -> tensor<1xf32>"),
             {{"0", "1", "2", "3", "4", "5"}, {"0"}}) == Strings{"15"});
  CHECK(run1(E, one("%a: tensor<2x3xf32>, %z: tensor<f32>", "tensor<3xf32>",
                    "stablehlo.reduce(%a init: %z) applies stablehlo.maximum across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>"),
             {{"1", "7", "3", "4", "5", "-6"}, {"-inf"}}) == Strings{"4", "7", "3"});
  // spec example (reduce_window): window [2, 1], strides [4, 1], base dilations [2, 1],
  // window dilations [3, 1], padding [[2, 1], [0, 0]]
  const std::string rw = module_text(
      "%a: tensor<3x2xf32>, %z: tensor<f32>", "tensor<2x2xf32>",
      "    %r = \"stablehlo.reduce_window\"(%a, %z) ({\n      ^bb0(%pa: tensor<f32>, %pb: tensor<f32>):\n"
      "        %pm = stablehlo.add %pa, %pb : tensor<f32>\n        stablehlo.return %pm : tensor<f32>\n"
      "    }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 4, 1>, base_dilations = array<i64: 2, 1>, "
      "window_dilations = array<i64: 3, 1>, padding = dense<[[2, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<3x2xf32>, tensor<f32>) -> tensor<2x2xf32>\n",
      "%r");
  CHECK(run1(E, rw, {{"1", "2", "3", "4", "5", "6"}, {"0"}}) == Strings{"0", "0", "3", "4"});
  // max pool 2x2 as the printer writes it
  const std::string pool = module_text(
      "%a: tensor<1x1x2x4xf32>", "tensor<1x1x1x2xf32>",
      "    %i = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
      "    %r = \"stablehlo.reduce_window\"(%a, %i) ({\n      ^bb0(%pa: tensor<f32>, %pb: tensor<f32>):\n"
      "        %pm = stablehlo.maximum %pa, %pb : tensor<f32>\n        stablehlo.return %pm : tensor<f32>\n"
      "    }) {window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>} : (tensor<1x1x2x4xf32>, tensor<f32>) -> tensor<1x1x1x2xf32>\n",
      "%r");
  CHECK(run1(E, pool, {{"1", "-5", "2", "8", "3", "-1", "7", "4"}}) == Strings{"3", "8"});
  // spec example (select_and_scatter), with padding; GE keeps the first maximum.
  const std::string ss = module_text(
      "%o: tensor<4x2xf32>, %s: tensor<2x2xf32>, %z: tensor<f32>", "tensor<4x2xf32>",
      "    %r = \"stablehlo.select_and_scatter\"(%o, %s, %z) ({\n      ^bb0(%sa: tensor<f32>, %sb: tensor<f32>):\n"
      "        %sge = stablehlo.compare GE, %sa, %sb : (tensor<f32>, tensor<f32>) -> tensor<i1>\n        stablehlo.return %sge : tensor<i1>\n"
      "    }, {\n      ^bb0(%sc: tensor<f32>, %sd: tensor<f32>):\n        %ss = stablehlo.add %sc, %sd : tensor<f32>\n"
      "        stablehlo.return %ss : tensor<f32>\n    }) {window_dimensions = array<i64: 3, 1>, window_strides = array<i64: 2, 1>, "
      "padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<4x2xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x2xf32>\n",
      "%r");
  CHECK(run1(E, ss, {{"1", "5", "2", "5", "3", "6", "4", "4"}, {"5", "6", "7", "8"}, {"0"}}) ==
        Strings{"0", "0", "0", "0", "5", "14", "7", "0"});
  // Ties: the first maximum in row-major window order is selected.
  const std::string tie = module_text(
      "%o: tensor<1x4xf32>, %s: tensor<1x2xf32>, %z: tensor<f32>", "tensor<1x4xf32>",
      "    %r = \"stablehlo.select_and_scatter\"(%o, %s, %z) ({\n      ^bb0(%sa: tensor<f32>, %sb: tensor<f32>):\n"
      "        %sge = stablehlo.compare GE, %sa, %sb : (tensor<f32>, tensor<f32>) -> tensor<i1>\n        stablehlo.return %sge : tensor<i1>\n"
      "    }, {\n      ^bb0(%sc: tensor<f32>, %sd: tensor<f32>):\n        %ss = stablehlo.add %sc, %sd : tensor<f32>\n"
      "        stablehlo.return %ss : tensor<f32>\n    }) {window_dimensions = array<i64: 1, 2>, window_strides = array<i64: 1, 2>} : "
      "(tensor<1x4xf32>, tensor<1x2xf32>, tensor<f32>) -> tensor<1x4xf32>\n",
      "%r");
  CHECK(run1(E, tie, {{"2", "2", "1", "3"}, {"10", "20"}, {"0"}}) == Strings{"10", "0", "0", "20"});
}

TEST_CASE("all_reduce across replicas", "[ops][replicas]") {
  auto all_reduce = [](const std::string& groups, const std::string& groups_type) {
    return module_text("%a: tensor<2xf32>", "tensor<2xf32>",
                       "    %s = \"stablehlo.all_reduce\"(%a) ({\n    ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
                       "      %z = stablehlo.add %x, %y : tensor<f32>\n      stablehlo.return %z : tensor<f32>\n"
                       "    }) { replica_groups = dense<" + groups + "> : tensor<" + groups_type + "xi64> } : (tensor<2xf32>) -> tensor<2xf32>\n"
                       "    %n = stablehlo.constant dense<2.0> : tensor<2xf32>\n"
                       "    %r = stablehlo.divide %s, %n : tensor<2xf32>\n",
                       "%r");
  };
  const auto two = run_text(E, all_reduce("[[0, 1]]", "1x2"), {{{"1", "2"}}, {{"1/2", "8"}}});
  CHECK(two[0][0] == Strings{"3/4", "5"});
  CHECK(two[1][0] == Strings{"3/4", "5"});
  // Four replicas in two groups {0, 2} and {3, 1}.
  const auto four = run_text(E, all_reduce("[[0, 2], [3, 1]]", "2x2"), {{{"1", "0"}}, {{"10", "0"}}, {{"3", "0"}}, {{"30", "2"}}});
  CHECK(four[0][0] == Strings{"2", "0"});
  CHECK(four[2][0] == Strings{"2", "0"});
  CHECK(four[1][0] == Strings{"20", "1"});
  CHECK(four[3][0] == Strings{"20", "1"});
  // replica_groups must partition the replicas the program runs on.
  CHECK_THROWS_WITH(run_text(E, all_reduce("[[0, 1]]", "1x2"), {{{"1", "2"}}}), Catch::Contains("--replicas 2"));
  CHECK_THROWS_WITH(run_text(E, all_reduce("[[0, 1]]", "1x2"), {{{"1", "2"}}, {{"1", "2"}}, {{"1", "2"}}}),
                    Catch::Contains("cover 2 of the 3 replicas"));
}

TEST_CASE("f32 follows the reference model: max and min as IEEE 754-2019", "[ops][f32]") {
  const std::string args = "%a: tensor<3xf32>, %b: tensor<3xf32>";
  CHECK(run1(F32Domain{}, one(args, "tensor<3xf32>", "stablehlo.maximum %a, %b : tensor<3xf32>"),
             {{"-0.0", "nan", "1"}, {"0.0", "1", "2"}}) == Strings{"0", "nan", "2"});
  CHECK(run1(F32Domain{}, one(args, "tensor<3xf32>", "stablehlo.minimum %a, %b : tensor<3xf32>"),
             {{"-0.0", "1", "1"}, {"0.0", "nan", "2"}}) == Strings{"-0", "nan", "1"});
  CHECK(run1(F32Domain{}, one(args, "tensor<3xf32>", "stablehlo.divide %a, %b : tensor<3xf32>"),
             {{"1", "-1", "0"}, {"0", "0", "0"}}) == Strings{"inf", "-inf", "nan"});
  CHECK_THROWS_WITH(run1(E, one(args, "tensor<3xf32>", "stablehlo.divide %a, %b : tensor<3xf32>"), {{"1", "1", "1"}, {"1", "0", "1"}}),
                    Catch::Contains("division by zero") && Catch::Contains("at index [1]"));
}

TEST_CASE("convert: f32 -> bf16 rounds to nearest even, bf16 -> f32 keeps the value", "[ops]") {
  const std::string text = module_text("%a: tensor<3xf32>", "tensor<3xf32>",
                                       "    %b = stablehlo.convert %a : (tensor<3xf32>) -> tensor<3xbf16>\n"
                                       "    %r = stablehlo.convert %b : (tensor<3xbf16>) -> tensor<3xf32>\n",
                                       "%r");
  // 1 + 2^-8 ties to 1 (even); 1 + 3*2^-8 ties to 1 + 2^-6; 1/3 rounds up in its eighth bit.
  CHECK(run1(E, text, {{"257/256", "259/256", "1/3"}}) == Strings{"1", "65/64", "171/512"});
  // 0.1 in bf16 is 205/2048 = 0.10009765625, printed as the shortest f32 string.
  CHECK(run1(F32Domain{}, text, {{"257/256", "259/256", "0.1"}}) == Strings{"1", "1.015625", "0.100097656"});
}
