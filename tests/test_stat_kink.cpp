// The statistical tier near a kink (interp/bound/bound.hpp, "Near a kink"): a max whose
// comparison the statistical tier cannot decide (relu of a value within its statistical bound
// of 0) keeps its operands' random parts, sqrt(2) wider, with the kink's mean as a plain
// part, so that a later sum adds the relus' random parts in quadrature.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>

#include "ast/mlir_parse.hpp"
#include "interp/bound/bound.hpp"
#include "interp/run.hpp"
#include "oracle/float_check.hpp"
#include "tests/stat_support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

// min(sigma / 2, sigma sqrt(pi / 2) erfc(distance / (sigma sqrt 2))), by hand.
double kink_mean(double sigma, double distance) {
  return std::min(sigma / 2, sigma * std::sqrt(M_PI / 2) * std::erfc(distance / (sigma * std::sqrt(2.0))));
}

}  // namespace

TEST_CASE("stat tier: relu near its kink keeps sqrt(2) times the random part and the kink's mean as plain", "[bound][stat]") {
  const BoundDomain d(float_profile("ieee"), 6.0);
  const double sigma = 1e-6, err = 1e-3;
  const BoundScalar zero = d.from_double(0);
  SECTION("at the kink: mean sigma / 2") {
    const BoundScalar r = d.max(closed_scalar(0, err, 2e-7f, sigma), zero);
    CHECK(r.flags & kMayFlip);
    CHECK(r.st.sigma == Approx(std::sqrt(2.0) * sigma).epsilon(1e-12));
    CHECK(r.pdet == Approx(2e-7 + kink_mean(sigma, 0)).epsilon(1e-6));
    CHECK(kink_mean(sigma, 0) == Approx(0.5 * sigma));
    CHECK(kink_mean(sigma, sigma) == Approx(0.39769 * sigma).epsilon(1e-4));  // the tail integral, below sigma / 2 from 0.84 sigma on
    CHECK(r.pdet < 6 * sigma);  // control: the plain bound this replaces, lambda sigma + pdet
    // That plain bound stays the value's own (the narrower), the random form kept for later sums.
    CHECK(r.flags & kPlainCap);
    CHECK(d.pbound(r) == Approx(2e-7 + 6 * sigma).epsilon(1e-6));
    CHECK(d.pbound(r) < r.pdet + 6 * r.st.sigma);
  }
  SECTION("three sigma away: the mean is 0.0034 sigma; and min, through max") {
    const BoundScalar r = d.max(closed_scalar(-3 * sigma, err, 0, sigma), zero);
    CHECK(r.st.sigma == Approx(std::sqrt(2.0) * sigma).epsilon(1e-12));
    CHECK(r.pdet == Approx(kink_mean(sigma, 3 * sigma)).epsilon(1e-6));
    CHECK(r.pdet == Approx(0.0033834 * sigma).epsilon(1e-4));
    const BoundScalar m = d.min(closed_scalar(3 * sigma, err, 0, sigma), zero);
    CHECK(m.st.sigma == Approx(std::sqrt(2.0) * sigma).epsilon(1e-12));
    CHECK(m.pdet == Approx(r.pdet).epsilon(1e-6));
  }
  SECTION("control: decided in the statistical tier, the operand as it is") {
    const BoundScalar r = d.max(closed_scalar(10 * sigma, err, 0, sigma), zero);
    CHECK(r.st.sigma == Approx(sigma).epsilon(1e-12));
    CHECK(r.pdet == 0);
    const BoundScalar below = d.max(closed_scalar(-10 * sigma, err, 0, sigma), zero);
    CHECK(below.st.sigma == 0);
    CHECK(d.pbound(below) == 0);
  }
  SECTION("two random parts (a max-pool's near-tie): both kept, in quadrature") {
    const BoundScalar r = d.max(closed_scalar(0, err, 3e-7f, 0.5 * sigma), closed_scalar(sigma, err, 1e-7f, sigma));
    CHECK(r.st.sigma == Approx(std::sqrt(2 * 1.25) * sigma).epsilon(1e-12));
    CHECK(r.pdet == Approx(3e-7 + kink_mean(1.5 * sigma, sigma)).epsilon(1e-6));
  }
  SECTION("control: kept only where the plain part shrinks") {
    // The other operand's plain 1e-4 dwarfs lambda sigma: the generic bound is the tighter.
    const BoundScalar r = d.max(closed_scalar(0, err, 0, sigma), closed_scalar(0, err, 1e-4f, 0));
    CHECK(r.st.sigma == 0);
    CHECK(d.pbound(r) == Approx(1e-4).epsilon(1e-6));
  }
}

