// Regions run as programs (issue 15): reduce with a body of several ops and several inputs
// (JAX's argmax), reduce_window with such a body, sort, while, if and case, in every domain;
// their parsing in the pretty and generic forms, printing (round trip) and the verifier's
// located errors. Expected values are counted by hand; where a fast single-op kernel exists,
// the executor is also compared with it (an independent route to the same fold).
#include <catch2/catch.hpp>

#include "ast/mlir_print.hpp"
#include "interp/region_exec.hpp"
#include "tests/support.hpp"
#include "tests/typed_support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

// jnp.argmax(x, axis=1) as JAX prints it: a reduce of (values, iota) whose body keeps the
// larger value and, on ties, the smaller index.
std::string argmax_program(const std::string& x) {
  return R"(module @m {
  func.func @f() -> (tensor<2xf32>, tensor<2xi32>) {
    %x = stablehlo.constant dense<)" + x + R"(> : tensor<2x4xf32>
    %0 = stablehlo.iota dim = 1 : tensor<2x4xi32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.reduce(%x init: %cst), (%0 init: %c) across dimensions = [1] : (tensor<2x4xf32>, tensor<2x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %2 = stablehlo.compare  GT, %arg1, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %5 = stablehlo.compare  EQ, %arg1, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.compare  LT, %arg2, %arg4,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %2, %7 : tensor<i1>
      %9 = stablehlo.select %2, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
    }
    return %1#0, %1#1 : tensor<2xf32>, tensor<2xi32>
  }
}
)";
}

// A reduce of [1, 2, 3] from 10 with the body `acc - x`: as one op (the fast kernel) or as two
// ops (acc - x, then * 1: the executor). A left fold gives ((10 - 1) - 2) - 3 = 4.
std::string subtract_fold(bool one_op) {
  const std::string body = one_op ? R"(      %d = stablehlo.subtract %acc, %x : tensor<f32>
      stablehlo.return %d : tensor<f32>
)"
                                  : R"(      %s = stablehlo.subtract %acc, %x : tensor<f32>
      %d = stablehlo.multiply %s, %one : tensor<f32>
      stablehlo.return %d : tensor<f32>
)";
  return program({"%v = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>", "%init = stablehlo.constant dense<10.0> : tensor<f32>",
                  "%one = stablehlo.constant dense<1.0> : tensor<f32>",
                  "%r = \"stablehlo.reduce\"(%v, %init) ({\n    ^bb0(%acc: tensor<f32>, %x: tensor<f32>):\n" + body +
                      "  }) {dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<f32>) -> tensor<f32>"},
                 "tensor<f32>");
}

// A 1x4 sum-of-pairs reduce_window, its body `a + b` as one op or as `(a + b) * 1`.
std::string window_sum(bool one_op) {
  const std::string body = one_op ? "      %s = stablehlo.add %a, %b : tensor<f32>\n      stablehlo.return %s : tensor<f32>\n"
                                  : "      %t = stablehlo.add %a, %b : tensor<f32>\n      %s = stablehlo.multiply %t, %one : tensor<f32>\n"
                                    "      stablehlo.return %s : tensor<f32>\n";
  return program({"%v = stablehlo.constant dense<[[1.0, 2.0, 4.0, 8.0]]> : tensor<1x4xf32>", "%z = stablehlo.constant dense<0.0> : tensor<f32>",
                  "%one = stablehlo.constant dense<1.0> : tensor<f32>",
                  "%r = \"stablehlo.reduce_window\"(%v, %z) ({\n    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n" + body +
                      "  }) {window_dimensions = array<i64: 1, 2>} : (tensor<1x4xf32>, tensor<f32>) -> tensor<1x3xf32>"},
                 "tensor<1x3xf32>");
}

