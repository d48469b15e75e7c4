// The statistical tier of `shlo check` and its verdicts: hand-computed bounds, IMPROBABLE
// against FAIL, per-element branch gaps, NO VERDICT; then the ladder programs: honest float32
// outputs in four summation orders (and the CUDA host path) are never IMPROBABLE, while
// outputs whose matmul operands were rounded to TF32 or bf16 (computed here by an independent
// route) are caught under the ieee profile and pass under their own.
#include <catch2/catch.hpp>
#include <rapidcheck.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <random>
#include <sstream>

#include "ast/mlir_parse.hpp"
#include "fuzz/gen_ops.hpp"
#include "interp/cuda/executor.hpp"
#include "interp/run.hpp"
#include "oracle/float_check.hpp"
#include "oracle/sum_order_domain.hpp"
#include "tests/stat_support.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

CheckReport check(const Module& m, const std::string& profile, const Arrays& inputs, const Arrays& outputs, double delta = 1e-9) {
  CheckOptions o;
  o.delta = delta;
  return check_float_outputs(m, float_profile(profile), {inputs}, {outputs}, 1, {}, o);
}

// One closed output of a one-result program under domain d.
std::vector<BoundScalar> bound_run(const BoundDomain& d, const Module& m, const std::vector<std::vector<float>>& args) {
  std::vector<std::vector<Value<BoundDomain>>> in(1);
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::vector<BoundScalar> v;
    for (float x : args[i]) v.push_back(d.from_double(x));
    in[0].push_back(Tensor<BoundScalar>(m.function().arguments[i].type.shape, v));
  }
  auto out = std::get<Tensor<BoundScalar>>(run_program(m, d, std::move(in), RunOptions{}).outputs[0][0]).data;
  for (auto& s : out) s = d.closed(s);
  return out;
}

// The independent route: dense layers y = act(x W + b), each matmul with its operands reduced
// to `bits` (23: float32 itself) and its dot products summed in double, then rounded once;
// the bias added and relu applied in float32. layers[i] = {W, b} arguments, relu on all but
// the last, as in linear_fwd (one layer) and mlp_fwd (three).
std::vector<float> dense_forward(const Arrays& in, int bits) {
  const auto rd = [&](float v) { return bits < 23 ? reduced(v, bits) : v; };
  std::vector<float> x = data(in[0]);
  std::int64_t rows = in[0].shape[0], width = in[0].shape[1];
  const std::size_t layers = (in.size() - 1) / 2;
  for (std::size_t l = 0; l < layers; ++l) {
    const auto& W = data(in[1 + 2 * l]);
    const auto& b = data(in[2 + 2 * l]);
    const std::int64_t out = in[1 + 2 * l].shape[1];
    std::vector<float> y(static_cast<std::size_t>(rows * out));
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t j = 0; j < out; ++j) {
        double s = 0;
        for (std::int64_t k = 0; k < width; ++k)
          s += static_cast<double>(rd(x[static_cast<std::size_t>(r * width + k)])) * rd(W[static_cast<std::size_t>(k * out + j)]);
        float v = static_cast<float>(s) + b[static_cast<std::size_t>(j)];
        if (l + 1 < layers) v = std::max(v, 0.0f);
        y[static_cast<std::size_t>(r * out + j)] = v;
      }
    x = std::move(y);
    width = out;
  }
  return x;
}

}  // namespace

TEST_CASE("stat tier: a sum of 4096 ones computed by hand and IMPROBABLE between PASS and FAIL", "[bound][stat]") {
  const Module m = parse_module(kSumOf4096, "sum.mlir");
  const BoundDomain d(float_profile("ieee"), 6.0);
  const auto r = bound_run(d, m, {std::vector<float>(4096, 1.0f)});
  // Exact terms, no inherited error: the statistical bound is lambda u sqrt(n - 1) M with
  // M = (1 + gamma_4095) * 4096 bounding every partial sum; the sound one gamma_4095 * 4096.
  const double n = 4096, M = (1 + gamma_f32(4095)) * n;
  CHECK(d.bound(r[0]) == Approx(gamma_f32(4095) * n).epsilon(1e-9));
  CHECK(d.pbound(r[0]) == Approx(6.0 * 0x1p-24 * std::sqrt(n - 1) * M).epsilon(1e-6));
  CHECK(d.bound(r[0]) / d.pbound(r[0]) == Approx(std::sqrt(4095.0) / 6).epsilon(1e-3));
  CHECK(r[0].events == 1);
  CHECK(d.event_risk() == Approx(2 * std::exp(-18.0)));
  const double e = d.pbound(r[0]);
  const ElementVerdict pass = judge_element(d, r[0], 4096 + 0.5 * e);
  const ElementVerdict improbable = judge_element(d, r[0], 4096 + 2 * e);
  const ElementVerdict fail = judge_element(d, r[0], 4096 + 2 * d.bound(r[0]));
  CHECK(pass.verdict() == Verdict::Pass);
  CHECK(pass.pratio == Approx(0.5).epsilon(1e-3));
  CHECK(improbable.verdict() == Verdict::Improbable);
  CHECK(improbable.pratio == Approx(2).epsilon(1e-3));
  CHECK(fail.verdict() == Verdict::Fail);
  // lambda for a check: every one of N sums holds with probability 1 - delta.
  CHECK(BoundDomain::lambda_for(1e-9, 1e6) == Approx(std::sqrt(2 * std::log(2e15))));
  const BoundDomain at(float_profile("ieee"), BoundDomain::lambda_for(1e-9, 1e6));
  CHECK(at.event_risk() * 1e6 == Approx(1e-9));
}

