// The sampled statistical tier (interp/sampled/sampled.hpp): its rules on values computed by
// hand, its risk factors against the chi-square and Cauchy tails' closed forms, and
// `shlo check --sampled` on cifar8_bn_fwd: TF32 and bf16 outputs caught under ieee at every
// input range where the bound analysis alone misses them, float32 passing, and both passing under
// the profile they claim (the honest sweeps with the tier are in test_stat_tier.cpp). Two hidden
// diagnostics at the end:
// "[.sampled_diag]" (verdicts under each profile with and without the tier; SHLO_SAMPLED_TABLES=1
// prints each report with the tier; SHLO_SAMPLED_SAVE=DIR writes the inputs and the three output
// sets for `shlo check`; SHLO_SAMPLED_PROFILES="bf16 ..." judges under those profiles only,
// SHLO_SAMPLED_ONLY=1 with the tier only: a full-size program takes half an hour per profile) and
// "[.sampled_parts]" (the largest sigma_hat and sketch per instruction and how many elements are
// unbounded; SHLO_SAMPLED_PROFILE, SHLO_SAMPLED_EVENTS: the values' factors' event count, 1e8 unless
// set, the check's own is its analysis' event count; SHLO_SAMPLED_ELEMENT=O:I one output element's
// parts; SHLO_SAMPLED_SHOW=%name with SHLO_SAMPLED_VERBOSE=1 that value's first 64 elements'
// parts), on SHLO_SAMPLED_FILE (SHLO_SAMPLED_REPLICAS=R: on R replicas, judged together).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "ast/mlir_parse.hpp"
#include "interp/program_inputs.hpp"
#include "interp/run.hpp"
#include "interp/sampled/detail.hpp"
#include "interp/sampled/sampled.hpp"
#include "oracle/float_check.hpp"
#include "tests/stat_support.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

const char* const kProfiles[] = {"ieee", "tf32", "bf16"};
const int kOperandBits[] = {23, 10, 7};  // float32, TF32, bf16 outputs

// Verdict and worst error / statistical bound of outputs o under profile p, with and without
// the sampled tier: [sampled][p][o].
struct Judged {
  Verdict verdict[2][3][3];
  double pratio[2][3][3];
  std::string error[3];  // the sampled tier's, per profile
  bool judged[2][3] = {};  // which of them ran (SHLO_SAMPLED_PROFILES, SHLO_SAMPLED_ONLY)
};

Judged judge_all(const std::string& text, const std::vector<Arrays>& in) {
  const Module m = parse_module(text, "program");
  const int replicas = static_cast<int>(in.size());
  std::vector<std::vector<Arrays>> sets;  // [bits][replica]
  for (int bits : kOperandBits) sets.push_back(f32_outputs(bits == 23 ? text : with_rounded_operands(text, bits), in));
  if (const std::string dir = env_or("SHLO_SAMPLED_SAVE", ""); !dir.empty()) {  // for `shlo check`: DIR/inputs, DIR/<bits>
    // Several replicas as `shlo check -r R` reads them: DIR/inputs/r<k>/, DIR/<bits>/r<k>/.
    auto replica_dir = [&](const std::string& base, int r) { return replicas == 1 ? base : base + "/r" + std::to_string(r); };
    const auto& args = m.function().arguments;
    for (int r = 0; r < replicas; ++r) {
      const std::string inputs = replica_dir(dir + "/inputs", r);
      std::filesystem::create_directories(inputs);
      for (std::size_t i = 0; i < in[static_cast<std::size_t>(r)].size(); ++i)
        write_npy(inputs + "/" + args[i].name.substr(1) + ".npy", in[static_cast<std::size_t>(r)][i]);
      for (int o = 0; o < 3; ++o) {
        const std::string out = replica_dir(dir + "/" + std::to_string(kOperandBits[o]), r);
        std::filesystem::create_directories(out);
        const Arrays& results = sets[static_cast<std::size_t>(o)][static_cast<std::size_t>(r)];
        for (std::size_t i = 0; i < results.size(); ++i) write_npy(out + "/result" + std::to_string(i) + ".npy", results[i]);
      }
    }
  }
  Judged j{};
  const std::string profiles = " " + env_or("SHLO_SAMPLED_PROFILES", "ieee tf32 bf16") + " ";
  for (int s = env_or("SHLO_SAMPLED_ONLY", "0") == "1" ? 1 : 0; s < 2; ++s)
    for (int p = 0; p < 3; ++p) {
      j.judged[s][p] = profiles.find(std::string(" ") + kProfiles[p] + " ") != std::string::npos;
      if (!j.judged[s][p]) continue;
      CheckOptions options;
      options.sampled = s == 1;
      const auto reports = check_float_output_sets(m, float_profile(kProfiles[p]), in, sets, replicas, options);
      for (int o = 0; o < 3; ++o) {
        j.verdict[s][p][o] = reports[static_cast<std::size_t>(o)].verdict();
        j.pratio[s][p][o] = reports[static_cast<std::size_t>(o)].worst_pratio;
        if (s == 1 && env_or("SHLO_SAMPLED_TABLES", "0") == "1")
          std::printf("outputs with %d-bit operands under %s, with the sampled tier:\n%s\n", kOperandBits[o], kProfiles[p],
                      format_table(reports[static_cast<std::size_t>(o)]).c_str());
      }
      if (s == 1) j.error[p] = reports[0].sampled_error;
    }
  return j;
}

