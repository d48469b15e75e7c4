// The bound domain: hand-computed bounds, known counterexamples, flips, and the property that
// no float32 evaluation order ever lands outside the bound while a moved result always does.
#include <catch2/catch.hpp>
#include <rapidcheck.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <random>

#include "ast/mlir_parse.hpp"
#include "fuzz/gen_ops.hpp"
#include "interp/run.hpp"
#include "oracle/float_check.hpp"
#include "oracle/sum_order_domain.hpp"

using namespace shlo;

namespace {

const BoundDomain ieee(float_profile("ieee"));

template <class D>
std::vector<typename D::Scalar> run1(const D& d, const std::string& text, const std::vector<std::vector<float>>& args, int replicas = 1) {
  const Module m = parse_module(text, "t.mlir");
  std::vector<std::vector<Value<D>>> in(static_cast<std::size_t>(replicas));
  for (int r = 0; r < replicas; ++r)
    for (std::size_t i = 0; i < m.function().arguments.size(); ++i) {
      std::vector<typename D::Scalar> v;
      const auto& src = args[replicas == 1 ? i : static_cast<std::size_t>(r)];
      for (float x : src) v.push_back(d.from_double(x));
      in[static_cast<std::size_t>(r)].push_back(Tensor<typename D::Scalar>(m.function().arguments[i].type.shape, v));
    }
  RunOptions o;
  o.replicas = replicas;
  auto res = run_program(m, d, std::move(in), o);
  auto out = std::get<Tensor<typename D::Scalar>>(res.outputs[0][0]).data;
  if constexpr (std::is_same_v<D, BoundDomain>)
    for (auto& s : out) s = d.closed(s);
  return out;
}

const char* kDot = R"(module @m {
  func.func @f(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<f32> {
    %v0 = stablehlo.dot_general %x, %y, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
    return %v0 : tensor<f32>
  }
})";

const char* kSum = R"(module @m {
  func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %v0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
    return %v0 : tensor<f32>
  }
})";

}  // namespace

TEST_CASE("bound: gamma and a dot product computed by hand", "[bound]") {
  CHECK(gamma_f32(0) == 0);
  CHECK(gamma_f32(1) == Approx(0x1p-24).epsilon(1e-6));
  CHECK(gamma_f32(2) > 2 * 0x1p-24);
  CHECK(std::isinf(gamma_f32(std::uint64_t(1) << 24)));
  // ones . ones: three products, each within 2^-24 of its exact value 1, summed in any order:
  // 3 * 2^-24 + gamma_2 * 3 (1 + 2^-24), about 9 * 2^-24.
  const auto r = run1(ieee, kDot, {{1, 1, 1}, {1, 1, 1}});
  CHECK(r[0].lo <= 3);
  CHECK(r[0].hi >= 3);
  CHECK(ieee.bound(r[0]) >= 9 * 0x1p-24);
  CHECK(ieee.bound(r[0]) <= 9.001 * 0x1p-24);
}

TEST_CASE("bound: 1e8 + 1 - 1e8 is 0 in float32, and the bound says it may be", "[bound]") {
  const auto r = run1(ieee, kSum, {{1e8f, 1, -1e8f}});
  const auto f32 = run1(SumOrderDomain(SumOrder::LeftFold, 0), kSum, {{1e8f, 1, -1e8f}});
  CHECK(f32[0].terms.size() == 4);
  CHECK(SumOrderDomain(SumOrder::LeftFold, 0).value(f32[0]) == 0.0f);  // the known counterexample
  const double b = ieee.bound(r[0]);
  CHECK(b == Approx(gamma_f32(2) * (2e8 + 1)).epsilon(1e-6));  // the three terms are exact inputs
  CHECK_FALSE(judge_element(ieee, r[0], 0).over);
  CHECK(judge_element(ieee, r[0], 0).ratio == Approx(1 / b).epsilon(1e-6));
  CHECK(judge_element(ieee, r[0], 1 + 1.01 * b).over);  // control: just beyond the bound
  CHECK_FALSE(judge_element(ieee, r[0], 1 + 0.99 * b).over);
}