TEST_CASE("stat tier: the check's verdicts and exit statuses and failure probability", "[bound][stat]") {
  const Module m = parse_module(kSumOf4096, "sum.mlir");
  const Arrays in = {f32_array({4096}, std::vector<float>(4096, 1.0f))};
  // Events: the constant (1), the reduce (1 result + 4097 operand elements) and the verdict (1).
  const double n = 4096, lambda = BoundDomain::lambda_for(1e-9, 4100);
  CHECK(sum_events(m, 1) == 4100);
  const double e = lambda * 0x1p-24 * std::sqrt(n - 1) * (1 + gamma_f32(4095)) * n;
  auto verdict_at = [&](double y) { return check(m, "ieee", in, {f32_array({}, {static_cast<float>(y)})}); };
  const CheckReport honest = verdict_at(4096), improbable = verdict_at(4096 + 1.5 * e), fail = verdict_at(4096 + 1.5 * gamma_f32(4095) * n);
  CHECK(honest.verdict() == Verdict::Pass);
  CHECK(honest.lambda == Approx(lambda));
  CHECK(honest.event_risk * 4100 == Approx(1e-9));
  CHECK(improbable.verdict() == Verdict::Improbable);
  // The element relies on one event (its sum) and its verdict: twice the risk of one.
  CHECK(improbable.outputs[0].improbable_probability == Approx(2 * honest.event_risk));
  CHECK(fail.verdict() == Verdict::Fail);
  CHECK(static_cast<int>(Verdict::Improbable) == 3);
  CHECK(static_cast<int>(Verdict::NoVerdict) == 4);
  CHECK(worse(Verdict::NoVerdict, Verdict::Improbable) == Verdict::Improbable);
  CHECK(worse(Verdict::Fail, Verdict::Improbable) == Verdict::Fail);
  // A larger delta narrows the statistical bound: the same output becomes improbable.
  const CheckReport loose = check(m, "ieee", in, {f32_array({}, {static_cast<float>(4096 + 0.8 * e)})}, 0.4);
  CHECK(loose.lambda < lambda);
  CHECK(loose.verdict() == Verdict::Improbable);
  CHECK(check(m, "ieee", in, {f32_array({}, {static_cast<float>(4096 + 0.8 * e)})}).verdict() == Verdict::Pass);
  CHECK_THROWS_AS(check(m, "ieee", in, {f32_array({}, {4096})}, 0), std::invalid_argument);
}

TEST_CASE("stat tier: one correct rounding may come within 2^-22 of its bound in both tiers (mlp_train_step's 0.87)", "[bound][stat]") {
  const Module m = parse_module(R"(module @m {
  func.func @f(%w: tensor<f32>, %t: tensor<f32>) -> tensor<f32> {
    %r = stablehlo.subtract %w, %t : tensor<f32>
    return %r : tensor<f32>
  }
})",
                                "sub.mlir");
  // w - t = 1 + 6 2^-25 exactly: a tie between 1 + 2^-23 and 1 + 2^-22, rounded to the even
  // 1 + 2^-22, an error of 2^-24 (half an ulp, the most a rounding makes). One rounding's
  // allowance is u |r| = 2^-24 (1 + 6 2^-25) in both tiers (lambda u |r| would be wider), so
  // the honest result sits at 1 / (1 + 6 2^-25) of both bounds: close to 1, never above.
  const float w = 1.0f + 0x1p-22f, t = 0x1p-24f;
  const float honest = w - t;
  REQUIRE(honest == 1.0f + 0x1p-22f);
  const Arrays in = {f32_array({}, {w}), f32_array({}, {t})};
  const CheckReport r = check(m, "ieee", in, {f32_array({}, {honest})});
  CHECK(r.verdict() == Verdict::Pass);
  INFO(std::setprecision(17) << r.worst_ratio << " " << r.worst_pratio);
  // (The enclosure of r is rounded outward by a few 2^-52: against a distance of 2^-24, 1e-8.)
  CHECK(r.worst_ratio == Approx(1 / (1 + 6 * 0x1p-25)).epsilon(3e-8));
  CHECK(r.worst_ratio < 1);
  CHECK(r.worst_pratio == Approx(r.worst_ratio).epsilon(1e-12));
  // Control: one ulp further (2^-22 + 2^-24 off) is outside the sound bound.
  CHECK(check(m, "ieee", in, {f32_array({}, {std::nextafter(honest, 2.0f)})}).verdict() == Verdict::Fail);
}