void print(const Judged& j, const char* what) {
  for (int s = 0; s < 2; ++s)
    for (int p = 0; p < 3; ++p)
      if (j.judged[s][p])
        std::printf("%s %-8s under %-4s: f32 %-10s %9.3g  tf32 %-10s %9.3g  bf16 %-10s %9.3g\n", what, s ? "sampled" : "analysis",
                    kProfiles[p], verdict_name(j.verdict[s][p][0]), j.pratio[s][p][0], verdict_name(j.verdict[s][p][1]),
                    j.pratio[s][p][1], verdict_name(j.verdict[s][p][2]), j.pratio[s][p][2]);
  for (int p = 0; p < 3; ++p)
    if (!j.error[p].empty()) std::printf("%s: the sampled tier under %s judged nothing: %s\n", what, kProfiles[p], j.error[p].c_str());
}

}  // namespace

TEST_CASE("sampled tier: the chi-square and Cauchy factors against their closed forms", "[sampled]") {
  // P = 2: P(chi2_2 <= x) = 1 - exp(-x/2), so the alpha-quantile is -2 log(1 - alpha).
  for (double alpha : {1e-3, 1e-9}) {
    const double x = -2 * std::log1p(-alpha);
    CHECK(chi_square_factor(2, alpha) == Approx(std::sqrt(2 / x)).epsilon(1e-9));
  }
  // One Cauchy draw: P(|w| < q) = (2/pi) atan(q), so q = tan(pi alpha / 2).
  CHECK(sketch_factor(1, 1, 1e-6) == Approx(1 / std::tan(M_PI / 2 * 1e-6)).epsilon(1e-9));
  // Two draws, the larger below q: ((2/pi) atan q)^2 = alpha.
  CHECK(sketch_factor(2, 2, 1e-6) == Approx(1 / std::tan(M_PI / 2 * 1e-3)).epsilon(1e-9));
  // Smaller risks need wider factors; the factors of the check's default risks.
  CHECK(chi_square_factor(kSampledPasses, 1e-18) > chi_square_factor(kSampledPasses, 1e-9));
  CHECK(chi_square_factor(kSampledPasses, 1e-9) > 1);
  const SampledFactors f = sampled_factors(3e-12, 1);
  CHECK(f.K == Approx(std::sqrt(2 * std::log(2 / 1e-12)) * chi_square_factor(kSampledPasses, 1e-12)));
  CHECK(f.Q == Approx(sketch_factor(kSampledPasses, kSketchRank, 1e-12)));
  CHECK(f.C == Approx(chi_square_factor(kSampledPasses, 1e-12)));
}

TEST_CASE("sampled tier: the Cauchy draws' tan(pi t) within 2e-15 of itself, up to the pole", "[sampled]") {
  const long double pi = 3.141592653589793238462643383279502884L;
  auto reference = [&](double t) {  // in long double, beyond 1/4 by the cotangent of the distance to 1/2
    const long double a = std::fabs(static_cast<long double>(t));
    const long double r = a <= 0.25L ? std::tan(pi * a) : 1 / std::tan(pi * (0.5L - a));
    return static_cast<double>(t < 0 ? -r : r);
  };
  double worst = 0;
  for (int i = -4999; i < 5000; ++i) {
    const double t = (static_cast<double>(i) + 0.37) / 10000;
    worst = std::max(worst, std::fabs(sampled_detail::tan_pi(t) / reference(t) - 1));
  }
  for (const double d : {0x1p-54, 0x1p-40, 1e-9, 1e-3})
    for (const double t : {0.5 - d, -(0.5 - d), 0.25 + d, 0.25 - d})
      worst = std::max(worst, std::fabs(sampled_detail::tan_pi(t) / reference(t) - 1));
  CHECK(worst < 2e-15);
  CHECK(worst > 0);  // the control: an approximation, not libm's tan
  // The control on the tolerance: libm's tan of M_PI t, whose argument's rounding is large near the
  // pole, misses the reference there by far more (the reason for the distance 1/2 - |t|).
  const double near_pole = 0.5 - 0x1p-40;
  CHECK(std::fabs(std::tan(M_PI * near_pole) / reference(near_pole) - 1) > 1e-6);
  CHECK(sampled_detail::tan_pi(0.5 - 0x1p-54) == Approx(0x1p54 / M_PI).epsilon(1e-14));
  CHECK(sampled_detail::tan_pi(-0.25) == Approx(-1).epsilon(1e-15));
}

