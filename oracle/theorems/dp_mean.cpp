// D1 (den_allReduceMeanF_eq_dpMean) and D2 (skel_allReduceMeanF_of_spmd); the per-channel
// batch-statistics counterexample (D7 extended, issue 11).
#include "ast/emit.hpp"
#include "ast/skel.hpp"
#include "interp/den.hpp"
#include "interp/domain/exact.hpp"
#include "oracle/agree.hpp"
#include "oracle/theorems/theorems.hpp"

namespace shlo::theorems {

Result dp_mean(const Expr& family, bool sum_instead) {
  const ExactDomain E;
  const auto node = denote(E, family).value;
  std::vector<ExtRational> mean(node.size(), Rational(0));
  for (const auto& g : family.children) {
    const auto v = denote(E, *g).value;
    for (std::size_t i = 0; i < v.size(); ++i) mean[i] = E.add(mean[i], v[i]);
  }
  if (!sum_instead)
    for (auto& x : mean) x = E.div(x, Rational(family.replicas));
  for (std::size_t i = 0; i < node.size(); ++i)
    if (!(node[i] == mean[i]))
      return {false, "element " + std::to_string(i) + ": den = " + E.to_string(node[i]) + ", dpMean = " + E.to_string(mean[i])};
  const Agreement text = den_agrees_with_text(family);
  if (!text.agree) return {false, "the emitted all_reduce program disagrees: " + text.detail};
  return {};
}

Result spmd_skeleton(const Expr& family) {
  const auto report = is_spmd(family);
  if (!report.spmd) return {false, report.message};
  const Skel whole = skel(family);
  std::string first_text;
  for (std::size_t r = 0; r < family.children.size(); ++r) {
    if (!(whole.children.at(0) == skel(*family.children[r]))) return {false, "skel differs from replica " + std::to_string(r) + "'s"};
    Expr moved = family;  // print with replica r's subtree in front
    std::swap(moved.children[0], moved.children[r]);
    std::int64_t counter = 0;
    const std::string text = emit(1, moved, counter).text;
    if (r == 0) first_text = text;
    else if (text != first_text) return {false, "the text printed from replica " + std::to_string(r) + " differs"};
  }
  return {};
}

namespace {

// bnGammaGradB(v; eps = 0) applied to the cotangent v itself: per channel sum (v - mu)^2 / sigma
// = m sigma. Throws (exact domain) where sigma is irrational.
std::vector<Rational> gamma_grad_at_itself(const std::vector<Rational>& v, std::int64_t N, std::int64_t oc, std::int64_t h, std::int64_t w) {
  Expr e;
  e.spec = find_constructor("bnGammaGradB");
  e.nats = {{"N", N}, {"oc", oc}, {"h", h}, {"w", w}};
  e.strings = {{"vName", "%v"}, {"epsStr", "0.0"}};
  e.reals = {{"eps", {Rational(0)}}, {"v", v}};
  e.children = {operand("%dy", v)};
  const ExactDomain E;
  const auto r = denote(E, *make_expr(std::move(e)));
  if (!r.events.empty()) throw ExprError("per_channel_bn_gap: " + r.events[0].kind + " (a channel with zero variance)");
  std::vector<Rational> out;
  for (const auto& x : r.value) out.push_back(x.q);  // finite: the sums of finite rationals
  return out;
}

}  // namespace

ChannelStatGap per_channel_bn_gap(const std::vector<std::vector<Rational>>& shards, std::int64_t N, std::int64_t oc, std::int64_t h,
                                  std::int64_t w) {
  ChannelStatGap out;
  const auto R = static_cast<long>(shards.size());
  const std::int64_t hw = h * w;
  const Rational m_shard(static_cast<long>(N * hw)), m_global(static_cast<long>(R * N * hw));
  out.replica_mean_var.assign(static_cast<std::size_t>(oc), Rational(0));
  out.dp_grad.assign(static_cast<std::size_t>(oc), Rational(0));
  std::vector<Rational> all;
  std::vector<std::vector<Rational>> means(static_cast<std::size_t>(oc));  // [channel][shard], written out
  for (const auto& s : shards) {
    const auto g = gamma_grad_at_itself(s, N, oc, h, w);
    for (std::int64_t c = 0; c < oc; ++c) {
      const Rational sigma = g[static_cast<std::size_t>(c)] / m_shard;
      out.replica_mean_var[static_cast<std::size_t>(c)] += sigma * sigma / Rational(R);
      out.dp_grad[static_cast<std::size_t>(c)] += g[static_cast<std::size_t>(c)] / Rational(R);
      Rational sum = 0;
      for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t t = 0; t < hw; ++t) sum += s[static_cast<std::size_t>((n * oc + c) * hw + t)];
      means[static_cast<std::size_t>(c)].push_back(sum / m_shard);
    }
    all.insert(all.end(), s.begin(), s.end());
  }
  const auto g = gamma_grad_at_itself(all, R * N, oc, h, w);
  for (std::int64_t c = 0; c < oc; ++c) {
    const auto k = static_cast<std::size_t>(c);
    const Rational sigma = g[k] / m_global;
    out.global_var.push_back(sigma * sigma);
    out.global_grad_over_r.push_back(g[k] / Rational(R));
    Rational mu = 0, spread = 0;
    for (const auto& x : means[k]) mu += x / Rational(R);
    for (const auto& x : means[k]) spread += (x - mu) * (x - mu) / Rational(R);
    out.shard_mean_spread.push_back(spread);
    if (out.global_var[k] - out.replica_mean_var[k] != spread)
      out.result = {false, "channel " + std::to_string(c) + ": global - mean of shards = " + Rational(out.global_var[k] - out.replica_mean_var[k]).str() +
                               ", Var_r(mu_r) = " + spread.str()};
    else if (spread != 0 && out.global_var[k] == out.replica_mean_var[k])
      out.result = {false, "channel " + std::to_string(c) + ": the gap vanished although the shard means differ"};
  }
  return out;
}

}  // namespace shlo::theorems
