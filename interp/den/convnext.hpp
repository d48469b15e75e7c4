// den of the ConvNeXt family (rows: ast/ctors/convnext.def), the formulas of
// docs/lean/transformer-families.md section 2: one function den(Of<Ctor::X>, node) per
// constructor; per-example rows and their batched peers share one kernel (examples()).
#pragma once

#include "interp/den/activations.hpp"
#include "interp/den/vit.hpp"

namespace shlo::den_detail {

/// y[k] = u[k] (op) p[feature(k)]: one parameter per feature, the feature of flat index k
/// within its example given by `feature`. Row scale/bias: the column k mod n; per-channel layer
/// scale: the channel k div (h w); per-element layer scale: k itself.
template <class D, class Feature>
Vec<D> per_feature(const Node<D>& nd, const char* field, bool add, std::int64_t width, Feature feature) {
  const auto p = nd.real(field);
  return nd.map(nd.len, [&](std::size_t k) {
    const auto& q = p[vit_at(feature(static_cast<std::int64_t>(k) % width))];
    return add ? nd.d.add(nd.u()[k], q) : nd.d.mul(q, nd.u()[k]);
  });
}
template <class D>
Vec<D> row_feature(const Node<D>& nd, const char* field, bool add) {
  const std::int64_t n = nd.n("n");
  return per_feature(nd, field, add, nd.n("m") * n, [n](std::int64_t k) { return k % n; });
}
template <class D>
Vec<D> channel_scale(const Node<D>& nd) {
  const std::int64_t hw = nd.n("h") * nd.n("w");
  return per_feature(nd, "gamma", false, nd.n("c") * hw, [hw](std::int64_t k) { return k / hw; });
}
template <class D>
Vec<D> den(Of<Ctor::rowScaleF>, const Node<D>& nd) { return row_feature(nd, "gamma", false); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_rowScale>, const Node<D>& nd) { return row_feature(nd, "gamma", false); }
template <class D>
Vec<D> den(Of<Ctor::rowBiasF>, const Node<D>& nd) { return row_feature(nd, "beta", true); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_rowBias>, const Node<D>& nd) { return row_feature(nd, "beta", true); }
template <class D>
Vec<D> den(Of<Ctor::layerScaleChF>, const Node<D>& nd) { return channel_scale(nd); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_layerScaleCh>, const Node<D>& nd) { return channel_scale(nd); }
template <class D>
Vec<D> den(Of<Ctor::layerScaleF>, const Node<D>& nd) {
  return per_feature(nd, "gamma", false, nd.n("n"), [](std::int64_t k) { return k; });
}

/// The per-channel gamma gradient summed over the examples: G[cc] = sum_e sum_{k: chan(k) = cc}
/// x_e[k] u_e[k] (x the layer-scale input).
template <class D>
Vec<D> channel_scale_grad(const Node<D>& nd) {
  const auto x = nd.real("x");
  const std::int64_t c = nd.n("c"), hw = nd.n("h") * nd.n("w");
  Vec<D> g(vit_at(c), nd.num(0));
  for (std::int64_t k = 0; k < examples(nd) * c * hw; ++k) {
    auto& acc = g[vit_at(k / hw % c)];
    acc = nd.d.add(acc, nd.d.mul(x[vit_at(k)], nd.u()[vit_at(k)]));
  }
  return g;
}
template <class D>
Vec<D> den(Of<Ctor::layerScaleChGammaGrad>, const Node<D>& nd) { return channel_scale_grad(nd); }
template <class D>
Vec<D> den(Of<Ctor::layerScaleChGammaGradB>, const Node<D>& nd) { return channel_scale_grad(nd); }
template <class D>
Vec<D> den(Of<Ctor::layerScaleChGammaSgd>, const Node<D>& nd) { return sgd_step(nd, "gamma", channel_scale_grad(nd)); }

// The batched GELU: geluF's pointwise formula on the whole batch.
template <class D>
Vec<D> den(Of<Ctor::batchOp_gelu>, const Node<D>& nd) { return den(Of<Ctor::geluF>{}, nd); }

/// The GELU VJP at the saved input x (pointwise, so the same at width n and N n):
/// y = u g'(x), g'(x) = 1/2 (1 + t) + 1/2 x (1 - t^2) s (1 + 3 0.044715 x^2),
/// t = tanh(s (x + 0.044715 x^3)), s = sqrt(2/pi) exactly.
template <class D>
Vec<D> gelu_vjp(const Node<D>& nd) {
  using S = typename D::Scalar;
  const auto& d = nd.d;
  const S s = d.sqrt(d.div(nd.num(2), d.pi()));
  const S k1 = d.from_rational(Rational(44715) / Rational(1000000));
  const S half = d.from_rational(Rational(1, 2));
  const auto x = nd.real("x");
  return nd.map(nd.len, [&](std::size_t i) {
    const S& v = x[i];
    const S x2 = d.mul(v, v);
    const S t = d.tanh(d.mul(s, d.add(v, d.mul(k1, d.mul(x2, v)))));
    const S first = d.mul(half, d.add(nd.num(1), t));
    const S slope = d.mul(s, d.add(nd.num(1), d.mul(d.mul(nd.num(3), k1), x2)));
    const S second = d.mul(d.mul(d.mul(half, v), d.sub(nd.num(1), d.mul(t, t))), slope);
    return d.mul(nd.u()[i], d.add(first, second));
  });
}
template <class D>
Vec<D> den(Of<Ctor::geluBack>, const Node<D>& nd) { return gelu_vjp(nd); }
template <class D>
Vec<D> den(Of<Ctor::geluBackB>, const Node<D>& nd) { return gelu_vjp(nd); }

}  // namespace shlo::den_detail
