// The statistical tier past a sound infinity: where a value's sound bound is infinite (its float
// evaluation may overflow under that bound: a deep network's logits before an exp), the
// statistical tier keeps its own bound through later ops and sums while that stays finite, and
// `shlo check` judges those elements by it alone; only where both bounds are infinite is there
// no verdict. And a sum whose partial sums may leave the float range is unbounded, though the
// whole sum fits.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "ast/mlir_parse.hpp"
#include "oracle/float_check.hpp"
#include "tests/stat_support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {


// 1 +- inf soundly, +- pdet statistically (a plain part): a value past an exp that may overflow.
BoundScalar past_overflow(float pdet) {
  BoundScalar x;
  x.lo = x.hi = 1;
  x.err = kInf;
  x.pdet = pdet;
  x.flags = kUnbounded;
  return x;
}


// Eight dot products of 4096 positive terms, each near `target`, then exp, a scale into the
// float range, and their sum: two outputs.
constexpr const char* kExpOfDots = R"(module @m {
  func.func @f(%a: tensor<8x4096xf32>, %b: tensor<4096xf32>) -> (tensor<8xf32>, tensor<f32>) {
    %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x4096xf32>, tensor<4096xf32>) -> tensor<8xf32>
    %e = stablehlo.exponential %d : tensor<8xf32>
    %c = stablehlo.constant dense<1.0e-30> : tensor<8xf32>
    %p = stablehlo.multiply %e, %c : tensor<8xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%p init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    return %p, %s : tensor<8xf32>, tensor<f32>
  }
})";

struct ExpOfDots {
  Arrays inputs;
  std::vector<float> p;  // the honest float32 outputs: each dot summed in order, expf, scaled
  float s = 0;           // and summed in order
};

// Rows of random positive terms scaled so that each exact dot product is within 1e-4 of target
// (computed in double, exact for these products and sums). The honest outputs round the dot's
// operands to `bits` stored mantissa bits first (23: float32 itself; 10: TF32).
ExpOfDots exp_of_dots(double target, int bits = 23) {
  std::mt19937_64 gen(17);
  std::uniform_real_distribution<float> u(0.5f, 1.5f);
  std::vector<float> a(8 * 4096), b(4096);
  for (auto& x : b) x = u(gen);
  for (int j = 0; j < 8; ++j) {
    std::vector<float> row(4096);
    double dot = 0;
    for (int k = 0; k < 4096; ++k) {
      row[static_cast<std::size_t>(k)] = u(gen);
      dot += static_cast<double>(row[static_cast<std::size_t>(k)]) * b[static_cast<std::size_t>(k)];
    }
    const double scale = target / dot;
    for (int k = 0; k < 4096; ++k) a[static_cast<std::size_t>(j * 4096 + k)] = static_cast<float>(row[static_cast<std::size_t>(k)] * scale);
  }
  ExpOfDots out;
  out.inputs = {f32_array({8, 4096}, a), f32_array({4096}, b)};
  for (int j = 0; j < 8; ++j) {
    double exact = 0;
    float d = 0;
    for (int k = 0; k < 4096; ++k) {
      const float x = a[static_cast<std::size_t>(j * 4096 + k)], y = b[static_cast<std::size_t>(k)];
      d += bits < 23 ? reduced(x, bits) * reduced(y, bits) : x * y;
      exact += static_cast<double>(a[static_cast<std::size_t>(j * 4096 + k)]) * b[static_cast<std::size_t>(k)];
    }
    REQUIRE(std::fabs(exact - target) < 1e-4);
    out.p.push_back(std::exp(d) * 1.0e-30f);
    out.s += out.p.back();
  }
  return out;
}

}  // namespace

TEST_CASE("stat tier past a sound infinity: a sum of a term whose sound bound is infinite keeps its statistical bound",
          "[bound][stat]") {
  const BoundDomain d(float_profile("ieee"));
  BoundScalar x = past_overflow(0x1p-20f);
  const BoundScalar y = d.from_double(2);  // exact
  const BoundScalar sum = d.closed(d.accumulate(d.accumulate(d.from_double(0), x), y));
  CHECK(d.bound(sum) == kInf);
  CHECK(d.enclosure(sum).lo == Approx(3));
  // Its plain part, and the addition's own rounding: u (1 + 2^-20) + 2 ... within lambda u 3.
  CHECK(d.pbound(sum) >= 0x1p-20);
  CHECK(d.pbound(sum) <= 0x1p-20 + d.lambda() * 4 * 0x1p-24);
  // Control: the statistical part infinite too, then so is the sum's.
  x = past_overflow(std::numeric_limits<float>::infinity());
  const BoundScalar none = d.closed(d.accumulate(d.accumulate(d.from_double(0), x), y));
  CHECK(d.pbound(none) == kInf);
  CHECK(d.bound(none) == kInf);
}