// select_and_scatter of [1, 5, 2, 7, 3, 3] in windows of 2 (stride 2) with source [10, 20, 30]:
// the select region is `direction` written as two ops, the scatter `acc + x + zero` (zero
// captured from the function body), so both run through the executor; on i64 values.
std::string select_scatter_program(const std::string& direction) {
  return program({"%v = stablehlo.constant dense<[1, 5, 2, 7, 3, 3]> : tensor<6xi64>",
                  "%src = stablehlo.constant dense<[10, 20, 30]> : tensor<3xi64>", "%zero = stablehlo.constant dense<0> : tensor<i64>",
                  "%r = \"stablehlo.select_and_scatter\"(%v, %src, %zero) ({\n    ^bb0(%a: tensor<i64>, %b: tensor<i64>):\n"
                  "      %c = stablehlo.compare " + direction + ", %a, %b, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
                  "      %k = stablehlo.and %c, %c : tensor<i1>\n      stablehlo.return %k : tensor<i1>\n  }, {\n"
                  "    ^bb0(%a: tensor<i64>, %b: tensor<i64>):\n      %t = stablehlo.add %a, %b : tensor<i64>\n"
                  "      %s = stablehlo.add %t, %zero : tensor<i64>\n      stablehlo.return %s : tensor<i64>\n"
                  "  }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} : (tensor<6xi64>, tensor<3xi64>, tensor<i64>) -> tensor<6xi64>"},
                 "tensor<6xi64>");
}

// sort along `dimension` of a 2x3 f32 key and an i32 payload, ordered by `direction` on the keys.
std::string sort_program(const std::string& keys, const std::string& direction, const std::string& dimension) {
  return R"(module @m {
  func.func @f() -> (tensor<2x3xf32>, tensor<2x3xi32>) {
    %k = stablehlo.constant dense<)" + keys + R"(> : tensor<2x3xf32>
    %p = stablehlo.constant dense<[[0, 1, 2], [3, 4, 5]]> : tensor<2x3xi32>
    %s:2 = "stablehlo.sort"(%k, %p) <{dimension = )" + dimension + R"( : i64, is_stable = true}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %i: tensor<i32>, %j: tensor<i32>):
      %c = stablehlo.compare )" + direction + R"(, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    }) : (tensor<2x3xf32>, tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
    return %s#0, %s#1 : tensor<2x3xf32>, tensor<2x3xi32>
  }
}
)";
}

// fori_loop(0, n, acc + i * x, 0): the bound and x captured from the function body.
std::string fori_program(const std::string& n, const std::string& x) {
  return R"(module @m {
  func.func @f() -> tensor<f32> {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.constant dense<)" + n + R"(> : tensor<i32>
    %x = stablehlo.constant dense<)" + x + R"(> : tensor<f32>
    %acc0 = stablehlo.constant dense<0.0> : tensor<f32>
    %w:2 = stablehlo.while(%i = %zero, %acc = %acc0) : tensor<i32>, tensor<f32>
     cond {
      %lt = stablehlo.compare  LT, %i, %n,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %fi = stablehlo.convert %i : (tensor<i32>) -> tensor<f32>
      %t = stablehlo.multiply %fi, %x : tensor<f32>
      %a = stablehlo.add %acc, %t : tensor<f32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i1, %a : tensor<i32>, tensor<f32>
    }
    return %w#1 : tensor<f32>
  }
}
)";
}

// case on `index` over three branches returning 10, 20 and x * x (x captured); the last branch
// holds a nested if whose branches capture x too.
std::string case_program(const std::string& index, const std::string& pred) {
  return R"(module @m {
  func.func @f() -> tensor<f32> {
    %index = stablehlo.constant dense<)" + index + R"(> : tensor<i32>
    %p = stablehlo.constant dense<)" + pred + R"(> : tensor<i1>
    %x = stablehlo.constant dense<3.0> : tensor<f32>
    %r = "stablehlo.case"(%index) ({
      %c = stablehlo.constant dense<10.0> : tensor<f32>
      stablehlo.return %c : tensor<f32>
    }, {
      %c = stablehlo.constant dense<20.0> : tensor<f32>
      stablehlo.return %c : tensor<f32>
    }, {
      %inner = "stablehlo.if"(%p) ({
        %sq = stablehlo.multiply %x, %x : tensor<f32>
        stablehlo.return %sq : tensor<f32>
      }, {
        %neg = stablehlo.negate %x : tensor<f32>
        stablehlo.return %neg : tensor<f32>
      }) : (tensor<i1>) -> tensor<f32>
      stablehlo.return %inner : tensor<f32>
    }) : (tensor<i32>) -> tensor<f32>
    return %r : tensor<f32>
  }
}
)";
}

}  // namespace

