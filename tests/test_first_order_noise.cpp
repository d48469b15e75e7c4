// A measurement, not a check (hidden: run it by name): how far a float32 output lies from the
// exact value in units of its first-order rounding noise, estimated by sampling. It asks
// whether a statistical tier that tracked every correlation exactly could tell TF32 and bf16
// from float32 where the bound analysis cannot (issue 17: docs/measurements.md, "Sampled
// first-order noise").
//   SHLO_NOISE_FILE=prog.mlir [SHLO_NOISE_RANGE=-0.1,0.1] [SHLO_NOISE_SEED=1]
//   [SHLO_NOISE_PASSES=32] [SHLO_NOISE_PROFILE=ieee|tf32|bf16] [SHLO_NOISE_BOUND=1]
//   shlo_tests "[.first_order_noise]"
// With SHLO_NOISE_BOUND=1 it also runs the bound analysis (lambda 9, as [.bound_trace]) and
// prints, per output, its statistical bound over 9 sigma: how much wider than the first-order
// noise the bound analysis is.
//
// The standard model makes each rounding's relative error a mean-zero variable within u. To
// first order the outputs' error is then sum_k J_k u |v_k| delta_k over the roundings k, with
// J_k the output's derivative by rounding k. NoiseTangentDomain computes it forward: every
// value is a double and a tangent; every rounding adds u |v| z with z a standard normal draw,
// and the tangent follows the chain rule. Over P passes (independent draws) the mean square of
// an output's tangent estimates its first-order variance under the model with normal errors,
// every correlation included (a copy, a channel's mean in every element, a weight in every
// product: each is one value with one tangent). Under tf32 or bf16 each product's operands are
// also rounded to the profile's operand bits, one draw per operand value and pass (a value is
// rounded the same way at every use).
//
// What it leaves out, which a tier built on it would have to bound: the second-order rest, and
// comparisons (relu, max pool, a select) whose float outcome may differ from the exact one:
// here every comparison takes the exact (double) outcome (a max or min at a tie whose tangents
// differ is an error, as DualDomain makes it). The draws are a hash of the operands
// and the pass, so runs repeat; two roundings of the same operands share their draw, as two
// float evaluations of them share their error.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ast/mlir_parse.hpp"
#include "interp/domain/domain_spec.hpp"
#include "interp/domain/dual.hpp"
#include "interp/run_impl.hpp"
#include "tests/stat_support.hpp"
#include "tests/support.hpp"

namespace shlo {

/// DualDomain<F64Domain> (interp/domain/dual.hpp: the chain rule of every op, stated once) with
/// a rounding's noise added to the tangent of every result that float32 rounds.
class NoiseTangentDomain {
 public:
  using Dual = DualDomain<F64Domain>;
  using Scalar = Dual::Scalar;
  static constexpr double kUnit = 0x1p-24;  // float32's unit roundoff
  /// pass: which draw; operand_unit: under tf32 / bf16 the unit of a product operand's
  /// rounding (2^-11, 2^-8), else 0.
  NoiseTangentDomain(std::uint64_t pass, double operand_unit) : dual_(F64Domain{}), pass_(pass), operand_unit_(operand_unit) {}
  std::string name() const { return "noise-tangent"; }

  Scalar from_rational(const Rational& q) const { return dual_.from_rational(q); }
  Scalar from_literal(std::string_view text) const { return dual_.from_literal(text); }
  Scalar from_bits(std::uint64_t bits, FloatFormat f) const { return dual_.from_bits(bits, f); }
  Scalar from_double(double x) const { return dual_.from_double(x); }
  Scalar parse(std::string_view text) const { return dual_.parse(text); }
  std::string to_string(const Scalar& a) const { return dual_.to_string(a); }
  double to_double(const Scalar& a) const { return a.value; }