TEST_CASE("stat tier past a sound infinity: exp of dot products near the overflow threshold is judged statistically",
          "[bound][stat]") {
  const Module m = parse_module(kExpOfDots, "exp_of_dots.mlir");
  // log(FLT_MAX) = 88.7228: the dots' sound bounds (gamma_4095 times about 88.7, 0.022) reach it,
  // their statistical bounds (about lambda sqrt(4095) u 88.7, 0.003) do not.
  const ExpOfDots honest = exp_of_dots(88.715);
  const CheckReport r = check_ieee(m, honest.inputs, {f32_array({8}, honest.p), f32_array({}, {honest.s})});
  INFO(format_table(r));
  CHECK(r.verdict() == Verdict::Pass);
  REQUIRE(r.outputs.size() == 2);
  CHECK(r.outputs[0].statistical_only == 8);
  CHECK(r.outputs[1].statistical_only == 1);  // the sum carried the statistical tier on
  CHECK(r.outputs[0].unbounded == 0);
  CHECK(r.outputs[1].unbounded == 0);
  CHECK(r.worst_pratio > 0);
  CHECK(r.worst_pratio < 0.5);
  CHECK(r.first_unbounded.find("stablehlo.exponential") != std::string::npos);
  CHECK(format_table(r).find("judged by the statistical tier alone") != std::string::npos);
  CHECK(format_json(r).find("\"statistical_only\": 8") != std::string::npos);
  // Off by 2%, far beyond rounding (the exp's relative error is about its operand's, 0.003),
  // though no sound bound can say so: IMPROBABLE, never FAIL.
  std::vector<float> p2 = honest.p;
  for (auto& v : p2) v *= 1.02f;
  const CheckReport off = check_ieee(m, honest.inputs, {f32_array({8}, p2), f32_array({}, {honest.s * 1.02f})});
  CHECK(off.verdict() == Verdict::Improbable);
  CHECK(off.outputs[0].improbable == 8);
  CHECK(off.outputs[1].improbable == 1);
  CHECK(off.outputs[0].over == 0);
  // Exact dots beyond the threshold by more than their statistical bound (0.017 against 0.003),
  // not their sound one (0.022): +inf in every evaluation but for an improbable event (and the
  // honest float is inf), and so is p = inf * 1e-30 and their sum. Before that rule: no verdict.
  const ExpOfDots beyond = exp_of_dots(88.74);
  for (float v : beyond.p) REQUIRE(std::isinf(v));
  const CheckReport none = check_ieee(m, beyond.inputs, {f32_array({8}, beyond.p), f32_array({}, {beyond.s})});
  INFO(format_table(none));
  CHECK(none.verdict() == Verdict::Pass);
  CHECK(none.outputs[0].unbounded == 0);
  CHECK(none.outputs[0].certain_nonfinite == 8);
  CHECK(none.outputs[0].probable_nonfinite == 8);
  CHECK(none.outputs[0].statistical_only == 0);
  CHECK(format_table(none).find("8 of them but for an improbable event") != std::string::npos);
  // A finite number there is IMPROBABLE, not FAIL: no sound bound says the exp overflows.
  std::vector<float> finite_p = beyond.p;
  finite_p[0] = 0.125f;
  const CheckReport finite = check_ieee(m, beyond.inputs, {f32_array({8}, finite_p), f32_array({}, {beyond.s})});
  CHECK(finite.verdict() == Verdict::Improbable);
  CHECK(finite.outputs[0].improbable == 1);
  CHECK(finite.outputs[0].over == 0);
  // Control: well below the threshold both bounds are finite, no element judged statistically alone.
  const ExpOfDots below = exp_of_dots(80.0);
  const CheckReport bounded = check_ieee(m, below.inputs, {f32_array({8}, below.p), f32_array({}, {below.s})});
  CHECK(bounded.verdict() == Verdict::Pass);
  CHECK(bounded.outputs[0].statistical_only == 0);
  CHECK(bounded.first_unbounded.empty());
}

