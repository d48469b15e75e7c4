// Overflows that may or may not happen, in the sampled tier (interp/sampled/sampled.hpp,
// "Alternatives"): an exp whose operand is within its bound of ln(FLT_MAX) is a number, bounded
// as the evaluations that do not overflow have it, or +inf; IEEE 754 carries the infinity (and
// the NaN that follows from it) as an alternative, a finite result of one (x / inf = 0) widens
// the bound as a source, and `shlo check` lets an output element be one of its alternatives.
// Before, such an exp was unbounded and everything after it had no verdict.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "ast/mlir_parse.hpp"
#include "interp/run.hpp"
#include "interp/sampled/sampled.hpp"
#include "oracle/float_check.hpp"
#include "tests/stat_support.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {


double bound(const SampledDomain& d, const SampledScalar& s) { return SampledDomain::bound(d.closed(s), d.rest_factors()); }
bool may_flip(std::uint8_t bits) { return (bits & kPredFloatMayFlip) != 0; }

// Two logits and their softmax (tests/programs/softmax_may_overflow.mlir): with logit 0 near
// ln(FLT_MAX) = 88.72, its exp may overflow, and p = e / sum(e) is then NaN and 0.
std::string softmax_program() { return read_file(std::string(SHLO_CORPUS_DIR) + "/../tests/programs/softmax_may_overflow.mlir"); }

}  // namespace

TEST_CASE("sampled alternatives: IEEE 754 on an infinity that may or may not come", "[sampled][stat]") {
  const SampledDomain d(float_profile("ieee"), sampled_factors(1e-9, 10));
  // 88.6 plus a value 0 within about 0.2 (p - p's double value, times 7e6): its exp may overflow.
  const SampledScalar p = d.mul(d.from_double(0.1), d.from_double(0.3));
  const SampledScalar jitter = d.mul(d.sub(p, d.from_double(p.value)), d.from_double(7e6));
  const SampledScalar x = d.add(d.from_double(88.6), jitter);
  REQUIRE(bound(d, x) > 0.15);
  REQUIRE(bound(d, x) < 0.3);
  const SampledScalar one = d.from_double(1);
  const SampledScalar e = d.exp(x);
  CHECK(!e.infinite);
  CHECK(e.may_inf == 1);
  CHECK(!e.may_nan);
  CHECK(bound(d, e) < e.value);  // a number within its bound: e^88.5 times about the operand's bound
  CHECK(e.low > 0);
  // The control: the same jitter at 80 cannot overflow.
  CHECK(d.exp(d.add(d.from_double(80), jitter)).may_inf == 0);

  // Signs: -e may be -inf, |-e| +inf.
  CHECK(d.neg(e).may_inf == 2);
  CHECK(d.abs(d.neg(e)).may_inf == 1);
  // inf / inf: e / (e + 1) may be NaN, and (e + 1 itself may overflow) 0: a source of about 1.
  const SampledScalar sum = d.add(e, one);
  CHECK(sum.may_inf == 1);
  const SampledScalar q = d.div(e, sum);
  CHECK(std::fabs(q.value - 1) < 1e-12);
  CHECK(q.may_nan);
  CHECK(q.may_inf == 1);  // +inf / a number: the tier does not know that e is a term of the sum
  CHECK(bound(d, q) >= 1);
  // 1 / (e + 1): a tiny number or 1 / inf = 0, both within its bound: no alternative left.
  const SampledScalar r = d.div(one, sum);
  CHECK(r.may_inf == 0);
  CHECK(!r.may_nan);
  CHECK(bound(d, r) >= r.value);
  CHECK(bound(d, r) < 1e-30);
  // Functions of +inf: tanh(inf) = 1 is a number (a source), log(inf) = +inf stays one.
  const SampledScalar t = d.tanh(e);
  CHECK(t.may_inf == 0);
  CHECK(t.value == 1);
  CHECK(d.log(e).may_inf == 1);
  CHECK(d.rsqrt(e).may_inf == 0);  // rsqrt(inf) = 0
  // max: +inf wins, -inf loses (the other operand's float: here 1 itself).
  CHECK(d.max(e, one).may_inf == 1);
  const SampledScalar lost = d.max(d.neg(e), one);
  CHECK(lost.may_inf == 0);
  CHECK(lost.value == 1);
  CHECK(d.min(d.neg(e), one).may_inf == 2);
  // inf - inf: NaN; inf times a value of either sign: +-inf and NaN.
  const SampledScalar diff = d.sub(e, e);
  CHECK(diff.may_nan);
  CHECK(diff.may_inf == 3);
  const SampledScalar signed_product = d.mul(e, p);  // p > 0 surely: +inf only
  CHECK(signed_product.may_inf == 1);
  CHECK(!signed_product.may_nan);
  CHECK(d.mul(e, jitter).may_nan);  // jitter may be 0 or of either sign
  // Comparisons: +inf > 1 as e's numbers are, so the comparison stays decided; with a value that
  // may be NaN (q) a comparison its numbers make true may be false.
  CHECK(d.compare(CompareDirection::GT, e, one) == Tri::True);
  CHECK(d.compare(CompareDirection::LT, e, one) == Tri::False);
  CHECK(!may_flip(d.compare_bits(CompareDirection::GT, e, one)));
  const SampledScalar minus_ten = d.from_double(-10);
  REQUIRE(bound(d, q) < 10);  // q > -10 on its numbers
  CHECK(d.compare(CompareDirection::GT, q, minus_ten) == Tri::Undecided);
  CHECK(may_flip(d.compare_bits(CompareDirection::GT, q, minus_ten)));
  CHECK(d.compare(CompareDirection::LT, q, minus_ten) == Tri::False);  // false for NaN and +inf too
}