TEST_CASE("stat tier: the kink's mean bound holds for sums of random signs and is not zero", "[bound][stat]") {
  // g: sums of n steps +-a of random sign (sub-Gaussian with proxy n a^2, the model's worst
  // case for bounded steps). E relu(g) is about sigma / sqrt(2 pi) = 0.40 sigma: under the
  // bound (sigma / 2) and well above 0, so treating relu's error as mean-zero would be wrong.
  const BoundDomain d(float_profile("ieee"), 6.0);
  const int n = 64, draws = 200000;
  const double a = 1e-8, sigma = a * std::sqrt(static_cast<double>(n));
  const BoundScalar r = d.max(closed_scalar(0, 1, 0, sigma), d.from_double(0));
  std::mt19937_64 gen(5);
  double mean = 0, spread2 = 0;
  for (int i = 0; i < draws; ++i) {
    std::uint64_t bits = gen();
    double g = 0;
    for (int k = 0; k < n; ++k, bits >>= 1) g += bits & 1 ? a : -a;
    mean += std::max(g, 0.0);
    spread2 += std::max(g, 0.0) * std::max(g, 0.0);
  }
  mean /= draws;
  const double deviation = std::sqrt(spread2 / draws - mean * mean);
  INFO("E relu(g) = " << mean / sigma << " sigma, its bound " << r.pdet / sigma << " sigma");
  CHECK(mean < r.pdet);
  CHECK(mean > 0.3 * sigma);  // control: a real bias
  // relu(g) - E relu(g) within the kept random part's proxy: its deviation below sqrt(2) sigma.
  CHECK(deviation < r.st.sigma);
  CHECK(deviation > 0.5 * sigma);
}

namespace {

// 64 row sums of 4096 inputs less %c (their values rounded to float32, so the differences lie
// within the sums' statistical bounds of 0), relu, and their sum: a dense layer's view of
// relus that may flip. %sel is the same relu as a select, which keeps no random part.
const char* kKink = R"(module @m {
  func.func @f(%x: tensor<64x4096xf32>, %c: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<f32>, tensor<f32>) {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %a = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<64x4096xf32>, tensor<f32>) -> tensor<64xf32>
    %t = stablehlo.subtract %a, %c : tensor<64xf32>
    %zeros = stablehlo.constant dense<0.0> : tensor<64xf32>
    %r = stablehlo.maximum %t, %zeros : tensor<64xf32>
    %s = stablehlo.reduce(%r init: %z) applies stablehlo.add across dimensions = [0] : (tensor<64xf32>, tensor<f32>) -> tensor<f32>
    %p = stablehlo.compare GT, %t, %zeros : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xi1>
    %sel = stablehlo.select %p, %t, %zeros : tensor<64xi1>, tensor<64xf32>
    %ssel = stablehlo.reduce(%sel init: %z) applies stablehlo.add across dimensions = [0] : (tensor<64xf32>, tensor<f32>) -> tensor<f32>
    return %t, %r, %s, %ssel : tensor<64xf32>, tensor<64xf32>, tensor<f32>, tensor<f32>
  }
})";

