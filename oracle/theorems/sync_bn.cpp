// Synchronised batch norm across replicas (issue 12; docs/lean/transformer-families-2.md
// section 5): the sync graph on R replicas equals single-device batch norm over the
// concatenated batch, forward and backward.
#include "interp/den.hpp"
#include "interp/domain/exact.hpp"
#include "interp/domain/interval.hpp"
#include "oracle/theorems/theorems.hpp"

namespace shlo::theorems {

namespace {

using Nats = std::map<std::string, std::int64_t>;
using Reals = std::map<std::string, std::vector<Rational>>;
using Strings = std::map<std::string, std::string>;

ExprPtr make(const char* ctor, Nats nats, std::vector<ExprPtr> kids, Reals reals = {}, Strings strings = {}) {
  Expr e;
  e.spec = find_constructor(ctor);
  e.nats = std::move(nats);
  e.children = std::move(kids);
  e.reals = std::move(reals);
  e.strings = std::move(strings);
  return make_expr(std::move(e));
}

ExprPtr all_reduce_mean(std::vector<ExprPtr> per_replica, std::int64_t width) {
  Expr e;
  e.spec = find_constructor("allReduceMeanF");
  e.strings = {{"t", "bn"}};
  e.ds = {width};
  e.replicas = static_cast<std::int64_t>(per_replica.size());
  e.children = std::move(per_replica);
  return make_expr(std::move(e));
}

template <class D>
bool same(const typename D::Scalar& a, const typename D::Scalar& b) {
  if constexpr (std::is_same_v<D, IntervalDomain>) return mpfr_lessequal_p(a.lo(), b.hi()) && mpfr_lessequal_p(b.lo(), a.hi());
  else return a == b;
}

// den(part) against den(whole)[offset ...] in domain d; "" when every element agrees.
template <class D>
std::string compare_rows(const D& d, const Expr& part, const Expr& whole, std::size_t offset) {
  const auto p = denote(d, part).value, w = denote(d, whole).value;
  for (std::size_t i = 0; i < p.size(); ++i)
    if (!same<D>(p[i], w.at(offset + i)))
      return "element " + std::to_string(i) + ": " + d.to_string(p[i]) + " vs " + d.to_string(w[offset + i]) + " in " + d.name();
  return "";
}

// Exactly where den is rational; else interval:256 enclosures that must overlap (disjoint
// enclosures are a certain difference).
Result same_rows(const Expr& part, const Expr& whole, std::size_t offset, const std::string& what) {
  std::string difference;
  try {
    difference = compare_rows(ExactDomain{}, part, whole, offset);
  } catch (const DomainError& e) {
    if (std::string(e.what()).find("irrational") == std::string::npos) throw;
    difference = compare_rows(IntervalDomain(256), part, whole, offset);
  }
  if (difference.empty()) return {};
  return {false, what + ", " + difference};
}

std::vector<Rational> concatenated(const std::vector<std::vector<Rational>>& parts) {
  std::vector<Rational> all;
  for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

}  // namespace

Result sync_bn(const std::vector<std::vector<Rational>>& shards, const std::vector<std::vector<Rational>>& cotangents, std::int64_t oc,
               std::int64_t h, std::int64_t w, const std::vector<Rational>& gamma, const std::vector<Rational>& beta, const Rational& eps,
               bool per_replica) {
  const auto R = shards.size();
  const std::size_t block = shards.at(0).size();
  const Nats shard = {{"N", static_cast<std::int64_t>(block) / (oc * h * w)}, {"oc", oc}, {"h", h}, {"w", w}};
  Nats global = shard;
  global["N"] *= static_cast<std::int64_t>(R);
  const Strings forward_strings = {{"gName", "%gamma"}, {"bName", "%beta"}, {"epsStr", rational_to_string(eps)}};
  const Strings back_strings = {{"gName", "%gamma"}, {"xName", "%xs"}, {"epsStr", rational_to_string(eps)}};
  const Reals forward_reals = {{"eps", {eps}}, {"gamma", gamma}, {"beta", beta}};
  auto back_reals = [&](const std::vector<Rational>& saved) { return Reals{{"eps", {eps}}, {"gamma", gamma}, {"x", saved}}; };

  std::vector<ExprPtr> x, dy;
  for (std::size_t r = 0; r < R; ++r) {
    x.push_back(operand("%x", shards[r]));
    dy.push_back(operand("%dy", cotangents.at(r)));
  }
  // The intended graph: the mean all-reduced, then the variance about it (Chan's parallel
  // variance), packed; the backward's cotangent statistics all-reduced the same way.
  std::vector<ExprPtr> means, vars, dy_stats;
  for (std::size_t r = 0; r < R; ++r) means.push_back(make("bnBatchMeanB", shard, {x[r]}));
  const ExprPtr mu = all_reduce_mean(means, oc);
  for (std::size_t r = 0; r < R; ++r) vars.push_back(make("bnBatchVarAtB", shard, {x[r], mu}));
  const ExprPtr st = make("bnPackB", {{"oc", oc}}, {mu, all_reduce_mean(vars, oc)});
  for (std::size_t r = 0; r < R; ++r) dy_stats.push_back(make("bnSyncDyStatsB", shard, {dy[r], st}, back_reals(shards[r]), back_strings));
  const ExprPtr ds = all_reduce_mean(dy_stats, 4 * oc);

  // Single-device batch norm over the concatenated batch (replica r's examples are its rows).
  const auto whole_x = concatenated(shards), whole_dy = concatenated(cotangents);
  const ExprPtr global_forward = make("bnBatchF", global, {operand("%x", whole_x)}, forward_reals, forward_strings);
  const ExprPtr global_back = make("bnBatchBack", global, {operand("%dy", whole_dy)}, back_reals(whole_x), back_strings);
  for (std::size_t r = 0; r < R; ++r) {
    // Replica r's value: the sync nodes, or (the control) batch norm of its shard alone.
    const ExprPtr forward = per_replica ? make("bnBatchF", shard, {x[r]}, forward_reals, forward_strings)
                                        : make("bnSyncF", shard, {x[r], st}, forward_reals, forward_strings);
    const ExprPtr back = per_replica ? make("bnBatchBack", shard, {dy[r]}, back_reals(shards[r]), back_strings)
                                     : make("bnSyncBack", shard, {dy[r], ds}, back_reals(shards[r]), back_strings);
    const Result f = same_rows(*forward, *global_forward, r * block, "forward, replica " + std::to_string(r));
    if (!f.holds) return f;
    const Result b = same_rows(*back, *global_back, r * block, "backward, replica " + std::to_string(r));
    if (!b.holds) return b;
  }
  return {};
}

}  // namespace shlo::theorems