TEST_CASE("sampled alternatives: a softmax whose exp may overflow is judged, a wrong number there improbable",
          "[sampled][stat]") {
  const std::string text = softmax_program();
  const Module m = parse_module(text, "softmax_may_overflow.mlir");
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  CheckOptions with;
  with.sampled = true;
  // Logit 0 = 4 x 22.2 = 88.8: float32 overflows (p = [NaN, 0], the sum +inf), logit 1 = 2.22.
  // Under bf16 (operands to 8 bits: 22.2 to 22.25) the sampled tier bounds logit 0 within about
  // 0.5 of 88.8: its exp may or may not overflow.
  const Arrays over = {f32_array({1, 4}, {22.2f, 22.2f, 22.2f, 22.2f}), f32_array({4, 2}, {1, 0.1f, 1, 0, 1, 0, 1, 0})};
  const Arrays honest = f32_outputs(text, over);
  REQUIRE(std::isnan(std::get<std::vector<float>>(honest[0].data)[0]));
  REQUIRE(std::get<std::vector<float>>(honest[0].data)[1] == 0);
  REQUIRE(std::get<std::vector<float>>(honest[1].data)[0] == inf);
  // Logit 0 = 88.6: float32 does not overflow (p about [1, 7e-38], the sum about 3e38).
  const Arrays under = {f32_array({1, 4}, {22.15f, 22.15f, 22.15f, 22.15f}), over[1]};
  const Arrays numbers = f32_outputs(text, under);
  REQUIRE(std::isfinite(std::get<std::vector<float>>(numbers[1].data)[0]));
  const FloatProfile bf16 = float_profile("bf16");
  // The analysis alone: the sound bound is infinite (the exp may overflow): no verdict.
  const auto alone = check_float_output_sets(m, bf16, {over}, {{honest}}, 1);
  CHECK(alone[0].verdict() == Verdict::NoVerdict);

  const std::vector<std::vector<Arrays>> over_sets = {{honest},
                                                      {{f32_array({1, 2}, {nan, 0.5f}), honest[1]}},  // p[1] a wrong number
                                                      {{honest[0], f32_array({1}, {-inf})}}};       // the sum -inf
  const auto judged = check_float_output_sets(m, bf16, {over}, over_sets, 1, with);
  INFO(format_table(judged[0]));
  CHECK(judged[0].verdict() == Verdict::Pass);
  CHECK(judged[0].outputs[0].nan_alternative == 1);  // p[0]: NaN, one of its values
  CHECK(judged[0].outputs[0].unbounded == 0);
  CHECK(judged[0].outputs[1].inf_alternative == 1);  // the sum: +inf, one of its values
  CHECK(format_table(judged[0]).find("infinite element(s) where an overflow upstream may or may not happen") != std::string::npos);
  CHECK(format_json(judged[0]).find("\"inf_alternative\": 1") != std::string::npos);
  CHECK(judged[1].verdict() == Verdict::Improbable);
  CHECK(judged[1].outputs[0].improbable == 1);
  INFO(format_table(judged[2]));
  CHECK(judged[2].verdict() == Verdict::Improbable);  // -inf is no value of a sum of exps
  CHECK(judged[2].outputs[1].improbable == 1);

  const std::vector<std::vector<Arrays>> under_sets = {{numbers},
                                                       {{f32_array({1, 2}, {1, 0.5f}), numbers[1]}}};  // p[1] a wrong number
  const auto judged_under = check_float_output_sets(m, bf16, {under}, under_sets, 1, with);
  INFO(format_table(judged_under[0]));
  CHECK(judged_under[0].verdict() == Verdict::Pass);
  CHECK(judged_under[0].outputs[0].unbounded == 0);
  CHECK(judged_under[0].outputs[1].unbounded == 0);
  CHECK(judged_under[1].verdict() == Verdict::Improbable);
}

