// D10 adamW_at_allReduceMeanF, and the same for the Nesterov momentum pair: the optimizer
// nodes over the all-reduced gradient against the optimizer steps of SHLO_SEMANTICS.md
// section 5, written here a second time, independently of interp/den.
#include "interp/den.hpp"
#include "interp/domain/interval.hpp"
#include "oracle/theorems/theorems.hpp"

namespace shlo::theorems {

namespace {

using I = IntervalDomain;

bool overlap(const BigInterval& a, const BigInterval& b) {
  return mpfr_lessequal_p(a.lo(), b.hi()) && mpfr_lessequal_p(b.lo(), a.hi());
}

ExprPtr over(const std::string& ctor, const Expr& family, const std::map<std::string, std::vector<Rational>>& reals) {
  Expr e;
  e.spec = find_constructor(ctor);
  e.ds = family.ds;
  for (const char* s : e.spec->strings) e.strings[s] = std::string("%") + s;
  for (const auto& f : e.spec->reals) e.reals[f.name] = reals.at(f.name);
  e.children = {std::make_shared<const Expr>(family)};
  return make_expr(std::move(e));
}

// A parameter-shaped node over `kids` (children in order), every name field "%<field>".
ExprPtr node_on(const std::string& ctor, const std::vector<std::int64_t>& ds, std::vector<ExprPtr> kids,
                const std::map<std::string, std::vector<Rational>>& r) {
  Expr e;
  e.spec = find_constructor(ctor);
  e.ds = ds;
  for (const char* sname : e.spec->strings) e.strings[sname] = std::string("%") + sname;
  e.reals = r;
  e.children = std::move(kids);
  return make_expr(std::move(e));
}

// den of each node against its reference values.
Result compare_nodes(const I& d, const std::vector<std::pair<ExprPtr, const std::vector<BigInterval>*>>& pairs) {
  for (const auto& [node, ref] : pairs) {
    const auto got = denote(d, *node).value;
    for (std::size_t i = 0; i < got.size(); ++i)
      if (!overlap(got[i], (*ref)[i]))
        return {false, std::string(node->spec->name) + " element " + std::to_string(i) + ": den = " + d.to_string(got[i]) +
                           ", step = " + d.to_string((*ref)[i])};
  }
  return {};
}

}  // namespace

Result optimizer_tail(const Expr& family, const std::string& optimizer, const std::vector<Rational>& hyper,
                      const std::vector<Rational>& theta, const std::vector<Rational>& m, const std::vector<Rational>& v,
                      bool wrong_beta) {
  const I d(256);
  // g = dpMean(r -> den g_r)
  const std::size_t n = theta.size();
  std::vector<BigInterval> g(n, d.from_rational(0));
  for (const auto& child : family.children) {
    const auto val = denote(d, *child).value;
    for (std::size_t i = 0; i < n; ++i) g[i] = d.add(g[i], val[i]);
  }
  for (auto& x : g) x = d.div(x, d.from_rational(Rational(family.replicas)));
  auto q = [&](const Rational& x) { return d.from_rational(x); };
  auto one_minus = [&](const Rational& b) { return wrong_beta ? q(b) : d.sub(q(1), q(b)); };

  std::vector<std::pair<std::string, std::vector<BigInterval>>> expected;  // node -> reference values
  std::map<std::string, std::vector<Rational>> reals;
  if (optimizer == "adamw") {
    // adamWStep: m' = b1 m + (1-b1) g; v' = b2 v + (1-b2) g^2;
    // theta' = theta - lr ((m'/bc1) / (sqrt(v'/bc2) + eps)) - (wd lr) theta
    const Rational b1 = hyper[0], b2 = hyper[1], eps = hyper[2], lr = hyper[3], wd = hyper[4], bc1 = hyper[5], bc2 = hyper[6];
    std::vector<BigInterval> m1, v1, t1;
    for (std::size_t i = 0; i < n; ++i) {
      m1.push_back(d.add(d.mul(q(b1), q(m[i])), d.mul(one_minus(b1), g[i])));
      v1.push_back(d.add(d.mul(q(b2), q(v[i])), d.mul(one_minus(b2), d.mul(g[i], g[i]))));
      const auto step = d.div(d.div(m1[i], q(bc1)), d.add(d.sqrt(d.div(v1[i], q(bc2))), q(eps)));
      t1.push_back(d.sub(d.sub(q(theta[i]), d.mul(q(lr), step)), d.mul(d.mul(q(wd), q(lr)), q(theta[i]))));
    }
    reals = {{"beta1", {b1}}, {"beta2", {b2}}, {"eps", {eps}}, {"lr", {lr}}, {"wd", {wd}}, {"bc1", {bc1}}, {"bc2", {bc2}},
             {"theta", theta}, {"m", m}, {"v", v}};
    expected = {{"adamWParamF", t1}, {"adamMNextF", m1}, {"adamVNextF", v1}};
  } else if (optimizer == "rmsprop") {
    // rmsPropStep (TensorFlow placement): g~ = g + wd theta; s' = rho s + (1-rho) g~^2;
    // b' = mu b + g~ / sqrt(s' + eps); theta' = theta - lr b'. Here m holds b and v holds s.
    const Rational rho = hyper[0], mu = hyper[1], eps = hyper[2], lr = hyper[3], wd = hyper[4];
    std::vector<BigInterval> s1, b1, t1;
    for (std::size_t i = 0; i < n; ++i) {
      const auto gt = d.add(g[i], d.mul(q(wd), q(theta[i])));
      s1.push_back(d.add(d.mul(q(rho), q(v[i])), d.mul(one_minus(rho), d.mul(gt, gt))));
      b1.push_back(d.add(d.mul(q(mu), q(m[i])), d.div(gt, d.sqrt(d.add(s1[i], q(eps))))));
      t1.push_back(d.sub(q(theta[i]), d.mul(q(lr), b1[i])));
    }
    // The nodes, composed as the renders do (SHLO_SEMANTICS.md 5.3).
    const auto fam = std::make_shared<const Expr>(family);
    const auto& ds = family.ds;
    const auto gtilde = node_on("momVNextF", ds, {fam}, {{"mu", {wd}}, {"v", theta}});
    const auto s_node = node_on("adamVNextF", ds, {gtilde}, {{"beta2", {rho}}, {"v", v}});
    const auto b_node = node_on("rmsBufNextF", ds, {gtilde}, {{"rho", {rho}}, {"mu", {mu}}, {"eps", {eps}}, {"sq", v}, {"buf", m}});
    const auto t_node = node_on("sgdParamF", ds, {b_node}, {{"lr", {lr}}, {"theta", theta}});
    return compare_nodes(d, {{s_node, &s1}, {b_node, &b1}, {t_node, &t1}});
  } else if (optimizer == "lamb") {
    // lambStep: r = (m'/bc1) / (sqrt(v'/bc2) + eps) + wd theta; wn2 = |theta|^2; rn2 = |r|^2;
    // trust = sqrt(wn2)/sqrt(rn2) if both > 0, else 1; theta' = theta - lr trust r.
    const Rational b1 = hyper[0], b2 = hyper[1], eps = hyper[2], lr = hyper[3], wd = hyper[4], bc1 = hyper[5], bc2 = hyper[6];
    std::vector<BigInterval> m1, v1, r, t1;
    BigInterval wn2 = q(0), rn2 = q(0);
    for (std::size_t i = 0; i < n; ++i) {
      m1.push_back(d.add(d.mul(q(b1), q(m[i])), d.mul(one_minus(b1), g[i])));
      v1.push_back(d.add(d.mul(q(b2), q(v[i])), d.mul(one_minus(b2), d.mul(g[i], g[i]))));
      r.push_back(d.add(d.div(d.div(m1[i], q(bc1)), d.add(d.sqrt(d.div(v1[i], q(bc2))), q(eps))), d.mul(q(wd), q(theta[i]))));
      wn2 = d.add(wn2, d.mul(q(theta[i]), q(theta[i])));
      rn2 = d.add(rn2, d.mul(r[i], r[i]));
    }
    const bool guard = d.compare(CompareDirection::GT, wn2, q(0)) == Tri::True && d.compare(CompareDirection::GT, rn2, q(0)) == Tri::True;
    const BigInterval trust = guard ? d.div(d.sqrt(wn2), d.sqrt(rn2)) : q(1);
    for (std::size_t i = 0; i < n; ++i) t1.push_back(d.sub(q(theta[i]), d.mul(q(lr), d.mul(trust, r[i]))));
    const auto fam = std::make_shared<const Expr>(family);
    const auto& ds = family.ds;
    const std::map<std::string, std::vector<Rational>> adam = {{"beta1", {b1}}, {"beta2", {b2}}, {"eps", {eps}}, {"wd", {wd}}, {"bc1", {bc1}},
                                                               {"bc2", {bc2}}, {"theta", theta}, {"m", m}, {"v", v}};
    const auto dir = node_on("lambDirF", ds, {fam}, adam);
    const auto norm = node_on("gradSumSqAccF", ds, {operand("%lzero", {Rational(0)}), operand("%theta", theta)}, {});
    const auto scaled = node_on("lambScaleF", ds, {norm, dir}, {});
    const auto t_node = node_on("sgdParamF", ds, {scaled}, {{"lr", {lr}}, {"theta", theta}});
    const auto m_node = node_on("adamMNextF", ds, {fam}, {{"beta1", {b1}}, {"m", m}});
    const auto v_node = node_on("adamVNextF", ds, {fam}, {{"beta2", {b2}}, {"v", v}});
    return compare_nodes(d, {{dir, &r}, {t_node, &t1}, {m_node, &m1}, {v_node, &v1}});
  } else {
    // momStep (Nesterov): v' = mu v + g; theta' = theta - lr (g + mu v')
    const Rational mu = hyper[0], lr = hyper[1];
    std::vector<BigInterval> v1, t1;
    for (std::size_t i = 0; i < n; ++i) {
      v1.push_back(d.add(d.mul(wrong_beta ? d.sub(q(1), q(mu)) : q(mu), q(v[i])), g[i]));  // control: 1 - mu for mu
      t1.push_back(d.sub(q(theta[i]), d.mul(q(lr), d.add(g[i], d.mul(q(mu), v1[i])))));
    }
    reals = {{"mu", {mu}}, {"lr", {lr}}, {"theta", theta}, {"v", v}};
    expected = {{"momParamF", t1}, {"momVNextF", v1}};
  }
  for (const auto& [node, ref] : expected) {
    const auto got = denote(d, *over(node, family, reals)).value;
    for (std::size_t i = 0; i < n; ++i)
      if (!overlap(got[i], ref[i]))
        return {false, node + " element " + std::to_string(i) + ": den = " + d.to_string(got[i]) + ", step = " + d.to_string(ref[i])};
  }
  return {};
}

}  // namespace shlo::theorems