TEST_CASE("stat tier: a select that may flip keeps both branches and a value between them is near neither", "[bound][stat]") {
  const Module m = parse_module(R"(module @m {
  func.func @f(%x: tensor<2xf32>, %y: tensor<2xf32>, %w: tensor<2xf32>, %a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
    %t = stablehlo.multiply %x, %y : tensor<2xf32>
    %u = stablehlo.subtract %t, %w : tensor<2xf32>
    %z = stablehlo.constant dense<0.0> : tensor<2xf32>
    %c = stablehlo.compare GT, %u, %z : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %r = stablehlo.select %c, %a, %b : tensor<2xi1>, tensor<2xf32>
    return %r : tensor<2xf32>
  }
})",
                                "sel.mlir");
  // Element 0: u = x y - w is exactly 2^-24 but 0 in float32 (as in test_bound): the choice
  // between a = 5 and b = 0 may flip. Element 1: u = 2, surely positive.
  const float p = 1.0f + 0x1p-12f, w = 1.0f + 0x1p-11f;
  const BoundDomain d(float_profile("ieee"));
  const auto r = bound_run(d, m, {{p, 3}, {p, 1}, {w, 1}, {5, 5}, {0, 0}});
  REQUIRE(r[0].flags & kBranchGap);
  CHECK(judge_element(d, r[0], 5).verdict() == Verdict::Pass);
  CHECK(judge_element(d, r[0], 0).verdict() == Verdict::Pass);  // the other branch
  CHECK(judge_element(d, r[0], 2.5).verdict() == Verdict::Fail);  // near neither: the hull alone would pass it
  CHECK(d.bound(r[0]) >= 5);
  CHECK_FALSE(r[1].flags & kBranchGap);
  CHECK(judge_element(d, r[1], 0).verdict() == Verdict::Fail);  // control: no flip, the one branch
}

TEST_CASE("honest verdicts: an element whose bounds are both infinite is NO VERDICT (never PASS) and names the op", "[bound][stat]") {
  const Module m = parse_module(R"(module @m {
  func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
    %e = stablehlo.exponential %x : tensor<2xf32>
    %h = stablehlo.add %e, %e : tensor<2xf32>
    return %h : tensor<2xf32>
  }
})",
                                "exp.mlir");
  // exp(88.5) ~ 2.9e38: its double 5.8e38 overflows float32, so the sum's bound is infinite.
  const Arrays big = {f32_array({2}, {88.5f, 88.5f})};
  const CheckReport r = check(m, "ieee", big, {f32_array({2}, {std::numeric_limits<float>::infinity(), NAN})});
  CHECK(r.verdict() == Verdict::NoVerdict);
  CHECK(r.outputs[0].unbounded == 2);
  CHECK(r.outputs[0].unbounded_exact == Approx(2 * std::exp(88.5)).epsilon(1e-6));  // finite, and given
  CHECK(r.first_unbounded.find("%h = stablehlo.add") != std::string::npos);
  CHECK(r.first_unbounded.find("exp.mlir:4:") != std::string::npos);
  CHECK(format_table(r).find("NO VERDICT") != std::string::npos);
  CHECK(format_table(r).find("PASS") == std::string::npos);  // the table never says PASS
  // Nothing judged, so nothing is said about the profiles (it once said "ieee, tf32, bf16").
  CHECK(judged_elements(r.outputs) == 0);
  CHECK(r.consistent_profiles.empty());
  CHECK(format_table(r).find("consistent with profiles: not judged") != std::string::npos);
  CHECK(format_json(r).find("\"judged_elements\": 0") != std::string::npos);
  // Control: small inputs, bounded, PASS, consistent with every profile; a NaN output there is a FAIL.
  const Arrays small = {f32_array({2}, {1, 2})};
  const float e1 = 2 * std::exp(1.0f), e2 = 2 * std::exp(2.0f);
  const CheckReport bounded = check(m, "ieee", small, {f32_array({2}, {e1, e2})});
  CHECK(bounded.verdict() == Verdict::Pass);
  CHECK(judged_elements(bounded.outputs) == 2);
  CHECK(bounded.consistent_profiles == std::vector<std::string>{"ieee", "tf32", "bf16"});
  CHECK(format_table(bounded).find("consistent with profiles: ieee, tf32, bf16") != std::string::npos);
  CHECK(check(m, "ieee", small, {f32_array({2}, {e1, NAN})}).verdict() == Verdict::Fail);
  CHECK(check(m, "ieee", small, {f32_array({2}, {e1, e2})}).first_unbounded.empty());
  // A NaN input names the argument.
  try {
    check(m, "ieee", {f32_array({2}, {1, NAN})}, {f32_array({2}, {e1, e2})});
    FAIL("a NaN input was accepted");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("input %x") != std::string::npos);
    CHECK(std::string(e.what()).find("NaN") != std::string::npos);
  }
}

