// Sure infinities and NaN in the sampled tier (interp/sampled/sampled.hpp, "Sure infinities and
// NaN"): where every float evaluation overflows but for an improbable event, the value is that
// infinity (with a floor under its exact value) or NaN, IEEE 754 carries it on, and `shlo check`
// holds an output element there to that value; where a comparison may flip to a branch that is
// surely NaN, NaN is one of the element's values. The bound analysis' own rules are tested in
// test_stat_nonfinite.cpp and test_may_nan.cpp; these are the sampled tier's, on values computed
// by hand, and a program whose overflow only the sampled tier can decide.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "ast/mlir_parse.hpp"
#include "interp/program_inputs.hpp"
#include "interp/run.hpp"
#include "interp/sampled/sampled.hpp"
#include "oracle/float_check.hpp"
#include "tests/stat_support.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

constexpr double kFloatMax = 3.4028234663852886e38;

bool sure(const SampledScalar& s) { return !s.infinite && !std::isfinite(s.value); }
double bound(const SampledDomain& d, const SampledScalar& s) { return SampledDomain::bound(d.closed(s), d.rest_factors()); }

}  // namespace

TEST_CASE("sampled nonfinite: exp beyond ln(FLT_MAX) by more than its bound is +inf, with a floor under its exact value",
          "[sampled][stat]") {
  const SampledDomain d(float_profile("ieee"), sampled_factors(1e-9, 10));
  const SampledScalar inf = d.exp(d.from_double(100));
  CHECK(sure(inf));
  CHECK(inf.value == kInf);
  CHECK(bound(d, inf) == 0);
  CHECK(inf.floor > 0.99 * std::exp(100.0));
  CHECK(inf.floor > kFloatMax);
  // Controls: below the threshold a number; just above it, within the allowance, a number (an
  // evaluation may still give FLT_MAX) or +inf: bounded as a number, +inf an alternative.
  const SampledScalar below = d.exp(d.from_double(88.5));
  CHECK(std::isfinite(below.value));
  CHECK(bound(d, below) < 1e-5 * below.value);
  CHECK(below.may_inf == 0);
  const SampledScalar edge = d.exp(d.from_double(88.72284));
  CHECK(!edge.infinite);
  CHECK(edge.may_inf == 1);
  CHECK(!edge.may_nan);
  CHECK(bound(d, edge) < 1e-5 * edge.value);
  // An operand so wide (p - p's double value, times 1e22: 0 within about 2e13) that its exp's
  // numbers have no bound: unbounded, known to be at least 0 or +inf.
  const SampledScalar p = d.mul(d.from_double(0.1), d.from_double(0.3));
  const SampledScalar wide = d.mul(d.sub(p, d.from_double(p.value)), d.from_double(1e22));
  REQUIRE(bound(d, wide) > 1000);
  REQUIRE(bound(d, wide) < kInf);
  const SampledScalar any = d.exp(wide);
  CHECK(any.infinite);
  CHECK(any.at_least_zero);
  // A product beyond 2^128 by more than its bound: +inf in the float run.
  const SampledScalar big = d.mul(d.from_double(1e30), d.from_double(1e30));
  CHECK(sure(big));
  CHECK(big.floor > 0.99e60);
}

