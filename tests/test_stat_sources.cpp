// The statistical tier keeps random parts where they stay random (interp/bound/bound.hpp):
// copies of one value meet a sum once per source (a sum over the rows of a row's broadcast sum
// adds the rows' errors in quadrature, a sum along one row linearly), smooth ops (exp, divide)
// carry them through their first-order term, and a divide by the numerator's own sum
// (softmax) counts the numerator's share of the divisor's error once.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "ast/mlir_parse.hpp"
#include "interp/bound/bound.hpp"
#include "interp/bound/normalizing.hpp"
#include "interp/run.hpp"
#include "interp/ops/common.hpp"
#include "oracle/float_check.hpp"
#include "tests/stat_support.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

// %t: 8 row sums of 4096 inputs (errors far above one rounding); %y: their copies along 16
// columns, times %w. %c sums each column over the rows (8 sources, increasing), %r each row
// (one source 16 times), %cr each column over the rows in reverse (sources decreasing); %g and
// %h are the column sums as dot_generals, %y on the lhs (its rows) and on the rhs (its columns).
const char* kCopies = R"(module @m {
  func.func @f(%x: tensor<8x4096xf32>, %w: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<16xf32>, tensor<8xf32>, tensor<16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %t = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<8x4096xf32>, tensor<f32>) -> tensor<8xf32>
    %b = stablehlo.broadcast_in_dim %t, dims = [0] : (tensor<8xf32>) -> tensor<8x16xf32>
    %y = stablehlo.multiply %b, %w : tensor<8x16xf32>
    %c = stablehlo.reduce(%y init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8x16xf32>, tensor<f32>) -> tensor<16xf32>
    %r = stablehlo.reduce(%y init: %z) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %yr = stablehlo.reverse %y, dims = [0] : tensor<8x16xf32>
    %cr = stablehlo.reduce(%yr init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8x16xf32>, tensor<f32>) -> tensor<16xf32>
    %g = stablehlo.dot_general %y, %w, contracting_dims = [0] x [0] : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
    %h = stablehlo.dot_general %w, %y, contracting_dims = [0] x [0] : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
    return %y, %c, %r, %cr, %g, %h : tensor<8x16xf32>, tensor<16xf32>, tensor<8xf32>, tensor<16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
  }
})";

// The analysis at lambda = 6 of a program on inputs uniform in [0, 1) from seed.
struct Analysed {
  BoundDomain d{float_profile("ieee"), 6.0};
  Arrays in;
  std::vector<std::vector<BoundScalar>> out;
  Analysed(const char* text, std::uint64_t seed) {
    const Module m = parse_module(text, "program.mlir");
    in = random_inputs(m, seed, 0, 1);
    out = bound_outputs(d, m, in);
  }
};

}  // namespace

TEST_CASE("stat tier: copies of one value meet a sum once per source", "[bound][stat]") {
  const Analysed a(kCopies, 3);
  const BoundDomain& d = a.d;
  const Arrays& in = a.in;
  const auto& out = a.out;
  const auto &y = out[0], &c = out[1], &r = out[2], &cr = out[3], &g = out[4], &h = out[5];
  const auto& w = data(in[1]);
  auto pb = [&](std::size_t i, std::size_t j) { return d.pbound(y[i * 16 + j]); };
  for (std::size_t i = 0; i < 8; ++i) REQUIRE(y[i * 16].st.sigma > 0);  // the copies' random part, kept
  for (std::size_t j = 0; j < 16; ++j) {
    // Over the rows: 8 sources in increasing order, in quadrature: well below the linear sum
    // (about 1 / sqrt(8) of it, plus the column sum's own roundings).
    double linear = 0, linear_but_last = 0, linear_dot = 0;
    for (std::size_t i = 0; i < 8; ++i) {
      linear += pb(i, j);
      linear_but_last += i < 7 ? pb(i, j) : 0;
      linear_dot += std::fabs(w[i * 16 + j]) * pb(i, j);
    }
    INFO("column " << j << ": pbound " << d.pbound(c[j]) << ", linear " << linear);
    CHECK(d.pbound(c[j]) < 0.6 * linear);
    CHECK(d.pbound(c[j]) < d.bound(c[j]));
    // Control: the same terms with their sources decreasing admit only the first (row 7).
    CHECK(d.pbound(cr[j]) >= linear_but_last);
    // dot_general: %y's rows (lhs) or columns (rhs) along the contraction, both in quadrature.
    CHECK(d.pbound(g[j * 16 + j]) < 0.6 * linear_dot);
    CHECK(d.pbound(h[j * 16 + j]) < 0.6 * linear_dot);
  }
  // Along one row every term holds the same copy: the first admitted, the other 15 linear.
  for (std::size_t i = 0; i < 8; ++i) {
    double linear_but_first = 0;
    for (std::size_t j = 1; j < 16; ++j) linear_but_first += pb(i, j);
    CHECK(d.pbound(r[i]) >= linear_but_first);
  }
}

