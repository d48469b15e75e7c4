// Forms met in the test programs of others (the StableHLO interpreter's tests, JAX's test data;
// scripts/outside_corpus.py runs them): each a reproducer of a refusal or a wrong verdict found
// there. Complex values and types are refused by name and located; the older
// `%ok = stablehlo.custom_call @check.eq(...) -> tensor<i1>` is a check whose value is true.
#include "ast/mlir_parse.hpp"
#include "ast/mlir_print.hpp"
#include "interp/domain/domain_spec.hpp"
#include "oracle/check_dialect.hpp"
#include "tests/support.hpp"

using namespace shlo;
using shlo::test::parse_error_of;

namespace {

std::vector<TestOutcome> run_tests(const std::string& text) { return run_test_file(text, "t.mlir", parse_domain("f32")); }

}  // namespace

TEST_CASE("a complex literal is refused by name, at its '('", "[outside]") {
  const std::string text =
      "func.func @f() {\n"
      "  %a = stablehlo.constant dense<[(1.5, 2.5), (7.5, 5.5)]> : tensor<2xcomplex<f32>>\n"
      "  func.return\n"
      "}\n";
  CHECK(parse_error_of(text) == "t.mlir:2:34: unsupported complex literal (re, im): complex element types are not run");
  // a splat, and the first element of a nested list
  CHECK(parse_error_of("func.func @f() {\n  %a = stablehlo.constant dense<(1.0, 0.0)> : tensor<complex<f64>>\n}\n")
            .starts_with("t.mlir:2:33: unsupported complex literal"));
  CHECK(parse_error_of("func.func @f() {\n  %a = stablehlo.constant dense<[[(1.0, 0.0)]]> : tensor<1x1xcomplex<f64>>\n}\n")
            .starts_with("t.mlir:2:35: unsupported complex literal"));
  // control: a real literal in the same place parses
  CHECK(parse_error_of("func.func @f() {\n  %a = stablehlo.constant dense<[1.5, 7.5]> : tensor<2xf32>\n  func.return\n}\n") == "");
}

TEST_CASE("a complex element type is refused by name", "[outside]") {
  const std::string text = "func.func @f(%x: tensor<2xcomplex<f32>>) {\n  func.return\n}\n";
  const std::string e = parse_error_of(text);
  CHECK(e.starts_with("t.mlir:1:27: unsupported element type complex<...>: complex element types are not run ("));
  CHECK(parse_error_of("func.func @f(%x: tensor<complex<f64>>) {\n  func.return\n}\n").starts_with("t.mlir:1:25: unsupported element type complex"));
}

TEST_CASE("%ok = custom_call @check.eq(...) -> tensor<i1> is a check, and %ok is true", "[outside]") {
  const std::string body =
      "func.func public @main() -> tensor<i1> {\n"
      "  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>\n"
      "  %b = stablehlo.constant dense<[1, WANT]> : tensor<2xi32>\n"
      "  %ok = stablehlo.custom_call @check.eq(%a, %b) : (tensor<2xi32>, tensor<2xi32>) -> tensor<i1>\n"
      "  return %ok : tensor<i1>\n"
      "}\n";
  auto with = [&](const std::string& want) {
    std::string t = body;
    t.replace(t.find("WANT"), 4, want);
    return t;
  };
  const Module m = parse_module(with("2"), "t.mlir");
  const Function& f = m.function();
  REQUIRE(f.body.size() == 4);
  const auto* check = std::get_if<Check>(&f.body[2]);
  REQUIRE(check);
  CHECK(check->kind == CheckKind::Eq);
  CHECK(check->operands == std::vector<std::string>{"%a", "%b"});
  const auto* value = std::get_if<Instruction>(&f.body[3]);
  REQUIRE(value);
  CHECK(value->op == Op::Constant);
  CHECK(value->result == "%ok");
  CHECK(value->attributes.literal.elements == std::vector<std::string>{"true"});

  auto passes = run_tests(with("2"));
  REQUIRE(passes.size() == 1);
  CHECK(passes[0].status == TestOutcome::Status::Pass);
  auto fails = run_tests(with("3"));  // control: a wrong expected value fails, located
  REQUIRE(fails.size() == 1);
  CHECK(fails[0].status == TestOutcome::Status::Fail);
  CHECK(fails[0].detail == "stablehlo.custom_call @check.eq at line 4: index [1], got 2, expected 3");

  // the result type must be tensor<i1>; a target other than a check stays an unsupported op
  std::string wrong = with("2");
  wrong.replace(wrong.find("-> tensor<i1>\n  return"), 13, "-> tensor<i32>");
  CHECK(parse_error_of(wrong) == "t.mlir:4:85: a check with a result returns tensor<i1>, not tensor<i32>");
  std::string other = with("2");
  other.replace(other.find("@check.eq"), 9, "@lapack_sgetrf");
  CHECK(parse_error_of(other).starts_with("t.mlir:4:9: unsupported op 'stablehlo.custom_call'"));
}