TEST_CASE("bound: comparisons whose operands' bounds straddle flag the element and cover both branches", "[bound]") {
  const char* relu = R"(module @m {
  func.func @f(%x: tensor<2xf32>, %y: tensor<2xf32>, %w: tensor<2xf32>) -> tensor<2xf32> {
    %t = stablehlo.multiply %x, %y : tensor<2xf32>
    %u = stablehlo.subtract %t, %w : tensor<2xf32>
    %z = stablehlo.constant dense<0.0> : tensor<2xf32>
    %c = stablehlo.compare GT, %u, %z : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
    %r = stablehlo.select %c, %u, %z : tensor<2xi1>, tensor<2xf32>
    return %r : tensor<2xf32>
  }
})";
  // u = x*y - w: for x = y = 1 + 2^-12, w = 1 + 2^-11 it is exactly 2^-24 > 0, but x*y is a
  // tie in float32 and rounds to w, so the float u is 0: the comparison may flip. For
  // x = 3, y = 1, w = 1: u = 2, surely positive, no flip.
  const float a = 1.0f + 0x1p-12f, w = 1.0f + 0x1p-11f;
  REQUIRE(a * a - w == 0.0f);
  const auto r = run1(ieee, relu, {{a, 3}, {a, 1}, {w, 1}});
  CHECK(r[0].flags & kMayFlip);
  CHECK(r[0].lo <= 0x1p-24);
  CHECK(r[0].hi >= 0x1p-24);
  CHECK_FALSE(r[1].flags & kMayFlip);
  CHECK(r[1].lo <= 2);
  CHECK(r[1].hi >= 2);
  CHECK_FALSE(judge_element(ieee, r[0], 0).over);  // the float branch
  CHECK_FALSE(judge_element(ieee, r[0], 0x1p-24).over);
  CHECK(judge_element(ieee, r[0], 1e-3).over);  // control
  CHECK(judge_element(ieee, r[1], 2.001).over);
}

TEST_CASE("bound: select_and_scatter sends the source to every position that may be chosen", "[bound]") {
  const char* sas = R"(module @m {
  func.func @f(%x: tensor<2xf32>, %y: tensor<2xf32>, %s: tensor<1xf32>) -> tensor<2xf32> {
    %a = stablehlo.multiply %x, %y : tensor<2xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %r = "stablehlo.select_and_scatter"(%a, %s, %z) ({
      ^bb0(%sa: tensor<f32>, %sb: tensor<f32>):
        %sge = stablehlo.compare GE, %sa, %sb : (tensor<f32>, tensor<f32>) -> tensor<i1>
        stablehlo.return %sge : tensor<i1>
    }, {
      ^bb0(%sc: tensor<f32>, %sd: tensor<f32>):
        %ss = stablehlo.add %sc, %sd : tensor<f32>
        stablehlo.return %ss : tensor<f32>
    }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 1>} : (tensor<2xf32>, tensor<1xf32>, tensor<f32>) -> tensor<2xf32>
    return %r : tensor<2xf32>
  }
})";
  // x*y = ((1 + 2^-12)^2, 1 + 2^-11): exactly the first is larger by 2^-24; in float32 it
  // rounds to the second. Either position may receive the source 5 in some evaluation.
  const float a = 1.0f + 0x1p-12f, w = 1.0f + 0x1p-11f;
  const auto r = run1(ieee, sas, {{a, w}, {a, 1}, {5}});
  CHECK(r[0].flags & kMayFlip);
  CHECK(r[1].flags & kMayFlip);
  CHECK(r[0].lo <= 5);
  CHECK(r[0].hi >= 5);  // the exact choice is the first
  CHECK(r[1].lo <= 0);
  CHECK(r[1].hi >= 0);
  CHECK_FALSE(judge_element(ieee, r[1], 5).over);  // a float choice may be the second
  CHECK_FALSE(judge_element(ieee, r[0], 0).over);
  CHECK_FALSE(judge_element(ieee, r[0], 9.9).over);  // 5 exactly, the float may have sent it away
  CHECK(judge_element(ieee, r[0], 10.1).over);       // control
  // Separated squares: no flip, the exact bound.
  const auto q = run1(ieee, sas, {{1, 2}, {1, 1}, {5}});
  CHECK_FALSE(q[0].flags & kMayFlip);
  CHECK(ieee.bound(q[0]) == 0);
  CHECK(ieee.bound(q[1]) == 0);
  CHECK(judge_element(ieee, q[0], 5).over);
  CHECK_FALSE(judge_element(ieee, q[1], 5).over);
}

TEST_CASE("bound: all_reduce over 4 replicas covers every order of the replicas", "[bound]") {
  const char* ar = R"(module @m {
  func.func @f(%x: tensor<1xf32>) -> tensor<1xf32> {
    %r = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %c = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %c : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<1xf32>) -> tensor<1xf32>
    return %r : tensor<1xf32>
  }
})";
  std::vector<float> v = {1e8f, 3.0f, -1e8f, 0.75f};
  const auto r = run1(ieee, ar, {{v[0]}, {v[1]}, {v[2]}, {v[3]}}, 4);
  std::sort(v.begin(), v.end());
  int orders = 0;
  do {
    const float s = ((v[0] + v[1]) + v[2]) + v[3];
    const float t = (v[0] + v[1]) + (v[2] + v[3]);
    CHECK_FALSE(judge_element(ieee, r[0], s).over);
    CHECK_FALSE(judge_element(ieee, r[0], t).over);
    ++orders;
  } while (std::next_permutation(v.begin(), v.end()));
  CHECK(orders == 24);
  CHECK(judge_element(ieee, r[0], 3.75 + 1.5 * ieee.bound(r[0])).over);
}