TEST_CASE("sampled tier: a sum of 4096 ones carries the additions' noise for any order", "[sampled]") {
  const Module m = parse_module(kSumOf4096, "sum.mlir");
  const SampledDomain d(float_profile("ieee"), sampled_factors(1e-9, 1e4));
  const auto run = run_program(m, d, npy_values(d, m.function(), std::vector<Arrays>{{f32_array({4096}, std::vector<float>(4096, 1.0f))}}),
                               RunOptions{});
  const SampledScalar s = d.closed(std::get<Tensor<SampledScalar>>(run.outputs[0][0])[0]);
  CHECK(s.value == 4096);
  // 4095 additions, each within u times a partial sum: the exact one within M = 4096 (no term has
  // an error), the earlier roundings' within K D (Doob), D the deviation itself: D = u sqrt(4095)
  // (4096 + K D), all of it one normal draw in the tangents.
  const double a = 0x1p-24 * std::sqrt(4095.0), K = d.rest_factors().K;
  const double D = a * 4096 / (1 - a * K);
  CHECK(SampledDomain::sigma_hat(s) > 0.6 * D);
  CHECK(SampledDomain::sigma_hat(s) < 1.4 * D);
  // The sketch holds only what is not random: the double run's additions (4095 2^-53 4096) and
  // underflow; the 48th smallest of 64 |Cauchy| draws lies near 2.4 times the scale. (The
  // additions' second-order part as a source, as before, made it about 1e-5.)
  const double S = 4095 * 0x1p-53 * 4096 + 2 * 4096 * 0x1p-150;
  CHECK(SampledDomain::sketch_rank(s) > 0.5 * S);
  CHECK(SampledDomain::sketch_rank(s) < 6 * S);
  // The bound a check uses: every order's error lies within it, the worst one (gamma_4095 4096 =
  // 1.0) far outside.
  const double b = SampledDomain::bound(s, d.rest_factors());
  CHECK(b > 4095 * 0x1p-24 * 64);
  CHECK(b < 1.0);
}

TEST_CASE("sampled tier: a value's error shared by its copies cancels where the program subtracts them", "[sampled]") {
  // x * y computed twice is the same float: x*y - x*y is 0 in every evaluation, and its tangents
  // cancel exactly (the two roundings share their draw). x*y + x*y keeps twice the error.
  const char* text = R"(module @m {
  func.func @f(%x: tensor<f32>, %y: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
    %a = stablehlo.multiply %x, %y : tensor<f32>
    %b = stablehlo.multiply %x, %y : tensor<f32>
    %c = stablehlo.subtract %a, %b : tensor<f32>
    %d = stablehlo.add %a, %b : tensor<f32>
    return %c, %d : tensor<f32>, tensor<f32>
  }
})";
  const Module m = parse_module(text, "copies.mlir");
  const SampledDomain d(float_profile("ieee"), sampled_factors(1e-9, 10));
  const auto run = run_program(m, d, npy_values(d, m.function(), std::vector<Arrays>{{f32_array({}, {0.1f}), f32_array({}, {0.3f})}}),
                               RunOptions{});
  const SampledScalar c = d.closed(std::get<Tensor<SampledScalar>>(run.outputs[0][0])[0]);
  const SampledScalar sum = d.closed(std::get<Tensor<SampledScalar>>(run.outputs[0][1])[0]);
  CHECK(c.value == 0);
  CHECK(SampledDomain::sigma_hat(c) < 1e-20);  // only the subtraction's own rounding of a zero
  const double product = static_cast<double>(0.1f) * static_cast<double>(0.3f);
  // The sum: twice the product's rounding (u |p| each, the same draw) and its own rounding of 2p.
  CHECK(SampledDomain::sigma_hat(sum) > 0.6 * std::sqrt(4 + 4) * 0x1p-24 * product);
  CHECK(SampledDomain::sigma_hat(sum) < 1.4 * std::sqrt(4 + 4) * 0x1p-24 * product);
}

TEST_CASE("sampled tier: relu near its kink takes each pass's sample through it, far from it the operand", "[sampled]") {
  const SampledDomain d(float_profile("ieee"), sampled_factors(1e-9, 10));
  // 0.5 * 0.75 is exactly a float32: the product's sketch holds only the double run's 2^-52
  // parts, so its error is its rounding's tangents.
  const SampledScalar p = d.mul(d.from_double(0.5), d.from_double(0.75));
  const SampledScalar zero = d.from_double(0);
  const SampledScalar far = d.max(p, zero);
  CHECK(far.value == p.value);
  CHECK(far.tangent == p.tangent);
  // p minus its own value: 0 with p's error, within its bound of 0.
  const SampledScalar near = d.sub(p, d.from_double(p.value));
  CHECK(near.value == 0);
  REQUIRE(SampledDomain::sigma_hat(near) > 1e-9);
  REQUIRE(SampledDomain::sketch_rank(near) < 1e-14);
  const SampledScalar relu = d.max(near, zero);
  // At distance 0 the float result's first-order error is max(e, 0): each pass's sample of e
  // taken through the kink (the rest's stand-in, below 1e-14, moves it by no more).
  int positive = 0, negative = 0;
  for (std::size_t k = 0; k < relu.tangent.size(); ++k) {
    CHECK(relu.tangent[k] == Approx(std::max(near.tangent[k], 0.0)).margin(1e-13));
    (near.tangent[k] > 0 ? positive : negative) += 1;
  }
  CHECK(positive > 10);  // the control: both signs occur, so the kink changed some passes
  CHECK(negative > 10);
  // abs at 0: |e| per pass; far from 0 the operand or its negation, exactly.
  const SampledScalar a = d.abs(near);
  for (std::size_t k = 0; k < a.tangent.size(); ++k) CHECK(a.tangent[k] == Approx(std::fabs(near.tangent[k])).margin(1e-13));
  const SampledScalar minus = d.abs(d.neg(p));
  CHECK(minus.value == p.value);
  CHECK(minus.tangent == p.tangent);
}