TEST_CASE("stat tier: sources in both operands of a dot give the same analysis on 1 and 4 threads", "[bound][stat][threads]") {
  const Module m = parse_module(kCopies, "copies.mlir");
  const BoundDomain d(float_profile("ieee"), 6.0);
  const Arrays in = random_inputs(m, 3, 0, 1);
  set_thread_count(1);
  const auto one = bound_outputs(d, m, in);
  set_thread_count(4);
  const auto four = bound_outputs(d, m, in);
  set_thread_count(2);
  for (std::size_t o = 0; o < one.size(); ++o)
    for (std::size_t k = 0; k < one[o].size(); ++k) {
      CAPTURE(o, k);
      CHECK(std::memcmp(&one[o][k], &four[o][k], sizeof(BoundScalar)) == 0);
    }
  // Control: the comparison sees a change of the source alone.
  BoundScalar changed = four[4][0];
  changed.set_source(changed.source() + 1);
  CHECK(std::memcmp(&one[4][0], &changed, sizeof(BoundScalar)) != 0);
  // The dots took the threaded path (16 rows in 4 blocks) with admitted sources (shared results).
  CHECK((one[4][0].flags & kShared) != 0);
  CHECK((one[5][0].flags & kShared) != 0);
}

TEST_CASE("stat tier: honest float32 sums over copies' sources are never IMPROBABLE", "[bound][stat]") {
  const Module m = parse_module(kCopies, "copies.mlir");
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const Arrays in = random_inputs(m, seed, 0, 1);
    const auto &x = data(in[0]), &w = data(in[1]);
    // Left-to-right float32, by hand (the pairwise and reversed orders below for %c).
    std::vector<float> t(8, 0), y(8 * 16), c(16, 0), r(8, 0), cr(16, 0), g(256, 0), h(256, 0);
    for (int i = 0; i < 8; ++i)
      for (int k = 0; k < 4096; ++k) t[i] += x[i * 4096 + k];
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 16; ++j) y[i * 16 + j] = t[i] * w[i * 16 + j];
    for (int j = 0; j < 16; ++j) {
      for (int i = 0; i < 8; ++i) c[j] += y[i * 16 + j];
      for (int i = 7; i >= 0; --i) cr[j] += y[i * 16 + j];
    }
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 16; ++j) r[i] += y[i * 16 + j];
    for (int a = 0; a < 16; ++a)
      for (int b = 0; b < 16; ++b)
        for (int i = 0; i < 8; ++i) {
          g[a * 16 + b] += y[i * 16 + a] * w[i * 16 + b];
          h[a * 16 + b] += w[i * 16 + a] * y[i * 16 + b];
        }
    const std::vector<NpyArray> out = {f32_array({8, 16}, y), f32_array({16}, c), f32_array({8}, r),
                                       f32_array({16}, cr), f32_array({16, 16}, g), f32_array({16, 16}, h)};
    const CheckReport report = check_float_outputs(m, float_profile("ieee"), {in}, {out}, 1);
    INFO("seed " << seed << ": worst error over the statistical bound " << report.worst_pratio);
    CHECK(report.verdict() == Verdict::Pass);
    // Control: every row sum off by its sound bound, carried to every column sum, is caught.
    const BoundDomain d(float_profile("ieee"), report.lambda);
    const auto b = bound_outputs(d, m, in);
    std::vector<float> c_wrong = c;
    for (int j = 0; j < 16; ++j)
      for (int i = 0; i < 8; ++i) c_wrong[j] += static_cast<float>(std::fabs(w[i * 16 + j]) * d.bound(b[0][i * 16 + j]) / 2);
    std::vector<NpyArray> wrong = out;
    wrong[1] = f32_array({16}, c_wrong);
    CHECK(check_float_outputs(m, float_profile("ieee"), {in}, {wrong}, 1).verdict() != Verdict::Pass);
  }
}