TEST_CASE("argmax: a reduce of two inputs whose body is a compare/select program", "[regions]") {
  const std::string x = "[[1.0, 5.0, 3.0, 5.0], [-2.0, -1.0, -7.0, 0.5]]";
  // Row 0 has two maxima (5 at 1 and 3): the first index wins. Row 1's maximum 0.5 is at 3.
  const std::vector<Strings> want{{"5", "0.5"}, {"1", "3"}};
  CHECK(run_typed_all(E, argmax_program(x)) == std::vector<Strings>{{"5", "1/2"}, {"1", "3"}});
  CHECK(run_typed_all(F32, argmax_program(x)) == want);
  CHECK(run_typed_all(F64, argmax_program(x)) == want);
  CHECK(run_typed_all(MpfrDomain(53), argmax_program(x)).at(1) == Strings{"1", "3"});
  CHECK(run_typed_all(IntervalDomain(53), argmax_program(x)).at(1) == Strings{"1", "3"});
  // Control: the indices follow the values (the maximum moved to column 2 in row 0).
  CHECK(run_typed_all(E, argmax_program("[[1.0, 5.0, 7.0, 5.0], [-2.0, -1.0, -7.0, 0.5]]")).at(1) == Strings{"2", "3"});
}

TEST_CASE("a reduce body of several ops folds as the single-op kernel does", "[regions]") {
  // ((10 - 1) - 2) - 3 = 4: a left fold from init with the accumulator first.
  CHECK(run_typed(E, subtract_fold(false)) == Strings{"4"});
  CHECK(run_typed(F32, subtract_fold(false)) == Strings{"4"});
  CHECK(run_typed(IntervalDomain(24), subtract_fold(false)) == Strings{"[4.0, 4.0]"});
  // The fast kernel (one op, kept as `applies`) gives the same value: the control that the
  // executor's order is the kernel's; the two forms are told apart by the parser.
  CHECK(run_typed(E, subtract_fold(true)) == Strings{"4"});
  const Module one = parse_module(subtract_fold(true), "t.mlir"), two = parse_module(subtract_fold(false), "t.mlir");
  CHECK(std::get<Instruction>(one.function().body[3]).regions.empty());       // applies stablehlo.subtract
  CHECK(std::get<Instruction>(two.function().body[3]).regions.size() == 1);   // a program
}

TEST_CASE("reduce_window with a body of several ops", "[regions]") {
  // Windows of two: 1 + 2, 2 + 4, 4 + 8.
  CHECK(run_typed(E, window_sum(false)) == Strings{"3", "6", "12"});
  CHECK(run_typed(F64, window_sum(false)) == Strings{"3", "6", "12"});
  CHECK(run_typed(E, window_sum(true)) == run_typed(E, window_sum(false)));  // the single-op kernel agrees
}

TEST_CASE("select_and_scatter with select and scatter bodies of several ops", "[regions]") {
  // GE keeps the current selection on ties: the windows (1, 5), (2, 7), (3, 3) select 5, 7 and
  // the first 3.
  CHECK(run_typed(E, select_scatter_program("GE")) == Strings{"0", "10", "0", "20", "30", "0"});
  CHECK(run_typed(F32, select_scatter_program("GE")) == Strings{"0", "10", "0", "20", "30", "0"});
  // Control: GT moves to the candidate on a tie, the second 3.
  CHECK(run_typed(E, select_scatter_program("GT")) == Strings{"0", "10", "0", "20", "0", "30"});
}

