// The parser's calls and checks (read in their own files since the split of mlir_parse.cpp), the
// spec-example test files' control mechanism, the spec's all_reduce example on two replicas,
// and the memory estimate of programs that call functions. Values are by hand.
#include <catch2/catch.hpp>

#include <tuple>

#include "ast/mlir_print.hpp"
#include "interp/memory.hpp"
#include "num/integer_literal.hpp"
#include "oracle/check_dialect.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::test;
using Catch::Contains;

namespace {

// A module with a public test @main that calls @twice and checks its result.
const char* const kCallAndChecks = R"(module @m {
  func.func public @main() -> tensor<2xi32> {
    %a = stablehlo.constant dense<[1, -2]> : tensor<2xi32>
    %r:2 = func.call @twice(%a) : (tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>)
    check.expect_eq_const %r#0, dense<[2, -4]> : tensor<2xi32>
    %f = stablehlo.convert %r#1 : (tensor<2xi32>) -> tensor<2xf32>
    check.expect_almost_eq_const %f, dense<[1.0, -2.0]>, tolerance = 1.0e-3 : tensor<2xf32>
    check.expect_close %f, %f, max_ulp_difference = 0 : tensor<2xf32>, tensor<2xf32>
    stablehlo.custom_call @check.expect_eq(%r#0, %r#0) {has_side_effect = true} : (tensor<2xi32>, tensor<2xi32>) -> ()
    return %r#0 : tensor<2xi32>
  }
  func.func private @twice(%x: tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>) {
    %y = stablehlo.add %x, %x : tensor<2xi32>
    return %y, %x : tensor<2xi32>, tensor<2xi32>
  }
}
)";

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::string spec_example(const std::string& name) {
  // SHLO_CORPUS_DIR is the repository's corpus/ folder; the test files are beside it.
  return std::string(SHLO_CORPUS_DIR) + "/../tests/shlo_test/spec/" + name;
}

}  // namespace

TEST_CASE("calls and checks parse, print back and run as before the parser's split", "[s22_parse]") {
  const Module m = parse_module(kCallAndChecks, "t.mlir");
  REQUIRE(m.functions.size() == 2);
  const auto& body = m.functions[0].body;
  REQUIRE(body.size() == 7);
  const auto& call = std::get<Call>(body[1]);
  CHECK(call.results == std::vector<std::string>{"%r#0", "%r#1"});
  CHECK(call.callee == "twice");
  CHECK(call.func_prefix);
  CHECK(call.location.line == 4);
  const auto& almost = std::get<Check>(body[4]);
  CHECK(almost.kind == CheckKind::AlmostEq);
  CHECK(almost.tolerance == 1.0e-3);
  CHECK(std::get<Check>(body[5]).max_ulp == 0);
  const auto& custom = std::get<Check>(body[6]);
  CHECK(custom.custom_call);
  CHECK(custom.kind == CheckKind::Eq);
  CHECK(parse_module(print_module(m), "t.mlir") == m);
  const auto outcomes = run_test_file(kCallAndChecks, "t.mlir", parse_domain("exact"));
  REQUIRE(outcomes.size() == 1);
  CHECK(outcomes[0].status == TestOutcome::Status::Pass);
  // Control: a wrong expected value fails at its check.
  const auto wrong = run_test_file(replace_once(kCallAndChecks, "dense<[2, -4]>", "dense<[2, 4]>"), "t.mlir", parse_domain("exact"));
  REQUIRE(wrong.size() == 1);
  CHECK(wrong[0].status == TestOutcome::Status::Fail);
  CHECK_THAT(wrong[0].detail, Contains("check.expect_eq_const at line 5: index [1], got -4, expected 4"));
}

TEST_CASE("the calls' and checks' errors are located as before the parser's split", "[s22_parse]") {
  CHECK(parse_error_of(kCallAndChecks).empty());  // the control: the text as written parses
  CHECK_THAT(parse_error_of(replace_once(kCallAndChecks, "func.call @twice(%a) : (tensor<2xi32>)", "func.call @twice(%a) : (tensor<2xf32>)")),
             Contains("t.mlir:4:5: the call's operand types (tensor<2xf32>) are not those of its operands (tensor<2xi32>)"));
  // A call's result pack out of range: named as such (it was read as a multi-result instruction).
  CHECK_THAT(parse_error_of(replace_once(kCallAndChecks, "%r:2 = func.call", "%r:0 = func.call")),
             Contains("t.mlir:4:5: a result pack holds 1 to 4096 results, not 0"));
  CHECK_THAT(parse_error_of(replace_once(kCallAndChecks, "%r:2 = func.call", "%r:3 = func.call")),
             Contains("t.mlir:4:5: the call defines 3 value(s) but its type has 2 result(s)"));
  CHECK_THAT(parse_error_of(replace_once(kCallAndChecks, "max_ulp_difference = 0", "tolerance = 0")),
             Contains("t.mlir:8:") && Contains("unknown parameter 'tolerance' for check.expect_close"));
  CHECK_THAT(parse_error_of(replace_once(kCallAndChecks, "@check.expect_eq(", "@check.expect_ne(")),
             Contains("t.mlir:9:5: unsupported custom call target 'check.expect_ne'"));
  CHECK_THAT(parse_error_of(replace_once(kCallAndChecks, "check.expect_almost_eq_const %f", "check.expect_almost_eq_const %r#0")),
             Contains("t.mlir:7:") && Contains("operand %r#0 has type tensor<2xi32> but the check says tensor<2xf32>"));
}