namespace {

// exp, divide by a constant and tanh of the 8 row sums (scaled to about 0.2), each summed over
// the rows: exp and divide carry their operand's random part (first order), tanh does not.
const char* kSmooth = R"(module @m {
  func.func @f(%x: tensor<8x4096xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<f32>, tensor<f32>) {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %t = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<8x4096xf32>, tensor<f32>) -> tensor<8xf32>
    %k = stablehlo.constant dense<0.0001> : tensor<8xf32>
    %s = stablehlo.multiply %t, %k : tensor<8xf32>
    %e = stablehlo.exponential %s : tensor<8xf32>
    %three = stablehlo.constant dense<3.0> : tensor<8xf32>
    %q = stablehlo.divide %s, %three : tensor<8xf32>
    %th = stablehlo.tanh %s : tensor<8xf32>
    %se = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    %sq = stablehlo.reduce(%q init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    %sth = stablehlo.reduce(%th init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    return %e, %q, %th, %se, %sq, %sth : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>, tensor<f32>, tensor<f32>
  }
})";

}  // namespace

TEST_CASE("stat tier: exp and divide carry a random part through their first-order term", "[bound][stat]") {
  const Analysed a(kSmooth, 5);
  const BoundDomain& d = a.d;
  const auto& out = a.out;
  auto linear = [&](const std::vector<BoundScalar>& v) {
    double s = 0;
    for (const auto& x : v) s += d.pbound(x);
    return s;
  };
  for (std::size_t i = 0; i < 8; ++i) {
    CHECK(d.sigma(out[0][i]) > 0);   // exp
    CHECK(d.sigma(out[1][i]) > 0);   // divide
    CHECK(d.sigma(out[2][i]) == 0);  // tanh: a plain bound
  }
  INFO("exp: " << d.pbound(out[3][0]) << " of " << linear(out[0]) << "; divide: " << d.pbound(out[4][0]) << " of "
               << linear(out[1]) << "; tanh: " << d.pbound(out[5][0]) << " of " << linear(out[2]));
  CHECK(d.pbound(out[3][0]) < 0.6 * linear(out[0]));
  CHECK(d.pbound(out[4][0]) < 0.6 * linear(out[1]));
  CHECK(d.pbound(out[5][0]) >= linear(out[2]));  // control: tanh's bounds add linearly
}

namespace {

// Softmax over 10 classes of logits that are sums of 64 inputs (so they carry a random part),
// twice: %p divides by the sum of its own numerator (found as a normalising divide), %p2 by
// the same sum computed from a second exp of the same logits (not found: the numerator is not
// the reduce's operand).
const char* kSoftmax = R"(module @m {
  func.func @f(%x: tensor<4x10x64xf32>) -> (tensor<4x10xf32>, tensor<4x10xf32>) {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %l = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [2] : (tensor<4x10x64xf32>, tensor<f32>) -> tensor<4x10xf32>
    %e = stablehlo.exponential %l : tensor<4x10xf32>
    %s = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x10xf32>, tensor<f32>) -> tensor<4xf32>
    %b = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<4xf32>) -> tensor<4x10xf32>
    %p = stablehlo.divide %e, %b : tensor<4x10xf32>
    %e2 = stablehlo.exponential %l : tensor<4x10xf32>
    %s2 = stablehlo.reduce(%e2 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x10xf32>, tensor<f32>) -> tensor<4xf32>
    %b2 = stablehlo.broadcast_in_dim %s2, dims = [0] : (tensor<4xf32>) -> tensor<4x10xf32>
    %p2 = stablehlo.divide %e, %b2 : tensor<4x10xf32>
    return %p, %p2 : tensor<4x10xf32>, tensor<4x10xf32>
  }
})";