TEST_CASE("stat tier: TF32 and bf16 matmul outputs are caught under ieee and pass under their own profile", "[bound][stat][artifacts]") {
  for (const char* name : {"linear_fwd", "mlp_fwd"}) {
    if (!std::ifstream(artifact(name))) {
      WARN("skipped: " << artifact(name) << " is absent");
      return;
    }
    const Module m = parse_module_file(artifact(name));
    const Shape out_shape = m.function().return_types[0].shape;
    for (const Range range : kRanges)
      for (std::uint64_t seed : {1, 2, 3}) {
        INFO(name << " inputs in [" << range.lo << ", " << range.hi << "), seed " << seed);
        const Arrays in = random_inputs(m, seed, range.lo, range.hi);
        const NpyArray tf32 = f32_array(out_shape, dense_forward(in, 10)), bf16 = f32_array(out_shape, dense_forward(in, 7));
        const CheckReport t_ieee = check(m, "ieee", in, {tf32}), b_ieee = check(m, "ieee", in, {bf16});
        INFO("tf32 under ieee: worst error/statistical bound " << t_ieee.worst_pratio << ", error/bound " << t_ieee.worst_ratio);
        INFO("bf16 under ieee: worst error/statistical bound " << b_ieee.worst_pratio << ", error/bound " << b_ieee.worst_ratio);
        CHECK((t_ieee.verdict() == Verdict::Improbable || t_ieee.verdict() == Verdict::Fail));
        CHECK((b_ieee.verdict() == Verdict::Improbable || b_ieee.verdict() == Verdict::Fail));
        CHECK(t_ieee.consistent_profiles == std::vector<std::string>{"tf32", "bf16"});
        CHECK(b_ieee.consistent_profiles.back() == "bf16");
        CHECK(format_table(t_ieee).find("hint: the outputs fit tf32, not ieee") != std::string::npos);
        if (b_ieee.consistent_profiles.size() == 1)
          CHECK(format_table(b_ieee).find("hint: the outputs fit bf16 only") != std::string::npos);
        const CheckReport t_own = check(m, "tf32", in, {tf32}), b_own = check(m, "bf16", in, {bf16});
        INFO("tf32 under tf32: " << t_own.worst_pratio << "; bf16 under bf16: " << b_own.worst_pratio);
        CHECK(t_own.verdict() == Verdict::Pass);
        CHECK(b_own.verdict() == Verdict::Pass);
        // The independent route itself, in float32: honest, PASS under ieee.
        const CheckReport f32 = check(m, "ieee", in, {f32_array(out_shape, dense_forward(in, 23))});
        CHECK(f32.verdict() == Verdict::Pass);
        CHECK(f32.worst_pratio > 0);
        CHECK(format_table(f32).find("hint:") == std::string::npos);  // honest outputs: no hint
        CHECK(format_table(t_own).find("hint:") == std::string::npos);  // the profile said tf32
      }
  }
}

