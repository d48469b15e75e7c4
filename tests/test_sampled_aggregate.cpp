// The sampled tier's test of all outputs together (oracle/sampled_aggregate.hpp): the Gram
// matrix's eigenvalue bound against matrices of known spectrum, and the test's level and power
// on Gaussian errors of known correlation, drawn here as the model says the passes are.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "ast/mlir_parse.hpp"
#include "interp/program_inputs.hpp"
#include "interp/run.hpp"
#include "oracle/float_check.hpp"
#include "oracle/sampled_aggregate.hpp"
#include "tests/stat_support.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

constexpr int P = SampledGram::P;

std::array<double, P> unit_vector(int p) {
  std::array<double, P> t{};
  t[static_cast<std::size_t>(p)] = 1;
  return t;
}

}  // namespace

TEST_CASE("sampled aggregate: the Gram matrix's largest eigenvalue bound on known spectra", "[sampled]") {
  // Each element adds u u^T with |u|^2 = P (its tangents over their root mean square).
  SampledGram shared;  // one element with equal tangents: G = J, eigenvalues P and 0
  std::array<double, P> ones;
  ones.fill(2.5);
  shared.add(ones, 2.5);
  CHECK(shared(0, 5) == Approx(1));
  CHECK(shared.largest_eigenvalue_bound() >= P);
  CHECK(shared.largest_eigenvalue_bound() <= P * 1.002);

  // P independent elements, one per pass (u = sqrt(P) e_p), and three equal ones:
  // G = P I + 3 J, whose largest eigenvalue is P + 3 P.
  SampledGram mixed;
  for (int p = 0; p < P; ++p) mixed.add(unit_vector(p), 1 / std::sqrt(double(P)));
  for (int k = 0; k < 3; ++k) mixed.add(ones, 2.5);
  CHECK(mixed.elements() == P + 3);
  CHECK(mixed.largest_eigenvalue_bound() >= 4 * P);
  CHECK(mixed.largest_eigenvalue_bound() <= 4 * P * 1.002);

  // A diagonal with one larger entry: the bound follows it, not the trace (P^2 here).
  SampledGram diagonal;
  for (int p = 0; p < P; ++p) diagonal.add(unit_vector(p), 1 / std::sqrt(double(P)));
  diagonal.add(unit_vector(7), 1 / std::sqrt(double(P)));
  diagonal.add(unit_vector(7), 1 / std::sqrt(double(P)));
  CHECK(diagonal.largest_eigenvalue_bound() >= 3 * P);
  CHECK(diagonal.largest_eigenvalue_bound() <= 3 * P * 1.002);

  // Merging two halves gives the whole.
  SampledGram half_a, half_b;
  for (int p = 0; p < P; ++p) (p % 2 ? half_a : half_b).add(unit_vector(p), 1 / std::sqrt(double(P)));
  half_a.merge(half_b);
  CHECK(half_a.elements() == P);
  CHECK(half_a.largest_eigenvalue_bound() == Approx(P).epsilon(0.002));
  CHECK(aggregate_fit(SampledGram{}, 0).tested == false);
}

namespace {

// n elements in groups; element i's error is scale_i (sqrt(rho) z_group + sqrt(1 - rho) z_i), z
// standard normal: the model's Gaussian errors with correlation rho inside a group. Draws P
// passes and one more error (the evaluation's), multiplied by `excess`; returns the test.
AggregateFit draw_test(std::mt19937_64& rng, int n, int groups, double rho, double excess) {
  std::normal_distribution<double> z;
  std::vector<double> scale(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) scale[static_cast<std::size_t>(i)] = std::pow(10.0, (i % 7) / 3.0);  // 1 to 100
  auto draw = [&] {
    std::vector<double> shared(static_cast<std::size_t>(groups)), e(static_cast<std::size_t>(n));
    for (auto& s : shared) s = z(rng);
    for (int i = 0; i < n; ++i)
      e[static_cast<std::size_t>(i)] =
          scale[static_cast<std::size_t>(i)] *
          (std::sqrt(rho) * shared[static_cast<std::size_t>(i % groups)] + std::sqrt(1 - rho) * z(rng));
    return e;
  };
  std::vector<std::array<double, P>> tangents(static_cast<std::size_t>(n));
  for (int p = 0; p < P; ++p) {
    const auto pass = draw();
    for (int i = 0; i < n; ++i)
      tangents[static_cast<std::size_t>(i)][static_cast<std::size_t>(p)] = pass[static_cast<std::size_t>(i)];
  }
  const auto error = draw();
  SampledGram gram;
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    double q = 0;
    for (double t : tangents[static_cast<std::size_t>(i)]) q += t * t;
    const double sigma_hat = std::sqrt(q / P);
    gram.add(tangents[static_cast<std::size_t>(i)], sigma_hat);
    const double e = excess * error[static_cast<std::size_t>(i)] / sigma_hat;
    sum += e * e;
  }
  return aggregate_fit(gram, sum);
}

}  // namespace