std::vector<std::string> found(const Module& m) {
  std::vector<std::string> names;
  for (const Instruction* i : normalizing_divides(m)) names.push_back(i->result);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("normalizing divides: softmax's divide by its own sum is found, others are not", "[bound][stat]") {
  CHECK(found(parse_module(kSoftmax, "softmax.mlir")) == std::vector<std::string>{"%p"});
  const std::string text = read_file(artifact("linear_train_step"));
  if (!text.empty()) CHECK(found(parse_module(text, "linear_train_step.mlir")) == std::vector<std::string>{"%v20", "%v7"});
  // The broadcast must put the kept dimension back where it was: a row's sum broadcast along
  // the columns (dims = [1]) is the sum of another row, which need not hold the numerator.
  auto square = [](const char* dims) {
    return parse_module(std::string(R"(module @m {
  func.func @f(%l: tensor<10x10xf32>) -> tensor<10x10xf32> {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %e = stablehlo.exponential %l : tensor<10x10xf32>
    %s = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [1] : (tensor<10x10xf32>, tensor<f32>) -> tensor<10xf32>
    %b = stablehlo.broadcast_in_dim %s, dims = )") + dims + R"( : (tensor<10xf32>) -> tensor<10x10xf32>
    %p = stablehlo.divide %e, %b : tensor<10x10xf32>
    return %p : tensor<10x10xf32>
  }
})", "square.mlir");
  };
  CHECK(found(square("[1]")).empty());
  CHECK(found(square("[0]")) == std::vector<std::string>{"%p"});  // control
  // Only float divides: the same pattern on integers is not one.
  std::string integers = std::string(kSoftmax);
  for (std::size_t at; (at = integers.find("xf32>")) != std::string::npos;) integers.replace(at, 5, "xi32>");
  for (std::size_t at; (at = integers.find("tensor<f32>")) != std::string::npos;) integers.replace(at, 11, "tensor<i32>");
  for (std::size_t at; (at = integers.find("dense<0.0>")) != std::string::npos;) integers.replace(at, 10, "dense<0>");
  for (std::size_t at; (at = integers.find("stablehlo.exponential")) != std::string::npos;) integers.replace(at, 21, "stablehlo.negate");
  CHECK(found(parse_module(integers, "integers.mlir")).empty());
}

TEST_CASE("normalizing divides: softmax counts its numerator's error once, and honest runs pass", "[bound][stat]") {
  const Module m = parse_module(kSoftmax, "softmax.mlir");
  const BoundDomain d(float_profile("ieee"), 6.0);
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const Arrays in = random_inputs(m, seed, -1, 1);
    const auto out = bound_outputs(d, m, in);
    for (std::size_t i = 0; i < 4; ++i) {
      std::size_t top = i * 10;  // the largest probability of the row
      for (std::size_t k = i * 10; k < i * 10 + 10; ++k) {
        CHECK(d.bound(out[0][k]) == d.bound(out[1][k]));    // the sound tier: the same
        CHECK(d.pbound(out[0][k]) <= d.pbound(out[1][k]));  // the statistical: never wider,
        if (out[0][k].lo > out[0][top].lo) top = k;
      }
      CHECK(d.pbound(out[0][top]) < 0.8 * d.pbound(out[1][top]));  // and narrower where the class leads
    }
    // Float32 softmax by hand, left to right.
    const auto& x = data(in[0]);
    std::vector<float> l(40, 0), e(40), p(40);
    for (int k = 0; k < 40; ++k)
      for (int j = 0; j < 64; ++j) l[k] += x[k * 64 + j];
    for (int i = 0; i < 4; ++i) {
      float s = 0;
      for (int j = 0; j < 10; ++j) s += e[i * 10 + j] = std::exp(l[i * 10 + j]);
      for (int j = 0; j < 10; ++j) p[i * 10 + j] = e[i * 10 + j] / s;
    }
    const CheckReport r = check_float_outputs(m, float_profile("ieee"), {in}, {{f32_array({4, 10}, p), f32_array({4, 10}, p)}}, 1);
    INFO("seed " << seed << ": worst error over the statistical bound " << r.worst_pratio);
    CHECK(r.verdict() == Verdict::Pass);
    // Control: one probability moved by twice its sound bound fails.
    std::vector<float> wrong = p;
    wrong[3] += static_cast<float>(2 * d.bound(out[0][3]));
    CHECK(check_float_outputs(m, float_profile("ieee"), {in}, {{f32_array({4, 10}, wrong), f32_array({4, 10}, p)}}, 1).verdict() ==
          Verdict::Fail);
  }
}