namespace {

// Inputs for every replica (a data-parallel program gets a different draw per replica).
std::vector<Arrays> replica_inputs(const Module& m, int replicas, std::uint64_t seed, Range range) {
  std::vector<Arrays> in;
  for (int r = 0; r < replicas; ++r) in.push_back(random_inputs(m, seed * 1000 + static_cast<std::uint64_t>(r), range.lo, range.hi));
  return in;
}

// outputs[replica][result] of a run in domain d, each scalar read by `as_float`.
template <class D, class AsFloat>
std::vector<Arrays> output_arrays(const std::vector<std::vector<Value<D>>>& outputs, AsFloat as_float) {
  std::vector<Arrays> out;
  for (const auto& replica : outputs) {
    Arrays arrays;
    for (const auto& value : replica) {
      if (const auto* p = std::get_if<PredTensor>(&value)) {
        arrays.push_back(NpyArray{p->shape, std::vector<std::uint8_t>(p->data.begin(), p->data.end())});
        continue;
      }
      const auto& t = std::get<Tensor<typename D::Scalar>>(value);
      std::vector<float> y;
      for (const auto& s : t.data) y.push_back(as_float(s));
      arrays.push_back(f32_array(t.shape, std::move(y)));
    }
    out.push_back(std::move(arrays));
  }
  return out;
}

const SumOrder kOrders[] = {SumOrder::LeftFold, SumOrder::Reversed, SumOrder::Pairwise, SumOrder::Shuffled};
const char* const kEvaluationNames[] = {"left fold", "reversed", "pairwise", "shuffled", "cuda host"};

// The honest float32 evaluations of m a GPU might make: the four summation orders, then the
// CUDA host path, each as outputs[replica][result].
std::vector<std::vector<Arrays>> honest_evaluations(const Module& m, const std::vector<Arrays>& in, std::uint64_t seed) {
  const int replicas = static_cast<int>(in.size());
  RunOptions options;
  options.replicas = replicas;
  std::vector<std::vector<Arrays>> sets;
  for (SumOrder order : kOrders) {
    const SumOrderDomain d(order, seed);
    std::vector<std::vector<Value<SumOrderDomain>>> vin(in.size());
    for (std::size_t r = 0; r < in.size(); ++r)
      for (const auto& a : in[r]) {
        std::vector<OrderedF32> v;
        for (float x : data(a)) v.push_back(d.from_double(x));
        vin[r].push_back(Tensor<OrderedF32>(a.shape, std::move(v)));
      }
    sets.push_back(output_arrays<SumOrderDomain>(run_program(m, d, std::move(vin), options).outputs, [&](const OrderedF32& s) { return d.value(s); }));
  }
  auto host = cuda::make_host_backend();
  std::vector<std::vector<Value<F32Domain>>> fin(in.size());
  for (std::size_t r = 0; r < in.size(); ++r)
    for (const auto& a : in[r]) fin[r].push_back(Tensor<float>(a.shape, data(a)));
  sets.push_back(output_arrays<F32Domain>(cuda::run_on_backend(m, *host, fin, replicas).outputs, [](float x) { return x; }));
  return sets;
}

// What a sweep of honest evaluations found: the worst error over the statistical bound (and
// where), how many checks it ran and how many of them had NO VERDICT (an overflow or a
// negative square root on these inputs, which leaves nothing to check).
struct HonestFigures {
  double worst_pratio = 0;
  std::string worst_at;
  int checks = 0, no_verdict = 0;
  int unlikely = 0;  // with the sampled tier: sets whose errors together are UNLIKELY (a hint, not a verdict)
};

// Every honest evaluation of the artifact `name` on inputs drawn in each range with each
// seed is neither IMPROBABLE nor FAIL (one bound analysis per draw judges all five).
HonestFigures honest_sweep(const std::string& name, const Module& m, const std::vector<Range>& ranges, const std::vector<std::uint64_t>& seeds,
                           const CheckOptions& options = {}) {
  HonestFigures f;
  const int replicas = name.find("dp") != std::string::npos ? 2 : 1;  // the data-parallel program
  for (const Range range : ranges)
    for (std::uint64_t seed : seeds) {
      const std::vector<Arrays> in = replica_inputs(m, replicas, seed, range);
      const auto sets = honest_evaluations(m, in, seed);
      const auto reports = check_float_output_sets(m, float_profile("ieee"), in, sets, replicas, options);
      for (std::size_t k = 0; k < reports.size(); ++k) {
        const CheckReport& r = reports[k];
        const std::string where = name + " [" + std::to_string(range.lo) + ", " + std::to_string(range.hi) + ") seed " +
                                  std::to_string(seed) + " " + kEvaluationNames[k];
        INFO(where << ": " << format_table(r));
        CHECK(r.verdict() != Verdict::Improbable);
        CHECK(r.verdict() != Verdict::Fail);
        ++f.checks;
        f.no_verdict += r.verdict() == Verdict::NoVerdict;
        f.unlikely += r.aggregate.tested && r.aggregate.unlikely();
        if (r.worst_pratio > f.worst_pratio) {
          f.worst_pratio = r.worst_pratio;
          f.worst_at = where;
        }
      }
    }
  return f;
}

// The text of a program the hidden measurements take by name: an artifact, or one of the
// programs at a test's scale, "small_conv" (tests/stat_support.hpp) and "small_cnn_train_step"
// ("" when the artifact is absent).
std::string program_text(const std::string& name) {
  if (name == "small_conv") return kSmallConv;
  // SHLO_SWEEP_DIR: the artifacts as another tool wrote them (bench/stat_sweep.sh: rebatched).
  if (const char* dir = std::getenv("SHLO_SWEEP_DIR"); dir && *dir) {
    const std::string text = test::read_file(std::string(dir) + "/" + name + ".mlir");
    if (!text.empty()) return text;
  }
  if (name == "cifar8_bn_fwd_8") {
    const std::string text = test::read_file(artifact("cifar8_bn_fwd"));
    return text.empty() ? text : cifar8_bn_fwd_at_8(text);
  }
  if (name == "small_cnn_train_step") {
    const std::string text = test::read_file(artifact("cnn_train_step"));
    return text.empty() ? text : with_sizes(text, kSmallCnn);
  }
  return test::read_file(artifact(name.c_str()));
}

HonestFigures honest_sweep(const std::string& name, const std::vector<Range>& ranges, const std::vector<std::uint64_t>& seeds,
                           const CheckOptions& options = {}) {
  return honest_sweep(name, parse_module(program_text(name), name + ".mlir"), ranges, seeds, options);
}

// The sweep of one artifact in a test: skipped without the artifacts, figures printed, and
// at least one check that had something to judge (a sweep of NO VERDICTs proves nothing).
void honest_sweep_test(const std::string& name, const std::vector<Range>& ranges, const std::vector<std::uint64_t>& seeds,
                       const CheckOptions& options = {}) {
  if (!std::ifstream(artifact(name.c_str()))) {
    WARN("skipped: " << artifact(name.c_str()) << " is absent");
    return;
  }
  const HonestFigures f = honest_sweep(name, ranges, seeds, options);
  WARN(name << ": " << f.checks << " checks (" << f.no_verdict << " NO VERDICT), worst honest error over the statistical bound "
            << f.worst_pratio << " at " << f.worst_at);
  CHECK(f.no_verdict < f.checks);
  CHECK(f.worst_pratio > 0);
  CHECK(f.worst_pratio < 1);
}

const std::vector<Range> kAllRanges(std::begin(kRanges), std::end(kRanges));

}  // namespace

