// den of the regularisers (rows: ast/ctors/regularisers.def), docs/lean/transformer-families.md
// section 3. The masks are program inputs (real fields here); neither op divides by the keep
// probability (the host's mask carries it), so an all-ones mask is the identity.
#pragma once

#include "interp/den_node.hpp"

namespace shlo::den_detail {

// Drop-path: every position of example e scaled by s[e].
template <class D>
Vec<D> den(Of<Ctor::dropPathB>, const Node<D>& nd) {
  const auto s = nd.real("s");
  const std::int64_t n = nd.n("n");
  return nd.map(nd.len, [&](std::size_t k) { return nd.d.mul(s[k / static_cast<std::size_t>(n)], nd.u()[k]); });
}

// Dropout: y[k] = mask[k] u[k].
template <class D>
Vec<D> den(Of<Ctor::dropoutB>, const Node<D>& nd) {
  const auto mask = nd.real("mask");
  return nd.map(nd.len, [&](std::size_t k) { return nd.d.mul(mask[k], nd.u()[k]); });
}

}  // namespace shlo::den_detail