TEST_CASE("stat tier: a sum's partial sums are bounded by the larger of its positive and negative parts", "[bound][stat]") {
  const Module m = parse_module(kSumOf4096, "sum.mlir");
  const BoundDomain d(float_profile("ieee"), 6.0);
  auto sum_of = [&](const std::vector<float>& x) { return bound_outputs(d, m, {f32_array({4096}, x)})[0][0]; };
  // Exact inputs: the sum's random part is its 4095 additions', each within u times a partial sum.
  const double steps = 0x1p-24 * std::sqrt(4095.0);
  std::vector<float> alternating(4096), ones(4096, 1.0f);
  for (std::size_t i = 0; i < 4096; ++i) alternating[i] = i % 2 ? -1.0f : 1.0f;
  const double s_alt = sum_of(alternating).st.sigma, s_ones = sum_of(ones).st.sigma;
  // +-1 alternating: P = N = 2048, the sum 0: partial sums within 2048 (plus the additions' own).
  CHECK(s_alt >= steps * 2048);
  CHECK(s_alt <= steps * 2048 * 1.001);
  // Control: 4096 ones, P = 4096.
  CHECK(s_ones >= steps * 4096);
  // Honest float32 sums of random signs in the order that makes the partial sums largest (every
  // positive term first, the largest first) are never IMPROBABLE; nor are the left folds.
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int trial = 0; trial < 8; ++trial) {
    std::vector<float> x(4096);
    for (auto& v : x) v = u(gen);
    std::vector<float> sorted = x;
    std::sort(sorted.begin(), sorted.end(), [](float a, float b) { return a > b; });
    float worst = 0, fold = 0;
    for (float v : sorted) worst += v;
    for (float v : x) fold += v;
    auto verdict = [&](float y) {
      return check_float_outputs(m, float_profile("ieee"), {{f32_array({4096}, x)}}, {{NpyArray{{}, std::vector<float>{y}}}}, 1);
    };
    for (float y : {worst, fold}) {
      const CheckReport r = verdict(y);
      INFO("trial " << trial << ": " << y << ", worst ratio " << r.worst_pratio);
      CHECK(r.verdict() == Verdict::Pass);
    }
    // Control: the sum moved by twice its sound bound fails.
    CHECK(verdict(fold + static_cast<float>(2 * d.bound(sum_of(x)))).verdict() == Verdict::Fail);
  }
}

namespace {

// Short sums (9 terms) of large terms that cancel: their sound bound is below the statistical
// one. %b adds a bias; %g sums %b's 64 values against weights; %gh does the same after tanh,
// which keeps no random part (the control).
const char* kShortSums = R"(module @m {
  func.func @f(%x: tensor<64x9xf32>, %c: tensor<64xf32>, %w: tensor<64x4xf32>) -> (tensor<64xf32>, tensor<4xf32>, tensor<64xf32>, tensor<4xf32>) {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %t = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<64x9xf32>, tensor<f32>) -> tensor<64xf32>
    %b = stablehlo.add %t, %c : tensor<64xf32>
    %g = stablehlo.dot_general %b, %w, contracting_dims = [0] x [0] : (tensor<64xf32>, tensor<64x4xf32>) -> tensor<4xf32>
    %h = stablehlo.tanh %b : tensor<64xf32>
    %gh = stablehlo.dot_general %h, %w, contracting_dims = [0] x [0] : (tensor<64xf32>, tensor<64x4xf32>) -> tensor<4xf32>
    return %b, %g, %h, %gh : tensor<64xf32>, tensor<4xf32>, tensor<64xf32>, tensor<4xf32>
  }
})";

}  // namespace