TEST_CASE("sampled aggregate: honest Gaussian errors are rarely UNLIKELY, errors 8 times larger always", "[sampled]") {
  std::mt19937_64 rng(20261205);
  constexpr int kTrials = 300;
  // 160 elements in 8 groups, half of each error shared in its group: the largest correlation
  // eigenvalue is about 0.5 * 20 / 160 + 0.5 / 160 of n.
  int honest = 0, eightfold = 0;
  double largest_correlation = 0;
  for (int t = 0; t < kTrials; ++t) {
    const AggregateFit h = draw_test(rng, 160, 8, 0.5, 1);
    honest += h.unlikely();
    largest_correlation = std::max(largest_correlation, h.correlation);
    eightfold += draw_test(rng, 160, 8, 0.5, 8).unlikely();
  }
  INFO("honest UNLIKELY " << honest << ", eightfold " << eightfold << " of " << kTrials);
  CHECK(honest <= 1);  // the level is 1e-3 per test, and the limit conservative
  CHECK(eightfold == kTrials);
  CHECK(largest_correlation < 0.2);

  // One error shared by every element (rho = 1): S / n is one chi-square draw over the passes'
  // mean, and the limit follows the correlation (about 7): errors 3 times larger stay within it
  // in most draws, where a limit for independent elements (about 1.4 at n = 160) would call them
  // UNLIKELY every time; honest ones are never UNLIKELY.
  int shared_honest = 0, shared_threefold = 0;
  double limit = 0;
  for (int t = 0; t < kTrials; ++t) {
    const AggregateFit h = draw_test(rng, 160, 1, 1, 1);
    shared_honest += h.unlikely();
    limit = h.limit;
    CHECK(h.correlation == Approx(1).epsilon(0.01));
    shared_threefold += draw_test(rng, 160, 1, 1, 3).unlikely();
  }
  INFO("shared: honest UNLIKELY " << shared_honest << ", threefold " << shared_threefold << ", limit " << limit);
  CHECK(shared_honest == 0);
  CHECK(limit > 5);
  CHECK(shared_threefold < kTrials / 10);
}

namespace {

// 64 x 16 dot products of 256 terms each: independent sums, each within its bounds.
const char* kDots = R"(module @m {
  func.func @f(%a: tensor<64x256xf32>, %b: tensor<256x16xf32>) -> tensor<64x16xf32> {
    %v0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x256xf32>, tensor<256x16xf32>) -> tensor<64x16xf32>
    return %v0 : tensor<64x16xf32>
  }
})";

// Outputs `deviations` sampled deviations (sigma_hat under ieee) from the sampled tier's
// reference, with signs alternating: within every element's bound, but together far from it.
NpyArray outputs_off_by(const Module& m, const Arrays& in, double deviations) {
  const SampledDomain d(float_profile("ieee"), sampled_factors(1e-9, 1e6));
  const auto run = run_program(m, d, npy_values(d, m.function(), std::vector<Arrays>{in}), RunOptions{});
  const auto& t = std::get<Tensor<SampledScalar>>(run.outputs[0][0]);
  std::vector<float> y;
  for (std::size_t k = 0; k < t.data.size(); ++k) {
    const SampledScalar s = d.closed(t.data[k]);
    y.push_back(static_cast<float>(s.value + (k % 2 ? 1 : -1) * deviations * SampledDomain::sigma_hat(s)));
  }
  return f32_array({64, 16}, y);
}

}  // namespace

TEST_CASE("sampled aggregate: outputs within every bound but 2.5 deviations off together fit a wider profile",
          "[sampled][stat]") {
  const Module m = parse_module(kDots, "dots.mlir");
  const Arrays in = random_inputs(m, 3, -1, 1);
  CheckOptions with;
  with.sampled = true;
  // 2.5 sigma_hat per element: within each element's bound (18 sigma_hat; the analysis' is about
  // 3 sigma_hat here), while honest errors together exceed about 2 with probability 1e-3 (1024
  // sums, each row of %a in 16 of them, each column of %b in 64). Under tf32 the products'
  // operand conversions make sigma_hat thousands of times larger: they fit.
  const CheckReport off = check_float_outputs(m, float_profile("ieee"), {in}, {{outputs_off_by(m, in, 2.5)}}, 1, {}, with);
  INFO(format_table(off));
  CHECK(off.verdict() == Verdict::Pass);
  CHECK(off.worst_pratio < 0.9);
  CHECK(off.aggregate.unlikely());
  CHECK(off.aggregate.rms > 2.3);
  CHECK(off.aggregate.limit < 2.1);
  CHECK(off.consistent_profiles == std::vector<std::string>{"ieee", "tf32", "bf16"});
  CHECK(off.fitting_profile == "tf32");
  REQUIRE(off.wider_fits.size() == 1);
  CHECK(!off.wider_fits[0].fit.unlikely());
  CHECK(format_table(off).find("UNLIKELY under ieee") != std::string::npos);
  CHECK(format_table(off).find("hint: the outputs pass ieee element by element, but their errors together fit tf32") !=
        std::string::npos);
  // The control: half a deviation off fits ieee; the search stops there, and no hint.
  const CheckReport near = check_float_outputs(m, float_profile("ieee"), {in}, {{outputs_off_by(m, in, 0.5)}}, 1, {}, with);
  INFO(format_table(near));
  CHECK(near.verdict() == Verdict::Pass);
  CHECK(!near.aggregate.unlikely());
  CHECK(near.aggregate.rms > 0.4);
  CHECK(near.fitting_profile == "ieee");
  CHECK(near.wider_fits.empty());
  CHECK(format_table(near).find("hint:") == std::string::npos);
  CHECK(format_table(near).find("they fit ieee") != std::string::npos);
  // Without the sampled tier there is no aggregate, and the outputs fit the narrowest consistent profile.
  const CheckReport alone = check_float_outputs(m, float_profile("ieee"), {in}, {{outputs_off_by(m, in, 2.5)}}, 1);
  CHECK(alone.verdict() == Verdict::Pass);
  CHECK(!alone.aggregate.tested);
  CHECK(alone.fitting_profile == "ieee");
  CHECK(format_table(alone).find("hint:") == std::string::npos);
}