// The first ladder's dense programs, every input range, two seeds: one bound analysis per draw
// judges all five evaluations. mlp_train_step and the convolutional programs take minutes per
// draw in the summation-order domain (an open sum per output element): the hidden
// "[.stat_sweep]" test below (bench/stat_sweep.sh) covers every program of the ladder.
TEST_CASE("stat tier: honest float32 outputs of the dense ladder programs in four orders and on the CUDA host path are never IMPROBABLE",
          "[bound][stat][artifacts]") {
  for (const char* name : {"linear_fwd", "linear_train_step", "mlp_fwd"}) honest_sweep_test(name, kAllRanges, {4, 5});
}

// The convolutional programs at a test's scale, the same five evaluations per draw: the small
// convolutional program (tests/stat_support.hpp) and cnn_train_step at a batch of 4, 8 x 8
// images, 8 features (the printer's text with its sizes replaced).
TEST_CASE("stat tier: honest float32 outputs of small convolutional programs in four orders and on the CUDA host path are never IMPROBABLE",
          "[bound][stat][conv]") {
  const HonestFigures conv = honest_sweep("small_conv", parse_module(kSmallConv, "small_conv.mlir"), kAllRanges, {4, 5, 6});
  WARN("small_conv: " << conv.checks << " checks (" << conv.no_verdict << " NO VERDICT), worst honest error over the statistical bound "
                      << conv.worst_pratio << " at " << conv.worst_at);
  CHECK(conv.checks == 45);
  CHECK(conv.no_verdict == 0);
  CHECK(conv.worst_pratio > 0);
  CHECK(conv.worst_pratio < 1);
  if (!std::ifstream(artifact("cnn_train_step"))) {
    WARN("skipped: " << artifact("cnn_train_step") << " is absent");
    return;
  }
  const HonestFigures train = honest_sweep("small_cnn_train_step", kAllRanges, {4, 5});
  WARN("cnn_train_step at 4 x 8 x 8: " << train.checks << " checks (" << train.no_verdict << " NO VERDICT), worst honest error over the statistical bound "
                                       << train.worst_pratio << " at " << train.worst_at);
  CHECK(train.no_verdict < train.checks);
  CHECK(train.worst_pratio > 0);
  CHECK(train.worst_pratio < 1);
}

// The same with the sampled tier (interp/sampled/sampled.hpp) judging too: its bound is a
// second statistical bound, so an honest evaluation must lie within it as well.
TEST_CASE("stat tier: honest float32 outputs in four orders and on the CUDA host path are never IMPROBABLE with the sampled tier",
          "[bound][stat][sampled]") {
  CheckOptions sampled;
  sampled.sampled = true;
  for (const char* name : {"linear_fwd", "mlp_fwd"}) honest_sweep_test(name, kAllRanges, {4, 5}, sampled);
  const HonestFigures conv = honest_sweep("small_conv", parse_module(kSmallConv, "small_conv.mlir"), kAllRanges, {4, 5}, sampled);
  WARN("small_conv with the sampled tier: " << conv.checks << " checks, worst honest error over the statistical bound "
                                            << conv.worst_pratio << " at " << conv.worst_at);
  CHECK(conv.checks == 30);
  CHECK(conv.no_verdict == 0);
  CHECK(conv.worst_pratio > 0);
  CHECK(conv.worst_pratio < 1);
  if (!std::ifstream(artifact("cnn_train_step"))) return;
  const HonestFigures train = honest_sweep("small_cnn_train_step", kAllRanges, {4}, sampled);
  WARN("cnn_train_step at 4 x 8 x 8 with the sampled tier: " << train.checks << " checks (" << train.no_verdict
                                                             << " NO VERDICT), worst honest error over the statistical bound "
                                                             << train.worst_pratio << " at " << train.worst_at);
  CHECK(train.no_verdict < train.checks);
  CHECK(train.worst_pratio < 1);
}

