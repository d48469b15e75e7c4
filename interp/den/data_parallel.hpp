// den of the data-parallel node (rows: ast/ctors/data_parallel.def), the formulas of
// SHLO_SEMANTICS.md 3.10: one function den(Of<Ctor::X>, node) per constructor, u the child, k the
// children.
#pragma once

#include "interp/den_node.hpp"

namespace shlo::den_detail {

template <class D>
Vec<D> den(Of<Ctor::allReduceMeanF>, const Node<D>& nd) {
  using S = typename D::Scalar;
  const S R = nd.num(nd.e.replicas);
  return nd.map(nd.len, [&](std::size_t i) {
    S acc = nd.num(0);
    for (const auto& replica : nd.k) acc = nd.d.add(acc, replica[i]);
    return nd.d.div(acc, R);
  });
}

}  // namespace shlo::den_detail
