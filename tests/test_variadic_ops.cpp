// all_reduce with several operands and with bodies of several ops, and reduce_window with
// several inputs (issue 15; spec §all_reduce, §reduce_window). Expected values are counted by
// hand; where the one-op kernel exists, the region executor is also compared with it.
#include <catch2/catch.hpp>

#include "ast/mlir_print.hpp"
#include "tests/support.hpp"
#include "tests/typed_support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

// Runs `text` in the exact domain on integer inputs[replica][argument] (decimals of each
// argument's element type); returns outputs[replica][result] as decimals.
std::vector<std::vector<Strings>> run_integers(const std::string& text, const std::vector<std::vector<Strings>>& inputs) {
  const Module m = parse_module(text, "ar.mlir");
  std::vector<std::vector<Value<ExactDomain>>> values(inputs.size());
  for (std::size_t r = 0; r < inputs.size(); ++r)
    for (std::size_t a = 0; a < inputs[r].size(); ++a) {
      const TensorType& t = m.function().arguments.at(a).type;
      std::vector<std::uint64_t> bits;
      for (const auto& s : inputs[r][a]) bits.push_back(parse_integer_literal(s, bit_width(t.element), is_signed_integer(t.element)));
      values[r].push_back(IntTensor(t.shape, bits));
    }
  RunOptions options;
  options.replicas = static_cast<int>(inputs.size());
  const auto result = run_program(m, E, std::move(values), options);
  std::vector<std::vector<Strings>> out(result.outputs.size());
  for (std::size_t r = 0; r < result.outputs.size(); ++r)
    for (std::size_t k = 0; k < result.outputs[r].size(); ++k) {
      Strings strings;
      for (auto x : std::get<IntTensor>(result.outputs[r][k]).data)
        strings.push_back(integer_to_string(x, is_signed_integer(m.function().return_types.at(k).element)));
      out[r].push_back(strings);
    }
  return out;
}

// The spec's all_reduce example: two i64 operands over two replicas, one `add` body folding
// each operand on its own.
std::string spec_all_reduce(const std::string& body_arguments = "^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):") {
  return R"(module @cross_replica {
  func.func @main(%operand0: tensor<4xi64>, %operand1: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>) {
    %result:2 = "stablehlo.all_reduce"(%operand0, %operand1) ({
      )" + body_arguments + R"(
        %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<i64>, tensor<i64>) -> tensor<i64>
        "stablehlo.return"(%0) : (tensor<i64>) -> ()
    }) {
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
    } : (tensor<4xi64>, tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>)
    return %result#0, %result#1 : tensor<4xi64>, tensor<4xi64>
  }
}
)";
}

// An f32 all_reduce over three replicas with the body `acc - x`, as one op (the kernel's fold)
// or as two ops (acc - x, then max(d, d), the identity: the region executor).
std::string subtract_all_reduce(bool one_op, const std::string& op = "subtract") {
  const std::string body = one_op ? "      %d = stablehlo." + op + " %a, %b : tensor<f32>\n      stablehlo.return %d : tensor<f32>\n"
                                  : "      %s = stablehlo." + op + " %a, %b : tensor<f32>\n"
                                    "      %d = stablehlo.maximum %s, %s : tensor<f32>\n      stablehlo.return %d : tensor<f32>\n";
  return R"(module @m {
  func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
    %r = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
)" + body + R"(    }) {replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<2xf32>) -> tensor<2xf32>
    return %r : tensor<2xf32>
  }
}
)";
}

}  // namespace

TEST_CASE("all_reduce with several operands folds each on its own (spec example)", "[variadic][all_reduce]") {
  const std::vector<std::vector<Strings>> inputs{{{"1", "2", "3", "4"}, {"9", "10", "11", "12"}},
                                                 {{"5", "6", "7", "8"}, {"13", "14", "15", "16"}}};
  const auto out = run_integers(spec_all_reduce(), inputs);
  for (int replica = 0; replica < 2; ++replica) {
    CHECK(out.at(replica).at(0) == Strings{"6", "8", "10", "12"});
    CHECK(out.at(replica).at(1) == Strings{"22", "24", "26", "28"});
  }
  // Control: a body over the pairs of both operands, (a0, a1, b0, b1), is not the spec's (C5).
  CHECK_THROWS_WITH(
      parse_module(spec_all_reduce("^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>, %arg2: tensor<i64>, %arg3: tensor<i64>):"), "p.mlir"),
      Catch::Contains("p.mlir:3:5: stablehlo.all_reduce:") && Catch::Contains("spec all_reduce C5") && Catch::Contains("it takes 4"));
  // Results: one per operand, of the operand's shape.
  CHECK_THROWS_WITH(parse_module(replaced(spec_all_reduce(), "-> (tensor<4xi64>, tensor<4xi64>)\n    return",
                                          "-> (tensor<4xi64>, tensor<2xi64>)\n    return"), "p.mlir"),
                    Catch::Contains("result 1 must be tensor<4xi64> (C6, C7)"));
}

