// Allowances set by hand (`shlo check --allow exp=2.5`): a library function less accurate than
// the profile says (NumPy's SIMD exp measured 2.4 ulps where the ieee profile allows glibc's
// 1) is judged against the allowance the user gives, in both tiers, and keeps it in the wider
// profiles the check tries and in the report.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "ast/mlir_parse.hpp"
#include "oracle/float_check.hpp"
#include "tests/stat_support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

const char* kExp = R"(module @m {
  func.func @f(%x: tensor<f32>) -> tensor<f32> {
    %e = stablehlo.exponential %x : tensor<f32>
    return %e : tensor<f32>
  }
})";

CheckReport check_exp(float output, const FloatProfile& profile) {
  const Module m = parse_module(kExp, "exp.mlir");
  CheckOptions o;
  o.find_consistent_profiles = false;
  return check_float_outputs(m, profile, {{f32_array({}, {1.0f})}}, {{f32_array({}, {output})}}, 1, {}, o);
}

}  // namespace

TEST_CASE("allowance: exp(1) three float32 steps above the nearest fails 1 ulp and passes 2.5, by hand", "[bound][profile]") {
  // float32 exp(1) rounded to nearest is 0x1.5bf0a8p+1; three steps of 2^-22 above it the
  // error against e is 6.33e-7, that is 1.95 of the allowance's unit |r| 2^-23 (3.24e-7).
  const float nearest = 0x1.5bf0a8p+1f;
  REQUIRE(std::fabs(static_cast<double>(nearest) - std::exp(1.0)) < 0x1p-23);
  const float off = nearest + 3 * 0x1p-22f;
  const double error = static_cast<double>(off) - std::exp(1.0);
  const double units = error / (static_cast<double>(off) * 0x1p-23);
  REQUIRE(units == Approx(1.953).epsilon(1e-3));

  const FloatProfile ieee = float_profile("ieee");
  CHECK(check_exp(nearest, ieee).verdict() == Verdict::Pass);  // control: the honest result
  const CheckReport strict = check_exp(off, ieee);
  CHECK(strict.verdict() == Verdict::Fail);
  CHECK(strict.allowances.empty());

  const CheckReport loose = check_exp(off, with_allowance(ieee, "exp", 2.5));
  CHECK(loose.verdict() == Verdict::Pass);
  // One op of an exact operand: the bound is the allowance (and the enclosure's width, 1e-16).
  CHECK(loose.worst_ratio == Approx(units / 2.5).epsilon(1e-6));
  CHECK(loose.worst_pratio <= loose.worst_ratio * (1 + 1e-12));
  CHECK(loose.allowances == "exp 2.5 (ulps, set by hand)");
  CHECK(format_table(loose).find("profile ieee with exp 2.5 (ulps, set by hand)") != std::string::npos);
  CHECK(format_json(loose).find("\"allowances\": \"exp 2.5 (ulps, set by hand)\"") != std::string::npos);
  CHECK(format_html(loose).find("Profile <b>ieee</b> with exp 2.5 (ulps, set by hand)") != std::string::npos);
  CHECK(format_html(strict).find("set by hand") == std::string::npos);  // control: none set, none said
  // Control: an allowance below the error still fails; another function's changes nothing.
  CHECK(check_exp(off, with_allowance(ieee, "exp", 1.5)).verdict() == Verdict::Fail);
  CHECK(check_exp(off, with_allowance(ieee, "log", 4)).verdict() == Verdict::Fail);
}

TEST_CASE("allowance: the wider profiles keep it, and bad allowances are refused by name", "[bound][profile]") {
  const FloatProfile mine = with_allowance(with_allowance(float_profile("ieee"), "exp", 2.5), "log", 4);
  CHECK(mine.exp == 2.5);
  CHECK(mine.log == 4);
  CHECK(mine.tanh == float_profile("ieee").tanh);
  CHECK(allowances_text(mine) == "exp 2.5, log 4 (ulps, set by hand)");
  const FloatProfile twice = with_allowance(mine, "exp", 3);
  CHECK(twice.exp == 3);
  CHECK(allowances_text(twice) == "exp 3, log 4 (ulps, set by hand)");  // the last word, in the first place
  const FloatProfile wider = with_allowances_of(float_profile("tf32"), mine);
  CHECK(wider.operand_bits == 10);
  CHECK(wider.exp == 2.5);
  CHECK(wider.log == 4);
  CHECK(float_profile("tf32").exp == 1);  // control: the named profile itself is unchanged
  CHECK(allowances_text(float_profile("cuda")).empty());

  CHECK_THROWS_WITH(with_allowance(float_profile("ieee"), "cosh", 2), Catch::Contains("expected one of div sqrt rsqrt exp log tanh logistic"));
  CHECK_THROWS_AS(with_allowance(float_profile("ieee"), "exp", 0.25), std::invalid_argument);
  CHECK_THROWS_AS(with_allowance(float_profile("ieee"), "exp", std::nan("")), std::invalid_argument);
  CHECK_THROWS_AS(with_allowance(float_profile("ieee"), "exp", INFINITY), std::invalid_argument);
  CHECK_NOTHROW(with_allowance(float_profile("ieee"), "div", 0.5));  // correctly rounded: the least there is
}
