// Batch normalisation's variance (interp/bound/bound.hpp, "centred second moments"): the
// float mean's error cancels to first order in sum_i (x_i - m)^2, so the bound analysis drops
// it there (both tiers) once the pattern is found in the text (interp/bound/normalizing.hpp);
// and sqrt and rsqrt carry a random part through their first-order term.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ast/mlir_parse.hpp"
#include "interp/bound/bound.hpp"
#include "interp/bound/normalizing.hpp"
#include "oracle/float_check.hpp"
#include "tests/stat_support.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

// %l: 2 x 4 x 64 sums of 16 inputs each (so they carry errors); then batch normalisation over
// the 64 (per example and channel) as the Lean printer writes it: %v the sum of squares, %y the
// normalised values. `extra` is appended to the returned values (and their types).
std::string batch_norm(const std::string& count = "64.0", const std::string& extra = "", const std::string& extra_types = "") {
  return R"(module @m {
  func.func @f(%x: tensor<2x4x64x16xf32>) -> (tensor<2x4xf32>, tensor<2x4x64xf32>)" +
         extra_types + R"() {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %l = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [3] : (tensor<2x4x64x16xf32>, tensor<f32>) -> tensor<2x4x64xf32>
    %n = stablehlo.constant dense<)" +
         count + R"(> : tensor<2x4x64xf32>
    %eps = stablehlo.constant dense<1.0e-05> : tensor<2x4x64xf32>
    %s = stablehlo.reduce(%l init: %z) applies stablehlo.add across dimensions = [2] : (tensor<2x4x64xf32>, tensor<f32>) -> tensor<2x4xf32>
    %sb = stablehlo.broadcast_in_dim %s, dims = [0, 1] : (tensor<2x4xf32>) -> tensor<2x4x64xf32>
    %m = stablehlo.divide %sb, %n : tensor<2x4x64xf32>
    %c = stablehlo.subtract %l, %m : tensor<2x4x64xf32>
    %q = stablehlo.multiply %c, %c : tensor<2x4x64xf32>
    %v = stablehlo.reduce(%q init: %z) applies stablehlo.add across dimensions = [2] : (tensor<2x4x64xf32>, tensor<f32>) -> tensor<2x4xf32>
    %vb = stablehlo.broadcast_in_dim %v, dims = [0, 1] : (tensor<2x4xf32>) -> tensor<2x4x64xf32>
    %var = stablehlo.divide %vb, %n : tensor<2x4x64xf32>
    %ve = stablehlo.add %var, %eps : tensor<2x4x64xf32>
    %r = stablehlo.rsqrt %ve : tensor<2x4x64xf32>
    %y = stablehlo.multiply %c, %r : tensor<2x4x64xf32>
    return %v, %y)" +
         extra + " : tensor<2x4xf32>, tensor<2x4x64xf32>" + extra_types + R"(
  }
})";
}

// text with `from` replaced by `to` (once).
std::string with_replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::vector<std::string> subtracts_found(const std::string& text) {
  std::vector<std::string> names;
  for (const Instruction* i : centered_moments(parse_module(text, "bn.mlir")).subtracts) names.push_back(i->result);
  std::sort(names.begin(), names.end());
  return names;
}

// The program's outputs in float32 by hand: each sum a left fold (`reverse`: the variance's
// sum right to left), the rest as written; the mean moved by `mean_ulps` ulps in the variance
// only, and the squares appended when `squares`.
Arrays by_hand(const Arrays& in, bool reverse, int mean_ulps = 0, bool squares = false) {
  const std::vector<float>& x = data(in[0]);
  std::vector<float> l(512, 0), v(8, 0), y(512), q(512);
  for (std::size_t k = 0; k < 512; ++k)
    for (std::size_t j = 0; j < 16; ++j) l[k] += x[k * 16 + j];
  for (std::size_t g = 0; g < 8; ++g) {
    float s = 0;
    for (std::size_t i = 0; i < 64; ++i) s += l[g * 64 + i];
    const float m = s / 64.0f;
    const float moved = m + static_cast<float>(mean_ulps) * std::ldexp(1.0f, std::ilogb(m) - 23);
    std::vector<float> c(64), cv(64);
    for (std::size_t i = 0; i < 64; ++i) c[i] = l[g * 64 + i] - m;
    for (std::size_t i = 0; i < 64; ++i) cv[i] = l[g * 64 + i] - moved;
    for (std::size_t i = 0; i < 64; ++i) {
      const std::size_t at = reverse ? 63 - i : i;
      v[g] += q[g * 64 + at] = cv[at] * cv[at];
    }
    const float r = 1.0f / std::sqrt(v[g] / 64.0f + 1.0e-05f);
    for (std::size_t i = 0; i < 64; ++i) y[g * 64 + i] = c[i] * r;
  }
  Arrays out{f32_array({2, 4}, v), f32_array({2, 4, 64}, y)};
  if (squares) out.push_back(f32_array({2, 4, 64}, q));
  return out;
}

}  // namespace

