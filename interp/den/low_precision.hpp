// den of the reduced-precision constructors (rows: ast/ctors/low_precision.def), the formulas of
// docs/lean/transformer-families-2.md section 4: the f32 peer's formula with rnd applied where
// the text converts. Every contraction operand is rounded; a contraction typed in the low
// precision is summed exactly and its sum rounded once more (the "store"); the f32 tail (bias)
// is added after, unrounded. rnd is the run's DenOptions::rounding in the row's format
// (identity by default, as the Lean renders pass it).
#pragma once

#include "interp/den/conv_kernels.hpp"
#include "interp/den/vit.hpp"
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

// The convolutions of every precision, stride, grouping and batch, on the one generic kernel of
// interp/den/conv_kernels.hpp (the f32 peers' kernel), with rnd where the text converts.

/// The forward map per example: rnd(conv(rnd W, 0, rnd x_n)) + bias, the bias unrounded.
template <class D>
Vec<D> low_precision_conv_forward(const Node<D>& nd, ConvVariant v, const char* bias_field, LowPrecisionFormat f) {
  const ConvGeometry g = conv_geometry(nd, v);
  const auto K = rounded(nd, nd.real("W"), f), X = rounded(nd, nd.u(), f), bias = nd.real(bias_field);
  const Vec<D> no_bias(static_cast<std::size_t>(g.out_c), nd.num(0));
  const auto plane = static_cast<std::size_t>(g.h * g.w);
  Vec<D> y;
  for (std::int64_t ex = 0; ex < examples(nd); ++ex) {
    const auto part = rounded(nd, conv_forward(nd.d, g, K, no_bias, X, ex * g.in_size()), f);
    for (std::size_t i = 0; i < part.size(); ++i) y.push_back(nd.d.add(part[i], bias[i / plane]));
  }
  return y;
}

/// The input VJP per example: rnd(VJP_in(rnd W)(rnd u_n)).
template <class D>
Vec<D> low_precision_conv_input_vjp(const Node<D>& nd, ConvVariant v, LowPrecisionFormat f) {
  const ConvGeometry g = conv_geometry(nd, v);
  const auto K = rounded(nd, nd.real("W"), f), dy = rounded(nd, nd.u(), f);
  Vec<D> y;
  for (std::int64_t ex = 0; ex < examples(nd); ++ex) {
    const auto part = rounded(nd, conv_input_vjp(nd.d, g, K, dy, ex * g.out_size()), f);
    y.insert(y.end(), part.begin(), part.end());
  }
  return y;
}

/// The weight gradient: one convolution contracts the batch, so one store of the whole sum:
/// rnd(sum_n VJP_W(rnd x_n, rnd u_n)).
template <class D>
Vec<D> low_precision_conv_weight_grad(const Node<D>& nd, ConvVariant v, LowPrecisionFormat f) {
  const ConvGeometry g = conv_geometry(nd, v);
  const auto X = rounded(nd, nd.real("x"), f), dy = rounded(nd, nd.u(), f);
  Vec<D> G(static_cast<std::size_t>(g.kernel_size()), nd.num(0));
  for (std::int64_t ex = 0; ex < examples(nd); ++ex) conv_weight_vjp_add(nd.d, g, X, ex * g.in_size(), dy, ex * g.out_size(), G);
  return rounded(nd, G, f);
}

inline constexpr auto kBf16 = LowPrecisionFormat::BFloat16;
inline constexpr auto kF8 = LowPrecisionFormat::F8E4M3FN;