TEST_CASE("all_reduce operands of other shapes and element types promote to the body's type", "[variadic][all_reduce]") {
  // An i8 and a ui8 operand (1 and 2 elements) in an i16 body: 100 + 100 = 200 and
  // 200 + 100 = 300 need the wider type; each result has its operand's shape.
  const std::string text = R"(module @m {
  func.func @f(%a: tensor<1xi8>, %b: tensor<2xui8>) -> (tensor<1xi16>, tensor<2xi16>) {
    %r:2 = "stablehlo.all_reduce"(%a, %b) ({
    ^bb0(%x: tensor<i16>, %y: tensor<i16>):
      %s = stablehlo.add %x, %y : tensor<i16>
      stablehlo.return %s : tensor<i16>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<1xi8>, tensor<2xui8>) -> (tensor<1xi16>, tensor<2xi16>)
    return %r#0, %r#1 : tensor<1xi16>, tensor<2xi16>
  }
}
)";
  const auto out = run_integers(text, {{{"100"}, {"200", "7"}}, {{"100"}, {"100", "250"}}});
  CHECK(out.at(1).at(0) == Strings{"200"});
  CHECK(out.at(1).at(1) == Strings{"300", "257"});
  // Control: an i16 operand cannot be held by an i8 body.
  CHECK_THROWS_WITH(parse_module(replaced(replaced(replaced(text, "%b: tensor<2xui8>", "%b: tensor<2xi32>"), "(tensor<1xi8>, tensor<2xui8>)",
                                                   "(tensor<1xi8>, tensor<2xi32>)"),
                                          "-> (tensor<1xi16>, tensor<2xi16>)\n    return", "-> (tensor<1xi16>, tensor<2xi32>)\n    return"),
                                 "p.mlir"),
                    Catch::Contains("operand 1 is tensor<2xi32>, which the body's i16 cannot hold (C5)"));
}

TEST_CASE("all_reduce with a body of several ops folds in increasing replica id", "[variadic][all_reduce]") {
  // acc - x over replicas 0, 1, 2: (10 - 1) - 2 = 7 and (0 - 4) - 8 = -12; another order gives
  // another value (10 - (1 - 2) = 11).
  const std::vector<std::vector<Strings>> inputs{{{"10", "0"}}, {{"1", "4"}}, {{"2", "8"}}};
  const auto by_region = run_text(F32, subtract_all_reduce(false), inputs);
  for (int replica = 0; replica < 3; ++replica) CHECK(by_region.at(replica).at(0) == Strings{"7", "-12"});
  CHECK(run_text(F32, subtract_all_reduce(true), inputs) == by_region);  // the one-op kernel folds alike
  // In f32 the order shows in a sum too: (1e8 + 1) + -1e8 = 0 (1e8 + 1 rounds to 1e8), while
  // (1e8 + -1e8) + 1 = 1. The executor's fold is bit for bit the kernel's.
  const std::vector<std::vector<Strings>> rounding{{{"100000000", "0.1"}}, {{"1", "0.2"}}, {{"-100000000", "0.3"}}};
  const auto sum_by_region = run_text(F32, subtract_all_reduce(false, "add"), rounding);
  CHECK(sum_by_region.at(0).at(0).at(0) == "0");
  CHECK(sum_by_region == run_text(F32, subtract_all_reduce(true, "add"), rounding));
  // Exact: the same sums without rounding.
  CHECK(run_text(E, subtract_all_reduce(false, "add"), rounding).at(2).at(0) == Strings{"1", "3/5"});
}

TEST_CASE("all_reduce's replica_groups: -1 padding is refused by the spec's C3", "[variadic][all_reduce]") {
  auto groups = [](const std::string& literal) {
    return replaced(subtract_all_reduce(true), "dense<[[0, 1, 2]]> : tensor<1x3xi64>", literal);
  };
  CHECK_THROWS_WITH(parse_module(groups("dense<[[0, 1, 2], [3, -1, -1]]> : tensor<2x3xi64>"), "p.mlir"),
                    Catch::Contains("p.mlir:3:5: stablehlo.all_reduce:") && Catch::Contains("all_reduce C3"));
  CHECK_NOTHROW(parse_module(groups("dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>"), "p.mlir"));  // control
}

