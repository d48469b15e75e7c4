// D3 (den_allReduceMeanF_eq_lossGrad_meanLoss), D6 / piece 1 (sharding a per-example loss,
// dpMeanGrad_eq_globalBatchGrad_of_perExample, and the conv fold of
// den_allReduceMeanF_convWeightGradB in shard form), D7 (dpMeanGrad_ne_globalBatchGrad).
#include "interp/den.hpp"
#include "interp/domain/exact.hpp"
#include "oracle/theorems/theorems.hpp"

namespace shlo::theorems {

ExprPtr operand(const std::string& name, const std::vector<Rational>& v) {
  Expr e;
  e.spec = find_constructor("operand");
  e.nats["n"] = static_cast<std::int64_t>(v.size());
  e.strings["name"] = name;
  e.reals["v"] = v;
  return make_expr(std::move(e));
}

namespace {

// Forward-mode dual numbers over the rationals: a + b eps, eps^2 = 0. An independent route
// to a derivative (no symbolic gradient of ours is involved).
struct Dual {
  Rational a, b;
  friend Dual operator+(const Dual& x, const Dual& y) { return {x.a + y.a, x.b + y.b}; }
  friend Dual operator-(const Dual& x, const Dual& y) { return {x.a - y.a, x.b - y.b}; }
  friend Dual operator*(const Dual& x, const Dual& y) { return {x.a * y.a, x.a * y.b + x.b * y.a}; }
};

ExprPtr family(std::vector<ExprPtr> kids, std::vector<std::int64_t> ds) {
  Expr e;
  e.spec = find_constructor("allReduceMeanF");
  e.replicas = static_cast<std::int64_t>(kids.size());
  e.strings["t"] = "g";
  e.ds = std::move(ds);
  e.children = std::move(kids);
  return make_expr(std::move(e));
}

std::vector<Rational> slice(const std::vector<Rational>& v, std::size_t from, std::size_t count) {
  return {v.begin() + static_cast<std::ptrdiff_t>(from), v.begin() + static_cast<std::ptrdiff_t>(from + count)};
}

std::vector<Rational> den_exact(const Expr& e) {
  std::vector<Rational> out;
  for (const auto& x : denote(ExactDomain{}, e).value) out.push_back(x.q);
  return out;
}

}  // namespace

Result shard_gradient(std::int64_t R, std::int64_t N, std::int64_t a, std::int64_t c, const std::vector<Rational>& X,
                      const std::vector<Rational>& U, bool drop_example) {
  auto dense_grad = [&](std::int64_t batch, const std::vector<Rational>& x, const std::vector<Rational>& u) {
    Expr e;
    e.spec = find_constructor("denseWeightGradB");
    e.nats = {{"N", batch}, {"a", a}, {"c", c}};
    e.strings["xName"] = "%x";
    e.reals["x"] = x;
    e.children = {operand("%u", u)};
    return make_expr(std::move(e));
  };
  // Replica r holds examples r*N .. r*N + N - 1 (the contiguous split).
  std::vector<ExprPtr> kids;
  for (std::int64_t r = 0; r < R; ++r) {
    auto x = slice(X, static_cast<std::size_t>(r * N * a), static_cast<std::size_t>(N * a));
    auto u = slice(U, static_cast<std::size_t>(r * N * c), static_cast<std::size_t>(N * c));
    if (drop_example && r == 0) {  // control: replica 0 loses its first example
      std::fill(x.begin(), x.begin() + a, Rational(0));
    }
    kids.push_back(dense_grad(N, x, u));
  }
  const auto dp = den_exact(*family(kids, {a, c}));
  const auto global = den_exact(*dense_grad(R * N, X, U));
  for (std::size_t i = 0; i < dp.size(); ++i)
    if (dp[i] != global[i] / Rational(R))
      return {false, "dense: element " + std::to_string(i) + ": dpMean = " + dp[i].str() + ", global/R = " + Rational(global[i] / Rational(R)).str()};
  // The conv weight-gradient fold, 1x1 kernels over a 1x1 image: the same identity through
  // convWeightGradB (a = ic, c = oc).
  auto conv_grad = [&](std::int64_t batch, const std::vector<Rational>& x, const std::vector<Rational>& u) {
    Expr e;
    e.spec = find_constructor("convWeightGradB");
    e.nats = {{"N", batch}, {"ic", a}, {"oc", c}, {"h", 1}, {"w", 1}, {"kH", 1}, {"kW", 1}};
    e.strings["xName"] = "%x";
    e.reals = {{"x", x}, {"b", std::vector<Rational>(static_cast<std::size_t>(c), Rational(0))},
               {"W", std::vector<Rational>(static_cast<std::size_t>(a * c), Rational(0))}};
    e.children = {operand("%u", u)};
    return make_expr(std::move(e));
  };
  std::vector<ExprPtr> conv_kids;
  for (std::int64_t r = 0; r < R; ++r)
    conv_kids.push_back(conv_grad(N, slice(X, static_cast<std::size_t>(r * N * a), static_cast<std::size_t>(N * a)),
                                  slice(U, static_cast<std::size_t>(r * N * c), static_cast<std::size_t>(N * c))));
  const auto cdp = den_exact(*family(conv_kids, {c, a, 1, 1}));
  const auto cglobal = den_exact(*conv_grad(R * N, X, U));
  for (std::size_t i = 0; i < cdp.size(); ++i)
    if (cdp[i] != cglobal[i] / Rational(R)) return {false, "conv: element " + std::to_string(i) + " differs"};
  return {};
}

Result batch_bn_gap(const std::vector<std::vector<Rational>>& shards) {
  // L(xs)(theta) = sliceMean(xs)^2 * theta_0; d/dtheta_0 by duals (seed theta_0 = 1 + eps).
  auto grad = [](const std::vector<Rational>& xs) {
    Dual sum{0, 0};
    for (const auto& x : xs) sum = sum + Dual{x, 0};
    const Dual mean = sum * Dual{Rational(1) / Rational(static_cast<long>(xs.size())), 0};
    return (mean * mean * Dual{1, 1}).b;
  };
  const auto R = static_cast<long>(shards.size());
  Rational dp = 0;
  std::vector<Rational> all;
  std::vector<Rational> means;
  for (const auto& s : shards) {
    dp += grad(s) / Rational(R);
    all.insert(all.end(), s.begin(), s.end());
    Rational m = 0;
    for (const auto& x : s) m += x;
    means.push_back(m / Rational(static_cast<long>(s.size())));
  }
  const Rational global = grad(all);
  Rational mu = 0, var = 0;
  for (const auto& m : means) mu += m / Rational(R);
  for (const auto& m : means) var += (m - mu) * (m - mu) / Rational(R);
  if (dp - global != var) return {false, "DP - global = " + Rational(dp - global).str() + ", Var_r(mu_r) = " + var.str()};
  if (var != 0 && dp == global) return {false, "the gap vanished although the shard means differ"};
  return {};
}

Result mean_loss_gradient(const std::vector<std::vector<Rational>>& xs, const std::vector<std::vector<Rational>>& ys,
                          const std::vector<Rational>& W, std::int64_t m, std::int64_t n, bool sum_instead) {
  const auto R = static_cast<long>(xs.size());
  // The node: allReduceMeanF over r of weightGrad(x_r; sub(dotIn(W; x_r), y_r)).
  std::vector<ExprPtr> kids;
  for (long r = 0; r < R; ++r) {
    Expr dot;
    dot.spec = find_constructor("dotIn");
    dot.nats = {{"m", m}, {"n", n}};
    dot.strings["wName"] = "%W";
    dot.reals["W"] = W;
    dot.children = {operand("%x", xs[static_cast<std::size_t>(r)])};
    Expr sub;
    sub.spec = find_constructor("sub");
    sub.nats = {{"n", n}};
    sub.children = {make_expr(std::move(dot)), operand("%y", ys[static_cast<std::size_t>(r)])};
    Expr wg;
    wg.spec = find_constructor("weightGrad");
    wg.nats = {{"m", m}, {"n", n}};
    wg.strings["xName"] = "%x";
    wg.reals["x"] = xs[static_cast<std::size_t>(r)];
    wg.children = {make_expr(std::move(sub))};
    kids.push_back(make_expr(std::move(wg)));
  }
  const auto node = den_exact(*family(kids, {m, n}));
  // The gradient of meanLoss(L)(W) = (1/R) sum_r 1/2 |x_r W - y_r|^2, coordinate by
  // coordinate with dual numbers.
  for (std::int64_t k = 0; k < m * n; ++k) {
    Dual loss{0, 0};
    for (long r = 0; r < R; ++r) {
      for (std::int64_t j = 0; j < n; ++j) {
        Dual z{0, 0};
        for (std::int64_t i = 0; i < m; ++i)
          z = z + Dual{xs[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)], 0} *
                      Dual{W[static_cast<std::size_t>(i * n + j)], Rational(i * n + j == k ? 1 : 0)};
        const Dual d = z - Dual{ys[static_cast<std::size_t>(r)][static_cast<std::size_t>(j)], 0};
        loss = loss + Dual{Rational(1, 2), 0} * d * d;
      }
    }
    const Rational grad = sum_instead ? loss.b : loss.b / Rational(R);
    if (node[static_cast<std::size_t>(k)] != grad)
      return {false, "coordinate " + std::to_string(k) + ": node = " + node[static_cast<std::size_t>(k)].str() + ", gradient = " + grad.str()};
  }
  return {};
}

}  // namespace shlo::theorems