TEST_CASE("sort: N inputs permuted together, stable, along any dimension", "[regions]") {
  const std::string keys = "[[2.0, -1.0, 2.0], [0.5, 0.25, 0.5]]";
  // Along the last dimension (-1), ascending: row 0 -> [-1, 2, 2] with payload [1, 0, 2] (the
  // equal keys keep their order); row 1 -> [0.25, 0.5, 0.5] with [4, 3, 5].
  const std::vector<Strings> ascending{{"-1", "2", "2", "0.25", "0.5", "0.5"}, {"1", "0", "2", "4", "3", "5"}};
  CHECK(run_typed_all(E, sort_program(keys, "LT", "-1")) == std::vector<Strings>{{"-1", "2", "2", "1/4", "1/2", "1/2"}, ascending[1]});
  CHECK(run_typed_all(F32, sort_program(keys, "LT", "1")) == ascending);
  CHECK(run_typed_all(IntervalDomain(53), sort_program(keys, "LT", "1")).at(1) == ascending[1]);
  // Descending, still stable: row 0 -> [2, 2, -1] with [0, 2, 1].
  CHECK(run_typed_all(F64, sort_program(keys, "GT", "1")).at(1) == Strings{"0", "2", "1", "3", "5", "4"});
  // Along dimension 0: each column of two sorted; column 0 (2, 0.5) swaps, column 1 (-1, 0.25) not.
  CHECK(run_typed_all(E, sort_program(keys, "LT", "0")).at(1) == Strings{"3", "1", "5", "0", "4", "2"});
}

TEST_CASE("sort: an undecided comparison in the interval domain is an error", "[regions]") {
  // 0.1 * 3 and 0.3 have overlapping enclosures at 24 bits: the comparator cannot decide.
  const std::string text = R"(module @m {
  func.func @f() -> tensor<2xf32> {
    %a = stablehlo.constant dense<[0.1, 0.3]> : tensor<2xf32>
    %m = stablehlo.constant dense<[3.0, 1.0]> : tensor<2xf32>
    %k = stablehlo.multiply %a, %m : tensor<2xf32>
    %s = "stablehlo.sort"(%k) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %c = stablehlo.compare LT, %x, %y, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    }) : (tensor<2xf32>) -> tensor<2xf32>
    return %s : tensor<2xf32>
  }
}
)";
  REQUIRE_THROWS_WITH(run_typed(IntervalDomain(24), text), Catch::Contains("undecided") && Catch::Contains("stablehlo.sort"));
  // Control: exactly, 0.3 = 0.3 and the sort keeps the order.
  CHECK(run_typed(E, text) == Strings{"3/10", "3/10"});
}

TEST_CASE("while: a fori_loop with captured bounds, zero iterations, the iteration limit", "[regions]") {
  // sum over i < 4 of i * 0.5 = 0.5 * (0 + 1 + 2 + 3) = 3.
  CHECK(run_typed(E, fori_program("4", "0.5")) == Strings{"3"});
  CHECK(run_typed(F32, fori_program("4", "0.5")) == Strings{"3"});
  CHECK(run_typed(MpfrDomain(53), fori_program("4", "0.5")) == Strings{"3.0"});
  // Zero iterations: the initial accumulator.
  CHECK(run_typed(E, fori_program("0", "0.5")) == Strings{"0"});
  // f32 accumulates with rounding, exact does not: 0.3 * (0 + ... + 9) = 13.5 exactly, while
  // the f32 sum of the rounded products is 13.500000953674316 (each step rounded to float32,
  // computed by hand with Python's struct round trip).
  CHECK(run_typed(E, fori_program("10", "0.3")) == Strings{"27/2"});
  CHECK(run_typed(F32, fori_program("10", "0.3")) != Strings{"13.5"});
  // A loop that does not end stops at the limit with a located message.
  auto& limit = run_detail::max_while_iterations();
  const auto saved = limit.load();
  limit = 1000;
  CHECK_THROWS_WITH(run_typed(E, fori_program("2000", "1.0")), Catch::Contains("test.mlir:8:5: %w = stablehlo.while") && Catch::Contains("did not end after 1000"));
  CHECK(run_typed(E, fori_program("1000", "1.0")) == Strings{"499500"});  // control: 1000 iterations are allowed
  limit = saved;
}

