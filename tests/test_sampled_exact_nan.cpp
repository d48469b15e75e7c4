// The exact counterpart of a sure NaN in the sampled tier (interp/sampled/sampled.hpp, "Sure
// infinities and NaN"): where every float evaluation gives NaN (a softmax's +inf / +inf), the
// exact run still has a number, and where the float run later drops the NaN (a max pool's
// backward pass choosing another window position, a select that may take its other branch) the
// exact value it leaves out must be bounded for the tier to have a verdict. Values computed by
// hand: the bound from the operands' (e^log_high over the divisor's floor), from the program's
// structure (an exp over its own sum: [0, 1]), carried through sums, products and functions, and
// used where the NaN is dropped; each with its control (nothing known: unbounded).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ast/mlir_parse.hpp"
#include "interp/program_inputs.hpp"
#include "interp/run.hpp"
#include "interp/sampled/sampled.hpp"
#include "tests/stat_support.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

bool sure_nan(const SampledScalar& s) { return !s.infinite && std::isnan(s.value); }
double bound(const SampledDomain& d, const SampledScalar& s) { return SampledDomain::bound(d.closed(s), d.rest_factors()); }

// A value `v` whose error is `spread` times a pass's own draw (a spread of both signs).
SampledScalar spread_value(const SampledDomain& d, double v, double spread) {
  SampledWide w = unpack(d.from_double(v));
  for (std::size_t k = 0; k < w.tangent.size(); ++k) w.tangent[k] = spread * std::sin(1.7 * static_cast<double>(k) + 0.3);
  return pack(w);
}

// A softmax over one row of three logits x * 1.1 (the literal's rounding gives each logit an
// error), the divide's divisor the sum of its own numerator; with `own_sum` false (the control)
// the sum of another exp of the same logits, which the program's structure does not tie to it.
std::string softmax_program(bool own_sum) {
  return std::string(R"(module {
  func.func @main(%x: tensor<1x3xf32>) -> tensor<1x3xf32> {
    %c = stablehlo.constant dense<1.1> : tensor<1x3xf32>
    %l = stablehlo.multiply %x, %c : tensor<1x3xf32>
    %e = stablehlo.exponential %l : tensor<1x3xf32>
    %l2 = stablehlo.multiply %x, %c : tensor<1x3xf32>
    %e2 = stablehlo.exponential %l2 : tensor<1x3xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce()") +
         (own_sum ? "%e" : "%e2") + R"( init: %z) applies stablehlo.add across dimensions = [1] : (tensor<1x3xf32>, tensor<f32>) -> tensor<1xf32>
    %b = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<1xf32>) -> tensor<1x3xf32>
    %q = stablehlo.divide %e, %b : tensor<1x3xf32>
    return %q : tensor<1x3xf32>
  }
})";
}

}  // namespace

TEST_CASE("sampled exact NaN: inf / inf bounds its exact quotient by the numerator's log_high over the divisor's floor",
          "[sampled][stat]") {
  const SampledDomain d(float_profile("ieee"), sampled_factors(1e-9, 10));
  // Exact logits (bound 0): exp(101) and exp(100) are +inf in every evaluation, each within the
  // exp's allowance of e^x; the exact classes of a softmax over them are 1 / (1 + e^-1) and
  // 1 / (1 + e).
  const SampledScalar e101 = d.exp(d.from_double(101)), e100 = d.exp(d.from_double(100)), one = d.exp(d.from_double(0));
  REQUIRE(e101.value == kInf);
  CHECK(e101.log_high > 101);
  CHECK(e101.log_high < 101 + 1e-5);
  const SampledScalar sum = d.closed(d.accumulate(d.accumulate(d.accumulate(d.from_double(0), e101), e100), one));
  REQUIRE(sum.value == kInf);
  const SampledScalar big = d.div(e101, sum), small = d.div(e100, sum);
  REQUIRE(sure_nan(big));
  CHECK(big.exact_most >= 1 / (1 + std::exp(-1.0)));
  CHECK(big.exact_most < 1 / (1 + std::exp(-1.0)) * (1 + 1e-5));
  CHECK(small.exact_most >= 1 / (1 + std::exp(1.0)));
  CHECK(small.exact_most < 1 / (1 + std::exp(1.0)) * (1 + 1e-5));
  // inf - inf: within the two bounds' sum; inf * exact 0: exactly 0.
  const SampledScalar diff = d.sub(e101, e100);
  REQUIRE(sure_nan(diff));
  CHECK(diff.exact_most == Approx(std::exp(101.0) + std::exp(100.0)).epsilon(1e-5));
  CHECK(d.mul(e100, d.from_double(0)).exact_most == 0);
  // Controls: an infinity with no bound above (a literal) leaves nothing known.
  CHECK(d.sub(d.from_double(kInf), e100).exact_most == kInf);
  CHECK(d.div(d.from_double(kInf), e100).exact_most == kInf);
  // Logits of error 5 (as a wide bf16 run has): the operands' bounds say only e^(2 B).
  const SampledScalar wide = d.exp(spread_value(d, 100, 0.3));
  REQUIRE(wide.value == kInf);
  const SampledScalar wide_sum = d.closed(d.accumulate(d.accumulate(d.from_double(0), wide), one));
  CHECK(d.div(wide, wide_sum).exact_most > 100);
  // What the program's structure knows (the numerator among its own sum's positive terms): [0, 1].
  CHECK(d.normalized_div(wide, wide_sum, true).exact_most == 1);
  CHECK(d.normalized_div(wide, wide_sum, false).exact_most > 100);  // terms of unknown sign: the control
}