TEST_CASE("bound: profiles widen the allowances", "[bound]") {
  const char* e = R"(module @m {
  func.func @f(%x: tensor<1xf32>, %y: tensor<1xf32>) -> tensor<1xf32> {
    %a = stablehlo.exponential %x : tensor<1xf32>
    %b = stablehlo.divide %a, %y : tensor<1xf32>
    return %b : tensor<1xf32>
  }
})";
  const BoundDomain cuda(float_profile("cuda"));
  const auto a = run1(ieee, e, {{0.5f}, {3}});
  const auto b = run1(cuda, e, {{0.5f}, {3}});
  CHECK(cuda.bound(b[0]) > ieee.bound(a[0]) * 1.5);
  CHECK_THROWS_AS(float_profile("fast"), std::invalid_argument);
  // tf32: a dot's operands lose 13 bits first.
  const BoundDomain tf32(float_profile("tf32"));
  const auto d = run1(tf32, kDot, {{1, 1, 1}, {1, 1, 1}});
  CHECK(tf32.bound(d[0]) > 3 * 0x1p-10);
}

TEST_CASE("bound: no float32 order ever lands outside the bound on 10^4 random programs, a moved result always does", "[bound][slow]") {
  const auto gen = fuzz::gen_op_program(true, true);
  const SumOrder orders[] = {SumOrder::LeftFold, SumOrder::Reversed, SumOrder::Pairwise, SumOrder::Shuffled};
  std::int64_t elements = 0, controls = 0, flips = 0, programs = 0;
  for (int i = 0; i < 10000; ++i) {
    const TextCase tc = gen(rc::Random(static_cast<std::uint64_t>(i) * 7919 + 1), 30).value();
    const Module m = parse_module(tc.text, "random.mlir");
    std::vector<std::vector<float>> args;
    for (const auto& name : tc.argument_order) {
      std::vector<float> v;
      for (const auto& q : tc.inputs[0].at(name)) v.push_back(round_rational<float>(q));
      args.push_back(v);
    }
    INFO(tc.text);
    std::vector<BoundScalar> bound;
    REQUIRE_NOTHROW(bound = run1(ieee, tc.text, args));
    ++programs;
    for (SumOrder order : orders) {
      const SumOrderDomain d(order, static_cast<std::uint64_t>(i));
      const auto y = run1(d, tc.text, args);
      for (std::size_t k = 0; k < y.size(); ++k) {
        const double v = d.value(y[k]);
        const ElementVerdict verdict = judge_element(ieee, bound[k], v);
        INFO("element " << k << " order " << static_cast<int>(order) << ": " << v << " against " << ieee.to_string(bound[k]));
        REQUIRE_FALSE(verdict.over);
        ++elements;
      }
    }
    for (const auto& s : bound) {
      flips += (s.flags & kMayFlip) != 0;
      const double b = ieee.bound(s);
      if (!(b > 0) || std::isinf(b) || !std::isfinite(s.hi) || s.hi + 3 * b == s.hi) continue;
      REQUIRE(judge_element(ieee, s, s.hi + 3 * b).over);  // a few bounds away: flagged
      REQUIRE(judge_element(ieee, s, s.lo - 3 * b).over);
      ++controls;
    }
  }
  CHECK(programs == 10000);
  CHECK(controls > 10000);
  CHECK(flips > 0);
  WARN(elements << " elements in 4 orders within their bound; " << controls << " moved results flagged; " << flips
                << " elements may flip");
}