TEST_CASE("if and case: one branch runs, out-of-range indices take the last, captures", "[regions]") {
  CHECK(run_typed(E, case_program("0", "true")) == Strings{"10"});
  CHECK(run_typed(E, case_program("1", "true")) == Strings{"20"});
  CHECK(run_typed(E, case_program("2", "true")) == Strings{"9"});      // the nested if's true branch: 3 * 3
  CHECK(run_typed(F32, case_program("2", "false")) == Strings{"-3"});  // its false branch
  CHECK(run_typed(E, case_program("-1", "true")) == Strings{"9"});     // out of range: the last branch
  CHECK(run_typed(F64, case_program("7", "false")) == Strings{"-3"});
  CHECK(run_typed(IntervalDomain(53), case_program("1", "false")) == Strings{"[2.0e1, 2.0e1]"});
}

TEST_CASE("regions print in a form that parses back to the same program", "[regions]") {
  for (const std::string& text : {argmax_program("[[1.0, 2.0, 3.0, 4.0], [4.0, 3.0, 2.0, 1.0]]"), subtract_fold(false),
                                  sort_program("[[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]", "GT", "0"), fori_program("3", "1.0"),
                                  case_program("1", "true"), window_sum(false)}) {
    const Module m = parse_module(text, "t.mlir");
    const std::string printed = print_module(m);
    CHECK(parse_module(printed, "printed.mlir") == m);
    CHECK(print_module(parse_module(printed, "printed.mlir")) == printed);
  }
  // Control: equality sees the regions (a changed comparator is a different program).
  CHECK(parse_module(sort_program("[[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]", "GT", "0"), "t.mlir") !=
        parse_module(sort_program("[[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]", "LT", "0"), "t.mlir"));
}

TEST_CASE("the verifier checks region signatures with located errors", "[regions]") {
  // A comparator that returns f32, not i1 (line 6 of the module: the sort).
  const std::string sort_f32 = R"(module @m {
  func.func @f() -> tensor<2xf32> {
    %k = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %s = "stablehlo.sort"(%k) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      stablehlo.return %x : tensor<f32>
    }) : (tensor<2xf32>) -> tensor<2xf32>
    return %s : tensor<2xf32>
  }
}
)";
  CHECK_THAT(parse_error_of(sort_f32), Catch::Contains("t.mlir:4:5") && Catch::Contains("the comparator must return (tensor<i1>)"));
  // A case index of type i1, not i32.
  const std::string case_i1 = replaced(replaced(case_program("1", "true"), "dense<1> : tensor<i32>", "dense<true> : tensor<i1>"),
                                       "}) : (tensor<i32>) -> tensor<f32>", "}) : (tensor<i1>) -> tensor<f32>");
  CHECK_THAT(parse_error_of(case_i1), Catch::Contains("index must be tensor<i32>, is tensor<i1>"));
  // A while body that returns the loop values in the wrong order.
  const std::string swapped = replaced(fori_program("3", "1.0"), "stablehlo.return %i1, %a : tensor<i32>, tensor<f32>",
                                       "stablehlo.return %a, %i1 : tensor<f32>, tensor<i32>");
  CHECK_THAT(parse_error_of(swapped), Catch::Contains("the body region must return (tensor<i32>, tensor<f32>)"));
  // A reduce whose second init is f32 while its input is i32.
  const std::string bad_init = replaced(replaced(argmax_program("[[1.0, 2.0, 3.0, 4.0], [4.0, 3.0, 2.0, 1.0]]"), "(%0 init: %c)", "(%0 init: %cst)"),
                                        "tensor<f32>, tensor<i32>) -> (tensor<2xf32>", "tensor<f32>, tensor<f32>) -> (tensor<2xf32>");
  CHECK_THAT(parse_error_of(bad_init), Catch::Contains("t.mlir:7:5") && Catch::Contains("init value %cst must be tensor<i32>"));
  // Naming three results of a two-result op.
  const std::string three = replaced(argmax_program("[[1.0, 2.0, 3.0, 4.0], [4.0, 3.0, 2.0, 1.0]]"), "%1:2 =", "%1:3 =");
  CHECK_THAT(parse_error_of(three), Catch::Contains("has 2 result(s) but 3 are named"));
  // Controls: the well-formed programs parse.
  for (const std::string& good : {case_program("1", "true"), fori_program("3", "1.0"), argmax_program("[[1.0, 2.0, 3.0, 4.0], [4.0, 3.0, 2.0, 1.0]]")})
    CHECK(parse_error_of(good).empty());
}

