// The statistical tier and copies of one value: broadcast_in_dim makes n copies whose rounding
// errors are one error, so a sum of the copies has n times that error, not sqrt(n) times.
// The model's quadrature (independent errors) allowed sqrt(n): honest float32 runs of
// reduce -> broadcast -> reduce were IMPROBABLE. A sum now admits a copy's random part only
// once per source (interp/bound/bound.hpp); the others enter closed to a plain bound.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "ast/mlir_parse.hpp"
#include "interp/bound/bound.hpp"
#include "interp/run.hpp"
#include "oracle/float_check.hpp"
#include "tests/stat_support.hpp"

using namespace shlo;
using shlo::test::kSumOf4096;

namespace {

// %t: a sum of 4096 inputs; %s: the sum of 4096 copies of %t. The control: %q and %r sum the
// 4096 products x * x, distinct values with independent roundings, %r after a broadcast_in_dim
// that copies nothing (4096 -> 4096).
const char* kSumOfCopies = R"(module @m {
  func.func @f(%x: tensor<4096xf32>) -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %t = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4096xf32>, tensor<f32>) -> tensor<f32>
    %b = stablehlo.broadcast_in_dim %t, dims = [] : (tensor<f32>) -> tensor<4096xf32>
    %s = stablehlo.reduce(%b init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4096xf32>, tensor<f32>) -> tensor<f32>
    %p = stablehlo.multiply %x, %x : tensor<4096xf32>
    %q = stablehlo.reduce(%p init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4096xf32>, tensor<f32>) -> tensor<f32>
    %c = stablehlo.broadcast_in_dim %p, dims = [0] : (tensor<4096xf32>) -> tensor<4096xf32>
    %r = stablehlo.reduce(%c init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4096xf32>, tensor<f32>) -> tensor<f32>
    return %t, %s, %q, %r : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
  }
})";

std::vector<float> uniform(std::uint64_t seed, std::size_t n) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<float> u(0, 1);
  std::vector<float> v(n);
  for (auto& x : v) x = u(gen);
  return v;
}

// The program's outputs, closed, in the bound domain.
std::vector<BoundScalar> bound_outputs(const BoundDomain& d, const Module& m, const std::vector<float>& x) {
  std::vector<BoundScalar> in;
  for (float v : x) in.push_back(d.from_double(v));
  std::vector<std::vector<Value<BoundDomain>>> args(1);
  args[0].push_back(Tensor<BoundScalar>({4096}, in));
  auto outs = run_program(m, d, std::move(args), RunOptions{}).outputs[0];
  std::vector<BoundScalar> r;
  for (auto& o : outs) r.push_back(d.closed(std::get<Tensor<BoundScalar>>(o).data[0]));
  return r;
}

}  // namespace

TEST_CASE("stat tier: copies made by broadcast_in_dim share one error, summed linearly", "[bound][stat]") {
  const Module m = parse_module(kSumOfCopies, "copies.mlir");
  const BoundDomain d(float_profile("ieee"), 6.0);
  const auto x = uniform(1, 4096);
  const auto r = bound_outputs(d, m, x);
  const BoundScalar &t = r[0], &s = r[1], &q = r[2], &q_copied = r[3];
  REQUIRE(d.sigma(t) > 0);
  // The second sum's own roundings: the same sum of 4096 exact copies of t's float value.
  const float t_float = static_cast<float>(d.to_double(t));
  const BoundScalar own = bound_outputs(d, parse_module(kSumOf4096, "sum.mlir"), std::vector<float>(4096, t_float))[0];
  // 4096 copies of t: the statistical bound covers 4096 times t's bound plus those roundings.
  // (The quadrature gave about sqrt(4096 pbound(t)^2 + pbound(own)^2), some 29% less here.)
  INFO("pbound(t) " << d.pbound(t) << ", pbound(s) " << d.pbound(s) << ", own " << d.pbound(own));
  CHECK(d.pbound(s) >= 4096 * d.pbound(t) + d.pbound(own));
  CHECK(d.bound(s) >= 4096 * d.bound(t));
  CHECK(d.pbound(s) < d.bound(s));  // still tighter than the sound tier
  CHECK(s.st.sigma > 0);            // its own roundings stay random,
  // but it admitted a copy's random part (the first), so later ops close its random part:
  // its siblings, other sums of the same copies, would hold the same error.
  CHECK((s.flags & kShared) != 0);
  CHECK(s.source() == 0);
  CHECK(d.sigma(s) == 0);
  // Control: a broadcast that copies nothing marks nothing: the products stay independent.
  REQUIRE(d.sigma(q) > 0);
  CHECK(d.pbound(q_copied) == d.pbound(q));
  CHECK(d.sigma(q_copied) == d.sigma(q));
}

TEST_CASE("stat tier: honest float32 runs of reduce -> broadcast -> reduce are never IMPROBABLE", "[bound][stat]") {
  const Module m = parse_module(kSumOfCopies, "copies.mlir");
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const auto x = uniform(seed, 4096);
    // The honest evaluation, by hand: left-to-right float32 sums.
    float t = 0, s = 0, q = 0;
    for (float v : x) t += v;
    for (int i = 0; i < 4096; ++i) s += t;
    for (float v : x) q += v * v;  // %q and %r
    const std::vector<NpyArray> in = {NpyArray{{4096}, x}};
    const std::vector<NpyArray> out = {NpyArray{{}, std::vector<float>{t}}, NpyArray{{}, std::vector<float>{s}},
                                       NpyArray{{}, std::vector<float>{q}}, NpyArray{{}, std::vector<float>{q}}};
    const CheckReport r = check_float_outputs(m, float_profile("ieee"), {in}, {out}, 1);
    INFO("seed " << seed << ": worst ratio to the statistical bound " << r.worst_pratio);
    CHECK(r.verdict() == Verdict::Pass);
    // Control: s moved by 4096 times t's sound bound plus s's own is beyond every evaluation.
    const BoundDomain d(float_profile("ieee"), r.lambda);
    const auto b = bound_outputs(d, m, x);
    const std::vector<NpyArray> wrong = {out[0], NpyArray{{}, std::vector<float>{static_cast<float>(s + 2 * d.bound(b[1]))}}, out[2], out[3]};
    CHECK(check_float_outputs(m, float_profile("ieee"), {in}, {wrong}, 1).verdict() == Verdict::Fail);
  }
}