  Scalar add(const Scalar& a, const Scalar& b) const { return rounded(1, dual_.add(a, b), a.value, b.value); }
  Scalar sub(const Scalar& a, const Scalar& b) const { return rounded(2, dual_.sub(a, b), a.value, b.value); }
  Scalar mul(const Scalar& a, const Scalar& b) const { return rounded(3, dual_.mul(a, b), a.value, b.value); }
  Scalar div(const Scalar& a, const Scalar& b) const { return rounded(4, dual_.div(a, b), a.value, b.value); }
  Scalar neg(const Scalar& a) const { return dual_.neg(a); }
  Scalar abs(const Scalar& a) const { return dual_.abs(a); }
  Scalar max(const Scalar& a, const Scalar& b) const { return dual_.max(a, b); }
  Scalar min(const Scalar& a, const Scalar& b) const { return dual_.min(a, b); }
  Scalar exp(const Scalar& a) const { return rounded(5, dual_.exp(a), a.value); }
  Scalar log(const Scalar& a) const { return rounded(6, dual_.log(a), a.value); }
  Scalar sqrt(const Scalar& a) const { return rounded(7, dual_.sqrt(a), a.value); }
  Scalar rsqrt(const Scalar& a) const { return rounded(8, dual_.rsqrt(a), a.value); }
  Scalar tanh(const Scalar& a) const { return rounded(9, dual_.tanh(a), a.value); }
  Scalar logistic(const Scalar& a) const { return rounded(10, dual_.logistic(a), a.value); }
  Scalar pi() const { return dual_.pi(); }
  Scalar map_monotone(const Scalar& a, const RationalMap& f) const { return dual_.map_monotone(a, f); }
  Tri compare(CompareDirection d, const Scalar& a, const Scalar& b) const { return dual_.compare(d, a, b); }
  Scalar select(bool p, const Scalar& a, const Scalar& b) const { return p ? a : b; }
  /// A product of a dot_general or convolution (rounded, its operands first under tf32 / bf16),
  /// then the addition (rounded): the interpreter's order of the terms.
  void mac(Scalar& acc, const Scalar& a, const Scalar& b) const {
    Scalar p = mul(a, b);
    if (operand_unit_ > 0) p.tangent += (draw(11, a.value, 0) + draw(11, b.value, 0)) * operand_unit_ * std::fabs(p.value);
    acc = add(acc, p);
  }

 private:
  Scalar rounded(std::uint64_t op, Scalar r, double x, double y = 0) const {
    r.tangent += draw(op, x, y) * kUnit * std::fabs(r.value);
    return r;
  }
  static std::uint64_t mix(std::uint64_t z) { return splitmix64(z); }
  /// A standard normal draw from (op, x, y, pass), by Box and Muller.
  double draw(std::uint64_t op, double x, double y) const {
    std::uint64_t bx, by;
    std::memcpy(&bx, &x, 8);
    std::memcpy(&by, &y, 8);
    const std::uint64_t h1 = mix(bx ^ mix(by ^ mix(op ^ mix(pass_)))), h2 = mix(h1);
    const double u1 = (static_cast<double>(h1 >> 11) + 0.5) * 0x1p-53, u2 = static_cast<double>(h2 >> 11) * 0x1p-53;
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  }
  Dual dual_;
  std::uint64_t pass_;
  double operand_unit_;
};
static_assert(Domain<NoiseTangentDomain>);
SHLO_INSTANTIATE_RUN_PROGRAM(NoiseTangentDomain)

}  // namespace shlo

using namespace shlo;
using namespace shlo::test;