namespace {

// One i8 reduction computed in `body` (i8 or i16, ... : is_promotable lets the body be wider):
// the region adds its two arguments in that type.
std::string add_region(const std::string& body) {
  const std::string s = "tensor<" + body + ">";
  return "({\n    ^bb0(%a: " + s + ", %b: " + s + "):\n      %c = stablehlo.add %a, %b : " + s + "\n      stablehlo.return %c : " + s +
         "\n    })";
}

}  // namespace

TEST_CASE("region bodies in a wider element type than the operands (is_promotable)", "[regions][promotable]") {
  // 100 + 100 + 100 = 300 in i32; in i8 it wraps to 300 - 256 = 44.
  auto reduce = [](const std::string& body, const std::string& input = "i8") {
    return program({"%x = stablehlo.constant dense<[100, 100, 100]> : tensor<3x" + input + ">",
                    "%z = stablehlo.constant dense<0> : tensor<" + input + ">",
                    "%r = \"stablehlo.reduce\"(%x, %z) " + add_region(body) + " {dimensions = array<i64: 0>} : (tensor<3x" + input +
                        ">, tensor<" + input + ">) -> tensor<" + body + ">"},
                   "tensor<" + body + ">");
  };
  CHECK(run_typed(E, reduce("i32")) == Strings{"300"});
  CHECK(run_typed(F32, reduce("i32")) == Strings{"300"});
  CHECK(run_typed(E, reduce("i8")) == Strings{"44"});  // control: the narrow body wraps
  // Floats: 2^24 + 1 + 1 in an f64 body is exact; an f32 body loses both ones (ties to even).
  auto reduce_f = [](const std::string& body) {
    return program({"%x = stablehlo.constant dense<[16777216.0, 1.0, 1.0]> : tensor<3xf32>", "%z = stablehlo.constant dense<0.0> : tensor<f32>",
                    "%r = \"stablehlo.reduce\"(%x, %z) " + add_region(body) + " {dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<f32>) -> tensor<" +
                        body + ">"},
                   "tensor<" + body + ">");
  };
  CHECK(run_typed(F64, reduce_f("f64")) == Strings{"16777218"});
  CHECK(run_typed(F64, reduce_f("f32")) == Strings{"16777218"});  // the f64 domain computes every type in double
  CHECK(run_typed(E, reduce_f("f64")) == Strings{"16777218"});

  // reduce_window over windows of 2 (stride 1): [100+100, 100+100] = [200, 200]; in i8 -56.
  auto window = [](const std::string& body) {
    return program({"%x = stablehlo.constant dense<[100, 100, 100]> : tensor<3xi8>", "%z = stablehlo.constant dense<0> : tensor<i8>",
                    "%r = \"stablehlo.reduce_window\"(%x, %z) " + add_region(body) +
                        " {window_dimensions = array<i64: 2>} : (tensor<3xi8>, tensor<i8>) -> tensor<2x" + body + ">"},
                   "tensor<2x" + body + ">");
  };
  CHECK(run_typed(E, window("i16")) == Strings{"200", "200"});
  CHECK(run_typed(E, window("i8")) == Strings{"-56", "-56"});  // control

  // select_and_scatter: windows [1, 5] and [5, 2] both select the 5; its two sources of 100
  // add up to 200 at index 1 in an i16 scatter body (-56 in i8).
  auto sas = [](const std::string& body) {
    return program({"%x = stablehlo.constant dense<[1, 5, 2]> : tensor<3xi8>", "%s = stablehlo.constant dense<[100, 100]> : tensor<2xi8>",
                    "%z = stablehlo.constant dense<0> : tensor<i8>",
                    "%r = \"stablehlo.select_and_scatter\"(%x, %s, %z) ({\n    ^bb0(%a: tensor<i8>, %b: tensor<i8>):\n"
                    "      %p = stablehlo.compare GE, %a, %b : (tensor<i8>, tensor<i8>) -> tensor<i1>\n"
                    "      stablehlo.return %p : tensor<i1>\n    }, " + add_region(body).substr(1) +
                        " {window_dimensions = array<i64: 2>, window_strides = array<i64: 1>} : (tensor<3xi8>, tensor<2xi8>, tensor<i8>) -> "
                        "tensor<3x" + body + ">"},
                   "tensor<3x" + body + ">");
  };
  CHECK(run_typed(E, sas("i16")) == Strings{"0", "200", "0"});
  CHECK(run_typed(E, sas("i8")) == Strings{"0", "-56", "0"});  // control

  // all_reduce over two replicas holding 100 each: 200 in an i16 body.
  auto all_reduce = [](const std::string& body) {
    return program({"%x = stablehlo.constant dense<[100]> : tensor<1xi8>",
                    "%r = \"stablehlo.all_reduce\"(%x) " + add_region(body) +
                        " {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<1xi8>) -> tensor<1x" + body + ">"},
                   "tensor<1x" + body + ">");
  };
  auto on_two_replicas = [](const std::string& text) { return run_typed_replicas(E, text, {{}, {}}).at(1).at(0).at(0); };
  CHECK(on_two_replicas(all_reduce("i16")) == "200");
  CHECK(on_two_replicas(all_reduce("i8")) == "-56");  // control

  // The verifier: a narrower body, another kind, a result not of the body's type, located.
  CHECK_THROWS_WITH(parse_module(reduce("i32", "i64"), "p.mlir"),
                    Catch::Contains("p.mlir:5:5: stablehlo.reduce:") && Catch::Contains("is_promotable, C6"));
  CHECK_THROWS_WITH(parse_module(window("f32"), "p.mlir"),
                    Catch::Contains("p.mlir:5:5: stablehlo.reduce_window:") && Catch::Contains("not i8 or a wider type of its kind"));
  CHECK_THROWS_WITH(parse_module(replaced(window("i16"), "tensor<i8>) -> tensor<2xi16>", "tensor<i8>) -> tensor<2xi8>"), "p.mlir"),
                    Catch::Contains("stablehlo.reduce_window:"));
  CHECK_THROWS_WITH(parse_module(replaced(all_reduce("i16"), "(tensor<1xi8>) -> tensor<1xi16>", "(tensor<1xi8>) -> tensor<1xi8>"), "p.mlir"),
                    Catch::Contains("stablehlo.all_reduce:"));
  CHECK_THROWS_WITH(parse_module(sas("i1"), "p.mlir"), Catch::Contains("p.mlir:6:5: stablehlo.select_and_scatter:"));
  CHECK_THROWS_WITH(parse_module(reduce("ui32"), "p.mlir"), Catch::Contains("is_promotable"));  // signed into unsigned
  CHECK(run_typed(E, reduce("i16", "ui8")) == Strings{"300"});  // every ui8 is an i16
  CHECK_NOTHROW(parse_module(reduce("i64"), "p.mlir"));  // control: a wider body of the kind
}