TEST_CASE("stat tier past a sound infinity: under tf32, exp of TF32 dot products near the threshold is judged statistically",
          "[bound][stat]") {
  const Module m = parse_module(kExpOfDots, "exp_of_dots.mlir");
  const FloatProfile tf32 = float_profile("tf32");
  // Under tf32 the dots' sound bounds allow each operand's truncation (2^-10 relative: about 0.17
  // at 88.7) and reach log(FLT_MAX) = 88.7228; their statistical bounds (conversions rounding to
  // nearest, about lambda sqrt(2 * 4096) 2^-11 88.7 / 4096, 0.006) do not.
  const ExpOfDots honest = exp_of_dots(88.70, 10);
  const auto check = [&](const std::vector<float>& p, float s) {
    return check_float_outputs(m, tf32, {honest.inputs}, {{f32_array({8}, p), f32_array({}, {s})}}, 1, {}, CheckOptions{});
  };
  const CheckReport r = check(honest.p, honest.s);
  INFO(format_table(r));
  CHECK(r.verdict() == Verdict::Pass);
  REQUIRE(r.outputs.size() == 2);
  CHECK(r.outputs[0].statistical_only == 8);  // NO VERDICT while tf32 kept the tier from judging alone
  CHECK(r.outputs[1].statistical_only == 1);
  CHECK(r.outputs[0].unbounded == 0);
  CHECK(r.worst_pratio > 0);
  CHECK(r.worst_pratio < 0.5);
  CHECK(r.first_unbounded.find("stablehlo.exponential") != std::string::npos);
  // Control: 2% off, far beyond a TF32 dot's error (the exp's relative error is about its
  // operand's, 0.006 at most): IMPROBABLE, never FAIL.
  std::vector<float> p2 = honest.p;
  for (auto& v : p2) v *= 1.02f;
  const CheckReport off = check(p2, honest.s * 1.02f);
  CHECK(off.verdict() == Verdict::Improbable);
  CHECK(off.outputs[0].improbable == 8);
  CHECK(off.outputs[0].over == 0);
}

TEST_CASE("sums: partial sums that may leave the float range leave the bound infinite though the whole sum fits", "[bound][stat]") {
  const Module m = parse_module(R"(module @m {
  func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %t = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
    return %t : tensor<f32>
  }
})",
                                "partial.mlir");
  // (3e38 + 3e38) - 3e38 is inf in float32; 3e38 + (3e38 - 3e38) is 3e38. Both are honest.
  const Arrays big = {f32_array({3}, {3e38f, 3e38f, -3e38f})};
  const float inf = std::numeric_limits<float>::infinity();
  REQUIRE(std::isinf((3e38f + 3e38f) - 3e38f));
  const CheckReport overflowed = check_ieee(m, big, {f32_array({}, {inf})});
  CHECK(overflowed.verdict() == Verdict::NoVerdict);  // formerly FAIL: an honest order called a bug
  CHECK(check_ieee(m, big, {f32_array({}, {3e38f})}).verdict() == Verdict::NoVerdict);
  // Control: partial sums within the range (at most 2e38): a bound, PASS, and inf a FAIL.
  const Arrays fits = {f32_array({3}, {1e38f, 1e38f, -1e38f})};
  CHECK(check_ieee(m, fits, {f32_array({}, {1e38f})}).verdict() == Verdict::Pass);
  CHECK(check_ieee(m, fits, {f32_array({}, {inf})}).verdict() == Verdict::Fail);
}

TEST_CASE("stat tier past a sound infinity: judged alone under every profile", "[bound][stat]") {
  for (const char* profile : {"ieee", "cuda", "tf32", "bf16"}) {
    const BoundDomain d(float_profile(profile));
    const BoundScalar x = past_overflow(0x1p-20f);
    INFO(profile);
    const ElementVerdict near = judge_element(d, x, 1 + 0x1p-21);
    const ElementVerdict far = judge_element(d, x, 1 + 0x1p-18);
    CHECK(near.verdict() == Verdict::Pass);
    CHECK(near.statistical_only);
    CHECK(far.verdict() == Verdict::Improbable);
    CHECK_FALSE(far.over);
    // Control: without a statistical bound either, no verdict.
    const ElementVerdict none = judge_element(d, past_overflow(std::numeric_limits<float>::infinity()), 1);
    CHECK(none.verdict() == Verdict::NoVerdict);
  }
}