// cifar8_bn_fwd at a batch of 8, where the analysis alone has no verdict at inputs of both signs
// and the sampled tier judges every element (tests/test_sampled.cpp: TF32 and bf16 caught there):
// its honest evaluations, four orders and the CUDA host path, must lie within the tier's bound.
TEST_CASE("stat tier: honest float32 outputs of cifar8_bn_fwd at 8 in four orders and on the CUDA host path are never IMPROBABLE with the sampled tier",
          "[bound][stat][sampled][artifacts]") {
  if (!std::ifstream(artifact("cifar8_bn_fwd"))) {
    WARN("skipped: " << artifact("cifar8_bn_fwd") << " is absent");
    return;
  }
  CheckOptions sampled;
  sampled.sampled = true;
  const HonestFigures f = honest_sweep("cifar8_bn_fwd_8", kAllRanges, {4}, sampled);
  WARN("cifar8_bn_fwd at 8 with the sampled tier: " << f.checks << " checks (" << f.no_verdict
                                                    << " NO VERDICT), worst honest error over the statistical bound " << f.worst_pratio
                                                    << " at " << f.worst_at);
  CHECK(f.checks == 15);
  CHECK(f.no_verdict == 0);
  CHECK(f.worst_pratio > 0);
  CHECK(f.worst_pratio < 1);
}

// The measurement (docs/measurements.md, bench/stat_sweep.sh): the two small convolutional
// programs and every program of the first ladder, every range (or SHLO_SWEEP_RANGES),
// SHLO_SWEEP_SEEDS seeds (default 10); SHLO_SWEEP_SAMPLED=1 judges with the sampled tier too,
// SHLO_SWEEP_DIR reads the artifacts from another folder. Hidden: hours on a loaded machine.
TEST_CASE("stat tier: the large sweep of honest evaluations of the first ladder", "[.stat_sweep]") {
  const char* env = std::getenv("SHLO_SWEEP_SEEDS");
  const int count = env ? std::atoi(env) : 10;
  const char* only = std::getenv("SHLO_SWEEP_PROGRAMS");  // a space-separated subset, optional
  CheckOptions options;
  options.sampled = env_or("SHLO_SWEEP_SAMPLED", "0") == "1";
  std::vector<std::uint64_t> seeds;
  for (int i = 0; i < count; ++i) seeds.push_back(100 + static_cast<std::uint64_t>(i));
  // SHLO_SWEEP_RANGES="LO,HI ...": those ranges only (default the issue's three).
  std::vector<Range> ranges(std::begin(kRanges), std::end(kRanges));
  if (const std::string listed = env_or("SHLO_SWEEP_RANGES", ""); !listed.empty()) {
    ranges.clear();
    std::istringstream words(listed);
    for (std::string w; words >> w;) {
      const auto [lo, hi] = range_of(w);
      ranges.push_back({lo, hi});
    }
  }
  for (const char* name : {"small_conv", "small_cnn_train_step", "linear_fwd", "linear_train_step", "mlp_fwd", "mlp_train_step", "cnn_fwd", "cifar_fwd", "cifar8_fwd",
                           "cifar8_bn_fwd", "cnn_train_step", "cifar8_train_step", "cifar8_mom_train_step",
                           "cifar8_adam_train_step", "cifar8_adamdp_train_step"}) {
    if (only && *only && (" " + std::string(only) + " ").find(" " + std::string(name) + " ") == std::string::npos) continue;
    for (const Range range : ranges) {
      const auto t0 = std::chrono::steady_clock::now();
      const HonestFigures f = honest_sweep(name, {range}, seeds, options);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("sweep %-26s [%g, %g) %3d checks %3d no-verdict %3d unlikely together, worst %.3g at %s (%.0f s)\n", name, range.lo,
                  range.hi, f.checks, f.no_verdict, f.unlikely, f.worst_pratio, f.worst_at.c_str(), seconds);
      std::fflush(stdout);
    }
  }
}

TEST_CASE("stat tier: the CUDA host path is never IMPROBABLE on random op-level programs", "[bound][stat][cuda]") {
  auto host = cuda::make_host_backend();
  const auto gen = fuzz::gen_op_program(true, true);
  int programs = 0;
  std::int64_t elements = 0;
  for (int i = 0; i < 1000; ++i) {
    const TextCase tc = gen(rc::Random(static_cast<std::uint64_t>(i) * 7927 + 5), 30).value();
    INFO(tc.text);
    const Module m = parse_module(tc.text, "random.mlir");
    const Arrays in = random_inputs(m, static_cast<std::uint64_t>(i), -3.0f, 3.0f);
    std::vector<std::vector<Value<F32Domain>>> fin(1);
    for (const auto& a : in) fin[0].push_back(Tensor<float>(a.shape, data(a)));
    const auto dev = cuda::run_on_backend(m, *host, fin, 1).outputs[0];
    Arrays outs;
    for (const auto& v : dev) {
      if (std::holds_alternative<PredTensor>(v)) break;
      const auto& t = std::get<Tensor<float>>(v);
      outs.push_back(f32_array(t.shape, t.to_vector()));
    }
    if (outs.size() != dev.size()) continue;  // an i1 result: the comparisons are covered elsewhere
    const CheckReport r = check(m, "ieee", in, outs);
    REQUIRE(r.verdict() != Verdict::Improbable);
    REQUIRE(r.verdict() != Verdict::Fail);
    elements += r.outputs[0].elements;
    ++programs;
  }
  CHECK(programs > 500);
  WARN(programs << " programs, " << elements << " elements on the host path: none improbable");
}

