// What the den of one constructor sees (interp/den/*.hpp): the domain, the node, its
// children's values and where it is, with the small formulas several constructors share.
#pragma once

#include "interp/den_kernels.hpp"

namespace shlo::den_detail {

/// Selects the den of constructor C: den(Of<Ctor::dotIn>{}, node).
template <Ctor C>
struct Of {};

template <class D>
struct Node {
  using S = typename D::Scalar;
  const D& d;
  const Expr& e;
  const std::vector<Vec<D>>& k;  // the children's values
  const Site& s;
  std::int64_t len;              // the result length
  RoundingModel rounding = RoundingModel::Identity;  // DenOptions::rounding of this run
  const DenBindings<D>* bound = nullptr;  // fields given as domain values (den.hpp), if any

  const Vec<D>& u() const { return k.at(0); }  // the (first) child
  std::int64_t n(const char* name) const { return e.nat(name); }
  // A real field's values: the bound ones, or the node's rationals in the domain.
  Vec<D> real(const char* name) const {
    if (const Vec<D>* v = bound ? bound->find(e, name) : nullptr) return *v;
    Vec<D> v;
    for (const auto& q : e.real(name)) v.push_back(d.from_rational(q));
    return v;
  }
  // Element i of a real field.
  S at(const char* name, std::size_t i) const {
    if (const Vec<D>* v = bound ? bound->find(e, name) : nullptr) return v->at(i);
    return d.from_rational(e.real(name).at(i));
  }
  S scalar(const char* name) const { return at(name, 0); }
  S num(std::int64_t v) const { return d.from_rational(Rational(v)); }
  template <class F>
  Vec<D> map(std::int64_t count, F f) const {
    Vec<D> y;
    y.reserve(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i) y.push_back(f(static_cast<std::size_t>(i)));
    return y;
  }
  bool gt0(const S& x) const { return decide(d, CompareDirection::GT, x, num(0)); }
  ConvShape conv_shape() const { return {n("ic"), n("oc"), n("h"), n("w"), n("kH"), n("kW")}; }
  // Adam's m' and v' (section 3.8).
  S m_next(const S& beta1, const S& m, const S& g) const { return d.add(d.mul(beta1, m), d.mul(d.sub(num(1), beta1), g)); }
  S v_next(const S& beta2, const S& v, const S& g) const {
    return d.add(d.mul(beta2, v), d.mul(d.sub(num(1), beta2), d.mul(g, g)));
  }
  // (m'/bc1) / (sqrt(v'/bc2) + eps), Lean-total.
  S adam_direction(const S& g, std::size_t i) const {
    const S m1 = m_next(scalar("beta1"), at("m", i), g);
    const S v1 = v_next(scalar("beta2"), at("v", i), g);
    const auto idx = static_cast<std::int64_t>(i);
    const S mh = div0(d, m1, scalar("bc1"), s, idx);
    const S vh = div0(d, v1, scalar("bc2"), s, idx);
    return div0(d, mh, d.add(sqrt0(d, vh, s, idx), scalar("eps")), s, idx);
  }
  // dotIn: y[j] = sum_i u[base+i] W[i,j] (W is m x n).
  Vec<D> dot_in(const Vec<D>& W, const Vec<D>& x, std::int64_t base, std::int64_t m, std::int64_t cols) const {
    return map(cols, [&](std::size_t j) {
      S acc = num(0);
      for (std::int64_t i = 0; i < m; ++i)
        acc = d.add(acc, d.mul(x[static_cast<std::size_t>(base + i)], W[static_cast<std::size_t>(i * cols) + j]));
      return acc;
    });
  }
  // dotOut: y[i] = sum_j W[i,j] u[base+j] (W is m x n).
  Vec<D> dot_out(const Vec<D>& W, const Vec<D>& x, std::int64_t base, std::int64_t m, std::int64_t cols) const {
    return map(m, [&](std::size_t i) {
      S acc = num(0);
      for (std::int64_t j = 0; j < cols; ++j)
        acc = d.add(acc, d.mul(W[i * static_cast<std::size_t>(cols) + static_cast<std::size_t>(j)], x[static_cast<std::size_t>(base + j)]));
      return acc;
    });
  }
  S sum_squares(const Vec<D>& v) const {
    S acc = num(0);
    for (const auto& x : v) acc = d.add(acc, d.mul(x, x));
    return acc;
  }
};

/// How many examples a row describes: N for a batched row, 1 for a per-example one (the
/// per-example and batched rows of a family share one kernel through it).
template <class D>
std::int64_t examples(const Node<D>& nd) {
  return nd.e.nats.count("N") ? nd.n("N") : 1;
}

/// theta - lr * grad, the fused SGD step of every parameter row (`theta_field` names the real field).
template <class D>
Vec<D> sgd_step(const Node<D>& nd, const char* theta_field, const Vec<D>& grad) {
  const auto theta = nd.real(theta_field);
  const auto lr = nd.scalar("lr");
  return nd.map(static_cast<std::int64_t>(grad.size()), [&](std::size_t i) { return nd.d.sub(theta[i], nd.d.mul(lr, grad[i])); });
}

}  // namespace shlo::den_detail