TEST_CASE("a spec example with a changed expected value fails, located at its check", "[s22_parse][shlo_test]") {
  const std::string file = spec_example("add.mlir");
  const std::string text = read_file(file);
  REQUIRE(!text.empty());
  const auto as_written = run_test_file(text, file, parse_domain("exact"));
  REQUIRE(as_written.size() == 2);
  CHECK(as_written[0].name == "add");
  CHECK(as_written[0].status == TestOutcome::Status::Pass);
  CHECK(as_written[1].status == TestOutcome::Status::Fail);  // its own control
  // The spec's [[6, 8], [10, 12]] with 12 changed to 21.
  const auto changed = run_test_file(replace_once(text, "dense<[[6, 8], [10, 12]]>", "dense<[[6, 8], [10, 21]]>"), file, parse_domain("f32"));
  REQUIRE(changed.size() == 2);
  CHECK(changed[0].status == TestOutcome::Status::Fail);
  CHECK(changed[0].detail == "check.expect_eq_const at line 7: index [1, 1], got 12, expected 21");
}

TEST_CASE("the spec's all_reduce example, one operand at a time, on two replicas", "[s22_parse][replicas]") {
  // The spec's example reduces two i64 operands in one all_reduce (%result:2). It is not run:
  // a multi-result all_reduce is not read. So each operand runs alone, as f64 (its integers
  // are exact there; integer all_reduce is in test_indexing_ops.cpp): [1, 2, 3, 4] + [5, 6, 7, 8] on both replicas,
  // and [9, 10, 11, 12] + [13, 14, 15, 16].
  const std::string text = R"(module @m {
  func.func @main(%operand: tensor<4xf64>) -> tensor<4xf64> {
    %result = "stablehlo.all_reduce"(%operand) ({
      ^bb0(%arg0: tensor<f64>, %arg1: tensor<f64>):
        %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<f64>, tensor<f64>) -> tensor<f64>
        "stablehlo.return"(%0) : (tensor<f64>) -> ()
    }) {
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
    } : (tensor<4xf64>) -> tensor<4xf64>
    return %result : tensor<4xf64>
  }
}
)";
  const ExactDomain exact;
  const F64Domain f64;
  const Strings first{"6", "8", "10", "12"}, second{"22", "24", "26", "28"};
  for (const auto& [operand0, operand1, sums] : {std::tuple{Strings{"1", "2", "3", "4"}, Strings{"5", "6", "7", "8"}, first},
                                                 std::tuple{Strings{"9", "10", "11", "12"}, Strings{"13", "14", "15", "16"}, second}}) {
    CHECK(run_text(exact, text, {{operand0}, {operand1}}) == std::vector<std::vector<Strings>>{{sums}, {sums}});
    CHECK(run_text(f64, text, {{operand0}, {operand1}}) == std::vector<std::vector<Strings>>{{sums}, {sums}});
  }
  // Control: each replica alone (groups [[0], [1]]) keeps its own operand.
  const std::string apart = replace_once(text, "dense<[[0, 1]]> : tensor<1x2xi64>", "dense<[[0], [1]]> : tensor<2x1xi64>");
  CHECK(run_text(exact, apart, {{{"1", "2", "3", "4"}}, {{"5", "6", "7", "8"}}}) ==
        std::vector<std::vector<Strings>>{{{"1", "2", "3", "4"}}, {{"5", "6", "7", "8"}}});
  // The spec's i64 operands are read (and folded exactly: test_indexing_ops.cpp).
  std::string integers = text;
  for (std::size_t at; (at = integers.find("f64>")) != std::string::npos;) integers.replace(at, 4, "i64>");
  CHECK(parse_error_of(integers).empty());
}

namespace {

// @main keeps 4 floats live (%x, then %r); its callee @big makes a 1000x4 intermediate.
const char* const kCallsBig = R"(func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = call @big(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func private @big(%a: tensor<4xf32>) -> tensor<4xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<4xf32>) -> tensor<1000x4xf32>
  %s = stablehlo.reduce(%b init: %z) applies stablehlo.add across dimensions = [0] : (tensor<1000x4xf32>, tensor<f32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}
)";

}  // namespace

