// Modules as MLIR and JAX print them: module forms, several functions, calls and multi-result
// values, the entry function, and the check dialect behind `shlo test`.
#include <catch2/catch.hpp>

#include "ast/mlir_parse.hpp"
#include "tests/support.hpp"
#include "ast/mlir_print.hpp"
#include "interp/domain/domain_spec.hpp"
#include "interp/run.hpp"
#include "oracle/check_dialect.hpp"

using namespace shlo;
using shlo::test::parse_error_of;

namespace {

// A JAX-style module: attributes, a public main with argument and result attributes, a
// private helper with two results used through a pack, and func.return.
const char* kJaxModule = R"(module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf32> {mhlo.sharding = "{replicated}"}) -> (tensor<2xf32> {jax.result_info = "result[0]"}, tensor<2xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<[4.0, 1.0]> : tensor<2xf32>
    %0:2 = call @min_max(%arg0, %cst) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    %1 = stablehlo.add %0#0, %0#1 : tensor<2xf32>
    func.return %1, %0#1 : tensor<2xf32>, tensor<2xf32>
  }
  func.func private @min_max(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %0 = stablehlo.minimum %arg0, %arg1 : tensor<2xf32>
    %1 = stablehlo.maximum %arg0, %arg1 : tensor<2xf32>
    return %0, %1 : tensor<2xf32>, tensor<2xf32>
  }
}
)";

std::vector<double> values_of(const Value<F64Domain>& v) { return std::get<Tensor<double>>(v).to_vector(); }

std::vector<TestOutcome> test_text(const std::string& text, const char* domain = "f64") {
  return run_test_file(text, "t.mlir", parse_domain(domain));
}

}  // namespace

TEST_CASE("module forms: named, unnamed, with attributes, bare functions", "[mlir_module]") {
  const Module named = parse_module("module @m {\n  func.func @f() -> tensor<f32> {\n    %c = stablehlo.constant dense<1.0> : tensor<f32>\n    return %c : tensor<f32>\n  }\n}\n");
  CHECK(named.name == "m");
  CHECK_FALSE(named.implicit);
  REQUIRE(named.functions.size() == 1);
  CHECK(named.function().name == "f");

  const Module unnamed = parse_module("module {\n func.func @g() {\n return\n }\n}");
  CHECK(unnamed.name.empty());
  CHECK_FALSE(unnamed.implicit);
  CHECK(unnamed.function().result_types.empty());
  CHECK(unnamed.function().return_values.empty());

  const Module bare = parse_module("func.func @a() {\n  func.return\n}\nfunc.func private @b() {\n  return\n}\n");
  CHECK(bare.implicit);
  REQUIRE(bare.functions.size() == 2);
  CHECK(bare.functions[0].func_return);
  CHECK(bare.functions[1].visibility == "private");
  CHECK(bare.function().name == "a");  // the only public function

  const Module jax = parse_module(kJaxModule);
  CHECK(jax.name == "jit_f");
  CHECK(jax.attributes == "{mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32}");
  CHECK(jax.function().name == "main");
  CHECK(jax.function().visibility == "public");
  CHECK(jax.function().arguments[0].attributes == "{mhlo.sharding = \"{replicated}\"}");
  CHECK(jax.function().result_attributes == std::vector<std::string>{"{jax.result_info = \"result[0]\"}", "{jax.result_info = \"result[1]\"}"});
  const auto& call = std::get<Call>(jax.function().body[1]);
  CHECK(call.callee == "min_max");
  CHECK(call.results == std::vector<std::string>{"%0#0", "%0#1"});
  CHECK(std::get<Instruction>(jax.function().body[2]).operands == std::vector<std::string>{"%0#0", "%0#1"});
}