TEST_CASE("centred moments: batch normalisation's variance is found, variants that are not one are not", "[bound][stat]") {
  CHECK(subtracts_found(batch_norm()) == std::vector<std::string>{"%c"});
  CHECK(subtracts_found(batch_norm("63.0")).empty());                // not the mean: 63 of the 64
  // The squares summed over the channels rather than the mean's elements.
  std::string channels = with_replaced(batch_norm(), "across dimensions = [2] : (tensor<2x4x64xf32>, tensor<f32>) -> tensor<2x4xf32>\n    %vb",
                                  "across dimensions = [1] : (tensor<2x4x64xf32>, tensor<f32>) -> tensor<2x64xf32>\n    %vb");
  channels = with_replaced(channels, "%vb = stablehlo.broadcast_in_dim %v, dims = [0, 1] : (tensor<2x4xf32>)",
                      "%vb = stablehlo.broadcast_in_dim %v, dims = [0, 2] : (tensor<2x64xf32>)");
  channels = with_replaced(with_replaced(channels, "-> (tensor<2x4xf32>,", "-> (tensor<2x64xf32>,"), "%y : tensor<2x4xf32>", "%y : tensor<2x64xf32>");
  CHECK(subtracts_found(channels).empty());
  CHECK(subtracts_found(batch_norm("64.0", ", %q", ", tensor<2x4x64xf32>")).empty());  // the squares read alone
  const std::string from_one = with_replaced(with_replaced(batch_norm(), "%s = stablehlo.reduce(%l init: %z)", "%s = stablehlo.reduce(%l init: %w)"),
                                        "    %n = ", "    %w = stablehlo.constant dense<1.0> : tensor<f32>\n    %n = ");
  CHECK(subtracts_found(from_one).empty());  // the mean's sum starts from 1
  CHECK(subtracts_found(with_replaced(batch_norm(), "multiply %c, %c", "multiply %c, %l")).empty());  // not a square
  const std::string text = read_file(artifact("cifar8_bn_fwd"));
  if (text.empty()) return;
  const CenteredMoments found = centered_moments(parse_module(text, "cifar8_bn_fwd.mlir"));
  CHECK(found.subtracts.size() == 8);  // one per batch-normalised convolution
  CHECK(found.squares.size() == 8);
}

TEST_CASE("centred moments: the variance's bounds leave out the mean's error, so perturbed variances fail where honest ones pass",
          "[bound][stat]") {
  const Module m = parse_module(batch_norm(), "bn.mlir");
  // The same values, the pattern not found (the squares also returned): the old analysis.
  const Module plain = parse_module(batch_norm("64.0", ", %q", ", tensor<2x4x64xf32>"), "bn_plain.mlir");
  const BoundDomain d(float_profile("ieee"), 6.0);
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const Arrays in = random_inputs(m, seed, 0, 1);
    const auto with = bound_outputs(d, m, in), without = bound_outputs(d, plain, in);
    double sound = 0, stat = 0;
    for (std::size_t g = 0; g < 8; ++g) {
      CHECK(with[0][g].lo == without[0][g].lo);  // the same enclosure of the exact variance
      CHECK(with[0][g].hi == without[0][g].hi);
      sound = std::max(sound, d.bound(with[0][g]) / d.bound(without[0][g]));
      stat = std::max(stat, d.pbound(with[0][g]) / d.pbound(without[0][g]));
    }
    INFO("seed " << seed << ": the variance's bounds over the old ones at most " << sound << " (sound), " << stat << " (statistical)");
    CHECK(sound < 0.5);
    CHECK(stat < 0.5);
    // Float32 in two orders: within both tiers.
    for (bool reverse : {false, true}) {
      const CheckReport r = check_float_outputs(m, float_profile("ieee"), {in}, {by_hand(in, reverse)}, 1);
      INFO("reverse " << reverse << ": worst error over the sound bound " << r.worst_ratio << ", over the statistical " << r.worst_pratio);
      CHECK(r.verdict() == Verdict::Pass);
    }
    // A mean 64 ulps off moves the variance at second order only (by 64 delta^2, not by
    // sum 2 |c_i| delta): within both tiers, though a bound that counted the mean's error at
    // first order would be wider than the new sound bound.
    const Arrays shifted = by_hand(in, false, 64);
    const CheckReport r = check_float_outputs(m, float_profile("ieee"), {in}, {shifted}, 1);
    INFO("mean 64 ulps off: " << r.worst_ratio << " of the sound bound, " << r.worst_pratio << " of the statistical");
    CHECK(r.verdict() == Verdict::Pass);
    const std::vector<float>& x = data(in[0]);
    for (std::size_t g = 0; g < 8; ++g) {
      std::vector<double> l(64, 0);  // the group's sums, in double
      double mean = 0;
      for (std::size_t i = 0; i < 64; ++i) {
        for (std::size_t j = 0; j < 16; ++j) l[i] += x[(g * 64 + i) * 16 + j];
        mean += l[i] / 64;
      }
      const double delta = 64 * std::ldexp(1.0, std::ilogb(mean) - 23);
      double first_order = 0;
      for (double li : l) first_order += 2 * std::fabs(li - mean) * delta;
      INFO("group " << g << ": first order " << first_order << ", sound bound " << d.bound(with[0][g]));
      CHECK(first_order > d.bound(with[0][g]));
    }
    // Control: a variance moved by a tenth of its old sound bound passes the old analysis and
    // not the new one.
    for (bool found : {true, false}) {
      Arrays wrong = by_hand(in, false, 0, !found);
      std::get<std::vector<float>>(wrong[0].data)[5] += static_cast<float>(0.1 * d.bound(without[0][5]));
      const CheckReport moved = check_float_outputs(found ? m : plain, float_profile("ieee"), {in}, {wrong}, 1);
      INFO("moved, the pattern " << (found ? "found" : "not found") << ": " << moved.worst_pratio << " of the statistical bound");
      CHECK((moved.verdict() == Verdict::Pass) == !found);
    }
  }
}