TEST_CASE("the memory estimate counts a callee's live tensors at the call", "[s22_parse][memory]") {
  const Module m = parse_module(kCallsBig, "calls.mlir");
  // By hand, 4 bytes per f32 scalar. Inside @big: %a 16, + %z 4, + %b 16000 = 16020 (then %a
  // dies, and at %s: 16004 + 16 = 16020 again). At the call, @main's %x (16) is live beside
  // it: 16036. After the call: %r 16 (+ %x until it is freed) = 32. The entry alone (%x, %r)
  // needs 32 bytes.
  const MemoryEstimate e = estimate_peak_memory(m, 4, 1);
  CHECK(e.peak_bytes == 16036);
  REQUIRE(e.peak_call != nullptr);
  CHECK(e.peak_call->callee == "big");
  REQUIRE(e.peak_at != nullptr);
  CHECK(e.peak_at->result == "%b");
  CHECK(e.largest_tensor == "%b : tensor<1000x4xf32> in @big");
  CHECK(e.largest_tensor_bytes == 16000);
  CHECK(estimate_peak_memory(m, 4, 2).peak_bytes == 2 * 16036);
  // The run measures the same peak (its tensors hold 4-byte floats).
  RunOptions options;
  const auto run = run_program(m, F32Domain(), {{Tensor<float>({4}, {1, 2, 3, 4})}}, options);
  CHECK(run.peak_live_bytes == 16036);
  // --max-memory refuses it under 16036 bytes, naming the call and the callee's instruction,
  // though the entry's own values (32 bytes) would fit; the control: 16036 bytes suffice.
  CHECK_THROWS_WITH(check_memory(m, "f32", 4, 1, 1000, "--max-memory"),
                    Contains("calls.mlir:2:3: call @big: at line 7 inside it (%b = stablehlo.broadcast_in_dim), the live tensors would take") &&
                        Contains("the largest is %b : tensor<1000x4xf32> in @big") && Contains("more than the 1000 B of --max-memory"));
  CHECK_THROWS_AS(check_memory(m, "f32", 4, 1, 16035, "--max-memory"), MemoryLimitError);
  CHECK_NOTHROW(check_memory(m, "f32", 4, 1, 16036, "--max-memory"));
}

TEST_CASE("the memory estimate keeps values that a later call or check reads, and ends on recursion", "[s22_parse][memory]") {
  // %a (4000 bytes) is read by the check after %c: it is live beside %b and %c, 12000 bytes;
  // were the check not a reader, %a would die at %b and the peak would be 8000.
  const Module checked = parse_module(R"(func.func @main() -> tensor<1000xf32> {
  %a = stablehlo.constant dense<1.0> : tensor<1000xf32>
  %b = stablehlo.negate %a : tensor<1000xf32>
  %c = stablehlo.negate %b : tensor<1000xf32>
  check.expect_eq %a, %c : tensor<1000xf32>
  return %c : tensor<1000xf32>
}
)",
                                      "checked.mlir");
  CHECK(estimate_peak_memory(checked, 4, 1).peak_bytes == 12000);
  // A function that calls itself: the estimate ends (the run refuses the recursion).
  const Module recursive = parse_module(R"(func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = stablehlo.negate %x : tensor<4xf32>
  %r = call @main(%y) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
)",
                                        "recursive.mlir");
  CHECK(estimate_peak_memory(recursive, 4, 1).peak_bytes == 32);  // %x and %y, then %y and %r
}

TEST_CASE("integer literals with leading zeros are decimal, as MLIR reads them", "[s22_parse][int_types]") {
  // Found by the parse fuzzer on the spec files: GMP read "010" as octal 8 (a silent wrong
  // value) and refused "08" with an exception that was not a located error.
  CHECK(parse_integer_literal("010", 32, true) == 10);
  CHECK(parse_integer_literal("08", 32, true) == 8);
  CHECK(static_cast<std::int64_t>(parse_integer_literal("-007", 64, true)) == -7);
  CHECK(parse_integer_literal("000", 8, false) == 0);
  CHECK(parse_integer_literal("0x10", 32, true) == 16);  // control: hex stays hex
  const char* const text = R"(func.func @main() {
  %a = stablehlo.constant dense<[010, 08, -007]> : tensor<3xi32>
  check.expect_eq_const %a, dense<[10, 8, -7]> : tensor<3xi32>
  func.return
}
)";
  const auto outcomes = run_test_file(text, "zeros.mlir", parse_domain("exact"));
  REQUIRE(outcomes.size() == 1);
  CHECK(outcomes[0].status == TestOutcome::Status::Pass);
  const auto octal = run_test_file(replace_once(text, "dense<[10, 8, -7]>", "dense<[8, 8, -7]>"), "zeros.mlir", parse_domain("exact"));
  REQUIRE(octal.size() == 1);
  CHECK(octal[0].detail == "check.expect_eq_const at line 3: index [0], got 10, expected 8");
}