TEST_CASE("first-order rounding noise, sampled: float32, TF32 and bf16 outputs in its units", "[.first_order_noise]") {
  const char* file = std::getenv("SHLO_NOISE_FILE");
  if (!file) {
    WARN("set SHLO_NOISE_FILE to a program");
    return;
  }
  const std::string range = env_or("SHLO_NOISE_RANGE", "-0.1,0.1"), profile = env_or("SHLO_NOISE_PROFILE", "ieee");
  const auto [lo, hi] = range_of(range);
  const auto seed = static_cast<std::uint64_t>(std::stoull(env_or("SHLO_NOISE_SEED", "1")));
  const int passes = std::stoi(env_or("SHLO_NOISE_PASSES", "32"));
  const double operand_unit = profile == "tf32" ? 0x1p-11 : profile == "bf16" ? 0x1p-8 : 0;
  REQUIRE((profile == "ieee" || operand_unit > 0));
  const std::string text = read_file(file);
  const Module m = parse_module(text, file);
  const Arrays in = random_inputs(m, seed, lo, hi);

  std::vector<std::vector<double>> exact, variance;  // per output, per element
  for (int k = 0; k < passes; ++k) {
    std::vector<std::vector<Value<NoiseTangentDomain>>> args(1);
    for (const NpyArray& a : in) {
      std::vector<NoiseTangentDomain::Scalar> v;
      for (float x : data(a)) v.push_back({x, 0});
      args[0].push_back(Tensor<NoiseTangentDomain::Scalar>(a.shape, std::move(v)));
    }
    const auto run = run_program(m, NoiseTangentDomain(static_cast<std::uint64_t>(k) + 1, operand_unit), std::move(args), RunOptions{});
    for (std::size_t o = 0; o < run.outputs[0].size(); ++o) {
      const auto& t = std::get<Tensor<NoiseTangentDomain::Scalar>>(run.outputs[0][o]);
      if (k == 0) {
        exact.emplace_back();
        variance.emplace_back(static_cast<std::size_t>(t.size()), 0.0);
        for (std::int64_t i = 0; i < t.size(); ++i) exact[o].push_back(t[i].value);
      }
      for (std::int64_t i = 0; i < t.size(); ++i) variance[o][static_cast<std::size_t>(i)] += t[i].tangent * t[i].tangent / passes;
    }
  }
  const Arrays float32 = f32_outputs(text, in), tf32 = f32_outputs(with_rounded_operands(text, 10), in),
               bf16 = f32_outputs(with_rounded_operands(text, 7), in);
  std::printf("%s, inputs in [%g, %g), seed %llu, %d passes, noise under %s: |float - exact| / sigma\n", file, lo, hi,
              static_cast<unsigned long long>(seed), passes, profile.c_str());
  std::vector<std::vector<BoundScalar>> bounds;
  const double lambda = 9;
  const BoundDomain bound_domain(float_profile(profile), lambda);
  if (env_or("SHLO_NOISE_BOUND", "0") == "1") bounds = bound_outputs(bound_domain, m, in);
  std::printf("%-7s %-8s %10s %10s %10s %10s\n", "output", "outputs", "median", "p99", "max", "elements");
  for (std::size_t o = 0; o < exact.size(); ++o)
    for (const auto& [name, outputs] : {std::pair<const char*, const Arrays*>{"float32", &float32}, {"tf32", &tf32}, {"bf16", &bf16}}) {
      std::vector<double> q;
      for (std::size_t i = 0; i < exact[o].size(); ++i) {
        const double f = data((*outputs)[o])[i];
        if (variance[o][i] > 0 && std::isfinite(f) && std::isfinite(exact[o][i]))
          q.push_back(std::fabs(f - exact[o][i]) / std::sqrt(variance[o][i]));
      }
      if (q.empty()) continue;
      std::sort(q.begin(), q.end());
      std::printf("%-7zu %-8s %10.3g %10.3g %10.3g %10zu\n", o, name, q[q.size() / 2], q[q.size() * 99 / 100], q.back(), q.size());
    }
  for (std::size_t o = 0; o < bounds.size(); ++o) {
    std::vector<double> r;
    std::size_t infinite = 0;
    for (std::size_t i = 0; i < exact[o].size(); ++i) {
      const double p = bound_domain.pbound(bounds[o][i]);
      if (!std::isfinite(p)) ++infinite;
      else if (variance[o][i] > 0) r.push_back(p / (lambda * std::sqrt(variance[o][i])));
    }
    std::sort(r.begin(), r.end());
    if (!r.empty())
      std::printf("output %zu: the bound analysis' statistical bound over %g sigma: median %.3g, min %.3g, max %.3g (%zu infinite)\n", o,
                  lambda, r[r.size() / 2], r.front(), r.back(), infinite);
    else
      std::printf("output %zu: the bound analysis' statistical bound is infinite in %zu elements\n", o, infinite);
  }
}