TEST_CASE("stat tier: a random part within a tighter sound bound is kept for later sums", "[bound][stat]") {
  const Module m = parse_module(kShortSums, "short.mlir");
  const BoundDomain d(float_profile("ieee"), 6.0);
  std::mt19937_64 gen(9);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> x(64 * 9), c(64), w(64 * 4);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = (i % 9 == 8 ? 0.0f : i % 2 ? -1000.0f : 1000.0f) + u(gen);
  for (auto& v : c) v = u(gen);
  for (auto& v : w) v = u(gen);
  const auto out = bound_outputs(d, m, {f32_array({64, 9}, x), f32_array({64}, c), f32_array({64, 4}, w)});
  const auto &b = out[0], &g = out[1], &h = out[2], &gh = out[3];
  for (std::size_t i = 0; i < 64; ++i) {
    CHECK(d.pbound(b[i]) == d.bound(b[i]));  // the sound bound is the tighter: the value's bound
    CHECK(b[i].st.sigma > 0);                // and its random part kept
  }
  for (std::size_t j = 0; j < 4; ++j) {
    double linear = 0, linear_h = 0;
    for (std::size_t i = 0; i < 64; ++i) {
      linear += std::fabs(w[i * 4 + j]) * d.pbound(b[i]);
      linear_h += std::fabs(w[i * 4 + j]) * d.pbound(h[i]);
    }
    INFO("column " << j << ": " << d.pbound(g[j]) << " of " << linear << "; after tanh " << d.pbound(gh[j]) << " of " << linear_h);
    CHECK(d.pbound(g[j]) < 0.5 * linear);        // in quadrature
    CHECK(d.pbound(gh[j]) >= 0.999 * linear_h);  // control: plain bounds add linearly
  }
}

TEST_CASE("stat tier: partial sums bounded through the terms' statistical bounds where the sound ones are far wider", "[bound][stat]") {
  // 4096 terms +-1 whose sound bound is 1000 (a deep network's) and statistical bound 6e-6:
  // the additions' steps within u times the partial sums' bound, about 2048 from the
  // statistical bounds where the sound ones give about 2 million.
  const BoundDomain d(float_profile("ieee"), 6.0);
  BoundScalar tight = d.from_double(0), plain = tight;
  for (int i = 0; i < 4096; ++i) {
    const double x = i % 2 ? -1 : 1;
    tight = d.accumulate(tight, closed_scalar(x, 1000, 0, 1e-6));
    plain = d.accumulate(plain, closed_scalar(x, 1000, 1000, 0));  // control: a statistical bound as wide as the sound
  }
  const double steps = 0x1p-24 * std::sqrt(4095.0);
  const double random = std::sqrt(4096.0) * 1e-6;  // the terms' own random parts, in quadrature
  const double additions = std::sqrt(d.sigma(tight) * d.sigma(tight) - random * random);
  INFO("sigma " << d.sigma(tight) << ", of it the additions' " << additions << "; the control's " << d.sigma(plain));
  CHECK(additions >= steps * 2048);
  CHECK(additions <= steps * 2048 * 1.001);
  CHECK(d.sigma(plain) >= steps * 0.5 * 4096 * 1001);  // the sound bounds: (sum |t| + sum err) / 2
  CHECK(d.pbound(tight) < 1e-3 * d.pbound(plain));
}