TEST_CASE("sampled tier: a kink takes the rest of its operand's error per pass, by a stand-in", "[sampled]") {
  // x = 0.1 - 0.1f: both literals are exact in the double run, but the float program holds 0.1
  // rounded to float32, so x is 0 in every float evaluation: its error (-x, 1.5e-9) is a source
  // (not random), and its tangents carry only the subtraction's rounding (u |x|, about 1e-16).
  const SampledDomain d(float_profile("ieee"), sampled_factors(1e-9, 10));
  const SampledScalar x = d.sub(d.from_double(0.1), d.from_double(static_cast<double>(0.1f)));
  REQUIRE(x.value != 0);
  const double rest = d.rest_factors().Q * SampledDomain::sketch_rank(x);
  REQUIRE(rest > std::fabs(x.value));  // near its kink
  REQUIRE(SampledDomain::sigma_hat(x) < 1e-15);
  // max(x, 0) may be x or 0 in the float run: the passes take the rest's stand-in (normal, of
  // deviation its bound) through the kink, so some passes move by about the rest and others not.
  const SampledScalar relu = d.max(x, d.from_double(0));
  int moved = 0, still = 0;
  for (double t : relu.tangent.unpacked()) (std::fabs(t) > 1e-12 ? moved : still) += 1;
  CHECK(moved > 5);
  CHECK(still > 5);
  CHECK(SampledDomain::sigma_hat(relu) > 0.1 * rest);
  CHECK(SampledDomain::sigma_hat(relu) < 2 * rest);
  // The control: far from the kink nothing of the rest enters the tangents.
  const SampledScalar shifted = d.max(x, d.from_double(-1));
  CHECK(SampledDomain::sigma_hat(shifted) < 1e-15);
}

TEST_CASE("sampled tier: a product of two errors is taken per pass, with its mean", "[sampled]") {
  // near is 0 with an error e: near * near is e^2 >= 0, a bias, not a mean-zero term. Each
  // pass's sample is its tangent squared (the product's own rounding of 0 adds nothing).
  const SampledDomain d(float_profile("ieee"), sampled_factors(1e-9, 10));
  const SampledScalar p = d.mul(d.from_double(0.5), d.from_double(0.75));  // exactly a float32
  const SampledScalar e = d.sub(p, d.from_double(p.value));
  REQUIRE(e.value == 0);
  const SampledScalar square = d.mul(e, e);
  double mean = 0;
  for (std::size_t k = 0; k < square.tangent.size(); ++k) {
    // (plus t times the rest's stand-in, the rest below 1e-14 here)
    CHECK(square.tangent[k] == Approx(e.tangent[k] * e.tangent[k]).margin(1e-21));
    mean += square.tangent[k] / static_cast<double>(square.tangent.size());
  }
  CHECK(mean > 0);
}

TEST_CASE("sampled tier: a smooth function's rest wider than its spread is bounded by the spread", "[sampled]") {
  // x = 0.3 with a rest (sketch part) of scale 50 and small tangents: tanh(x + R) - tanh(x) is
  // within 2 whatever R is, so tanh(x)'s bound is a few times 2, not the rest through tanh'(x).
  const SampledDomain d(float_profile("ieee"), sampled_factors(1e-9, 10));
  SampledWide w = unpack(d.from_double(0.3));
  for (std::size_t k = 0; k < w.sketch.size(); ++k) {
    w.tangent[k] = 1e-3 * std::sin(0.7 * static_cast<double>(k) + 1);
    w.sketch[k] = 50 * std::tan(0.049 * static_cast<double>(k) - 1.5);  // Cauchy-like, scale tens
  }
  const SampledScalar x = pack(w);
  const double rest = d.rest_factors().Q * SampledDomain::sketch_rank(x);
  REQUIRE(rest > 20);
  const SampledScalar t = d.tanh(x);
  REQUIRE(!t.infinite);
  const double bound = SampledDomain::bound(t, d.rest_factors());
  CHECK(bound < 20);  // about Q times the 48th of 64 |Cauchy| draws of scale 2
  CHECK(bound > 2);   // and never below the spread itself
  // The tangents still go through tanh exactly, pass by pass (plus the rounding's draw: a few
  // ulps of the value and its rest).
  for (std::size_t k = 0; k < t.tangent.size(); ++k)
    CHECK(t.tangent[k] == Approx(std::tanh(0.3 + x.tangent[k]) - t.value).margin(3e-5));
  // Control: a rest well within the spread keeps its first-order part through tanh'(x), sample by
  // sample (its correlations with other values), not a source (plus the roundings' sources).
  for (std::size_t k = 0; k < w.sketch.size(); ++k) w.sketch[k] *= 1e-6;
  const SampledScalar small_x = pack(w), small = d.tanh(small_x);
  const double slope = 1 - std::tanh(0.3) * std::tanh(0.3);
  double dot = 0, xx = 0, yy = 0;
  for (std::size_t k = 0; k < small.sketch.size(); ++k) {
    dot += small.sketch[k] * small_x.sketch[k];
    xx += small_x.sketch[k] * small_x.sketch[k];
    yy += small.sketch[k] * small.sketch[k];
  }
  CHECK(dot / std::sqrt(xx * yy) > 0.95);            // the operand's sketch, sample by sample
  CHECK(dot / xx == Approx(slope).epsilon(0.05));    // through tanh'(x)
  CHECK(SampledDomain::bound(small, d.rest_factors()) < 0.01);
}