namespace {

// The program with its first dot_general's result %r scaled by (1 + eps): one matmul's result
// perturbed by the relative amount eps (as bench/perturb_ladder.sh does to the text).
std::string perturbed_text(const std::string& text, double eps) {
  const std::size_t at = text.find("stablehlo.dot_general");
  REQUIRE(at != std::string::npos);
  const std::size_t begin = text.rfind('\n', at) + 1, end = text.find('\n', at);
  const std::string line = text.substr(begin, end - begin);
  const std::size_t name_begin = line.find('%'), name_end = line.find(" =");
  const std::string indent = line.substr(0, name_begin), name = line.substr(name_begin, name_end - name_begin);
  const std::string type = line.substr(line.rfind("-> ") + 3);
  char scale[64];
  std::snprintf(scale, sizeof scale, "%.9e", 1 + eps);
  const std::string lines = indent + name + "_exact" + line.substr(name_end) + "\n" + indent + name + "_scale = stablehlo.constant dense<" +
                            scale + "> : " + type + "\n" + indent + name + " = stablehlo.multiply " + name + "_exact, " + name +
                            "_scale : " + type;
  return text.substr(0, begin) + lines + text.substr(end);
}

}  // namespace

// The measurement behind docs/measurements.md's "what each tier catches" (bench/perturb_ladder.sh
// runs it): per program and input range, the smallest eps on the grid 1, 2, 5 x 10^k that the
// sound tier (FAIL) and the statistical tier (IMPROBABLE or FAIL) catch, one bound analysis
// judging every perturbed f32 run. Hidden: minutes per program.
TEST_CASE("stat tier: the smallest perturbation of one matmul each tier catches", "[.perturb]") {
  const double grid[] = {0, 1e-7, 2e-7, 5e-7, 1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4, 2e-4,
                         5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2, 5e-2, 0.1,  0.2,  0.5};
  const char* names = std::getenv("SHLO_PERTURB_PROGRAMS");
  const char* range_text = std::getenv("SHLO_PERTURB_RANGE");  // "LO,HI", default 0,0.01
  Range range{0, 0.01f};
  if (range_text) std::sscanf(range_text, "%f,%f", &range.lo, &range.hi);
  std::istringstream list(names ? names : "linear_fwd");
  for (std::string name; list >> name;) {
    const std::string text = program_text(name);
    REQUIRE(!text.empty());
    const Module m = parse_module(text, name + ".mlir");
    const int replicas = name.find("dp") != std::string::npos ? 2 : 1;
    const std::vector<Arrays> in = replica_inputs(m, replicas, 7, range);
    std::vector<std::vector<Arrays>> sets;
    for (double eps : grid) {
      const Module p = parse_module(perturbed_text(text, eps), name + "_perturbed.mlir");
      std::vector<std::vector<Value<F32Domain>>> fin(in.size());
      for (std::size_t r = 0; r < in.size(); ++r)
        for (const auto& a : in[r]) fin[r].push_back(Tensor<float>(a.shape, data(a)));
      RunOptions options;
      options.replicas = replicas;
      sets.push_back(output_arrays<F32Domain>(run_program(p, F32Domain{}, std::move(fin), options).outputs, [](float x) { return x; }));
    }
    const auto reports = check_float_output_sets(m, float_profile("ieee"), in, sets, replicas);
    // With SHLO_PERTURB_SAMPLED=1, the statistical tier with the sampled one judging too.
    const bool with_sampled = env_or("SHLO_PERTURB_SAMPLED", "0") == "1";
    CheckOptions options;
    options.sampled = true;
    const auto sampled = with_sampled ? check_float_output_sets(m, float_profile("ieee"), in, sets, replicas, options)
                                      : std::vector<CheckReport>{};
    auto smallest = [&](const std::vector<CheckReport>& r, bool fail_only) {
      for (std::size_t k = 1; k < r.size(); ++k) {
        const Verdict v = r[k].verdict();
        if (v == Verdict::Fail || (!fail_only && v == Verdict::Improbable)) {
          char eps[16];
          std::snprintf(eps, sizeof eps, "%g", grid[k]);
          return std::string(eps);
        }
      }
      return std::string("-");
    };
    // Unperturbed: honest (where the analysis alone has no verdict, the sampled tier must pass it).
    CHECK((reports[0].verdict() == Verdict::Pass || (with_sampled && reports[0].verdict() == Verdict::NoVerdict)));
    const std::string sound = smallest(reports, true), stat = smallest(reports, false),
                      with = with_sampled ? smallest(sampled, false) : "";
    if (with_sampled) CHECK(sampled[0].verdict() == Verdict::Pass);
    std::printf("perturb %-26s [%g, %g) sound %-8s stat %-8s%s%-8s (analysis %.1f s, unperturbed: %s)\n", name.c_str(),
                range.lo, range.hi, sound.c_str(), stat.c_str(), with_sampled ? " with sampled " : "", with.c_str(),
                reports[0].seconds, verdict_name(reports[0].verdict()));
    std::fflush(stdout);
  }
}