TEST_CASE("@check.eq on floats is expect_almost_eq with tolerance 1e-4, as StableHLO runs it", "[outside]") {
  // JAX's expected values come from XLA, whose sums may round differently in the last place.
  const std::string body =
      "func.func public @main() -> tensor<i1> {\n"
      "  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xTYPE>\n"
      "  %b = stablehlo.constant dense<[1.0, WANT]> : tensor<2xTYPE>\n"
      "  %ok = stablehlo.custom_call @check.eq(%a, %b) : (tensor<2xTYPE>, tensor<2xTYPE>) -> tensor<i1>\n"
      "  return %ok : tensor<i1>\n"
      "}\n";
  auto with = [&](const std::string& type, const std::string& want) {
    std::string t = body;
    for (auto at = t.find("TYPE"); at != std::string::npos; at = t.find("TYPE")) t.replace(at, 4, type);
    t.replace(t.find("WANT"), 4, want);
    return t;
  };
  const Module m = parse_module(with("f32", "2.00009"), "t.mlir");
  const auto* check = std::get_if<Check>(&m.function().body[2]);
  REQUIRE(check);
  CHECK(check->kind == CheckKind::AlmostEq);
  CHECK(check->tolerance == 1e-4);
  CHECK(check_name(*check) == "stablehlo.custom_call @check.eq");
  CHECK(print_module(m).find("stablehlo.custom_call @check.eq(%a, %b) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()") !=
        std::string::npos);

  auto within = run_tests(with("f32", "2.00009"));  // 9e-5 from 2: within 1e-4
  REQUIRE(within.size() == 1);
  CHECK(within[0].status == TestOutcome::Status::Pass);
  auto outside = run_tests(with("f32", "2.0002"));  // control: 2e-4 away fails, naming @check.eq
  REQUIRE(outside.size() == 1);
  CHECK(outside[0].status == TestOutcome::Status::Fail);
  CHECK(outside[0].detail.starts_with("stablehlo.custom_call @check.eq at line 4: index [1], got 2, expected 2.000200033"));
  // integers stay exact
  std::string int_text = with("i32", "2");
  for (auto at = int_text.find(".0"); at != std::string::npos; at = int_text.find(".0")) int_text.erase(at, 2);
  const Module ints = parse_module(int_text, "t.mlir");
  CHECK(std::get<Check>(ints.function().body[2]).kind == CheckKind::Eq);
}

TEST_CASE("a check's attribute dictionary may follow its type", "[outside]") {
  const std::string text =
      "func.func @t() {\n"
      "  %x = stablehlo.constant dense<5.0> : tensor<f32>\n"
      "  check.expect_almost_eq_const %x, dense<5.1> : tensor<f32> {tolerance = TOL : f64}\n"
      "  func.return\n"
      "}\n";
  auto with = [&](const std::string& tol) {
    std::string t = text;
    t.replace(t.find("TOL"), 3, tol);
    return run_tests(t);
  };
  auto wide = with("0.1");
  REQUIRE(wide.size() == 1);
  CHECK(wide[0].status == TestOutcome::Status::Pass);
  auto tight = with("0.01");  // control: the tolerance read is the one used
  REQUIRE(tight.size() == 1);
  CHECK(tight[0].status == TestOutcome::Status::Fail);
}

TEST_CASE("bitcast_convert between bit widths: the shapes the spec requires", "[outside]") {
  auto error_of = [](const std::string& from, const std::string& to) {
    return parse_error_of("func.func @f(%x: " + from + ") -> " + to + " {\n  %r = stablehlo.bitcast_convert %x : (" + from + ") -> " + to +
                          "\n  return %r : " + to + "\n}\n");
  };
  // one width keeps the shape; a wider operand adds a last dimension; a wider result drops one
  CHECK(error_of("tensor<2xi1>", "tensor<2xi1>") == "");
  CHECK(error_of("tensor<3xi64>", "tensor<3x4xf16>") == "");
  CHECK(error_of("tensor<3x8xi1>", "tensor<3xui8>") == "");
  // controls: the other shapes are refused, located, naming the rule
  CHECK(error_of("tensor<3xi64>", "tensor<3x2xf16>") ==
        "t.mlir:2:3: stablehlo.bitcast_convert: i64 and f16 differ in bit width: the result must have the operand's shape and a last "
        "dimension of 4");
  CHECK(error_of("tensor<8xi1>", "tensor<2xui8>") ==
        "t.mlir:2:3: stablehlo.bitcast_convert: i1 and ui8 differ in bit width: the operand must have the result's shape and a last "
        "dimension of 8");
  CHECK(error_of("tensor<2xf32>", "tensor<3xi32>") ==
        "t.mlir:2:3: stablehlo.bitcast_convert: between f32 and i32 (one bit width) the shape is kept");
}
