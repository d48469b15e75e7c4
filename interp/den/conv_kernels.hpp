// One generic kernel for the strided and depthwise convolutions and their VJPs (the notes'
// conv-families.md 2.2-2.3). Every variant is a stride-1 convolution on the input grid
// (stride*h x stride*w, zero outside, pads pH = (kH-1)/2, pW = (kW-1)/2) read at the output
// positions (stride*i + phase, stride*j + phase):
//   symmetric stride 2: stride 2, phase 0;  XLA-SAME stride 2: stride 2, phase 1;
//   stride 4 (patchify): stride 4, phase 1;  stride 1: stride 1, phase 0;
// with a dense kernel (oc x ic x kH x kW, every input channel) or a depthwise one (c x kH x kW,
// output channel o reads input channel o only). The input, weight and bias VJPs are the exact
// transposes of that one sum: the same taps, accumulated into the input, the kernel or the bias
// (decimation's adjoint is the zero-upsampling upE/upO of the notes). Per-example rows have no
// N; batched rows apply the same kernel to each example (maps) or sum over them (gradients).
#pragma once

#include "interp/den_node.hpp"

namespace shlo::den_detail {

/// Stride, phase and grouping of a convolution constructor.
struct ConvVariant {
  std::int64_t stride = 1, phase = 0;
  bool depthwise = false;
};
inline constexpr ConvVariant kConvStride1{1, 0, false};
inline constexpr ConvVariant kConvStride2{2, 0, false};
inline constexpr ConvVariant kConvStride2Xla{2, 1, false};
inline constexpr ConvVariant kConvStride4{4, 1, false};
inline constexpr ConvVariant kDepthwise{1, 0, true};
inline constexpr ConvVariant kDepthwiseStride2{2, 0, true};
inline constexpr ConvVariant kDepthwiseStride2Xla{2, 1, true};

/// The shapes of one example: `h x w` is the output grid, the input grid is stride times it.
struct ConvGeometry {
  ConvVariant v;
  std::int64_t in_c, out_c, h, w, kH, kW;
  std::int64_t pH() const { return kH > 0 ? (kH - 1) / 2 : 0; }
  std::int64_t pW() const { return kW > 0 ? (kW - 1) / 2 : 0; }
  std::int64_t in_h() const { return v.stride * h; }
  std::int64_t in_w() const { return v.stride * w; }
  std::int64_t in_size() const { return in_c * in_h() * in_w(); }
  std::int64_t out_size() const { return out_c * h * w; }
  std::int64_t kernel_size() const { return out_c * (v.depthwise ? 1 : in_c) * kH * kW; }
};

/// The geometry of a row: dense rows name ic and oc, depthwise rows c.
template <class D>
ConvGeometry conv_geometry(const Node<D>& nd, ConvVariant v) {
  const std::int64_t in_c = v.depthwise ? nd.n("c") : nd.n("ic"), out_c = v.depthwise ? nd.n("c") : nd.n("oc");
  return {v, in_c, out_c, nd.n("h"), nd.n("w"), nd.n("kH"), nd.n("kW")};
}

/// Calls tap(out, in, k) for every product K[k] * X[in] that the output cell `out` sums: output
/// (o, i, j) reads input (c, stride*i + phase + kh - pH, stride*j + phase + kw - pW) when inside
/// the input grid (outside, the zero extension contributes nothing). Indices are flat, CHW and
/// OIHW (depthwise: (o*kH + kh)*kW + kw).
/// The order, (o, c, i, j, kh, kw), gives every sum its documented order at once: an output
/// cell's taps come in (c, kh, kw) order, a kernel entry's in (i, j) order and an input cell's
/// in (o, i, j) order, each increasing. With c inside (i, j) every tap read a different map.
template <class Tap>
void for_each_tap(const ConvGeometry& g, Tap tap) {
  const std::int64_t H = g.in_h(), W = g.in_w(), pH = g.pH(), pW = g.pW(), s = g.v.stride, ph = g.v.phase;
  for (std::int64_t o = 0; o < g.out_c; ++o) {
    const std::int64_t c_first = g.v.depthwise ? o : 0, c_end = g.v.depthwise ? o + 1 : g.in_c;
    for (std::int64_t c = c_first; c < c_end; ++c)
      for (std::int64_t i = 0; i < g.h; ++i)
        for (std::int64_t j = 0; j < g.w; ++j) {
          const std::int64_t out = (o * g.h + i) * g.w + j;
          for (std::int64_t kh = 0; kh < g.kH; ++kh)
            for (std::int64_t kw = 0; kw < g.kW; ++kw) {
              const std::int64_t r = s * i + ph + kh - pH, q = s * j + ph + kw - pW;
              if (r < 0 || r >= H || q < 0 || q >= W) continue;
              const std::int64_t k = ((g.v.depthwise ? o : o * g.in_c + c) * g.kH + kh) * g.kW + kw;
              tap(static_cast<std::size_t>(out), static_cast<std::size_t>((c * H + r) * W + q), static_cast<std::size_t>(k));
            }
        }
  }
}

/// y = bias[o] + sum of the taps K * X, for the example at X[xbase ...].
template <class D>
Vec<D> conv_forward(const D& d, const ConvGeometry& g, const Vec<D>& K, const Vec<D>& bias, const Vec<D>& X, std::int64_t xbase) {
  Vec<D> y;
  y.reserve(static_cast<std::size_t>(g.out_size()));
  for (std::int64_t o = 0; o < g.out_c; ++o)
    for (std::int64_t p = 0; p < g.h * g.w; ++p) y.push_back(bias[static_cast<std::size_t>(o)]);
  const auto x0 = static_cast<std::size_t>(xbase);
  for_each_tap(g, [&](std::size_t out, std::size_t in, std::size_t k) { y[out] = d.add(y[out], d.mul(K[k], X[x0 + in])); });
  return y;
}

/// The input VJP: dx[in] = sum over the taps reading `in` of K * Dy[out] (Dy at dbase).
template <class D>
Vec<D> conv_input_vjp(const D& d, const ConvGeometry& g, const Vec<D>& K, const Vec<D>& Dy, std::int64_t dbase) {
  Vec<D> dx(static_cast<std::size_t>(g.in_size()), zero(d));
  const auto d0 = static_cast<std::size_t>(dbase);
  for_each_tap(g, [&](std::size_t out, std::size_t in, std::size_t k) { dx[in] = d.add(dx[in], d.mul(K[k], Dy[d0 + out])); });
  return dx;
}

/// The weight VJP, added into G: G[k] += X[in] * Dy[out] over the taps.
template <class D>
void conv_weight_vjp_add(const D& d, const ConvGeometry& g, const Vec<D>& X, std::int64_t xbase, const Vec<D>& Dy, std::int64_t dbase, Vec<D>& G) {
  const auto x0 = static_cast<std::size_t>(xbase), d0 = static_cast<std::size_t>(dbase);
  for_each_tap(g, [&](std::size_t out, std::size_t in, std::size_t k) { G[k] = d.add(G[k], d.mul(X[x0 + in], Dy[d0 + out])); });
}

/// The bias VJP, added into G: G[o] += sum over (i, j) of Dy[o, i, j] (no stride, phase or kernel).
template <class D>
void conv_bias_vjp_add(const D& d, const ConvGeometry& g, const Vec<D>& Dy, std::int64_t dbase, Vec<D>& G) {
  for (std::int64_t o = 0; o < g.out_c; ++o)
    for (std::int64_t p = 0; p < g.h * g.w; ++p)
      G[static_cast<std::size_t>(o)] = d.add(G[static_cast<std::size_t>(o)], Dy[static_cast<std::size_t>(dbase + o * g.h * g.w + p)]);
}

// ---- The rows' dens, generic over per-example (no N) and batched (N examples) rows. ----

/// The forward map on each example: kernel field W, bias field `bias_field` ("b" or "bias").
template <class D>
Vec<D> conv_forward_den(const Node<D>& nd, ConvVariant v, const char* bias_field) {
  const ConvGeometry g = conv_geometry(nd, v);
  const auto K = nd.real("W"), bias = nd.real(bias_field);
  Vec<D> y;
  for (std::int64_t ex = 0; ex < examples(nd); ++ex) {
    const Vec<D> part = conv_forward(nd.d, g, K, bias, nd.u(), ex * g.in_size());
    y.insert(y.end(), part.begin(), part.end());
  }
  return y;
}

/// The input VJP on each example's cotangent.
template <class D>
Vec<D> conv_input_vjp_den(const Node<D>& nd, ConvVariant v) {
  const ConvGeometry g = conv_geometry(nd, v);
  const auto K = nd.real("W");
  Vec<D> y;
  for (std::int64_t ex = 0; ex < examples(nd); ++ex) {
    const Vec<D> part = conv_input_vjp(nd.d, g, K, nd.u(), ex * g.out_size());
    y.insert(y.end(), part.begin(), part.end());
  }
  return y;
}

/// The weight gradient, summed over the examples (saved inputs in field x).
template <class D>
Vec<D> conv_weight_grad_den(const Node<D>& nd, ConvVariant v) {
  const ConvGeometry g = conv_geometry(nd, v);
  const auto X = nd.real("x");
  Vec<D> G(static_cast<std::size_t>(g.kernel_size()), nd.num(0));
  for (std::int64_t ex = 0; ex < examples(nd); ++ex) conv_weight_vjp_add(nd.d, g, X, ex * g.in_size(), nd.u(), ex * g.out_size(), G);
  return G;
}

/// The bias gradient, summed over the examples.
template <class D>
Vec<D> conv_bias_grad_den(const Node<D>& nd, ConvVariant v) {
  const ConvGeometry g = conv_geometry(nd, v);
  Vec<D> G(static_cast<std::size_t>(g.out_c), nd.num(0));
  for (std::int64_t ex = 0; ex < examples(nd); ++ex) conv_bias_vjp_add(nd.d, g, nd.u(), ex * g.out_size(), G);
  return G;
}

}  // namespace shlo::den_detail