TEST_CASE("bound: an artifact's f32 outputs in four summation orders lie within the bound", "[bound][artifacts]") {
  for (const char* name : {"linear_fwd", "linear_train_step"}) {
    const std::string path = std::string(SHLO_ARTIFACTS_DIR) + "/" + name + ".mlir";
    if (!std::ifstream(path)) {
      WARN("skipped: " << path << " is absent");
      return;
    }
    INFO(name);
    const Module m = parse_module_file(path);
    std::mt19937_64 gen(3);
    std::uniform_real_distribution<float> u(0.0f, 0.1f);
    std::vector<std::vector<float>> args;
    for (const auto& a : m.function().arguments) {
      std::vector<float> v(static_cast<std::size_t>(num_elements(a.type.shape)));
      for (auto& x : v) x = u(gen);
      args.push_back(v);
    }
    auto run_all = [&](const auto& d) {
      std::vector<std::vector<Value<std::decay_t<decltype(d)>>>> in(1);
      for (std::size_t i = 0; i < args.size(); ++i) {
        std::vector<typename std::decay_t<decltype(d)>::Scalar> v;
        for (float x : args[i]) v.push_back(d.from_double(x));
        in[0].push_back(Tensor<typename std::decay_t<decltype(d)>::Scalar>(m.function().arguments[i].type.shape, v));
      }
      RunOptions o;
      return run_program(m, d, std::move(in), o).outputs[0];
    };
    const auto bound = run_all(ieee);
    for (SumOrder order : {SumOrder::LeftFold, SumOrder::Reversed, SumOrder::Pairwise, SumOrder::Shuffled}) {
      const SumOrderDomain d(order, 17);
      const auto y = run_all(d);
      double worst = 0;
      for (std::size_t i = 0; i < y.size(); ++i) {
        const auto& b = std::get<Tensor<BoundScalar>>(bound[i]).data;
        const auto& t = std::get<Tensor<OrderedF32>>(y[i]).data;
        for (std::size_t k = 0; k < t.size(); ++k) {
          const ElementVerdict v = judge_element(ieee, b[k], d.value(t[k]));
          REQUIRE_FALSE(v.over);
          worst = std::max(worst, v.ratio);
        }
      }
      CHECK(worst > 0);  // the orders do round: the check is not vacuous
    }
  }
}

TEST_CASE("bound: a zero times an exact infinity is NaN in float32, and the bound says it may be", "[bound]") {
  // Found by domains.f32_any_order_within_bound: an outer product (no contracting dims) of a
  // zero with -inf was bounded as an exact 0, while float32 gives NaN.
  auto outer = [](const char* constant) {
    return std::string(R"(module @m {
  func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
    %c = stablehlo.constant dense<)") + constant + R"(> : tensor<f32>
    %v0 = stablehlo.dot_general %x, %c, contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
    return %v0 : tensor<2xf32>
  }
})";
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto r = run1(ieee, outer("0xFF800000"), {{0.0f, 1.0f}});
  CHECK(ieee.bound(r[0]) == std::numeric_limits<double>::infinity());
  CHECK_FALSE(judge_element(ieee, r[0], nan).over);  // float32's 0 * -inf
  CHECK_FALSE(judge_element(ieee, r[1], -std::numeric_limits<double>::infinity()).over);  // 1 * -inf
  CHECK(r[0].lo <= r[0].hi);  // an enclosure, not NaN
  // Control: with a finite partner the zero row is an exact 0, and a NaN lies outside it.
  const auto finite = run1(ieee, outer("2.0"), {{0.0f, 1.0f}});
  CHECK(ieee.bound(finite[0]) == 0);
  CHECK(judge_element(ieee, finite[0], nan).over);
  // The elementwise product says the same.
  const auto mul = run1(ieee, R"(module @m {
  func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
    %c = stablehlo.constant dense<0xFF800000> : tensor<2xf32>
    %v0 = stablehlo.multiply %x, %c : tensor<2xf32>
    return %v0 : tensor<2xf32>
  }
})", {{0.0f, 1.0f}});
  CHECK_FALSE(judge_element(ieee, mul[0], nan).over);
}

TEST_CASE("check: the table's header and rows, column for column", "[bound][check_table]") {
  // `shlo check`, the library's CheckRow::line and Python print these lines: a change of a
  // column shows here first.
  CHECK(format_table_header() ==
        "output        rep shape               max abs    max rel  max ulps  worst e/bnd worst e/stat at                   over   "
        "improb    flips    unbnd  verdict\n");
  OutputCheck pass;
  pass.name = "%v2";
  pass.shape = {2, 3};
  pass.max_abs = 0.5;
  pass.max_rel = 0.25;
  pass.max_ulps = 3;
  pass.worst_ratio = 0.125;
  pass.worst_pratio = 0.0625;
  pass.worst_flat = 4;
  pass.flips = 1;
  CHECK(format_table_row(pass) ==
        "%v2             0 2x3                     0.5       0.25         3        0.125       0.0625 [1, 1]                  0        "
        "0        1        0  PASS\n");
  OutputCheck fail;
  fail.name = "%v7";
  fail.replica = 3;
  fail.max_abs = 1e-6;
  fail.max_rel = 2.5e-7;
  fail.max_ulps = 40.5;
  fail.worst_ratio = 1.5;
  fail.worst_pratio = 3.25;
  fail.worst_flat = 0;
  fail.over = 1;
  CHECK(format_table_row(fail) ==
        "%v7             3 scalar                1e-06    2.5e-07      40.5          1.5         3.25 []                      1        "
        "0        0        0  FAIL\n");
  fail.over = 0;  // control: the verdict column follows the counts
  CHECK(format_table_row(fail).ends_with("  PASS\n"));
}