TEST_CASE("sampled tier: a product in tiles of operands gives what one tile gives, element by element", "[sampled]") {
  // 5 x 7 times 7 x 6 with errors on both sides, under tf32 (each operand converted once per
  // tile): a budget of 7 operands takes one row of A and one column of B at a time.
  const SampledDomain d(float_profile("tf32"), sampled_factors(1e-9, 10));
  const SampledRules& rules = d.rules();
  const std::int64_t M = 5, K = 7, N = 6;
  auto erred = [&](double x) { return d.mul(d.from_double(x), d.from_double(1.0 / 3)); };  // a rounding
  std::vector<SampledScalar> A, B;
  for (std::int64_t i = 0; i < M * K; ++i) A.push_back(erred(0.1 * static_cast<double>(i % 11) - 0.5));
  for (std::int64_t i = 0; i < K * N; ++i) B.push_back(erred(0.25 * static_cast<double>(i % 5) + 0.125));
  std::vector<SampledScalar> whole(static_cast<std::size_t>(M * N)), tiled = whole;
  rules.matmul_tiled(A.data(), B.data(), whole.data(), M, K, N, 1 << 20);
  rules.matmul_tiled(A.data(), B.data(), tiled.data(), M, K, N, K);
  // The control: the same on unpacked values, and every product by mac in increasing k. (Not
  // against the packed run's coordinates: a draw's key holds a value's first coordinates, so the
  // two draw apart.)
  std::vector<SampledWide> wide_a, wide_b;
  for (const auto& x : A) wide_a.push_back(unpack(x));
  for (const auto& x : B) wide_b.push_back(unpack(x));
  std::vector<SampledWide> wide(whole.size()), each(whole.size());
  rules.matmul_tiled(wide_a.data(), wide_b.data(), wide.data(), M, K, N, K);
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t k = 0; k < K; ++k)
        rules.mac(each[static_cast<std::size_t>(m * N + n)], wide_a[static_cast<std::size_t>(m * K + k)], wide_b[static_cast<std::size_t>(k * N + n)]);
  for (std::size_t i = 0; i < whole.size(); ++i) {
    const SampledScalar a = d.closed(whole[i]), b = d.closed(tiled[i]);
    const SampledWide c = rules.closed(wide[i]), e = rules.closed(each[i]);
    REQUIRE(a.value != 0);
    CHECK(b.value == a.value);
    CHECK(c.value == a.value);
    CHECK(e.value == a.value);
    CHECK(SampledDomain::sigma_hat(a) > 0);
    for (std::size_t k = 0; k < a.tangent.size(); ++k) {
      CHECK(b.tangent[k] == a.tangent[k]);
      CHECK(b.sketch[k] == a.sketch[k]);
      CHECK(e.tangent[k] == c.tangent[k]);
      CHECK(e.sketch[k] == c.sketch[k]);
    }
  }
}

TEST_CASE("sampled tier: packed coordinates keep each to 2^-24 of itself, at any scale", "[sampled]") {
  for (const double scale : {1.0, 0x1p-140, 0x1p-1060, 0x1p+300, 1e308}) {
    std::array<double, kSampledPasses> x{};
    for (std::size_t k = 0; k < x.size(); ++k) x[k] = scale * std::sin(0.37 * static_cast<double>(k * k) + 1) * (k % 7 == 0 ? 1e-30 : 1);
    x[5] = 0;
    const auto y = PackedCoordinates(x).unpacked();
    INFO("scale " << scale);
    for (std::size_t k = 0; k < x.size(); ++k) {
      const double largest = scale;  // within (1/2, 1] of the largest |x|
      // Each to 2^-24 of itself, or (far below the largest) to 2^-149 of the largest.
      CHECK(std::fabs(y[k] - x[k]) <= std::max(0x1p-24 * std::fabs(x[k]), 0x1p-148 * largest));
    }
    CHECK(y[5] == 0);
    CHECK(PackedCoordinates(y).unpacked() == y);  // packing what was packed changes nothing
  }
  // The control: a coordinate 2^-160 below the largest is lost (flushed to 0), as documented.
  std::array<double, kSampledPasses> x{};
  x[0] = 1;
  x[1] = 0x1p-160;
  CHECK(PackedCoordinates(x).unpacked()[1] == 0);
  // Non-finite coordinates stay non-finite.
  x[2] = std::numeric_limits<double>::infinity();
  const auto y = PackedCoordinates(x).unpacked();
  CHECK(std::isinf(y[2]));
  CHECK(y[0] == 1);
}