TEST_CASE("sampled nonfinite: IEEE 754 on sure infinities and NaN, unbounded where it cannot decide", "[sampled][stat]") {
  const SampledDomain d(float_profile("ieee"), sampled_factors(1e-9, 10));
  const SampledScalar inf = d.exp(d.from_double(100)), two = d.from_double(2), zero = d.from_double(0);
  // p minus its own double value: 0 in the reference, its float of either sign.
  const SampledScalar p = d.mul(d.from_double(0.1), d.from_double(0.3));
  const SampledScalar near = d.sub(p, d.from_double(p.value));
  REQUIRE(bound(d, near) > std::fabs(near.value));
  const SampledScalar nan = d.sub(inf, inf);
  CHECK(sure(nan));
  CHECK(std::isnan(nan.value));
  CHECK(bound(d, nan) == 0);
  const SampledScalar sum = d.add(inf, two);
  CHECK(sum.value == kInf);
  CHECK(sum.floor > 0.99 * std::exp(100.0));
  CHECK(d.sub(two, inf).value == -kInf);
  CHECK(d.mul(inf, d.from_double(-3)).value == -kInf);
  CHECK(std::isnan(d.mul(inf, zero).value));  // inf * 0
  CHECK(d.mul(inf, near).infinite);            // its sign may flip: unbounded
  CHECK(d.div(inf, d.from_double(-4)).value == -kInf);
  CHECK(std::isnan(d.div(inf, inf).value));
  const SampledScalar maybe = d.exp(d.from_double(88.72284));  // a number or +inf
  CHECK(std::isnan(d.add(nan, maybe).value));                  // NaN absorbs a number and +inf
  const SampledScalar inf_plus = d.add(inf, maybe);            // +inf plus a number or +inf: +inf
  CHECK(sure(inf_plus));
  CHECK(inf_plus.value == kInf);
  CHECK(inf_plus.may_inf == 0);
  CHECK(!inf_plus.may_nan);
  const SampledScalar inf_minus = d.sub(inf, maybe);  // +inf less a number or +inf: +inf or NaN
  CHECK(inf_minus.value == kInf);
  CHECK(inf_minus.may_nan);
  CHECK(inf_minus.may_inf == 0);
  // An exp without bounded numbers is still at least 0 or +inf: plus +inf, +inf; less +inf, NaN
  // or -inf or anything: unbounded. A value of either sign without a bound: unbounded.
  const SampledScalar wide_exp = d.exp(d.mul(near, d.from_double(1e22)));
  REQUIRE(wide_exp.infinite);
  REQUIRE(wide_exp.at_least_zero);
  CHECK(d.add(inf, wide_exp).value == kInf);
  CHECK(!d.add(inf, wide_exp).infinite);
  CHECK(d.sub(wide_exp, inf).infinite);
  CHECK(d.add(inf, d.div(two, near)).infinite);
  // finite / inf is +-0, the exact quotient within |a| / floor of it: a source.
  const SampledScalar q = d.div(two, inf);
  CHECK(q.value == 0);
  CHECK(!q.infinite);
  CHECK(bound(d, q) > 0);
  CHECK(bound(d, q) < 20 * 2 / std::exp(100.0));
  // By an exact infinity (a literal) the quotient is exactly 0.
  const SampledScalar by_literal = d.div(two, d.from_double(-kInf));
  CHECK(by_literal.value == 0);
  CHECK(bound(d, by_literal) == 0);
  // Functions of a sure infinity.
  const SampledScalar e_minus = d.exp(d.neg(inf));
  CHECK(e_minus.value == 0);
  CHECK(bound(d, e_minus) == 0);  // e^-floor underflows in double too
  const SampledScalar t = d.tanh(inf);
  CHECK(t.value == 1);
  CHECK(bound(d, t) < 1e-80);
  const SampledScalar l = d.log(inf);
  CHECK(l.value == kInf);
  CHECK(l.floor > 99);
  CHECK(std::isnan(d.sqrt(d.neg(inf)).value));
  CHECK(d.abs(d.neg(inf)).value == kInf);
  // max and min: NaN propagates, an infinity wins or loses as a number.
  CHECK(std::isnan(d.max(nan, two).value));
  CHECK(d.max(inf, two).value == kInf);
  CHECK(d.min(inf, two).value == 2);
  // Comparisons with a sure NaN are decided: false, NE true; with an infinity, as numbers.
  CHECK(d.compare(CompareDirection::LT, nan, two) == Tri::False);
  CHECK(d.compare(CompareDirection::NE, nan, two) == Tri::True);
  CHECK(d.compare(CompareDirection::GT, inf, two) == Tri::True);
  CHECK(d.compare(CompareDirection::EQ, inf, d.add(inf, two)) == Tri::True);
  CHECK(d.compare(CompareDirection::GT, near, zero) == Tri::Undecided);  // the control
}