template <class D>
Vec<D> den(Of<Ctor::flatConvFBf16>, const Node<D>& nd) { return low_precision_conv_forward(nd, kConvStride1, "b", kBf16); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_convBf16>, const Node<D>& nd) { return low_precision_conv_forward(nd, kConvStride1, "bias", kBf16); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_convF8>, const Node<D>& nd) { return low_precision_conv_forward(nd, kConvStride1, "bias", kF8); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_convStridedBf16>, const Node<D>& nd) { return low_precision_conv_forward(nd, kConvStride2, "bias", kBf16); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_convStridedXlaBf16>, const Node<D>& nd) { return low_precision_conv_forward(nd, kConvStride2Xla, "bias", kBf16); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_convStride4Bf16>, const Node<D>& nd) { return low_precision_conv_forward(nd, kConvStride4, "bias", kBf16); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_depthwiseBf16>, const Node<D>& nd) { return low_precision_conv_forward(nd, kDepthwise, "bias", kBf16); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_depthwiseStridedBf16>, const Node<D>& nd) { return low_precision_conv_forward(nd, kDepthwiseStride2, "bias", kBf16); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_depthwiseStridedXlaBf16>, const Node<D>& nd) {
  return low_precision_conv_forward(nd, kDepthwiseStride2Xla, "bias", kBf16);
}

template <class D>
Vec<D> den(Of<Ctor::convBackBatchedBf16>, const Node<D>& nd) { return low_precision_conv_input_vjp(nd, kConvStride1, kBf16); }
template <class D>
Vec<D> den(Of<Ctor::convBackBatchedF8>, const Node<D>& nd) { return low_precision_conv_input_vjp(nd, kConvStride1, kF8); }
template <class D>
Vec<D> den(Of<Ctor::convStridedBackBatchedBf16>, const Node<D>& nd) { return low_precision_conv_input_vjp(nd, kConvStride2, kBf16); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseBackBatchedBf16>, const Node<D>& nd) { return low_precision_conv_input_vjp(nd, kDepthwise, kBf16); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseStridedBackBatchedBf16>, const Node<D>& nd) { return low_precision_conv_input_vjp(nd, kDepthwiseStride2, kBf16); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseStridedXlaBackBatchedBf16>, const Node<D>& nd) {
  return low_precision_conv_input_vjp(nd, kDepthwiseStride2Xla, kBf16);
}

template <class D>
Vec<D> den(Of<Ctor::convWeightGradBBf16>, const Node<D>& nd) { return low_precision_conv_weight_grad(nd, kConvStride1, kBf16); }
template <class D>
Vec<D> den(Of<Ctor::convWeightGradBF8>, const Node<D>& nd) { return low_precision_conv_weight_grad(nd, kConvStride1, kF8); }
template <class D>
Vec<D> den(Of<Ctor::convStridedWeightGradBBf16>, const Node<D>& nd) { return low_precision_conv_weight_grad(nd, kConvStride2, kBf16); }
template <class D>
Vec<D> den(Of<Ctor::convStridedXlaWeightGradBBf16>, const Node<D>& nd) { return low_precision_conv_weight_grad(nd, kConvStride2Xla, kBf16); }
template <class D>
Vec<D> den(Of<Ctor::convStride4WeightGradBBf16>, const Node<D>& nd) { return low_precision_conv_weight_grad(nd, kConvStride4, kBf16); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseWeightGradBBf16>, const Node<D>& nd) { return low_precision_conv_weight_grad(nd, kDepthwise, kBf16); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseStridedWeightGradBBf16>, const Node<D>& nd) { return low_precision_conv_weight_grad(nd, kDepthwiseStride2, kBf16); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseStridedXlaWeightGradBBf16>, const Node<D>& nd) {
  return low_precision_conv_weight_grad(nd, kDepthwiseStride2Xla, kBf16);
}

// ---- The ViT peers: row-wise dense, the batched matrix product, the row-dense weight gradient ----

