// The naive evaluator on attributes worked out by hand (negative and interior padding, lhs
// dilation with negative padding, cycles, batching with contracting dimensions listed out of
// order, base and window dilations), and the interpreter's f64 run on the same programs.
#include "ast/mlir_parse.hpp"
#include "interp/domain/ieee.hpp"
#include "interp/run.hpp"
#include "oracle/naive_eval.hpp"
#include "tests/support.hpp"

using namespace shlo;

namespace {

// One instruction `line` (its result %r) over the argument %x of type `in`, returning `out`.
Module program(const std::string& in, const std::string& out, const std::string& lines) {
  return parse_module("module @m {\n  func.func @f(%x: " + in + ") -> " + out + " {\n" + lines + "    return %r : " + out + "\n  }\n}\n",
                      "hand.mlir");
}

std::vector<double> interpreter(const Module& m, const std::vector<double>& x) {
  std::vector<std::vector<Value<F64Domain>>> in(1);
  in[0].push_back(Tensor<double>(m.function().arguments[0].type.shape, x));
  return std::get<Tensor<double>>(run_program(m, F64Domain{}, std::move(in), RunOptions{}).outputs[0][0]).to_vector();
}

void check(const Module& m, const std::vector<double>& x, const std::vector<double>& by_hand) {
  CHECK(naive_run<double>(m, {x}) == by_hand);
  CHECK(interpreter(m, x) == by_hand);
}

}  // namespace

TEST_CASE("naive: pad with a negative low edge and interior padding", "[naive]") {
  // [1, 2, 3] dilated: [1, 9, 2, 9, 3]; low -1 drops the 1; high 1 appends a 9.
  const Module m = program("tensor<3xf32>", "tensor<5xf32>",
                           "    %p = stablehlo.constant dense<9.0> : tensor<f32>\n"
                           "    %r = stablehlo.pad %x, %p, low = [-1], high = [1], interior = [1] : (tensor<3xf32>, tensor<f32>) -> tensor<5xf32>\n");
  check(m, {1, 2, 3}, {9, 2, 9, 3, 9});
}

TEST_CASE("naive: transpose by a 3-cycle", "[naive]") {
  // x[a, 0, c] = 3a + c; dims = [2, 0, 1]: r[i, j, 0] = x[j, 0, i] = 3j + i.
  const Module m = program("tensor<2x1x3xf32>", "tensor<3x2x1xf32>",
                           "    %r = stablehlo.transpose %x, dims = [2, 0, 1] : (tensor<2x1x3xf32>) -> tensor<3x2x1xf32>\n");
  check(m, {0, 1, 2, 3, 4, 5}, {0, 3, 1, 4, 2, 5});
}

TEST_CASE("naive: convolution with lhs dilation, negative low padding and a stride", "[naive]") {
  // [1, 2, 3] dilated by 2: [1, 0, 2, 0, 3]; pad [-1, 1]: [0, 2, 0, 3, 0]; kernel [1, 10] at
  // stride 2: 0*1 + 2*10 = 20, 0*1 + 3*10 = 30.
  const Module m = program("tensor<1x1x3xf32>", "tensor<1x1x2xf32>",
                           "    %k = stablehlo.constant dense<[[[1.0, 10.0]]]> : tensor<1x1x2xf32>\n"
                           "    %r = stablehlo.convolution(%x, %k)\n      dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0],\n"
                           "      window = {stride = [2], pad = [[-1, 1]], lhs_dilate = [2], rhs_dilate = [1]}\n"
                           "      {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x1x3xf32>, tensor<1x1x2xf32>) -> tensor<1x1x2xf32>\n");
  check(m, {1, 2, 3}, {20, 30});
}

TEST_CASE("naive: dot_general with a batching dimension and two contracting dimensions out of order", "[naive]") {
  // x[b, k1, k2] = 4b + 2k1 + k2 + 1; the rhs is ones laid out [k2, b, k1]: r[b] = sum of x[b].
  const Module m = program("tensor<2x2x2xf32>", "tensor<2xf32>",
                           "    %o = stablehlo.constant dense<1.0> : tensor<2x2x2xf32>\n"
                           "    %r = stablehlo.dot_general %x, %o, batching_dims = [0] x [1], contracting_dims = [2, 1] x [0, 2] :"
                           " (tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2xf32>\n");
  check(m, {1, 2, 3, 4, 5, 6, 7, 8}, {10, 26});
}

TEST_CASE("naive: reduce_window with base dilation and padding, and with window dilation", "[naive]") {
  const std::string region = "({\n      ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n        %s = stablehlo.add %a, %b : tensor<f32>\n"
                             "        stablehlo.return %s : tensor<f32>\n    }) ";
  const std::string init = "    %z = stablehlo.constant dense<0.0> : tensor<f32>\n";
  // Base dilation 2: [1, _, 2, _, 3] (holes are init 0); padding [1, 0]: [0, 1, 0, 2, 0, 3];
  // windows of 2 at stride 1: 1, 1, 2, 2, 3.
  check(program("tensor<3xf32>", "tensor<5xf32>",
                init + "    %r = \"stablehlo.reduce_window\"(%x, %z) " + region +
                    "{base_dilations = array<i64: 2>, padding = dense<[[1, 0]]> : tensor<1x2xi64>, window_dimensions = array<i64: 2>, "
                    "window_strides = array<i64: 1>} : (tensor<3xf32>, tensor<f32>) -> tensor<5xf32>\n"),
        {1, 2, 3}, {1, 1, 2, 2, 3});
  // Window dilation 2 on [0, 1, 2, 3, 4]: positions (i, i + 2): 2, 4, 6.
  check(program("tensor<5xf32>", "tensor<3xf32>",
                init + "    %r = \"stablehlo.reduce_window\"(%x, %z) " + region +
                    "{window_dilations = array<i64: 2>, window_dimensions = array<i64: 2>} : (tensor<5xf32>, tensor<f32>) -> tensor<3xf32>\n"),
        {0, 1, 2, 3, 4}, {2, 4, 6});
}

TEST_CASE("naive: control: the reversed sum order changes a rounded sum", "[naive]") {
  // In f64, 1 + 1e16 rounds to 1e16 (the spacing there is 2, and the tie goes to even), so
  // the documented left fold gives 0 and the reversed one 1.
  const Module m = program("tensor<3xf32>", "tensor<f32>",
                           "    %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
                           "    %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>\n");
  const std::vector<double> x = {1, 1e16, -1e16};
  CHECK(naive_run<double>(m, {x}) == std::vector<double>{0});  // ((0 + 1) + 1e16) - 1e16
  CHECK(naive_run<double>(m, {x}, NaiveSumOrder::Reversed) == std::vector<double>{1});  // ((0 - 1e16) + 1e16) + 1
  CHECK(interpreter(m, x) == std::vector<double>{0});
}