namespace {

// TF32 and bf16 outputs of cifar8_bn_fwd at a batch of 8, inputs in `range`: IMPROBABLE under
// ieee, float32 passing, and each passing under the profile it claims.
void check_cifar8_bn_fwd(const Range range) {
  const std::string original = read_file(artifact("cifar8_bn_fwd"));
  if (original.empty()) {
    WARN("skipped: " << artifact("cifar8_bn_fwd") << " is absent");
    return;
  }
  // Eight batch norms of 16 to 64 channels: the analysis' one random part per value cannot keep a
  // channel's mean and root in every element, and misses TF32 (docs/measurements.md).
  const std::string text = cifar8_bn_fwd_at_8(original);
  const Module m = parse_module(text, "cifar8_bn_fwd_8.mlir");
  const Arrays in = random_inputs(m, 1, range.lo, range.hi);
  const std::vector<std::vector<Arrays>> sets = float32_tf32_bf16_outputs(text, in);
  CheckOptions with;
  with.sampled = true;
  const auto alone = check_float_output_sets(m, float_profile("ieee"), {in}, sets, 1);
  const auto both = check_float_output_sets(m, float_profile("ieee"), {in}, sets, 1, with);
  INFO("inputs in [" << range.lo << ", " << range.hi << ")\n" << format_table(both[1]));
  CHECK(both[0].sampled_error.empty());
  // The control: without the sampled tier TF32 is not caught here.
  CHECK(alone[1].verdict() != Verdict::Improbable);
  CHECK(alone[1].verdict() != Verdict::Fail);
  CHECK(both[0].verdict() == Verdict::Pass);
  CHECK(both[0].worst_pratio < 0.1);
  CHECK(both[1].verdict() == Verdict::Improbable);
  CHECK(both[1].worst_pratio > 3);
  CHECK(both[2].verdict() == Verdict::Improbable);
  CHECK(both[2].worst_pratio > 20);
  // Under the profiles they claim, TF32 and bf16 outputs pass at every range: each rounding's
  // second-order part, a smooth function's curvature and the rest through a kink are taken per
  // pass (as sources their bounds added linearly downstream and the bound was infinite by the
  // fourth batch norm at inputs of both signs). The controls: the same outputs are IMPROBABLE
  // under ieee (above), and the analysis alone has no verdict under tf32.
  const auto tf32_both = check_float_output_sets(m, float_profile("tf32"), {in}, {sets[0], sets[1], sets[2]}, 1, with);
  INFO("under tf32\n" << format_table(tf32_both[1]));
  CHECK(tf32_both[0].verdict() == Verdict::Pass);
  CHECK(tf32_both[1].verdict() == Verdict::Pass);
  CHECK(tf32_both[1].worst_pratio < 0.5);
  const auto bf16_both = check_float_output_sets(m, float_profile("bf16"), {in}, {sets[0], sets[2]}, 1, with);
  INFO("under bf16\n" << format_table(bf16_both[1]));
  // At inputs of both signs the last normalisation's variance of one image and channel (over 4 x 4
  // positions, most of them zeroed by a relu) may lie within its bound of 0 under bf16; a sum of
  // squares plus epsilon is at least epsilon, and its root is taken per pass by that floor (it
  // was unbounded, and that image's 10 logits NO VERDICT: docs/measurements.md).
  for (const auto& report : bf16_both) {
    INFO(format_table(report));
    CHECK(report.verdict() == Verdict::Pass);
  }
  CHECK(bf16_both[1].worst_pratio < 0.5);
  // All outputs together (oracle/sampled_aggregate.hpp): bf16 outputs pass tf32's bounds element
  // by element (above), but their errors together are about 3.3 sigma_hat in root mean square,
  // where honest ones exceed about 2.7 to 3.1 with probability 1e-3; TF32's are about 0.45. The
  // controls: honest and TF32 outputs fit tf32, bf16 ones fit bf16, and under ieee every
  // reduced-precision set is UNLIKELY while float32 fits.
  auto fit = [](const CheckReport& r, bool unlikely) {
    INFO(format_table(r));
    CHECK(r.aggregate.tested);
    CHECK(r.aggregate.elements == 80);
    CHECK(r.aggregate.unlikely() == unlikely);
  };
  fit(both[0], false);
  fit(both[1], true);
  fit(both[2], true);
  fit(tf32_both[0], false);
  fit(tf32_both[1], false);
  CHECK(tf32_both[1].aggregate.rms < 0.6);
  CHECK(tf32_both[2].verdict() == Verdict::Pass);
  fit(tf32_both[2], true);
  CHECK(tf32_both[2].consistent_profiles == std::vector<std::string>{"tf32"});
  CHECK(tf32_both[2].fitting_profile.empty());
  CHECK(tf32_both[1].fitting_profile == "tf32");
  fit(bf16_both[0], false);
  fit(bf16_both[1], false);
  CHECK(bf16_both[1].fitting_profile == "bf16");
  WARN("cifar8_bn_fwd at 8, inputs in [" << range.lo << ", " << range.hi << "), worst error over the statistical bound: under ieee float32 "
       << both[0].worst_pratio << ", TF32 " << both[1].worst_pratio << ", bf16 " << both[2].worst_pratio << "; TF32 under tf32 "
       << tf32_both[1].worst_pratio << ", bf16 under bf16 " << bf16_both[1].worst_pratio);
  if (range.lo == -1) {
    // As `shlo check --sampled` searches: bf16 outputs under ieee are consistent with tf32 and
    // bf16, and the errors together fit bf16, which the hint names.
    const CheckReport searched = check_float_outputs(m, float_profile("ieee"), {in}, sets[2], 1, {}, with);
    INFO(format_table(searched));
    CHECK(searched.consistent_profiles == std::vector<std::string>{"tf32", "bf16"});
    CHECK(searched.fitting_profile == "bf16");
    REQUIRE(searched.wider_fits.size() == 2);
    CHECK(searched.wider_fits[0].fit.unlikely());
    CHECK(!searched.wider_fits[1].fit.unlikely());
    CHECK(format_table(searched).find("hint: the outputs fit bf16: their products") != std::string::npos);
    CHECK(format_table(searched).find("the errors together fit bf16 (under tf32 their root mean square") != std::string::npos);
    CHECK(format_json(searched).find("\"fitting_profile\": \"bf16\"") != std::string::npos);
    CHECK(format_json(searched).find("\"unlikely\": true") != std::string::npos);
  }
  if (range.lo != 0) return;
  const auto tf32_alone = check_float_output_sets(m, float_profile("tf32"), {in}, {sets[0], sets[1]}, 1);
  CHECK(tf32_alone[1].verdict() == Verdict::NoVerdict);
}

}  // namespace