TEST_CASE("modules print in MLIR's form and read back equal", "[mlir_module]") {
  for (const std::string& text : {std::string(kJaxModule),
                                 std::string("func.func @a() {\n  %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>\n"
                                             "  check.expect_almost_eq_const %c, dense<[1.0, 2.0]>, tolerance = 0.01 : tensor<2xf32>\n"
                                             "  check.expect_close %c, %c, max_ulp_difference = 3, min_ulp_difference = 1 : tensor<2xf32>, tensor<2xf32>\n"
                                             "  stablehlo.custom_call @check.expect_eq(%c, %c) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()\n"
                                             "  %x, %y = func.call @b() : () -> (tensor<f32>, tensor<f32>)\n  func.return\n}\n"
                                             "func.func private @b() -> (tensor<f32>, tensor<f32>) {\n"
                                             "  %c = stablehlo.constant dense<1.0> : tensor<f32>\n  return %c, %c : tensor<f32>, tensor<f32>\n}\n"),
                                 std::string("module {\n  func.func @main() -> () attributes {llvm.emit_c_interface} {\n    return\n  }\n}\n")}) {
    INFO(text);
    const Module m = parse_module(text);
    const std::string printed = print_module(m);
    INFO(printed);
    CHECK(parse_module(printed) == m);
    CHECK(print_module(parse_module(printed)) == printed);
  }
  // The control: a change the comparison must see.
  Module m = parse_module(kJaxModule);
  Module changed = m;
  std::get<Call>(changed.functions[0].body[1]).results[1] = "%0#0";
  CHECK_FALSE(changed == m);
}

TEST_CASE("calls: operands in, results out, on every replica", "[mlir_module]") {
  const Module m = parse_module(kJaxModule);
  std::vector<std::vector<Value<F64Domain>>> inputs(2);
  inputs[0].push_back(Tensor<double>({2}, std::vector<double>{1.0, 3.0}));
  inputs[1].push_back(Tensor<double>({2}, std::vector<double>{5.0, 0.5}));
  RunOptions options;
  options.replicas = 2;
  const auto result = run_program(m, F64Domain{}, inputs, options);
  // min([1, 3], [4, 1]) + max(...) = [1, 1] + [4, 3]
  CHECK(values_of(result.outputs[0][0]) == std::vector<double>{5.0, 4.0});
  CHECK(values_of(result.outputs[0][1]) == std::vector<double>{4.0, 3.0});
  CHECK(values_of(result.outputs[1][0]) == std::vector<double>{9.0, 1.5});
  CHECK(values_of(result.outputs[1][1]) == std::vector<double>{5.0, 1.0});
  CHECK(result.profile.at("maximum").count == 1);  // the callee's ops are profiled (once for all replicas)
}

TEST_CASE("calls: located errors for bad calls, uses and recursion", "[mlir_module][errors]") {
  const std::string callee = "func.func private @two() -> (tensor<f32>, tensor<f32>) {\n  %c = stablehlo.constant dense<1.0> : tensor<f32>\n"
                             "  return %c, %c : tensor<f32>, tensor<f32>\n}\n";
  auto with_main = [&](const std::string& body) { return "func.func @main() {\n" + body + "  return\n}\n" + callee; };
  CHECK(parse_error_of(with_main("  %0:2 = call @nothing() : () -> (tensor<f32>, tensor<f32>)\n")) ==
        "t.mlir:2:3: call to undefined function @nothing");
  CHECK(parse_error_of(with_main("  %0:2 = call @two() : () -> tensor<f32>\n")) ==
        "t.mlir:2:3: the call defines 2 value(s) but its type has 1 result(s)");
  CHECK(parse_error_of(with_main("  %0 = call @two() : () -> tensor<f32>\n")).find("@two returns (tensor<f32>, tensor<f32>)") != std::string::npos);
  CHECK(parse_error_of(with_main("  %0:2 = call @two() : () -> (tensor<f32>, tensor<f32>)\n  %1 = stablehlo.negate %0 : tensor<f32>\n")) ==
        "t.mlir:3:25: %0 has several results: use %0#0, %0#1, ...");
  CHECK(parse_error_of(with_main("  %0:2 = call @two() : () -> (tensor<f32>, tensor<f32>)\n  %1 = stablehlo.negate %0#2 : tensor<f32>\n")) ==
        "t.mlir:3:25: use of undefined value %0#2 (result number out of range)");
  CHECK(parse_error_of(with_main("  %0:2 = call @two() : () -> (tensor<f32>, tensor<f32>)\n  %1 = stablehlo.negate %0#1 : tensor<f32>\n")).empty());
  CHECK(parse_error_of("func.func @f() {\n  return\n}\nfunc.func @f() {\n  return\n}\n") ==
        "t.mlir:4:1: redefinition of function @f (first defined at line 1)");

  // Recursion parses (the callee exists) but a run stops at the depth guard, located.
  const Module loop = parse_module("func.func @main() -> tensor<f32> {\n  %0 = call @main() : () -> tensor<f32>\n  return %0 : tensor<f32>\n}\n", "r.mlir");
  try {
    run_program(loop, F64Domain{}, {{}}, RunOptions{});
    FAIL("the run did not stop");
  } catch (const RunError& e) {
    CHECK(std::string(e.what()).find("r.mlir:2:3: call @main: calls nested more than 64 deep") != std::string::npos);
  }
}

