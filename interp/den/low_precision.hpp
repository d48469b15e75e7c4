// den of the reduced-precision constructors (rows: ast/ctors/low_precision.def), the formulas of
// docs/lean/transformer-families-2.md section 4: the f32 peer's formula with rnd applied where
// the text converts. Every contraction operand is rounded; a contraction typed in the low
// precision is summed exactly and its sum rounded once more (the "store"); the f32 tail (bias)
// is added after, unrounded. rnd is the run's DenOptions::rounding in the row's format
// (identity by default, as the Lean renders pass it).
#pragma once

#include "interp/den_node.hpp"

namespace shlo::den_detail {

/// rnd applied to every element of v, in format f under the run's rounding model.
template <class D>
Vec<D> rounded(const Node<D>& nd, const Vec<D>& v, LowPrecisionFormat f) {
  Vec<D> y;
  y.reserve(v.size());
  for (const auto& x : v) y.push_back(round_value(nd.d, x, f, nd.rounding));
  return y;
}

template <class D>
Vec<D> den(Of<Ctor::dotInBf16>, const Node<D>& nd) {  // y[j] = sum_i rnd(u[i]) rnd(W[i,j]): an f32 result, no store
  const auto f = LowPrecisionFormat::BFloat16;
  return nd.dot_in(rounded(nd, nd.real("W"), f), rounded(nd, nd.u(), f), 0, nd.n("m"), nd.n("n"));
}

// The conv forward of every precision and batch: per example, rnd(conv(rnd W, 0, rnd x)) + bias.
template <class D>
Vec<D> low_precision_conv(const Node<D>& nd, std::int64_t examples, const char* bias_field, LowPrecisionFormat f) {
  const ConvShape ks = nd.conv_shape();
  const auto W = rounded(nd, nd.real("W"), f), x = rounded(nd, nd.u(), f), bias = nd.real(bias_field);
  const Vec<D> no_bias(static_cast<std::size_t>(ks.oc), nd.num(0));
  Vec<D> y;
  for (std::int64_t ex = 0; ex < examples; ++ex) {
    const auto part = rounded(nd, conv(nd.d, W, no_bias, x, ex * ks.ic * ks.h * ks.w, ks), f);
    for (std::size_t i = 0; i < part.size(); ++i) y.push_back(nd.d.add(part[i], bias[i / static_cast<std::size_t>(ks.h * ks.w)]));
  }
  return y;
}
template <class D>
Vec<D> den(Of<Ctor::flatConvFBf16>, const Node<D>& nd) { return low_precision_conv(nd, 1, "b", LowPrecisionFormat::BFloat16); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_convBf16>, const Node<D>& nd) { return low_precision_conv(nd, nd.n("N"), "bias", LowPrecisionFormat::BFloat16); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_convF8>, const Node<D>& nd) { return low_precision_conv(nd, nd.n("N"), "bias", LowPrecisionFormat::F8E4M3FN); }

// The input VJP per example: y_n = rnd(convIn(rnd W, rnd u_n)).
template <class D>
Vec<D> low_precision_conv_back(const Node<D>& nd, LowPrecisionFormat f) {
  const ConvShape ks = nd.conv_shape();
  const auto W = rounded(nd, nd.real("W"), f), dy = rounded(nd, nd.u(), f);
  Vec<D> y;
  for (std::int64_t ex = 0; ex < nd.n("N"); ++ex) {
    const auto part = rounded(nd, conv_in(nd.d, W, dy, ex * ks.oc * ks.h * ks.w, ks), f);
    y.insert(y.end(), part.begin(), part.end());
  }
  return y;
}
template <class D>
Vec<D> den(Of<Ctor::convBackBatchedBf16>, const Node<D>& nd) { return low_precision_conv_back(nd, LowPrecisionFormat::BFloat16); }
template <class D>
Vec<D> den(Of<Ctor::convBackBatchedF8>, const Node<D>& nd) { return low_precision_conv_back(nd, LowPrecisionFormat::F8E4M3FN); }

// The weight gradient: one convolution contracts the batch, so one store of the whole sum:
// rnd(sum_n convW(rnd x_n, rnd u_n)).
template <class D>
Vec<D> low_precision_conv_weight_grad(const Node<D>& nd, LowPrecisionFormat f) {
  const ConvShape ks = nd.conv_shape();
  const auto x = rounded(nd, nd.real("x"), f), dy = rounded(nd, nd.u(), f);
  Vec<D> y(static_cast<std::size_t>(nd.len), nd.num(0));
  for (std::int64_t ex = 0; ex < nd.n("N"); ++ex) conv_w_add(nd.d, x, ex * ks.ic * ks.h * ks.w, dy, ex * ks.oc * ks.h * ks.w, ks, y);
  return rounded(nd, y, f);
}
template <class D>
Vec<D> den(Of<Ctor::convWeightGradBBf16>, const Node<D>& nd) { return low_precision_conv_weight_grad(nd, LowPrecisionFormat::BFloat16); }
template <class D>
Vec<D> den(Of<Ctor::convWeightGradBF8>, const Node<D>& nd) { return low_precision_conv_weight_grad(nd, LowPrecisionFormat::F8E4M3FN); }

}  // namespace shlo::den_detail
