// den of batch normalisation (rows: ast/ctors/batch_norm.def), the formulas of SHLO_SEMANTICS.md
// 3.7: one function den(Of<Ctor::X>, node) per constructor, u the child, k the children.
#pragma once

#include "interp/den_node.hpp"

namespace shlo::den_detail {

template <class D>
Vec<D> bnF_or_bnBack(const Node<D>& nd, Ctor c) {
  using S = typename D::Scalar;
  const auto& src = c == Ctor::bnF ? nd.u() : nd.real("x");
  const auto st = bn_stats<D>(nd.d, nd.len, [&](std::int64_t i) -> const S& { return src[static_cast<std::size_t>(i)]; }, nd.scalar("eps"), nd.s);
  const S gamma = nd.scalar("gamma");
  if (c == Ctor::bnF) {
    const S beta = nd.scalar("beta");
    return nd.map(nd.len, [&](std::size_t i) { return nd.d.add(nd.d.mul(gamma, st.xhat[i]), beta); });
  }
  return bn_in(nd.d, st, nd.map(nd.len, [&](std::size_t i) { return nd.d.mul(gamma, nd.u()[i]); }), nd.s);
}
template <class D>
Vec<D> den(Of<Ctor::bnF>, const Node<D>& nd) { return bnF_or_bnBack(nd, Ctor::bnF); }
template <class D>
Vec<D> den(Of<Ctor::bnBack>, const Node<D>& nd) { return bnF_or_bnBack(nd, Ctor::bnBack); }

template <class D>
Vec<D> bnBatchF_or_bnBatchBack(const Node<D>& nd, Ctor c) {  // per channel over m = N h w (the transposed layout)
  using S = typename D::Scalar;
  const std::int64_t N = nd.n("N"), oc = nd.n("oc"), hw = nd.n("h") * nd.n("w"), m = N * hw;
  const auto gamma = nd.real("gamma");
  const auto saved = c == Ctor::bnBatchF ? nd.u() : nd.real("x");
  const auto at = [&](std::int64_t ch, std::int64_t t) { return static_cast<std::size_t>((t / hw * oc + ch) * hw + t % hw); };
  Vec<D> y(static_cast<std::size_t>(nd.len), nd.num(0));
  for (std::int64_t ch = 0; ch < oc; ++ch) {
    const auto st = bn_stats<D>(nd.d, m, [&](std::int64_t t) -> const S& { return saved[at(ch, t)]; }, nd.scalar("eps"), nd.s);
    if (c == Ctor::bnBatchF) {
      const auto beta = nd.real("beta");
      for (std::int64_t t = 0; t < m; ++t)
        y[at(ch, t)] = nd.d.add(nd.d.mul(gamma[static_cast<std::size_t>(ch)], st.xhat[static_cast<std::size_t>(t)]), beta[static_cast<std::size_t>(ch)]);
    } else {
      Vec<D> g;
      for (std::int64_t t = 0; t < m; ++t) g.push_back(nd.d.mul(gamma[static_cast<std::size_t>(ch)], nd.u()[at(ch, t)]));
      const auto dx = bn_in(nd.d, st, g, nd.s);
      for (std::int64_t t = 0; t < m; ++t) y[at(ch, t)] = dx[static_cast<std::size_t>(t)];
    }
  }
  return y;
}
template <class D>
Vec<D> den(Of<Ctor::bnBatchF>, const Node<D>& nd) { return bnBatchF_or_bnBatchBack(nd, Ctor::bnBatchF); }
template <class D>
Vec<D> den(Of<Ctor::bnBatchBack>, const Node<D>& nd) { return bnBatchF_or_bnBatchBack(nd, Ctor::bnBatchBack); }

}  // namespace shlo::den_detail