TEST_CASE("the entry function: --function, main, the only public one, the only one", "[mlir_module]") {
  Module m = parse_module("func.func private @p() {\n return\n}\nfunc.func @q() {\n return\n}\nfunc.func @r() {\n return\n}\n");
  CHECK_THROWS_WITH(select_entry(m), Catch::Contains("no @main, and 2 public functions (@p, @q, @r)"));
  select_entry(m, "r");
  CHECK(m.function().name == "r");
  CHECK_THROWS_WITH(select_entry(m, "s"), Catch::Contains("no function @s"));
  m.functions[1].visibility = "private";
  select_entry(m);
  CHECK(m.function().name == "r");
  m.functions[1].name = "main";
  select_entry(m);
  CHECK(m.function().name == "main");
}

TEST_CASE("shlo test: chunks, verdicts, first mismatch, original line numbers", "[mlir_module][check]") {
  const std::string text =
      "func.func @ok() {\n"                                                            // 1
      "  %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>\n"                   // 2
      "  check.expect_eq_const %c, dense<[1.0, 2.0]> : tensor<2xf32>\n"                 // 3
      "  func.return\n}\n"                                                              // 4-5
      "// -----\n"                                                                      // 6
      "func.func @bad() {\n"                                                            // 7
      "  %c = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>\n"   // 8
      "  check.expect_eq_const %c, dense<[[1.0, 2.0], [3.0, 5.0]]> : tensor<2x2xf32>\n" // 9
      "  func.return\n}\n"                                                              // 10-11
      "  // -----  \n"                                                                  // 12
      "func.func @broken() {\n  %c = stablehlo.nope\n}\n";                              // 13-15
  const auto out = test_text(text);
  REQUIRE(out.size() == 3);
  CHECK(out[0].status == TestOutcome::Status::Pass);
  CHECK(out[0].name == "ok");
  CHECK(out[1].status == TestOutcome::Status::Fail);
  CHECK(out[1].detail == "check.expect_eq_const at line 9: index [1, 1], got 4, expected 5");
  CHECK(out[2].status == TestOutcome::Status::Error);
  CHECK(out[2].detail.rfind("t.mlir:14:", 0) == 0);
}

TEST_CASE("shlo test: the tolerances of each check", "[mlir_module][check]") {
  auto verdict = [](const std::string& check, const char* got, const char* want, const char* type = "tensor<f32>") {
    const std::string text = std::string("func.func @t() {\n  %g = stablehlo.constant dense<") + got + "> : " + type +
                             "\n  %w = stablehlo.constant dense<" + want + "> : " + type + "\n  " + check + "\n  return\n}\n";
    const auto out = run_test_file(text, "t.mlir", parse_domain("f64"));
    REQUIRE(out.size() == 1);
    INFO(out[0].detail);
    REQUIRE(out[0].status != TestOutcome::Status::Error);
    return out[0].status == TestOutcome::Status::Pass;
  };
  // expect_eq: IEEE equality (-0 == +0, a NaN never equal).
  CHECK(verdict("check.expect_eq %g, %w : tensor<f32>", "0.0", "-0.0"));
  CHECK_FALSE(verdict("check.expect_eq %g, %w : tensor<f32>", "0x7FC00000", "0x7FC00000"));
  // expect_almost_eq: absolute 1e-4 by default; signs must agree; two NaNs pass.
  CHECK(verdict("check.expect_almost_eq %g, %w : tensor<f32>", "1.00009", "1.0"));
  CHECK_FALSE(verdict("check.expect_almost_eq %g, %w : tensor<f32>", "1.0002", "1.0"));
  CHECK(verdict("check.expect_almost_eq %g, %w, tolerance = 0.001 : tensor<f32>", "1.0002", "1.0"));
  CHECK_FALSE(verdict("check.expect_almost_eq %g, %w : tensor<f32>", "0.00001", "-0.00001"));
  CHECK(verdict("check.expect_almost_eq %g, %w : tensor<f32>", "0x7FC00000", "0x7FC00000"));
  // expect_close: ULPs of the element type; 1.0 and the next float32 are 1 apart.
  CHECK(verdict("check.expect_close %g, %w, max_ulp_difference = 1 : tensor<f32>, tensor<f32>", "0x3F800001", "1.0"));
  CHECK_FALSE(verdict("check.expect_close %g, %w, max_ulp_difference = 0 : tensor<f32>, tensor<f32>", "0x3F800001", "1.0"));
  CHECK_FALSE(verdict("check.expect_close %g, %w, max_ulp_difference = 3, min_ulp_difference = 2 : tensor<f32>, tensor<f32>",
                      "0x3F800001", "1.0"));
  // Across zero the distance is the sum of both magnitudes' distances from zero.
  CHECK(verdict("check.expect_close %g, %w, max_ulp_difference = 2 : tensor<f32>, tensor<f32>", "0x00000001", "0x80000001"));
  CHECK_FALSE(verdict("check.expect_close %g, %w, max_ulp_difference = 1 : tensor<f32>, tensor<f32>", "0x00000001", "0x80000001"));
  // The custom call's fixed tolerances: 3 ULP, 1e-3.
  CHECK(verdict("stablehlo.custom_call @check.expect_close(%g, %w) {has_side_effect = true} : (tensor<f32>, tensor<f32>) -> ()",
                "0x3F800003", "1.0"));
  CHECK_FALSE(verdict("stablehlo.custom_call @check.expect_close(%g, %w) {has_side_effect = true} : (tensor<f32>, tensor<f32>) -> ()",
                      "0x3F800004", "1.0"));
  CHECK(verdict("stablehlo.custom_call @check.expect_almost_eq(%g, %w) {has_side_effect = true} : (tensor<f32>, tensor<f32>) -> ()",
                "1.0009", "1.0"));
  CHECK(verdict("\"stablehlo.custom_call\"(%g, %w) <{call_target_name = \"check.expect_eq\", has_side_effect = true}> : "
                "(tensor<f32>, tensor<f32>) -> ()", "2.5", "2.5"));
}