TEST_CASE("sampled alternatives: the check passes an infinity only where the sampled tier has it", "[sampled][stat]") {
  // judge_element on an element the analysis knows nothing of (a quotient whose divisor may be 0).
  const BoundDomain bd(float_profile("ieee"));
  const BoundScalar unknown = bd.div(bd.from_double(1), closed_scalar(0.5, 1, 1, 0));
  REQUIRE(bd.bound(bd.closed(unknown)) == kInf);
  const ElementVerdict pos = judge_element(bd, unknown, kInf, {0, 1e-6, false, 1});
  CHECK(pos.verdict() == Verdict::Pass);
  CHECK(pos.inf_alternative);
  CHECK(judge_element(bd, unknown, -kInf, {0, 1e-6, false, 1}).verdict() == Verdict::Improbable);  // the other sign
  CHECK(judge_element(bd, unknown, -kInf, {0, 1e-6, false, 2}).verdict() == Verdict::Pass);
  CHECK(judge_element(bd, unknown, kInf, {0, 1e-6, false, 0}).verdict() == Verdict::Improbable);  // no alternative
  CHECK(judge_element(bd, unknown, 5e-7, {0, 1e-6, false, 1}).verdict() == Verdict::Pass);       // its numbers still judged
  CHECK(judge_element(bd, unknown, 5e-6, {0, 1e-6, false, 1}).verdict() == Verdict::Improbable);
  // Where the sound bound is finite the float value is finite: an infinity fails.
  CHECK(judge_element(bd, bd.from_double(1), kInf, {1, 1e-6, false, 1}).verdict() == Verdict::Fail);
  // A sure NaN of the tier that may be +inf: +inf passes, -inf does not.
  CHECK(judge_element(bd, unknown, kInf, {std::nan(""), 0, false, 1}).verdict() == Verdict::Pass);
  CHECK(judge_element(bd, unknown, -kInf, {std::nan(""), 0, false, 1}).verdict() == Verdict::Improbable);
}