struct KinkRun {
  Module m = parse_module(kKink, "kink.mlir");
  Arrays in;
  std::vector<float> sums;  // float32, left to right
  KinkRun(std::uint64_t seed) {
    in = random_inputs(m, seed, -1, 1);
    const auto& x = data(in[0]);
    std::vector<float> c(64);
    sums.assign(64, 0);
    for (int i = 0; i < 64; ++i) {
      double exact = 0;  // in double: c within an ulp of float32 of the exact sum
      for (int k = 0; k < 4096; ++k) {
        exact += x[i * 4096 + k];
        sums[i] += x[i * 4096 + k];
      }
      c[i] = static_cast<float>(exact);
    }
    in[1] = f32_array({64}, c);
  }
};

}  // namespace

TEST_CASE("stat tier: a sum of relus near their kink adds their random parts in quadrature", "[bound][stat]") {
  const KinkRun run(1);
  const BoundDomain d(float_profile("ieee"), 6.0);
  const auto out = bound_outputs(d, run.m, run.in);
  const auto &t = out[0], &r = out[1];
  double linear = 0, kink_means = 0, quadrature = 0;
  int near_kink = 0;
  for (int i = 0; i < 64; ++i) {
    near_kink += (r[i].flags & kMayFlip) != 0 && d.sigma(r[i]) > 0;
    linear += d.pbound(t[i]);  // what each relu's plain bound was before: its operand's bound
    kink_means += r[i].pdet;
    quadrature += d.sigma(r[i]) * d.sigma(r[i]);
  }
  INFO(near_kink << " relus near their kink; sum's pbound " << d.pbound(out[2][0]) << ", the relus' bounds summed " << linear);
  CHECK(near_kink == 64);
  // The sum's bound: the kinks' means linearly, the random parts in quadrature (and the sum's
  // own roundings): about 64 * 0.2 lambda sigma + lambda sqrt(128) sigma, a third of the linear.
  CHECK(d.pbound(out[2][0]) < 0.5 * linear);
  CHECK(d.pbound(out[2][0]) >= kink_means);
  CHECK(d.pbound(out[2][0]) >= 6 * std::sqrt(quadrature));
  // Control: the relu as a select whose comparison may flip keeps no random part: linear.
  CHECK(d.pbound(out[3][0]) >= linear);
}

TEST_CASE("stat tier: honest float32 relus near their kink pass and a bias of their mean is caught", "[bound][stat]") {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const KinkRun run(seed);
    const auto& c = data(run.in[1]);
    const auto& x = data(run.in[0]);
    // Three orders of the row sums: left to right, right to left, pairwise.
    for (int order = 0; order < 3; ++order) {
      std::vector<float> t(64), r(64);
      float s = 0;
      for (int i = 0; i < 64; ++i) {
        float a = 0;
        if (order == 0) a = run.sums[i];
        if (order == 1)
          for (int k = 4095; k >= 0; --k) a += x[i * 4096 + k];
        if (order == 2) {
          std::vector<float> v(x.begin() + i * 4096, x.begin() + (i + 1) * 4096);
          for (std::size_t w = 1; w < v.size(); w *= 2)
            for (std::size_t k = 0; k + w < v.size(); k += 2 * w) v[k] += v[k + w];
          a = v[0];
        }
        t[i] = a - c[i];
        r[i] = std::max(t[i], 0.0f);
        s += r[i];
      }
      std::vector<NpyArray> outputs = {f32_array({64}, t), f32_array({64}, r), f32_array({}, {s}), f32_array({}, {s})};
      const CheckReport report = check_float_outputs(run.m, float_profile("ieee"), {run.in}, {outputs}, 1);
      INFO("seed " << seed << ", order " << order << ": worst error over the statistical bound " << report.worst_pratio);
      CHECK(report.verdict() == Verdict::Pass);
      if (order > 0) continue;
      // Control: the sum of relus moved by the statistical bound the sum now has is caught.
      const BoundDomain d(float_profile("ieee"), report.lambda);
      const auto b = bound_outputs(d, run.m, run.in);
      outputs[2] = f32_array({}, {static_cast<float>(s + 1.5 * d.pbound(b[2][0]))});
      CHECK(check_float_outputs(run.m, float_profile("ieee"), {run.in}, {outputs}, 1).verdict() == Verdict::Improbable);
    }
  }
}
