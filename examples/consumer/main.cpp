// A consumer of the installed library (the README's C++ example): parse a small program, run it
// exactly, in intervals and in float32, check the float32 numbers against the bound, and show a
// located parse error, den of the lift on the inputs, and the property catalogue for a moment. Exits 1 when a value is not the one computed by hand below.
#include <iostream>
#include <shlo_oracle/shlo_oracle.hpp>
#include <string>

namespace so = shlo_oracle;

// y = (x W + b) / 3
const char* const kAffine = R"(module @m {
  func.func @affine(%x: tensor<2x3xf32>, %W: tensor<3x2xf32>, %b: tensor<2xf32>) -> tensor<2x2xf32> {
    %v0 = stablehlo.dot_general %x, %W, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
    %v1 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<2xf32>) -> tensor<2x2xf32>
    %v2 = stablehlo.add %v0, %v1 : tensor<2x2xf32>
    %v3 = stablehlo.constant dense<3.0> : tensor<2x2xf32>
    %v4 = stablehlo.divide %v2, %v3 : tensor<2x2xf32>
    return %v4 : tensor<2x2xf32>
  }
}
)";

int failures = 0;
void expect(bool ok, const std::string& what) {
  std::cout << (ok ? "ok    " : "WRONG ") << what << "\n";
  failures += !ok;
}

int main() {
  const auto program = so::parse(kAffine, "affine.mlir");
  if (!program) {
    std::cerr << program.error().message << "\n";
    return 1;
  }
  const xt::xarray<float> x = {{1, 2, 3}, {4, 5, 6}}, w = {{0.5f, 0}, {0, 0.25f}, {1, 1}}, b = {1, -1};
  const so::Inputs inputs = {{x, w, b}};  // one list: shared by every replica

  // By hand: x W = [[3.5, 3.5], [8, 7.25]]; + b = [[4.5, 2.5], [9, 6.25]]; / 3:
  const so::Rational expected[] = {so::Rational(3, 2), so::Rational(5, 6), so::Rational(3), so::Rational(25, 12)};
  const auto exact = so::run(*program, inputs, "exact");
  if (!exact) return std::cerr << exact.error().message << "\n", 1;
  for (int i = 0; i < 4; ++i)
    expect(exact->outputs[0][0].exact[i] == expected[i], "exact y[" + std::to_string(i) + "] = " + exact->outputs[0][0].exact[i].str());

  const auto box = so::run(*program, inputs, "interval:64");
  const so::Enclosure& e = box->outputs[0][0].enclosures[1];
  expect(e.lo_q < expected[1] && expected[1] < e.hi_q,
         "interval:64 y[1] in [" + e.lo + ", " + e.hi + "]");

  // Two replicas: each runs the same program on the shared inputs.
  const auto f32 = so::run(*program, inputs, "f32", 2);
  const xt::xarray<float> y = f32->outputs[1][0].f32;
  expect(y(0, 1) == 5.0f / 6.0f, "f32 y[0,1] = 5/6 rounded once");

  const auto verdict = so::check(*program, inputs, {{y}}, "ieee");
  std::cout << verdict->table;
  expect(verdict->verdict == so::Verdict::Pass, "the f32 run passes its check");
  xt::xarray<float> off = y;
  off(1, 1) += 1e-3f;  // a wrong number: far outside the float32 rounding of 25/12
  const auto wrong = so::check(*program, inputs, {{off}}, "ieee");
  expect(wrong->verdict == so::Verdict::Fail && wrong->rows[0].over == 1, "a changed element FAILs");
  // Allowances set by hand (shlo check --allow): named in the table; an unknown function refused.
  const auto allowed = so::check(*program, inputs, {{y}}, "ieee", 1, 1e-9, {{"div", 2.5}});
  expect(allowed && allowed->verdict == so::Verdict::Pass && allowed->table.find("with div 2.5") != std::string::npos,
         "an allowance set by hand is named in the report");
  const auto no_such = so::check(*program, inputs, {{y}}, "ieee", 1, 1e-9, {{"cosh", 2.0}});
  expect(!no_such && no_such.error().message.find("expected one of") != std::string::npos, "an unknown function's allowance is refused");

  const auto bad = so::parse("module @m {\n  func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {\n    %v0 = stablehlo.nonsense %x\n", "bad.mlir");
  expect(!bad && bad.error().line == 3 && bad.error().file == "bad.mlir", "a parse error is located: " + bad.error().message);

  const auto lifted = so::lift(*program);
  expect(lifted->emitted == kAffine, "lift then emit gives the text back");

  // den of the lifted program on the same inputs: the same rationals as the exact run.
  const auto meaning = so::den(*program, inputs, "exact");
  if (!meaning) return std::cerr << meaning.error().message << "\n", 1;
  for (int i = 0; i < 4; ++i)
    expect(meaning->outputs[0][0].exact[i] == expected[i], "den y[" + std::to_string(i) + "] = " + meaning->outputs[0][0].exact[i].str());

  // The property catalogue for a moment (the shared library runs the installed shlo command).
  const auto props = so::prop(1, {"text.round_trip"}, 1, "consumer-corpus");
  if (!props) return std::cerr << props.error().message << "\n", 1;
  expect(props->rows.size() == 1 && props->rows[0].property == "text.round_trip" && props->rows[0].runs > 0 &&
             props->failed == 0,
         "prop ran text.round_trip: " + std::to_string(props->rows.empty() ? 0 : props->rows[0].runs) + " cases");
  const auto unknown = so::prop(1, {"no.such.property"});
  expect(!unknown && unknown.error().kind == so::Error::Kind::BadInput, "an unknown property is refused: " + unknown.error().message);
  std::cout << (failures ? "consumer: FAILED\n" : "consumer: all checks passed\n");
  return failures ? 1 : 0;
}