// Magnitudes past the double range (sampled.hpp, "Logarithms of magnitudes past the double
// range"): an exp whose operand's bound is wider than a double's exponent allows keeps ln of a
// bound on its value, a sure infinity ln of its floor, and a finite float over that infinity is 0
// with the exact quotient within e^(log_high - log_floor) of it.
TEST_CASE("sampled alternatives: a class over a sum past the double range is 0 or NaN", "[sampled][stat]") {
  const SampledDomain d(float_profile("ieee"), sampled_factors(1e-9, 10));
  // 0 within some 1e4: a product's rounding error, scaled.
  const SampledScalar p = d.mul(d.from_double(0.1), d.from_double(0.3));
  const SampledScalar wide = d.mul(d.sub(p, d.from_double(p.value)), d.from_double(3.5e11));
  const double b = bound(d, wide);
  REQUIRE(b > 1000);
  REQUIRE(b < 1e5);
  // exp(0 within b): no bound on its numbers (e^b overflows a double), at most e^b.
  const SampledScalar small = d.exp(wide);
  CHECK(small.infinite);
  CHECK(small.at_least_zero);
  CHECK(small.log_high >= b);
  CHECK(small.log_high < b * 1.001 + 1);
  // exp(1e6 within b): +inf in every evaluation, its floor e^(1e6 - b) past the double range.
  const SampledScalar big = d.exp(d.add(d.from_double(1e6), wide));
  CHECK(big.value == kInf);
  CHECK(!big.infinite);
  CHECK(big.floor == kInf);
  CHECK(big.log_floor > 1e6 - 2 * b);
  CHECK(big.log_floor < 1e6);
  // Their sum, open (a reduce) or not: +inf, the floor's logarithm kept.
  const SampledScalar sum = d.closed(d.accumulate(d.accumulate(d.from_double(0), small), big));
  CHECK(sum.value == kInf);
  CHECK(!sum.infinite);
  CHECK(sum.log_floor == Approx(big.log_floor));
  CHECK(d.add(big, small).value == kInf);
  CHECK(!d.add(small, big).infinite);
  // small / sum: 0 (its numbers over +inf), the exact quotient below e^(b - 1e6 + b): 0 in a
  // double; or NaN (+inf / +inf).
  const SampledScalar q = d.div(small, sum);
  CHECK(!q.infinite);
  CHECK(q.value == 0);
  CHECK(q.may_nan);
  CHECK(bound(d, q) == 0);
  CHECK(d.div(d.from_double(1e30), big).value == 0);  // a number over it: 0 as well
  CHECK(bound(d, d.div(d.from_double(1e30), big)) == 0);
  // The controls: over an infinity whose floor is only e^800 (below e^b) the quotient may be
  // anything: unbounded; and an exp with bounded numbers keeps no logarithm.
  const SampledScalar e800 = d.exp(d.add(d.from_double(800), d.mul(d.sub(p, d.from_double(p.value)), d.from_double(7e6))));
  REQUIRE(e800.value == kInf);
  REQUIRE(e800.log_floor < 800);
  REQUIRE(e800.log_floor > 799);
  CHECK(d.div(small, e800).infinite);
  CHECK(d.exp(d.from_double(1)).log_high == kInf);
}

TEST_CASE("sampled alternatives: a softmax over logits past the double range is judged under bf16", "[sampled][stat]") {
  const std::string text = softmax_program();
  const Module m = parse_module(text, "softmax_may_overflow.mlir");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CheckOptions with;
  with.sampled = true;
  // Logit 0 = 4 x 3e5 = 1.2e6: every evaluation overflows. Logit 1 = x0 - x1 = -1 in float32; under
  // bf16 (operands to 8 bits, 2048 apart here) the sampled tier bounds it within some 1e4: its
  // exp's numbers have no bound, and p[1] is 0 (within e^(1e4 - 1e6) of the exact) or NaN.
  const Arrays in = {f32_array({1, 4}, {300000.0f, 300001.0f, 300000.0f, 300000.0f}), f32_array({4, 2}, {1, 1, 1, -1, 1, 0, 1, 0})};
  const Arrays honest = f32_outputs(text, in);
  REQUIRE(std::isnan(std::get<std::vector<float>>(honest[0].data)[0]));
  REQUIRE(std::get<std::vector<float>>(honest[0].data)[1] == 0);
  const Arrays reduced = f32_outputs(with_rounded_operands(text, 7), in);
  const FloatProfile bf16 = float_profile("bf16");
  const std::vector<std::vector<Arrays>> sets = {{honest},
                                                 {reduced},
                                                 {{f32_array({1, 2}, {nan, nan}), honest[1]}},   // p[1] NaN: one of its values
                                                 {{f32_array({1, 2}, {nan, 0.5f}), honest[1]}}};  // p[1] a wrong number
  const auto judged = check_float_output_sets(m, bf16, {in}, sets, 1, with);
  for (int k = 0; k < 3; ++k) {
    INFO(format_table(judged[static_cast<std::size_t>(k)]));
    CHECK(judged[static_cast<std::size_t>(k)].verdict() == Verdict::Pass);
    CHECK(judged[static_cast<std::size_t>(k)].outputs[0].unbounded == 0);
  }
  CHECK(judged[2].outputs[0].nan_alternative == 1);
  INFO(format_table(judged[3]));
  CHECK(judged[3].verdict() == Verdict::Improbable);
  CHECK(judged[3].outputs[0].improbable == 1);
  // The control: without the tier p[1] has no verdict.
  CHECK(check_float_output_sets(m, bf16, {in}, {{honest}}, 1)[0].verdict() == Verdict::NoVerdict);
}