TEST_CASE("sampled nonfinite: sums count sure terms, and terms at least 0 leave a sum with +inf +inf", "[sampled][stat]") {
  const SampledDomain d(float_profile("ieee"), sampled_factors(1e-9, 10));
  const SampledScalar inf = d.exp(d.from_double(100)), maybe = d.exp(d.from_double(88.72284)), one = d.from_double(1);
  const SampledScalar zero = d.from_double(0);
  auto sum = [&](std::initializer_list<SampledScalar> terms) {
    SampledScalar acc = zero;
    for (const auto& t : terms) acc = d.accumulate(acc, t);
    return d.closed(acc);
  };
  const SampledScalar s = sum({one, inf, maybe});
  CHECK(sure(s));
  CHECK(s.value == kInf);
  CHECK(s.floor > 0.99 * std::exp(100.0));
  // No sure +inf term: a number, or +inf where the exp overflows.
  const SampledScalar one_maybe = sum({one, maybe});
  CHECK(!one_maybe.infinite);
  CHECK(std::fabs(one_maybe.value - maybe.value) <= 1e-15 * maybe.value);
  CHECK(one_maybe.may_inf == 1);
  CHECK(!one_maybe.may_nan);
  CHECK(std::isnan(sum({inf, d.neg(inf), one}).value));
  const SampledScalar minus_maybe = sum({d.neg(inf), maybe});  // -inf and maybe +inf: -inf or NaN
  CHECK(minus_maybe.value == -kInf);
  CHECK(minus_maybe.may_nan);
  CHECK(minus_maybe.may_inf == 0);
  const SampledScalar both = sum({one, maybe, d.neg(maybe)});  // may be +inf and -inf: also NaN
  CHECK(!both.infinite);
  CHECK(both.may_inf == 3);
  CHECK(both.may_nan);
  // Terms that are at least 0 or +inf with no bound on their numbers: +inf beside a sure +inf,
  // else unbounded.
  const SampledScalar p = d.mul(d.from_double(0.1), d.from_double(0.3));
  const SampledScalar any = d.exp(d.mul(d.sub(p, d.from_double(p.value)), d.from_double(1e22)));
  REQUIRE(any.at_least_zero);
  CHECK(sum({one, inf, any}).value == kInf);
  CHECK(sure(sum({one, inf, any})));
  CHECK(sum({one, any}).infinite);
  // A matrix product's term inf * 2 and inf * 0.
  SampledScalar acc = zero;
  d.mac(acc, inf, d.from_double(2));
  d.mac(acc, one, one);
  CHECK(d.closed(acc).value == kInf);
  d.mac(acc, inf, zero);
  CHECK(std::isnan(d.closed(acc).value));
}

namespace {

// x k - x k is 0 in every float evaluation (the same rounding twice), but the bound analysis
// bounds the two products' errors apart: 2 u |x k|, about 36 for x k = 3e8. So exp(100 + that)
// is +inf in every evaluation for the sampled tier, and may be finite for the analysis.
const char* const kCancelledOverflow = R"(module @m {
  func.func @f(%x: tensor<2xf32>, %k: tensor<2xf32>, %c: tensor<2xf32>) -> (tensor<2xf32>, tensor<f32>) {
    %m1 = stablehlo.multiply %x, %k : tensor<2xf32>
    %m2 = stablehlo.multiply %x, %k : tensor<2xf32>
    %y = stablehlo.subtract %m1, %m2 : tensor<2xf32>
    %z = stablehlo.add %y, %c : tensor<2xf32>
    %e = stablehlo.exponential %z : tensor<2xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
    %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %p = stablehlo.divide %e, %b : tensor<2xf32>
    return %p, %s : tensor<2xf32>, tensor<f32>
  }
})";

}  // namespace

TEST_CASE("sampled nonfinite: shlo check judges an overflow only the sampled tier decides, and a number there is improbable",
          "[sampled][stat]") {
  const Module m = parse_module(kCancelledOverflow, "cancelled.mlir");
  const Arrays in = {f32_array({2}, {0.3f, 0.7f}), f32_array({2}, {1e9f, 1e9f}), f32_array({2}, {100, 1})};
  // The honest float32 outputs: z = [100, 1], e = [inf, e], s = inf, p = [inf / inf, e / inf] = [NaN, 0].
  const Arrays honest = f32_outputs(kCancelledOverflow, in);
  const auto& p = std::get<std::vector<float>>(honest[0].data);
  REQUIRE(std::isnan(p[0]));
  REQUIRE(p[1] == 0);
  REQUIRE(std::isinf(std::get<std::vector<float>>(honest[1].data)[0]));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<std::vector<Arrays>> sets = {{honest},
                                                 {{f32_array({2}, {nan, 1e-30f}), honest[1]}},  // p[1] not 0
                                                 {{f32_array({2}, {0.5f, 0}), honest[1]}},      // a number where NaN is sure
                                                 {{honest[0], f32_array({}, {3e38f})}}};        // a number where +inf is sure
  CheckOptions with;
  with.sampled = true;
  for (const char* profile : {"ieee", "tf32"}) {
    INFO("profile " << profile);
    const auto alone = check_float_output_sets(m, float_profile(profile), {in}, {sets[0]}, 1);
    const auto both = check_float_output_sets(m, float_profile(profile), {in}, sets, 1, with);
    INFO(format_table(both[0]));
    // The control: the analysis alone cannot decide exp(100 +- 36).
    CHECK(alone[0].verdict() == Verdict::NoVerdict);
    CHECK(both[0].verdict() == Verdict::Pass);
    CHECK(both[0].outputs[0].certain_nonfinite == 1);
    CHECK(both[0].outputs[0].probable_nonfinite == 1);
    CHECK(both[0].outputs[0].statistical_only == 1);  // p[1]: 0 within e / e^100 of its exact value
    CHECK(both[0].outputs[1].certain_nonfinite == 1);
    CHECK(both[1].verdict() == Verdict::Improbable);
    CHECK(both[1].outputs[0].improbable == 1);
    CHECK(both[1].outputs[0].worst_pflat == 1);  // judged by the sampled tier, counted in the worst column
    CHECK(both[2].verdict() == Verdict::Improbable);
    CHECK(both[2].outputs[0].improbable == 1);
    CHECK(both[3].verdict() == Verdict::Improbable);
    CHECK(both[3].outputs[1].improbable == 1);
  }
}

