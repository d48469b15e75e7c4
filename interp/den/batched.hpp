// den of the batched set (rows: ast/ctors/batched.def), the formulas of SHLO_SEMANTICS.md 3.9:
// one function den(Of<Ctor::X>, node) per constructor, u the child, k the children.
#pragma once

#include "interp/den/activations.hpp"  // the formulas the batched forms share
#include "interp/den/core.hpp"
#include "interp/den_node.hpp"

namespace shlo::den_detail {

// The formula of expe (core), on the whole batch.
template <class D>
Vec<D> den(Of<Ctor::batchOp_expe>, const Node<D>& nd) { return expe_or_batchOp_expe(nd); }

// The formula of softmaxDiv (core), on the whole batch.
template <class D>
Vec<D> den(Of<Ctor::batchOp_softmaxDiv>, const Node<D>& nd) { return softmaxDiv_or_batchOp_softmaxDiv(nd, Ctor::batchOp_softmaxDiv); }

// The formula of sub (core), on the whole batch.
template <class D>
Vec<D> den(Of<Ctor::subB>, const Node<D>& nd) { return sub_or_subB(nd); }

template <class D>
Vec<D> den(Of<Ctor::batchOp_relu>, const Node<D>& nd) {
  return nd.map(nd.len, [&](std::size_t i) { return nd.gt0(nd.u()[i]) ? nd.u()[i] : nd.num(0); });
}

// The formula of selectPos (activations), on the whole batch.
template <class D>
Vec<D> den(Of<Ctor::selectPosB>, const Node<D>& nd) { return selectPos_or_selectPosB(nd); }

template <class D>
Vec<D> batched_dense_map(const Node<D>& nd, Ctor c) {  // the per-example map on each example
  const auto W = nd.real("W");
  const std::int64_t in = c == Ctor::batchOp_dense ? nd.n("a") : nd.n("n");
  Vec<D> y;
  for (std::int64_t ex = 0; ex < nd.n("N"); ++ex) {
    Vec<D> part = c == Ctor::batchOp_dense ? nd.dot_in(W, nd.u(), ex * in, nd.n("a"), nd.n("c")) : nd.dot_out(W, nd.u(), ex * in, nd.n("m"), nd.n("n"));
    if (c == Ctor::batchOp_dense) {
      const auto bias = nd.real("bias");
      for (std::size_t j = 0; j < part.size(); ++j) part[j] = nd.d.add(part[j], bias[j]);
    }
    y.insert(y.end(), part.begin(), part.end());
  }
  return y;
}
template <class D>
Vec<D> den(Of<Ctor::batchOp_dense>, const Node<D>& nd) { return batched_dense_map(nd, Ctor::batchOp_dense); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_dotOut>, const Node<D>& nd) { return batched_dense_map(nd, Ctor::batchOp_dotOut); }

template <class D>
Vec<D> batched_image_map(const Node<D>& nd, Ctor c) {
  const std::int64_t N = nd.n("N"), per_in = eval_length(nd.e.spec->child_lengths[0], nd.e.nats) / std::max<std::int64_t>(N, 1);
  Vec<D> y;
  for (std::int64_t ex = 0; ex < N; ++ex) {
    Vec<D> part;
    if (c == Ctor::batchOp_conv) part = conv(nd.d, nd.real("W"), nd.real("bias"), nd.u(), ex * per_in, nd.conv_shape());
    else if (c == Ctor::convBackBatched) part = conv_in(nd.d, nd.real("W"), nd.u(), ex * per_in, nd.conv_shape());
    else if (c == Ctor::batchOp_maxPool) part = pool(nd.d, nd.u(), ex * per_in, nd.n("c"), nd.n("h"), nd.n("w"));
    else part = pool_back(nd.d, nd.e.real("x"), ex * 4 * per_in, nd.u(), ex * per_in, nd.n("c"), nd.n("h"), nd.n("w"), nd.s);
    y.insert(y.end(), part.begin(), part.end());
  }
  return y;
}
template <class D>
Vec<D> den(Of<Ctor::batchOp_conv>, const Node<D>& nd) { return batched_image_map(nd, Ctor::batchOp_conv); }
template <class D>
Vec<D> den(Of<Ctor::convBackBatched>, const Node<D>& nd) { return batched_image_map(nd, Ctor::convBackBatched); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_maxPool>, const Node<D>& nd) { return batched_image_map(nd, Ctor::batchOp_maxPool); }
template <class D>
Vec<D> den(Of<Ctor::maxPoolBackB>, const Node<D>& nd) { return batched_image_map(nd, Ctor::maxPoolBackB); }

template <class D>
Vec<D> den(Of<Ctor::divConstB>, const Node<D>& nd) {
  using S = typename D::Scalar;
  const S sc = nd.scalar("s");
  return nd.map(nd.len, [&](std::size_t i) { return div0(nd.d, nd.u()[i], sc, nd.s, static_cast<std::int64_t>(i)); });
}

template <class D>
Vec<D> batched_conv_gradient(const Node<D>& nd, Ctor c) {
  const ConvShape ks = nd.conv_shape();
  Vec<D> y(static_cast<std::size_t>(nd.len), nd.num(0));
  for (std::int64_t ex = 0; ex < nd.n("N"); ++ex) {
    if (c == Ctor::convWeightGradB) conv_w_add(nd.d, nd.real("x"), ex * ks.ic * ks.h * ks.w, nd.u(), ex * ks.oc * ks.h * ks.w, ks, y);
    else conv_b_add(nd.d, nd.u(), ex * ks.oc * ks.h * ks.w, ks.oc, ks.h * ks.w, y);
  }
  return y;
}
template <class D>
Vec<D> den(Of<Ctor::convWeightGradB>, const Node<D>& nd) { return batched_conv_gradient(nd, Ctor::convWeightGradB); }
template <class D>
Vec<D> den(Of<Ctor::convBiasGradB>, const Node<D>& nd) { return batched_conv_gradient(nd, Ctor::convBiasGradB); }

template <class D>
Vec<D> den(Of<Ctor::denseWeightGradB>, const Node<D>& nd) {  // y[i c + j] = sum_n x_n[i] u_n[j]
  const auto x = nd.real("x");
  const std::int64_t N = nd.n("N"), a = nd.n("a"), cc = nd.n("c");
  Vec<D> y(static_cast<std::size_t>(nd.len), nd.num(0));
  for (std::int64_t ex = 0; ex < N; ++ex)
    for (std::int64_t i = 0; i < a; ++i)
      for (std::int64_t j = 0; j < cc; ++j) {
        auto& acc = y[static_cast<std::size_t>(i * cc + j)];
        acc = nd.d.add(acc, nd.d.mul(x[static_cast<std::size_t>(ex * a + i)], nd.u()[static_cast<std::size_t>(ex * cc + j)]));
      }
  return y;
}

template <class D>
Vec<D> den(Of<Ctor::denseBiasGradB>, const Node<D>& nd) {
  const std::int64_t N = nd.n("N"), cc = nd.n("c");
  Vec<D> y(static_cast<std::size_t>(cc), nd.num(0));
  for (std::int64_t ex = 0; ex < N; ++ex)
    for (std::int64_t j = 0; j < cc; ++j) y[static_cast<std::size_t>(j)] = nd.d.add(y[static_cast<std::size_t>(j)], nd.u()[static_cast<std::size_t>(ex * cc + j)]);
  return y;
}

}  // namespace shlo::den_detail
