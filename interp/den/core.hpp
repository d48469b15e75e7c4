// den of the leaf and the dense, elementwise and loss pieces (rows: ast/ctors/core.def), the
// formulas of SHLO_SEMANTICS.md 3.1, 3.2: one function den(Of<Ctor::X>, node) per constructor, u
// the child, k the children.
#pragma once

#include "interp/den_node.hpp"

namespace shlo::den_detail {

template <class D>
Vec<D> den(Of<Ctor::operand>, const Node<D>& nd) {
  return nd.real("v");
}

template <class D>
Vec<D> den(Of<Ctor::dotIn>, const Node<D>& nd) {
  return nd.dot_in(nd.real("W"), nd.u(), 0, nd.n("m"), nd.n("n"));
}

template <class D>
Vec<D> den(Of<Ctor::dotOut>, const Node<D>& nd) {
  return nd.dot_out(nd.real("W"), nd.u(), 0, nd.n("m"), nd.n("n"));
}

template <class D>
Vec<D> den(Of<Ctor::addBcast>, const Node<D>& nd) {
  const auto b = nd.real("b");
  return nd.map(nd.len, [&](std::size_t j) { return nd.d.add(nd.u()[j], b[j]); });
}

template <class D>
Vec<D> expe_or_batchOp_expe(const Node<D>& nd) {
  return nd.map(nd.len, [&](std::size_t j) { return nd.d.exp(nd.u()[j]); });
}
template <class D>
Vec<D> den(Of<Ctor::expe>, const Node<D>& nd) { return expe_or_batchOp_expe(nd); }

template <class D>
Vec<D> softmaxDiv_or_batchOp_softmaxDiv(const Node<D>& nd, Ctor c) {  // per example: y[j] = u[j] / sum_k u[k]
  using S = typename D::Scalar;
  const std::int64_t width = nd.n("n");
  const std::int64_t examples = c == Ctor::softmaxDiv ? 1 : nd.n("N");
  Vec<D> y;
  for (std::int64_t ex = 0; ex < examples; ++ex) {
    S sum = nd.num(0);
    for (std::int64_t j = 0; j < width; ++j) sum = nd.d.add(sum, nd.u()[static_cast<std::size_t>(ex * width + j)]);
    for (std::int64_t j = 0; j < width; ++j) y.push_back(div0(nd.d, nd.u()[static_cast<std::size_t>(ex * width + j)], sum, nd.s, ex * width + j));
  }
  return y;
}
template <class D>
Vec<D> den(Of<Ctor::softmaxDiv>, const Node<D>& nd) { return softmaxDiv_or_batchOp_softmaxDiv(nd, Ctor::softmaxDiv); }

template <class D>
Vec<D> sub_or_subB(const Node<D>& nd) {
  return nd.map(nd.len, [&](std::size_t j) { return nd.d.sub(nd.k[0][j], nd.k[1][j]); });
}
template <class D>
Vec<D> den(Of<Ctor::sub>, const Node<D>& nd) { return sub_or_subB(nd); }

template <class D>
Vec<D> den(Of<Ctor::scaleF>, const Node<D>& nd) {
  using S = typename D::Scalar;
  const S sc = nd.scalar("s");
  return nd.map(nd.len, [&](std::size_t i) { return nd.d.mul(sc, nd.u()[i]); });
}

}  // namespace shlo::den_detail
