// shlo dp-check: a data-parallel program on R replicas against the full-batch program.
#include <cmath>

#include "oracle/dp_check.hpp"
#include "support.hpp"

namespace shlo {
namespace {

// A least-squares SGD step on a batch of `rows` examples with 3 features:
//   w' = w - lr * X^T (X w - y) / rows,  loss = sum (X w - y)^2 / rows.
// The DP form (`replicas` > 0) takes the per-replica mean gradient, all-reduces it over every
// replica and divides by `divisor` (R for the real program; R - 1 is the control's bug). Its
// loss is per replica: report-only.
std::string least_squares_text(std::int64_t rows, int replicas, int divisor) {
  const std::string n = std::to_string(rows), X = "tensor<" + n + "x3xf32>", E = "tensor<" + n + "x1xf32>", G = "tensor<3x1xf32>";
  std::string body =
      "    %p = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (" + X + ", " + G + ") -> " + E + "\n"
      "    %e = stablehlo.subtract %p, %y : " + E + "\n"
      "    %g = stablehlo.dot_general %x, %e, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (" + X + ", " + E + ") -> " + G + "\n"
      "    %nb = stablehlo.constant dense<" + n + ".0> : " + G + "\n"
      "    %gm = stablehlo.divide %g, %nb : " + G + "\n";
  std::string mean = "%gm";
  if (replicas > 0) {
    std::string group;
    for (int r = 0; r < replicas; ++r) group += (r ? ", " : "") + std::to_string(r);
    body += "    %s = \"stablehlo.all_reduce\"(%gm) ({\n"
            "    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
            "      %ab = stablehlo.add %a, %b : tensor<f32>\n"
            "      stablehlo.return %ab : tensor<f32>\n"
            "    }) { replica_groups = dense<[[" + group + "]]> : tensor<1x" + std::to_string(replicas) + "xi64> } : (" + G + ") -> " + G + "\n"
            "    %rn = stablehlo.constant dense<" + std::to_string(divisor) + ".0> : " + G + "\n"
            "    %gr = stablehlo.divide %s, %rn : " + G + "\n";
    mean = "%gr";
  }
  body += "    %lrb = stablehlo.broadcast_in_dim %lr, dims = [] : (tensor<f32>) -> " + G + "\n"
          "    %step = stablehlo.multiply %lrb, " + mean + " : " + G + "\n"
          "    %w2 = stablehlo.subtract %w, %step : " + G + "\n"
          "    %e2 = stablehlo.multiply %e, %e : " + E + "\n"
          "    %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
          "    %l = stablehlo.reduce(%e2 init: %z) applies stablehlo.add across dimensions = [0, 1] : (" + E + ", tensor<f32>) -> tensor<f32>\n"
          "    %nl = stablehlo.constant dense<" + n + ".0> : tensor<f32>\n"
          "    %loss = stablehlo.divide %l, %nl : tensor<f32>\n";
  return "module @m {\n  func.func @f(%x: " + X + ", %y: " + E + ", %w: " + G + ", %lr: tensor<f32>) -> (" + G + ", tensor<f32>) {\n" + body +
         "    return %w2, %loss : " + G + ", tensor<f32>\n  }\n}\n";
}

struct Pair {
  Module dp, full;
  std::vector<NpyArray> inputs;
};

Pair least_squares_pair(int replicas, int divisor, std::int64_t rows_per_replica = 4) {
  Pair p{parse_module(least_squares_text(rows_per_replica, replicas, divisor), "dp.mlir"),
         parse_module(least_squares_text(rows_per_replica * replicas, 0, 0), "full.mlir"), {}};
  for (std::size_t i = 0; i < p.full.function().arguments.size(); ++i)
    p.inputs.push_back(random_input(p.full.function().arguments[i].type, 11, 0, i, -1, 1));
  return p;
}

// The control's error, by an independent route (double arithmetic on the inputs): dividing
// the all-reduced sum of R means by R - 1 instead of R moves w by lr * |gradient| / (R - 1).
double control_gap(const Pair& p, int replicas) {
  const auto& x = std::get<std::vector<float>>(p.inputs[0].data);
  const auto& y = std::get<std::vector<float>>(p.inputs[1].data);
  const auto& w = std::get<std::vector<float>>(p.inputs[2].data);
  const double lr = std::get<std::vector<float>>(p.inputs[3].data)[0];
  const std::size_t rows = y.size();
  double worst = 0;
  for (std::size_t j = 0; j < 3; ++j) {
    double g = 0;
    for (std::size_t i = 0; i < rows; ++i) g += x[i * 3 + j] * (x[i * 3] * w[0] + x[i * 3 + 1] * w[1] + x[i * 3 + 2] * w[2] - y[i]);
    worst = std::max(worst, std::fabs(lr * g / static_cast<double>(rows)) / (replicas - 1));
  }
  return worst;
}

}  // namespace

TEST_CASE("dp-check: arguments by name, shards of R rows, the per-replica loss found report-only", "[dp]") {
  const Pair p = least_squares_pair(4, 4);
  const DpPlan plan = plan_dp_check(p.dp, p.full, 4);
  REQUIRE(plan.arguments.size() == 4);
  CHECK(plan.arguments[0].sharded);   // %x
  CHECK(plan.arguments[1].sharded);   // %y
  CHECK(!plan.arguments[2].sharded);  // %w
  CHECK(!plan.arguments[3].sharded);  // %lr
  REQUIRE(plan.outputs.size() == 2);
  CHECK(!plan.outputs[0].report_only);
  CHECK(plan.outputs[1].report_only);
  CHECK(plan.outputs[1].why == "varies per replica");
  // Replica 2 gets rows 8..11 of x: elements 24..35.
  const auto shards = shard_inputs(plan, p.dp, p.inputs);
  const auto& whole = std::get<std::vector<float>>(p.inputs[0].data);
  const auto& third = std::get<std::vector<float>>(shards[2][0].data);
  CHECK(shards[2][0].shape == Shape{4, 3});
  CHECK(std::vector<float>(whole.begin() + 24, whole.begin() + 36) == third);
  CHECK(shards[3][2].shape == Shape{3, 1});
  // Control: the same pair on the wrong replica count is not a shard.
  CHECK_THROWS_WITH(plan_dp_check(p.dp, p.full, 2), Catch::Contains("argument %x") && Catch::Contains("neither the same type nor a shard"));
  // A name FULL does not have.
  Module renamed = p.full;
  renamed.function().arguments[2].name = "%weights";
  CHECK_THROWS_WITH(plan_dp_check(p.dp, renamed, 4), Catch::Contains("argument %weights has no argument of that name"));
  CHECK_THROWS_WITH(plan_dp_check(p.dp, p.full, 4, {"nosuch"}), Catch::Contains("--report-only nosuch"));
  CHECK(plan_dp_check(p.dp, p.full, 4, {"w2"}).outputs[0].report_only);
}

TEST_CASE("dp-check: the least-squares pair passes at R = 2 and 4 in every domain, and its R - 1 control fails", "[dp]") {
  for (int R : {2, 4}) {
    for (const char* domain : {"exact", "interval:64", "f32", "f64"}) {
      CAPTURE(R, domain);
      const Pair good = least_squares_pair(R, R);
      const DpReport pass = dp_check(good.dp, good.full, plan_dp_check(good.dp, good.full, R), parse_domain(domain), good.inputs);
      REQUIRE(pass.outputs.size() == 2);
      CHECK(pass.pass());
      CHECK(pass.outputs[0].failing == 0);
      CHECK(pass.outputs[0].replicas_agree);
      CHECK(pass.outputs[1].report_only);
      if (std::string(domain) == "exact") CHECK(pass.outputs[0].max_gap == 0);
      if (std::string(domain) == "interval:64") CHECK(pass.outputs[0].widest > 0);

      const Pair bad = least_squares_pair(R, R - 1);
      const DpReport fail = dp_check(bad.dp, bad.full, plan_dp_check(bad.dp, bad.full, R), parse_domain(domain), bad.inputs);
      CHECK(!fail.pass());
      CHECK(fail.outputs[0].failing == 3);
      CHECK(fail.outputs[0].max_gap == Approx(control_gap(bad, R)).epsilon(1e-5));
    }
  }
}

TEST_CASE("dp-check: float outputs computed elsewhere are judged against the two sound bounds", "[dp]") {
  const int R = 2;
  const Pair p = least_squares_pair(R, R, 64);
  const DpPlan plan = plan_dp_check(p.dp, p.full, R);
  // The outputs as another evaluator would hand them over: here our own f32 runs.
  const F32Domain f32;
  auto as_npy = [](const Value<F32Domain>& v) {
    const auto& t = std::get<Tensor<float>>(v);
    return NpyArray{t.shape, t.to_vector()};
  };
  std::vector<std::vector<Value<F32Domain>>> dp_in(R);
  const auto shards = shard_inputs(plan, p.dp, p.inputs);
  for (int r = 0; r < R; ++r)
    for (const auto& a : shards[static_cast<std::size_t>(r)])
      dp_in[static_cast<std::size_t>(r)].push_back(Tensor<float>(a.shape, std::get<std::vector<float>>(a.data)));
  std::vector<Value<F32Domain>> full_in;
  for (const auto& a : p.inputs) full_in.push_back(Tensor<float>(a.shape, std::get<std::vector<float>>(a.data)));
  RunOptions o;
  o.replicas = R;
  const auto dp_run = run_program(p.dp, f32, dp_in, o);
  const auto full_run = run_program(p.full, f32, {full_in}, RunOptions{});
  DpCheckOptions given;
  given.dp_outputs.emplace();
  for (int r = 0; r < R; ++r) {
    given.dp_outputs->emplace_back();
    for (const auto& v : dp_run.outputs[static_cast<std::size_t>(r)]) given.dp_outputs->back().push_back(as_npy(v));
  }
  given.full_outputs.emplace();
  for (const auto& v : full_run.outputs[0]) given.full_outputs->push_back(as_npy(v));
  const DpReport pass = dp_check(p.dp, p.full, plan, parse_domain("f32"), p.inputs, given);
  CHECK(pass.domain == "float outputs given");
  CHECK(pass.pass());
  CHECK(pass.outputs[0].worst_ratio < 1);
  // Control: one element of FULL's w' moved by 1e-3 (far beyond rounding) fails, there only.
  auto& w = std::get<std::vector<float>>((*given.full_outputs)[0].data);
  w[1] += 1e-3f;
  const DpReport fail = dp_check(p.dp, p.full, plan, parse_domain("f32"), p.inputs, given);
  CHECK(!fail.pass());
  CHECK(fail.outputs[0].failing == 1);
  CHECK(fail.outputs[0].first_failing == 1);
  CHECK(fail.outputs[0].max_gap == Approx(1e-3).epsilon(1e-3));
  CHECK(format_table(fail).find("first at index 1") != std::string::npos);
  // Outputs for another domain than a float one are refused.
  CHECK_THROWS_WITH(dp_check(p.dp, p.full, plan, parse_domain("exact"), p.inputs, given), Catch::Contains("judged in f32 or f64"));
}

}  // namespace shlo