/// Every token row r of every example: forward rnd(sum_i rnd u[r,i] rnd W[i,j]) + b[j], or the
/// input VJP rnd(sum_j rnd W[i,j] rnd u[r,j]).
template <class D>
Vec<D> low_precision_rows_dense(const Node<D>& nd, bool input_vjp, LowPrecisionFormat f) {
  const auto W = rounded(nd, nd.real("W"), f), u = rounded(nd, nd.u(), f);
  const std::int64_t a = nd.n("a"), c = nd.n("c"), rows = examples(nd) * nd.n("tk");
  const Vec<D> b = input_vjp ? Vec<D>{} : nd.real("b");
  Vec<D> y;
  for (std::int64_t r = 0; r < rows; ++r) {
    Vec<D> part = rounded(nd, input_vjp ? nd.dot_out(W, u, r * c, a, c) : nd.dot_in(W, u, r * a, a, c), f);
    for (std::size_t j = 0; j < b.size(); ++j) part[j] = nd.d.add(part[j], b[j]);
    y.insert(y.end(), part.begin(), part.end());
  }
  return y;
}
template <class D>
Vec<D> den(Of<Ctor::batchOp_denseRowBf16>, const Node<D>& nd) { return low_precision_rows_dense(nd, false, kBf16); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_denseRowBackBf16>, const Node<D>& nd) { return low_precision_rows_dense(nd, true, kBf16); }

/// y_e[i,j] = rnd(sum_l rnd a_e[i,l] rnd b_e[l,j]): row i of example e is dotIn of b_e (k x n).
template <class D>
Vec<D> den(Of<Ctor::matmulFBBf16>, const Node<D>& nd) {
  const std::int64_t m = nd.n("m"), k = nd.n("k"), n = nd.n("n");
  const auto a = rounded(nd, nd.k[0], kBf16), b = rounded(nd, nd.k[1], kBf16);
  Vec<D> y;
  for (std::int64_t e = 0; e < nd.n("N"); ++e) {
    const Vec<D> b_e(b.begin() + e * k * n, b.begin() + (e + 1) * k * n);
    for (std::int64_t i = 0; i < m; ++i) {
      const auto row = rounded(nd, nd.dot_in(b_e, a, e * m * k + i * k, k, n), kBf16);
      y.insert(y.end(), row.begin(), row.end());
    }
  }
  return y;
}

/// G[i,j] = sum over every token row t of rnd x[t,i] rnd u[t,j], an f32 result (no store): row i
/// of G is dotIn of u (rows x c) with column i of x.
template <class D>
Vec<D> den(Of<Ctor::rowDenseWeightGradBBf16>, const Node<D>& nd) {
  const auto x = rounded(nd, nd.real("x"), kBf16), u = rounded(nd, nd.u(), kBf16);
  const std::int64_t a = nd.n("a"), c = nd.n("c"), rows = nd.n("N") * nd.n("tk");
  Vec<D> G;
  for (std::int64_t i = 0; i < a; ++i) {
    Vec<D> column;
    for (std::int64_t t = 0; t < rows; ++t) column.push_back(x[static_cast<std::size_t>(t * a + i)]);
    const auto row = nd.dot_in(u, column, 0, rows, c);
    G.insert(G.end(), row.begin(), row.end());
  }
  return G;
}

// ---- The patch embedding's peers, on the f32 rows' kernels of interp/den/vit.hpp ----

/// y[p+1,d] = rnd(sum rnd W[d,c,kh,kw] rnd img~[c, h'P+kh, w'P+kw]) + b[d] + pos[p+1,d]; the class
/// row 0 (cls + pos) is not rounded at all. A padded read is a zero: rnd(0) = 0 in both formats.
template <class D>
Vec<D> den(Of<Ctor::batchOp_patchEmbedBf16>, const Node<D>& nd) {
  return patch_embed_each(nd, rounded(nd, nd.real("W"), kBf16), rounded(nd, nd.u(), kBf16),
                          [&](const auto& sum) { return round_value(nd.d, sum, kBf16, nd.rounding); });
}

/// rnd(sum_n G(rnd x_n, rnd u_n)): the batch is contracted inside one convolution, one store.
template <class D>
Vec<D> den(Of<Ctor::patchEmbedWeightGradBBf16>, const Node<D>& nd) {
  return rounded(nd, patch_weight_grad(nd, rounded(nd, nd.real("x"), kBf16), rounded(nd, nd.u(), kBf16)), kBf16);
}

}  // namespace shlo::den_detail