// One test per range, so that ctest runs them side by side (about two minutes each).
TEST_CASE("sampled tier: cifar8_bn_fwd at inputs in -1 to 1, TF32 and bf16 caught under ieee and passing under their own profiles",
          "[bound][stat][sampled][artifacts]") {
  check_cifar8_bn_fwd(kRanges[0]);
}
TEST_CASE("sampled tier: cifar8_bn_fwd at inputs in -0.1 to 0.1, TF32 and bf16 caught under ieee and passing under their own profiles",
          "[bound][stat][sampled][artifacts]") {
  check_cifar8_bn_fwd(kRanges[1]);
}
TEST_CASE("sampled tier: cifar8_bn_fwd at inputs in 0 to 0.01, TF32 and bf16 caught under ieee and passing under their own profiles",
          "[bound][stat][sampled][artifacts]") {
  check_cifar8_bn_fwd(kRanges[2]);
}

namespace {

// The hidden diagnostics' program and inputs: SHLO_SAMPLED_FILE, SHLO_SAMPLED_RANGE (default
// -0.1,0.1), SHLO_SAMPLED_SEED (default 1), SHLO_SAMPLED_REPLICAS (default 1: one replica's inputs
// as the tests draw them; R > 1 as `shlo run -r R --random-inputs SEED` draws them, different
// per replica); nothing when no file is set.
struct DiagnosticInput {
  std::string file, text;
  std::vector<Arrays> in;  // [replica]
};
std::optional<DiagnosticInput> diagnostic_input() {
  DiagnosticInput d{env_or("SHLO_SAMPLED_FILE", ""), "", {}};
  if (d.file.empty()) return std::nullopt;
  const auto [lo, hi] = range_of(env_or("SHLO_SAMPLED_RANGE", "-0.1,0.1"));
  d.text = read_file(d.file);
  const Module m = parse_module(d.text, d.file);
  const std::uint64_t seed = std::stoull(env_or("SHLO_SAMPLED_SEED", "1"));
  const int replicas = std::stoi(env_or("SHLO_SAMPLED_REPLICAS", "1"));
  if (replicas == 1) d.in = {random_inputs(m, seed, lo, hi)};
  else d.in = shlo::random_inputs(m.function(), seed, replicas, lo, hi).arrays;
  return d;
}

}  // namespace

TEST_CASE("sampled tier: verdicts on a program with and without it", "[.sampled_diag]") {
  const auto input = diagnostic_input();
  if (!input) {
    WARN("set SHLO_SAMPLED_FILE");
    return;
  }
  print(judge_all(input->text, input->in), input->file.c_str());
}

