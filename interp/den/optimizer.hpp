// den of optimizer and clipping nodes (rows: ast/ctors/optimizer.def), the formulas of
// SHLO_SEMANTICS.md 3.8: one function den(Of<Ctor::X>, node) per constructor, u the child, k the
// children.
#pragma once

#include "interp/den_node.hpp"

namespace shlo::den_detail {

template <class D>
Vec<D> den(Of<Ctor::adamMNextF>, const Node<D>& nd) {
  using S = typename D::Scalar;
  const S b1 = nd.scalar("beta1");
  const auto m = nd.real("m");
  return nd.map(nd.len, [&](std::size_t i) { return nd.m_next(b1, m[i], nd.u()[i]); });
}

template <class D>
Vec<D> den(Of<Ctor::adamVNextF>, const Node<D>& nd) {
  using S = typename D::Scalar;
  const S b2 = nd.scalar("beta2");
  const auto v = nd.real("v");
  return nd.map(nd.len, [&](std::size_t i) { return nd.v_next(b2, v[i], nd.u()[i]); });
}

template <class D>
Vec<D> den(Of<Ctor::adamWParamF>, const Node<D>& nd) {  // theta - lr dir - (wd lr) theta
  using S = typename D::Scalar;
  const auto theta = nd.real("theta");
  const S lr = nd.scalar("lr"), wd = nd.scalar("wd");
  return nd.map(nd.len, [&](std::size_t i) {
    return nd.d.sub(nd.d.sub(theta[i], nd.d.mul(lr, nd.adam_direction(nd.u()[i], i))), nd.d.mul(nd.d.mul(wd, lr), theta[i]));
  });
}

template <class D>
Vec<D> den(Of<Ctor::lambDirF>, const Node<D>& nd) {  // dir + wd theta
  using S = typename D::Scalar;
  const auto theta = nd.real("theta");
  const S wd = nd.scalar("wd");
  return nd.map(nd.len, [&](std::size_t i) { return nd.d.add(nd.adam_direction(nd.u()[i], i), nd.d.mul(wd, theta[i])); });
}

template <class D>
Vec<D> den(Of<Ctor::sgdParamF>, const Node<D>& nd) {
  using S = typename D::Scalar;
  const auto theta = nd.real("theta");
  const S lr = nd.scalar("lr");
  return nd.map(nd.len, [&](std::size_t i) { return nd.d.sub(theta[i], nd.d.mul(lr, nd.u()[i])); });
}

template <class D>
Vec<D> momVNextF_or_momParamF(const Node<D>& nd, Ctor c) {  // v' = mu v + g; theta - lr (g + mu v')
  using S = typename D::Scalar;
  const auto v = nd.real("v");
  const S mu = nd.scalar("mu");
  if (c == Ctor::momVNextF) return nd.map(nd.len, [&](std::size_t i) { return nd.d.add(nd.d.mul(mu, v[i]), nd.u()[i]); });
  const auto theta = nd.real("theta");
  const S lr = nd.scalar("lr");
  return nd.map(nd.len, [&](std::size_t i) {
    const S v1 = nd.d.add(nd.d.mul(mu, v[i]), nd.u()[i]);
    return nd.d.sub(theta[i], nd.d.mul(lr, nd.d.add(nd.u()[i], nd.d.mul(mu, v1))));
  });
}
template <class D>
Vec<D> den(Of<Ctor::momVNextF>, const Node<D>& nd) { return momVNextF_or_momParamF(nd, Ctor::momVNextF); }
template <class D>
Vec<D> den(Of<Ctor::momParamF>, const Node<D>& nd) { return momVNextF_or_momParamF(nd, Ctor::momParamF); }

template <class D>
Vec<D> den(Of<Ctor::rmsBufNextF>, const Node<D>& nd) {  // mu buf + g / sqrt(rho sq + (1 - rho) g^2 + eps)
  using S = typename D::Scalar;
  const auto sq = nd.real("sq"), buf = nd.real("buf");
  const S rho = nd.scalar("rho"), mu = nd.scalar("mu"), eps = nd.scalar("eps");
  return nd.map(nd.len, [&](std::size_t i) {
    const S s1 = nd.v_next(rho, sq[i], nd.u()[i]);
    const auto idx = static_cast<std::int64_t>(i);
    return nd.d.add(nd.d.mul(mu, buf[i]), div0(nd.d, nd.u()[i], sqrt0(nd.d, nd.d.add(s1, eps), nd.s, idx), nd.s, idx));
  });
}

template <class D>
Vec<D> den(Of<Ctor::gradSumSqAccF>, const Node<D>& nd) {
  return {nd.d.add(nd.k[0].at(0), nd.sum_squares(nd.k[1]))};
}

template <class D>
Vec<D> den(Of<Ctor::clipScaleF>, const Node<D>& nd) {  // min(1, c / (sqrt s + eps)) e
  using S = typename D::Scalar;
  const S fac = nd.d.min(nd.num(1), div0(nd.d, nd.scalar("c"), nd.d.add(sqrt0(nd.d, nd.k[0].at(0), nd.s, 0), nd.scalar("eps")), nd.s, 0));
  return nd.map(nd.len, [&](std::size_t i) { return nd.d.mul(fac, nd.k[1][i]); });
}

template <class D>
Vec<D> den(Of<Ctor::lambScaleF>, const Node<D>& nd) {  // trust = sqrt(wn2)/sqrt(rn2) if both > 0, else 1
  using S = typename D::Scalar;
  const S& wn2 = nd.k[0].at(0);
  const S rn2 = nd.sum_squares(nd.k[1]);
  const S trust = nd.gt0(wn2) && nd.gt0(rn2) ? div0(nd.d, sqrt0(nd.d, wn2, nd.s, 0), sqrt0(nd.d, rn2, nd.s, 0), nd.s, 0) : nd.num(1);
  return nd.map(nd.len, [&](std::size_t i) { return nd.d.mul(trust, nd.k[1][i]); });
}

}  // namespace shlo::den_detail