namespace shlo::theorems {

Result conv_fold(const std::vector<std::vector<Rational>>& xs, const std::vector<std::vector<Rational>>& cots, const std::vector<Rational>& W,
                 std::int64_t N, std::int64_t ic, std::int64_t oc, std::int64_t h, std::int64_t w, std::int64_t k, bool sum_instead) {
  const auto R = static_cast<std::int64_t>(xs.size());
  // The node: allReduceMeanF over r of convWeightGradB(x_r; operand cot_r).
  std::vector<ExprPtr> kids;
  for (std::int64_t r = 0; r < R; ++r) {
    Expr e;
    e.spec = find_constructor("convWeightGradB");
    e.nats = {{"N", N}, {"ic", ic}, {"oc", oc}, {"h", h}, {"w", w}, {"kH", k}, {"kW", k}};
    e.strings["xName"] = "%x";
    e.reals = {{"x", xs[static_cast<std::size_t>(r)]}, {"b", std::vector<Rational>(static_cast<std::size_t>(oc), Rational(0))}, {"W", W}};
    e.children = {operand("%cot", cots[static_cast<std::size_t>(r)])};
    kids.push_back(make_expr(std::move(e)));
  }
  const auto node = den_exact(*family(kids, {oc, ic, k, k}));
  // (1/R) sum_r sum_n <d conv(W, 0, x_rn) / d W_idx, cot_rn>, by dual numbers over a
  // convolution written here from its formula (SHLO_SEMANTICS.md 1.6).
  const std::int64_t p = (k - 1) / 2;
  for (std::int64_t idx = 0; idx < oc * ic * k * k; ++idx) {
    Rational total = 0;
    for (std::int64_t r = 0; r < R; ++r)
      for (std::int64_t n = 0; n < N; ++n) {
        const Rational* X = xs[static_cast<std::size_t>(r)].data() + n * ic * h * w;
        const Rational* D = cots[static_cast<std::size_t>(r)].data() + n * oc * h * w;
        for (std::int64_t o = 0; o < oc; ++o)
          for (std::int64_t i = 0; i < h; ++i)
            for (std::int64_t j = 0; j < w; ++j) {
              Dual y{0, 0};
              for (std::int64_t c = 0; c < ic; ++c)
                for (std::int64_t kh = 0; kh < k; ++kh)
                  for (std::int64_t kw = 0; kw < k; ++kw) {
                    const std::int64_t rr = i + kh - p, ss = j + kw - p;
                    if (rr < 0 || rr >= h || ss < 0 || ss >= w) continue;
                    const std::int64_t widx = ((o * ic + c) * k + kh) * k + kw;
                    y = y + Dual{W[static_cast<std::size_t>(widx)], Rational(widx == idx ? 1 : 0)} * Dual{X[(c * h + rr) * w + ss], 0};
                  }
              total += y.b * D[(o * h + i) * w + j];
            }
      }
    const Rational want = sum_instead ? total : total / Rational(R);
    if (node[static_cast<std::size_t>(idx)] != want)
      return {false, "kernel element " + std::to_string(idx) + ": node = " + node[static_cast<std::size_t>(idx)].str() + ", fold = " + want.str()};
  }
  return {};
}

}  // namespace shlo::theorems