TEST_CASE("centred moments: honest batch norms pass with inputs of either sign", "[bound][stat]") {
  const Module m = parse_module(batch_norm(), "bn.mlir");
  for (const Range range : kRanges)
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      const Arrays in = random_inputs(m, seed, range.lo, range.hi);
      for (bool reverse : {false, true}) {
        const CheckReport r = check_float_outputs(m, float_profile("ieee"), {in}, {by_hand(in, reverse)}, 1);
        INFO("inputs in [" << range.lo << ", " << range.hi << "), seed " << seed << ", reverse " << reverse << ": worst error over the sound bound "
                            << r.worst_ratio << ", over the statistical " << r.worst_pratio);
        CHECK(r.verdict() == Verdict::Pass);
        CHECK(r.worst_pratio > 0);  // control: the bounds are not so wide that nothing shows
      }
    }
}

TEST_CASE("stat tier: sqrt and rsqrt carry a random part through their first-order term", "[bound][stat]") {
  const Module m = parse_module(R"(module @m {
  func.func @f(%x: tensor<8x256xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<8x256xf32>, tensor<f32>) -> tensor<8xf32>
    %q = stablehlo.sqrt %s : tensor<8xf32>
    %r = stablehlo.rsqrt %s : tensor<8xf32>
    %t = stablehlo.tanh %s : tensor<8xf32>
    return %s, %q, %r, %t : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
  }
})", "roots.mlir");
  const BoundDomain d(float_profile("ieee"), 6.0);
  const Arrays in = random_inputs(m, 3, 0, 1);
  const auto out = bound_outputs(d, m, in);
  for (std::size_t i = 0; i < 8; ++i) {
    const double s = out[0][i].lo, sigma = d.sigma(out[0][i]);
    REQUIRE(sigma > 0);
    // sqrt' = 1 / (2 sqrt s), rsqrt' = -1 / (2 s^1.5) at s about 128: the operand's random part
    // scaled by them (sqrt's own rounding, mean-zero, in quadrature: about 2^-24 sqrt s).
    const double sqrt_slope = 0.5 / std::sqrt(s), rsqrt_slope = 0.5 / (s * std::sqrt(s));
    INFO("sum " << s << " sigma " << sigma << ": sqrt's sigma " << d.sigma(out[1][i]) << ", rsqrt's " << d.sigma(out[2][i]));
    CHECK(d.sigma(out[1][i]) >= sqrt_slope * sigma * (1 - 1e-6));
    CHECK(d.sigma(out[1][i]) <= std::hypot(sqrt_slope * sigma, std::ldexp(std::sqrt(s), -23)));
    CHECK(d.sigma(out[2][i]) >= rsqrt_slope * sigma * (1 - 1e-6));
    CHECK(d.sigma(out[2][i]) <= rsqrt_slope * sigma * (1 + 1e-6));  // rsqrt's 2 ulps: plain
    CHECK(d.sigma(out[3][i]) == 0);                                  // control: tanh keeps none
  }
  // Float32 by hand: within both tiers; a root moved by four times its statistical bound is not.
  std::vector<float> s(8, 0), q(8), r(8), t(8);
  const std::vector<float>& x = data(in[0]);
  for (std::size_t i = 0; i < 8; ++i) {
    for (std::size_t j = 0; j < 256; ++j) s[i] += x[i * 256 + j];
    q[i] = std::sqrt(s[i]);
    r[i] = 1.0f / std::sqrt(s[i]);
    t[i] = std::tanh(s[i]);
  }
  const auto outputs = [&](const std::vector<float>& rr) {
    return Arrays{f32_array({8}, s), f32_array({8}, q), f32_array({8}, rr), f32_array({8}, t)};
  };
  CHECK(check_float_outputs(m, float_profile("ieee"), {in}, {outputs(r)}, 1).verdict() == Verdict::Pass);
  std::vector<float> moved = r;
  moved[2] += static_cast<float>(4 * d.pbound(out[2][2]));
  CHECK(check_float_outputs(m, float_profile("ieee"), {in}, {outputs(moved)}, 1).verdict() != Verdict::Pass);
}