TEST_CASE("sampled tier: the parts of each output's bound", "[.sampled_parts]") {
  const auto input = diagnostic_input();
  if (!input) {
    WARN("set SHLO_SAMPLED_FILE");
    return;
  }
  const Module m = parse_module(input->text, input->file);
  FloatProfile profile = float_profile(env_or("SHLO_SAMPLED_PROFILE", "ieee"));
  if (env_or("SHLO_SAMPLED_RSQRT", "").size()) profile = with_allowance(profile, "rsqrt", std::stod(env_or("SHLO_SAMPLED_RSQRT", "2")));
  const SampledDomain d(profile, sampled_factors(2.5e-10, std::stod(env_or("SHLO_SAMPLED_EVENTS", "1e8"))));
  RunOptions options;
  options.replicas = static_cast<int>(input->in.size());  // replica 0's values are shown
  bool verbose = env_or("SHLO_SAMPLED_VERBOSE", "0") == "1";
  const auto body = instructions(m.function());
  const auto run = run_program_observed(m, d, npy_values(d, m.function(), input->in), options,
      [&](std::size_t k, const ValueEnv<SampledDomain>& values) {
        if (!verbose || k >= body.size()) return;
        const Instruction& inst = *body[k];
        const auto found = values[0].find(inst.result);
        if (found == values[0].end()) return;
        if (const auto* t = std::get_if<Tensor<SampledScalar>>(&found->second)) {
          if (inst.result == env_or("SHLO_SAMPLED_SHOW", ""))  // each element's parts, the first 64
            for (std::size_t i = 0; i < std::min<std::size_t>(t->data.size(), 64); ++i) {
              const auto x = d.closed(t->data[i]);
              std::printf("  [%zu] value %.6g bound %.3g%s%s floor %.4g log_floor %.6g log_high %.6g exact_most %.4g low %.4g\n", i, x.value,
                          SampledDomain::bound(x, d.rest_factors()), x.infinite ? " unbounded" : "", x.may_nan ? " may be NaN" : "",
                          x.floor, x.log_floor, x.log_high, x.exact_most, x.low);
            }
          double s = 0, p = 0, v = 0;
          int unbounded = 0, near_zero = 0, floored = 0;  // bounded but within the bound of 0; of those, with a floor > 0
          int unbounded_alternatives = 0;  // unbounded, NaN or an infinity one of their values
          int nan = 0, nan_bounded = 0;    // sure NaN; of those, with a bound on the exact counterpart
          for (const auto& x0 : t->data) {
            const auto x = d.closed(x0);
            unbounded += x.infinite;
            if (!x.infinite && std::isnan(x.value)) {
              ++nan;
              nan_bounded += x.exact_most < std::numeric_limits<double>::infinity();
            }
            unbounded_alternatives += x.infinite && (x.may_nan || x.may_inf);
            s = std::max(s, SampledDomain::sigma_hat(x));
            p = std::max(p, SampledDomain::sketch_rank(x));
            v = std::max(v, std::fabs(x.value));
            if (!x.infinite && std::isfinite(x.value) && !(std::fabs(x.value) > SampledDomain::bound(x, d.rest_factors()))) {
              ++near_zero;
              floored += x.low > 0;
            }
          }
          std::printf("%-8s %-22s max|v| %10.3g  max sigma %10.3g  max sketch %10.3g  unbounded %d (%d may be NaN or inf)  near 0 %d (floored %d)  NaN %d (exact bounded %d)\n",
                      inst.result.c_str(), op_name(inst.op), v, s, p, unbounded, unbounded_alternatives, near_zero, floored, nan, nan_bounded);
        }
      });
  std::printf("rest factors K %.3g Q %.3g\n", d.rest_factors().K, d.rest_factors().Q);
  // SHLO_SAMPLED_ELEMENT=O:I: output O's element I (flat), its parts at the values' factors.
  if (const std::string at = env_or("SHLO_SAMPLED_ELEMENT", ""); !at.empty()) {
    const std::size_t o = std::stoul(at.substr(0, at.find(':'))), i = std::stoul(at.substr(at.find(':') + 1));
    const auto& t = std::get<Tensor<SampledScalar>>(run.outputs[0].at(o));
    const auto x = d.closed(t.data.at(i));
    std::printf("output %zu element %zu: value %.9g sigma_hat %.4g sketch_(k) %.4g bound %.4g low %.4g%s%s%s\n", o, i, x.value,
                SampledDomain::sigma_hat(x), SampledDomain::sketch_rank(x), SampledDomain::bound(x, d.rest_factors()), x.low,
                x.infinite ? " unbounded" : "", x.may_nan ? " may be NaN" : "", x.may_inf ? " may be inf" : "");
  }
  for (const auto& value : run.outputs[0])
    if (const auto* t = std::get_if<Tensor<SampledScalar>>(&value)) {
      double s = 0, p = 0;
      int unbounded = 0, sure = 0, may_nan = 0;
      for (const auto& x0 : t->data) {
        const auto x = d.closed(x0);
        if (x.infinite) ++unbounded;
        else if (!std::isfinite(x.value)) ++sure;
        else {
          s = std::max(s, SampledDomain::sigma_hat(x));
          p = std::max(p, SampledDomain::sketch_rank(x));
        }
        may_nan += x.may_nan;
      }
      std::printf("output: max sigma_hat %.3g, max sketch %.3g; unbounded %d, sure inf or NaN %d, may be NaN %d\n", s, p, unbounded,
                  sure, may_nan);
    }
}