TEST_CASE("shlo test: exact domains say whether the expected value is the exact result", "[mlir_module][check]") {
  const std::string third = "func.func @third() {\n  %a = stablehlo.constant dense<1.0> : tensor<f32>\n"
                            "  %b = stablehlo.constant dense<3.0> : tensor<f32>\n  %c = stablehlo.divide %a, %b : tensor<f32>\n"
                            "  check.expect_eq_const %c, dense<0.333333343> : tensor<f32>\n  return\n}\n";
  const auto exact = test_text(third, "exact");
  REQUIRE(exact.size() == 1);
  CHECK(exact[0].status == TestOutcome::Status::Pass);
  CHECK(exact[0].detail == "1 of 1 expected values are roundings of the exact results, not the exact results");
  const std::string half = "func.func @half() {\n  %a = stablehlo.constant dense<1.0> : tensor<f32>\n"
                           "  %b = stablehlo.constant dense<2.0> : tensor<f32>\n  %c = stablehlo.divide %a, %b : tensor<f32>\n"
                           "  check.expect_eq_const %c, dense<0.5> : tensor<f32>\n  return\n}\n";
  CHECK(test_text(half, "exact")[0].detail == "expected values are the exact results");
  CHECK(test_text(half, "interval:64")[0].detail == "expected values are the exact results");
  CHECK(test_text(half, "f32")[0].detail.empty());
}

TEST_CASE("shlo test: which functions are tests", "[mlir_module][check]") {
  // main alone when there is one; else every public function without arguments.
  const auto with_main = test_text("func.func @main() {\n return\n}\nfunc.func @other() {\n return\n}\n");
  REQUIRE(with_main.size() == 1);
  CHECK(with_main[0].name == "main");
  const auto without = test_text("func.func @a() {\n return\n}\nfunc.func private @helper() {\n return\n}\n"
                                 "func.func @b() {\n return\n}\nfunc.func @takes(%x: tensor<f32>) {\n return\n}\n");
  REQUIRE(without.size() == 2);
  CHECK(without[0].name == "a");
  CHECK(without[1].name == "b");
  // A check inside a called function is refused, located.
  const auto nested = test_text("func.func @main() {\n  call @h() : () -> ()\n  return\n}\nfunc.func private @h() {\n"
                                "  %c = stablehlo.constant dense<1.0> : tensor<f32>\n  check.expect_eq %c, %c : tensor<f32>\n  return\n}\n");
  REQUIRE(nested.size() == 1);
  CHECK(nested[0].status == TestOutcome::Status::Error);
  CHECK(nested[0].detail.find("t.mlir:7:3: check.expect_eq inside @h") == 0);
}