namespace {

// An argmax over windows of 2 (stride 1, one position of padding below) of two i32 inputs,
// values and their indices, as JAX writes a windowed argmax: the body keeps the larger value
// and, on ties, the smaller index. `tie` is the index comparison (LT; GT is the control).
std::string windowed_argmax(const std::string& tie = "LT") {
  return R"(module @m {
  func.func @f(%v: tensor<5xi32>, %i: tensor<5xi32>) -> (tensor<5xi32>, tensor<5xi32>) {
    %v0 = stablehlo.constant dense<-2147483648> : tensor<i32>
    %i0 = stablehlo.constant dense<100> : tensor<i32>
    %r:2 = "stablehlo.reduce_window"(%v, %i, %v0, %i0) ({
    ^bb0(%a: tensor<i32>, %ai: tensor<i32>, %b: tensor<i32>, %bi: tensor<i32>):
      %gt = stablehlo.compare GT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %eq = stablehlo.compare EQ, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %lt = stablehlo.compare )" + tie + R"(, %ai, %bi, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %tie = stablehlo.and %eq, %lt : tensor<i1>
      %keep = stablehlo.or %gt, %tie : tensor<i1>
      %m = stablehlo.select %gt, %a, %b : tensor<i1>, tensor<i32>
      %mi = stablehlo.select %keep, %ai, %bi : tensor<i1>, tensor<i32>
      stablehlo.return %m, %mi : tensor<i32>, tensor<i32>
    }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 1>, padding = dense<[[1, 0]]> : tensor<1x2xi64>}
      : (tensor<5xi32>, tensor<5xi32>, tensor<i32>, tensor<i32>) -> (tensor<5xi32>, tensor<5xi32>)
    return %r#0, %r#1 : tensor<5xi32>, tensor<5xi32>
  }
}
)";
}

// The same windows reduced by the one-op kernel (maximum), an independent route to the values.
const char* kWindowedMax = R"(module @m {
  func.func @f(%v: tensor<5xi32>) -> tensor<5xi32> {
    %v0 = stablehlo.constant dense<-2147483648> : tensor<i32>
    %r = "stablehlo.reduce_window"(%v, %v0) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %m = stablehlo.maximum %a, %b : tensor<i32>
      stablehlo.return %m : tensor<i32>
    }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 1>, padding = dense<[[1, 0]]> : tensor<1x2xi64>}
      : (tensor<5xi32>, tensor<i32>) -> tensor<5xi32>
    return %r : tensor<5xi32>
  }
}
)";

}  // namespace

TEST_CASE("reduce_window with two inputs: a windowed argmax", "[variadic][reduce_window]") {
  // Padded: [pad, 3, 7, 7, 2, 9]; windows [pad, 3] [3, 7] [7, 7] [7, 2] [2, 9]. The padding is
  // each input's init value (-2^31, index 100), which loses to every element.
  const std::vector<Strings> inputs{{"3", "7", "7", "2", "9"}, {"0", "1", "2", "3", "4"}};
  const std::vector<Strings> want{{"3", "7", "7", "7", "9"}, {"0", "1", "1", "2", "4"}};
  CHECK(run_typed_all(E, windowed_argmax(), inputs) == want);
  CHECK(run_typed_all(F32, windowed_argmax(), inputs) == want);
  CHECK(run_typed(E, kWindowedMax, {inputs[0]}) == want[0]);
  // Control: ties to the larger index change the [7, 7] window's index only.
  CHECK(run_typed_all(E, windowed_argmax("GT"), inputs).at(1) == Strings{"0", "1", "2", "2", "4"});
}

TEST_CASE("reduce_window with several inputs: the verifier", "[variadic][reduce_window]") {
  // A body over one pair only (C13), an init of another type (C3), a result of another shape (C15).
  CHECK_THROWS_WITH(parse_module(replaced(windowed_argmax(), "stablehlo.return %m, %mi : tensor<i32>, tensor<i32>",
                                          "stablehlo.return %m : tensor<i32>"),
                                 "p.mlir"),
                    Catch::Contains("p.mlir:5:5: stablehlo.reduce_window:") && Catch::Contains("the body must return"));
  CHECK_THROWS_WITH(parse_module(replaced(replaced(windowed_argmax(), "dense<100> : tensor<i32>", "dense<100> : tensor<i64>"),
                                          "tensor<i32>, tensor<i32>) -> (tensor<5xi32>", "tensor<i32>, tensor<i64>) -> (tensor<5xi32>"),
                                 "p.mlir"),
                    Catch::Contains("init value %i0 must be tensor<i32>, is tensor<i64>"));
  CHECK_THROWS_WITH(parse_module(replaced(windowed_argmax(), "-> (tensor<5xi32>, tensor<5xi32>)\n    return",
                                          "-> (tensor<5xi32>, tensor<4xi32>)\n    return"),
                                 "p.mlir"),
                    Catch::Contains("result 1 must be tensor<5xi32>, found tensor<4xi32>"));
  CHECK_NOTHROW(parse_module(windowed_argmax(), "p.mlir"));  // control
}

TEST_CASE("variadic all_reduce and reduce_window print and read back", "[variadic][print]") {
  for (const std::string& text : {spec_all_reduce(), windowed_argmax()}) {
    const Module m = parse_module(text, "p.mlir");
    const std::string printed = print_module(m);
    CHECK(parse_module(printed, "printed.mlir") == m);
    CHECK(print_module(parse_module(printed, "printed.mlir")) == printed);
  }
  // Control: equality sees the body (another tie rule is another program).
  CHECK(parse_module(windowed_argmax("GT"), "p.mlir") != parse_module(windowed_argmax(), "p.mlir"));
}