TEST_CASE("sampled nonfinite: where the tier's live values would not fit it does not run, and says so", "[sampled][stat]") {
  const Module m = parse_module(kCancelledOverflow, "cancelled.mlir");
  const Arrays in = {f32_array({2}, {0.3f, 0.7f}), f32_array({2}, {1e9f, 1e9f}), f32_array({2}, {100, 1})};
  const std::vector<std::vector<Arrays>> sets = {{f32_outputs(kCancelledOverflow, in)}};
  CheckOptions small;
  small.sampled = true;
  small.sampled_memory = 4096;  // below the 2 x 64 coordinates of even one product's scratch
  const auto refused = check_float_output_sets(m, float_profile("ieee"), {in}, sets, 1, small);
  CHECK(refused[0].sampled_error.find("would take about") != std::string::npos);
  CHECK(refused[0].sampled_error.find("4.0 KiB") != std::string::npos);
  CHECK(refused[0].verdict() == Verdict::NoVerdict);  // the analysis alone, as without the tier
  // The control: with the machine's memory it runs and judges.
  CheckOptions enough = small;
  enough.sampled_memory = 0;
  const auto judged = check_float_output_sets(m, float_profile("ieee"), {in}, sets, 1, enough);
  CHECK(judged[0].sampled_error.empty());
  CHECK(judged[0].verdict() == Verdict::Pass);
}

TEST_CASE("sampled nonfinite: a select that may take a surely NaN branch may be NaN, and the check passes that NaN", "[sampled][stat]") {
  // kReluBackward (stat_support.hpp): a relu's backward select whose comparison may flip, element
  // 0's other branch NaN in every evaluation (exp(100): inf - inf).
  const Module m = parse_module(kReluBackward, "relu_backward.mlir");
  const float third = 1.0f / 3.0f;
  const Arrays in = {f32_array({2}, {100, 1}), f32_array({2}, {3, 3}), f32_array({2}, {third, third})};
  const SampledDomain d(float_profile("ieee"), sampled_factors(1e-9, 100));
  const auto run = run_program(m, d, npy_values(d, m.function(), std::vector<Arrays>{in}), RunOptions{});
  const auto& out = std::get<Tensor<SampledScalar>>(run.outputs[0][0]);
  const SampledScalar s = d.closed(std::get<Tensor<SampledScalar>>(run.outputs[0][1])[0]);
  CHECK(out[0].value == 0);
  CHECK(out[0].may_nan);
  CHECK(!out[1].may_nan);  // the control: its other branch, e - e = 0, is a number
  CHECK(s.may_nan);
  // The check, where the analysis knows nothing (a quotient whose divisor may be 0): NaN passes
  // with the flag, a number is judged by the sampled bound, and without the flag a NaN is improbable.
  const BoundDomain bd(float_profile("ieee"));
  const BoundScalar unknown = bd.div(bd.from_double(1), closed_scalar(0.5, 1, 1, 0));
  REQUIRE(bd.kind(unknown) == BoundDomain::Kind::Unknown);
  REQUIRE(bd.bound(bd.closed(unknown)) == kInf);
  const ElementVerdict nan_passes = judge_element(bd, unknown, std::nan(""), {0, 1e-6, true});
  CHECK(nan_passes.verdict() == Verdict::Pass);
  CHECK(nan_passes.nan_alternative);
  CHECK(judge_element(bd, unknown, 5e-7, {0, 1e-6, true}).verdict() == Verdict::Pass);
  CHECK(judge_element(bd, unknown, 5e-6, {0, 1e-6, true}).verdict() == Verdict::Improbable);
  CHECK(judge_element(bd, unknown, std::nan(""), {0, 1e-6, false}).verdict() == Verdict::Improbable);
  // Where the sound bound is finite, the float value is finite: a sure infinity of the sampled
  // tier says nothing there, and a NaN of "may be NaN" is over the sound bound.
  const BoundScalar one = bd.from_double(1);
  CHECK(judge_element(bd, one, 1, {kInf, 0}).verdict() == Verdict::Pass);
  CHECK(judge_element(bd, one, std::nan(""), {1, 1e-6, true}).verdict() == Verdict::Fail);
}
