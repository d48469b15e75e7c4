// den of fused SGD updates and parameter gradients (rows: ast/ctors/sgd_gradients.def), the
// formulas of SHLO_SEMANTICS.md 3.5, 3.6: one function den(Of<Ctor::X>, node) per constructor, u
// the child, k the children.
#pragma once

#include "interp/den_node.hpp"

namespace shlo::den_detail {

template <class D>
Vec<D> weightSgd_or_weightGrad(const Node<D>& nd, Ctor c) {  // W[i,j] - lr x[i] u[j]  /  x[i] u[j]
  using S = typename D::Scalar;
  const auto x = nd.real("x");
  const std::int64_t m = nd.n("m"), nn = nd.n("n");
  Vec<D> y;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < nn; ++j) y.push_back(nd.d.mul(x[static_cast<std::size_t>(i)], nd.u()[static_cast<std::size_t>(j)]));
  if (c == Ctor::weightGrad) return y;
  const auto W = nd.real("W");
  const S lr = nd.scalar("lr");
  return nd.map(nd.len, [&](std::size_t i) { return nd.d.sub(W[i], nd.d.mul(lr, y[i])); });
}
template <class D>
Vec<D> den(Of<Ctor::weightSgd>, const Node<D>& nd) { return weightSgd_or_weightGrad(nd, Ctor::weightSgd); }
template <class D>
Vec<D> den(Of<Ctor::weightGrad>, const Node<D>& nd) { return weightSgd_or_weightGrad(nd, Ctor::weightGrad); }

template <class D>
Vec<D> den(Of<Ctor::biasSgd>, const Node<D>& nd) {
  using S = typename D::Scalar;
  const auto b = nd.real("b");
  const S lr = nd.scalar("lr");
  return nd.map(nd.len, [&](std::size_t j) { return nd.d.sub(b[j], nd.d.mul(lr, nd.u()[j])); });
}

template <class D>
Vec<D> den(Of<Ctor::biasGrad>, const Node<D>& nd) {
  return nd.u();  // the identity: the batch sum lives only in the text
}

template <class D>
Vec<D> convWeightGrad_or_convWeightSgd(const Node<D>& nd, Ctor c) {
  using S = typename D::Scalar;
  const ConvShape ks = nd.conv_shape();
  Vec<D> y(static_cast<std::size_t>(nd.len), nd.num(0));
  conv_w_add(nd.d, nd.real("x"), 0, nd.u(), 0, ks, y);
  if (c == Ctor::convWeightGrad) return y;
  const auto W = nd.real("W");
  const S lr = nd.scalar("lr");
  return nd.map(nd.len, [&](std::size_t i) { return nd.d.sub(W[i], nd.d.mul(lr, y[i])); });
}
template <class D>
Vec<D> den(Of<Ctor::convWeightGrad>, const Node<D>& nd) { return convWeightGrad_or_convWeightSgd(nd, Ctor::convWeightGrad); }
template <class D>
Vec<D> den(Of<Ctor::convWeightSgd>, const Node<D>& nd) { return convWeightGrad_or_convWeightSgd(nd, Ctor::convWeightSgd); }

template <class D>
Vec<D> convBiasGrad_or_convBiasSgd(const Node<D>& nd, Ctor c) {
  using S = typename D::Scalar;
  Vec<D> y(static_cast<std::size_t>(nd.n("oc")), nd.num(0));
  conv_b_add(nd.d, nd.u(), 0, nd.n("oc"), nd.n("h") * nd.n("w"), y);
  if (c == Ctor::convBiasGrad) return y;
  const auto b = nd.real("b");
  const S lr = nd.scalar("lr");
  return nd.map(nd.len, [&](std::size_t o) { return nd.d.sub(b[o], nd.d.mul(lr, y[o])); });
}
template <class D>
Vec<D> den(Of<Ctor::convBiasGrad>, const Node<D>& nd) { return convBiasGrad_or_convBiasSgd(nd, Ctor::convBiasGrad); }
template <class D>
Vec<D> den(Of<Ctor::convBiasSgd>, const Node<D>& nd) { return convBiasGrad_or_convBiasSgd(nd, Ctor::convBiasSgd); }

}  // namespace shlo::den_detail
