// den of convolution and pooling (rows: ast/ctors/conv_pool.def), the formulas of
// SHLO_SEMANTICS.md 3.4: one function den(Of<Ctor::X>, node) per constructor, u the child, k the
// children.
#pragma once

#include "interp/den_node.hpp"

namespace shlo::den_detail {

template <class D>
Vec<D> den(Of<Ctor::flatConvF>, const Node<D>& nd) {
  return conv(nd.d, nd.real("W"), nd.real("b"), nd.u(), 0, nd.conv_shape());
}

template <class D>
Vec<D> den(Of<Ctor::convBack>, const Node<D>& nd) {
  return conv_in(nd.d, nd.real("W"), nd.u(), 0, nd.conv_shape());
}

template <class D>
Vec<D> den(Of<Ctor::maxPoolF>, const Node<D>& nd) {
  return pool(nd.d, nd.u(), 0, nd.n("c"), nd.n("h"), nd.n("w"));
}

template <class D>
Vec<D> den(Of<Ctor::maxPoolBack>, const Node<D>& nd) {
  return pool_back(nd.d, nd.e.real("x"), 0, nd.u(), 0, nd.n("c"), nd.n("h"), nd.n("w"), nd.s);
}

}  // namespace shlo::den_detail