namespace {

// A bias add whose own rounding dwarfs its operand's random part: %b after a 9-term sum of one
// sign (whose sound bound is the tighter), %lb after a 4096-term sum of both signs (whose
// statistical bound is); %g and %lg sum them against weights.
const char* kBiasAfterSums = R"(module @m {
  func.func @f(%x: tensor<64x9xf32>, %xl: tensor<64x4096xf32>, %c: tensor<64xf32>, %w: tensor<64x4xf32>) -> (tensor<64xf32>, tensor<4xf32>, tensor<64xf32>, tensor<4xf32>) {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %t = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<64x9xf32>, tensor<f32>) -> tensor<64xf32>
    %b = stablehlo.add %t, %c : tensor<64xf32>
    %g = stablehlo.dot_general %b, %w, contracting_dims = [0] x [0] : (tensor<64xf32>, tensor<64x4xf32>) -> tensor<4xf32>
    %tl = stablehlo.reduce(%xl init: %z) applies stablehlo.add across dimensions = [1] : (tensor<64x4096xf32>, tensor<f32>) -> tensor<64xf32>
    %lb = stablehlo.add %tl, %c : tensor<64xf32>
    %lg = stablehlo.dot_general %lb, %w, contracting_dims = [0] x [0] : (tensor<64xf32>, tensor<64x4xf32>) -> tensor<4xf32>
    return %b, %g, %lb, %lg : tensor<64xf32>, tensor<4xf32>, tensor<64xf32>, tensor<4xf32>
  }
})";

}  // namespace

TEST_CASE("stat tier: an op's own rounding joins the random part, the plain form capping the value's bound", "[bound][stat]") {
  const Module m = parse_module(kBiasAfterSums, "bias.mlir");
  const BoundDomain d(float_profile("ieee"), 6.0);
  std::mt19937_64 gen(4);
  std::uniform_real_distribution<float> u(0, 0.01f), s(-1e-4f, 1e-4f), big(100, 200), wu(-1, 1);
  std::vector<float> x(64 * 9), xl(64 * 4096), c(64), w(64 * 4);
  for (auto& v : x) v = u(gen);
  for (auto& v : xl) v = s(gen);
  for (auto& v : c) v = big(gen);
  for (auto& v : w) v = wu(gen);
  const auto out = bound_outputs(d, m, {f32_array({64, 9}, x), f32_array({64, 4096}, xl), f32_array({64}, c), f32_array({64, 4}, w)});
  const auto &b = out[0], &g = out[1], &lb = out[2], &lg = out[3];
  for (std::size_t i = 0; i < 64; ++i) {
    const double own = std::ldexp(1.0, std::ilogb(c[i]) - 24);  // half an ulp of the sum, about 100 to 200
    CAPTURE(i, own, b[i].pdet, b[i].st.sigma, lb[i].pdet, lb[i].st.sigma);
    CHECK(d.pbound(b[i]) == d.bound(b[i]));  // capped: the value's bound is the sound one
    // The rounding in the random part of both (none in the plain part).
    CHECK(b[i].pdet < 1e-3 * own);
    CHECK(b[i].st.sigma >= own);
    CHECK(lb[i].pdet < 1e-3 * own);
    CHECK(lb[i].st.sigma >= own);
    // After the long sum the statistical bound is the tighter, and of it the plain form (one
    // rounding as a plain bound, about own + 6 sigma_tl) is the narrower: the value's own bound,
    // below the random form (about 6 own) and not below the rounding itself (a control).
    CHECK(lb[i].flags & kPlainCap);
    CHECK(d.pbound(lb[i]) < d.bound(lb[i]));
    CHECK(d.pbound(lb[i]) < 0.5 * (lb[i].pdet + 6 * lb[i].st.sigma));
    CHECK(d.pbound(lb[i]) >= own);
  }
  // In the sums over the 64 values the roundings are in the random part (quadrature), none in
  // the plain part, which later layers would add linearly: for comparison, their plain sum.
  for (std::size_t j = 0; j < 4; ++j) {
    double linear = 0;
    for (std::size_t i = 0; i < 64; ++i) linear += std::fabs(w[i * 4 + j]) * std::ldexp(1.0, std::ilogb(c[i]) - 24);
    INFO("column " << j << ": plain parts " << g[j].pdet << " and " << lg[j].pdet << "; the roundings summed " << linear);
    CHECK(g[j].pdet < 1e-3 * linear);
    CHECK(lg[j].pdet < 1e-3 * linear);
  }
}