TEST_CASE("sampled alternatives: a max pool scatters a sure NaN as NaN or nothing, and the check passes that NaN", "[sampled][stat]") {
  const SampledDomain d(float_profile("ieee"), sampled_factors(1e-9, 10));
  const SampledScalar inf = d.exp(d.from_double(100)), nan = d.sub(inf, inf);  // NaN in every evaluation
  REQUIRE(std::isnan(nan.value));
  REQUIRE(!nan.infinite);
  // Not the reference's choice, maybe the float's: 0 exactly, or NaN.
  const SampledScalar maybe = d.scatter_term(nan, {0, 1, 0});
  CHECK(maybe.value == 0);
  CHECK(!maybe.infinite);
  CHECK(maybe.may_nan);
  CHECK(bound(d, maybe) == 0);
  // The reference's choice, maybe not the float's: NaN, or nothing where the exact term is a
  // number every evaluation overflows, within that NaN's exact bound (inf - inf: e^log_high
  // twice) of 0, NaN still one of the values; with no such bound (a literal infinity's
  // difference), no bound on the numbers.
  const SampledScalar chosen = d.scatter_term(nan, {1, 1, 0});
  CHECK(!chosen.infinite);
  CHECK(chosen.value == 0);
  CHECK(chosen.may_nan);
  CHECK(bound(d, chosen) >= 2 * std::exp(100.0));
  const SampledScalar blind = d.scatter_term(d.sub(d.from_double(kInf), inf), {1, 1, 0});
  CHECK(blind.infinite);
  CHECK(blind.may_nan);
  // The control: surely chosen by both, NaN in every evaluation.
  const SampledScalar sure_nan = d.scatter_term(nan, {1, 1, 1});
  CHECK(std::isnan(sure_nan.value));
  CHECK(!sure_nan.infinite);
  // judge_element: a NaN passes where the tier has NaN among the values, its numbers bounded or
  // not; a number there has no verdict; without the alternative NaN has none either.
  const BoundDomain bd(float_profile("ieee"));
  const BoundScalar unknown = bd.div(bd.from_double(1), closed_scalar(0.5, 1, 1, 0));
  REQUIRE(bd.bound(bd.closed(unknown)) == kInf);
  const double nan_y = std::nan("");
  const ElementVerdict passes = judge_element(bd, unknown, nan_y, {0, kInf, true, 0});
  CHECK(passes.verdict() == Verdict::Pass);
  CHECK(passes.nan_alternative);
  CHECK(judge_element(bd, unknown, 1, {0, kInf, true, 0}).verdict() == Verdict::NoVerdict);
  CHECK(judge_element(bd, unknown, nan_y, {0, kInf, false, 0}).verdict() == Verdict::NoVerdict);
  CHECK(judge_element(bd, unknown, kInf, {0, kInf, false, 1}).verdict() == Verdict::Pass);
  CHECK(judge_element(bd, unknown, -kInf, {0, kInf, false, 1}).verdict() == Verdict::NoVerdict);
}