TEST_CASE("sampled exact NaN: a class over its own sum whose bound the rules lose is within 1 of the exact one, or NaN",
          "[sampled][stat]") {
  const SampledDomain d(float_profile("ieee"), sampled_factors(1e-9, 10));
  // An exp that may overflow and whose numbers have no bound (its operand 0 within about 2e13):
  // the row's sum is unbounded, and so is a class over it.
  const SampledScalar p = d.mul(d.from_double(0.1), d.from_double(0.3));
  const SampledScalar wide = d.exp(d.mul(d.sub(p, d.from_double(p.value)), d.from_double(1e22)));
  REQUIRE(wide.infinite);
  const SampledScalar e1 = d.exp(d.from_double(1));
  const SampledScalar sum = d.closed(d.accumulate(d.accumulate(d.from_double(0), e1), wide));
  REQUIRE(sum.infinite);
  REQUIRE(d.div(e1, sum).infinite);
  // Exact and float classes both in [0, 1] (the float may be NaN): within 1 of each other.
  const SampledScalar c = d.normalized_div(e1, sum, true);
  CHECK(!c.infinite);
  CHECK(c.value >= 0);
  CHECK(c.value <= 1);
  CHECK(c.may_nan);
  CHECK(c.may_inf == 0);
  CHECK(c.low == 0);
  CHECK(bound(d, c) >= 1);
  CHECK(bound(d, c) < 10);
  // Controls: terms of unknown sign say nothing; a class the rules bound keeps its own bound.
  CHECK(d.normalized_div(e1, sum, false).infinite);
  const SampledScalar e2 = d.exp(d.from_double(2));
  const SampledScalar row = d.closed(d.accumulate(d.accumulate(d.from_double(0), e1), e2));
  const SampledScalar tight = d.normalized_div(e1, row, true);
  CHECK(!tight.may_nan);
  CHECK(bound(d, tight) < 1e-5);
}

TEST_CASE("sampled exact NaN: the run finds an exp over its own sum, and not over another's", "[sampled][stat]") {
  const SampledDomain d(float_profile("ieee"), sampled_factors(1e-9, 10));
  const Arrays in = {f32_array({1, 3}, {100, 0, 0})};  // logits 110, 0, 0: the first class overflows
  auto first_class = [&](bool own_sum) {
    const Module m = parse_module(softmax_program(own_sum), "softmax.mlir");
    const auto run = run_program(m, d, npy_values(d, m.function(), std::vector<Arrays>{in}), RunOptions{});
    return d.closed(std::get<Tensor<SampledScalar>>(run.outputs[0][0])[0]);
  };
  const SampledScalar own = first_class(true), other = first_class(false);
  REQUIRE(sure_nan(own));
  REQUIRE(sure_nan(other));
  // The exact class is 1 / (1 + 2 e^-110): the structure's bound is 1; the operands' (the
  // logit's error counted twice) is above 1 by the logit's bound.
  CHECK(own.exact_most == 1);
  CHECK(other.exact_most > 1);
  CHECK(other.exact_most < 1.01);
}

TEST_CASE("sampled exact NaN: the bound is carried through sums, products and functions", "[sampled][stat]") {
  const SampledDomain d(float_profile("ieee"), sampled_factors(1e-9, 10));
  const SampledScalar e = d.exp(d.from_double(100));
  const SampledScalar nan = d.normalized_div(e, e, true);  // an exact class in [0, 1]
  REQUIRE(sure_nan(nan));
  REQUIRE(nan.exact_most == 1);
  // Operands exact but for the double run's own error (2^-52 of them): the bounds by hand.
  CHECK(d.sub(nan, d.from_double(1)).exact_most == Approx(2));  // a class less its one-hot label
  CHECK(d.mul(nan, d.from_double(-0.5)).exact_most == Approx(0.5));
  CHECK(d.div(nan, d.from_double(4)).exact_most == Approx(0.25));
  CHECK(d.neg(nan).exact_most == 1);
  CHECK(d.abs(nan).exact_most == 1);
  CHECK(d.max(nan, d.from_double(3)).exact_most == Approx(3));
  CHECK(d.exp(nan).exact_most == Approx(std::exp(1.0)));
  CHECK(d.tanh(d.mul(nan, d.from_double(1e6))).exact_most == 1);
  CHECK(d.sqrt(d.mul(nan, d.from_double(4))).exact_most == Approx(2));
  // A dot product's open sum: NaN terms' bounds and the finite terms' magnitudes, 2 * 1 + 0.5 * 1 + 3.
  SampledScalar acc = d.from_double(0);
  d.mac(acc, nan, d.from_double(2));
  d.mac(acc, d.from_double(-0.5), nan);
  d.mac(acc, d.from_double(3), d.from_double(1));
  const SampledScalar dot = d.closed(acc);
  REQUIRE(sure_nan(dot));
  CHECK(dot.exact_most == Approx(5.5));
  // Controls: a NaN of unknown exact counterpart stays unknown through all of them; a divisor
  // that may be 0 or a NaN divisor leaves nothing known.
  const SampledScalar unknown = d.sub(d.from_double(kInf), e);
  REQUIRE(sure_nan(unknown));
  CHECK(d.mul(unknown, d.from_double(0.5)).exact_most == kInf);
  CHECK(d.tanh(unknown).exact_most == 1);  // tanh's range whatever its operand
  CHECK(d.div(d.from_double(1), nan).exact_most == kInf);
  SampledScalar acc2 = d.from_double(0);
  d.mac(acc2, unknown, d.from_double(2));
  d.mac(acc2, nan, d.from_double(2));
  CHECK(d.closed(acc2).exact_most == kInf);
}

TEST_CASE("sampled exact NaN: where the float run may drop a NaN, the exact value left out is a source", "[sampled][stat]") {
  const SampledDomain d(float_profile("ieee"), sampled_factors(1e-9, 10));
  const SampledScalar e = d.exp(d.from_double(100));
  const SampledScalar nan = d.mul(d.normalized_div(e, e, true), d.from_double(3));  // exact within 3
  const SampledScalar unknown = d.sub(d.from_double(kInf), e);
  // A max pool's scatter: the reference chooses the position, the float run may not (then 0).
  const SampledScalar term = d.scatter_term(nan, {1, 1, 0});
  CHECK(term.value == 0);
  CHECK(!term.infinite);
  CHECK(term.may_nan);
  CHECK(bound(d, term) >= 3);
  CHECK(bound(d, term) < 100);
  CHECK(d.scatter_term(unknown, {1, 1, 0}).infinite);  // the control: nothing known
  // A select that picks the NaN branch in the reference and may take the other, 2, in the float
  // run: the exact value is the NaN's counterpart, within 3 + 2 of the float's 2.
  const SampledScalar sel = d.select_widened(kPredValue | kPredFloatMayFlip, nan, d.from_double(2));
  CHECK(sel.value == 2);
  CHECK(!sel.infinite);
  CHECK(sel.may_nan);
  CHECK(bound(d, sel) >= 5);
  CHECK(bound(d, sel) < 200);
  const SampledScalar blind = d.select_widened(kPredValue | kPredFloatMayFlip, unknown, d.from_double(2));
  CHECK(blind.infinite);
  CHECK(blind.may_nan);
  // Decided selects keep the NaN and its bound.
  CHECK(d.select_widened(kPredValue, nan, d.from_double(2)).exact_most == Approx(3));
}
