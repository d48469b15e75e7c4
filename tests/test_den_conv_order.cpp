// The den convolution kernels keep every sum's documented order while their loops are arranged
// for the cache: float32 results are compared bit for bit with loops written the way the
// formulas read (SHLO_SEMANTICS.md 1.6; docs/lean/conv-families.md 2.2-2.3). float32 sums
// depend on their order, so a kernel that reordered any sum would differ: the controls show
// that these inputs tell one order from another.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "interp/den/conv_kernels.hpp"
#include "interp/den_kernels.hpp"
#include "interp/domain/ieee.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::den_detail;
using shlo::test::same_bits;

namespace {

using F = IeeeDomain<float>;
using V = std::vector<float>;
const F f32;

// Values over several orders of magnitude and both signs, so that float sums depend on their order.
V random_values(std::size_t n, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-12, 12);
  V v(n);
  for (auto& x : v) x = std::ldexp(mantissa(gen), exponent(gen));
  return v;
}

// --- The stride-1 kernels of den_kernels.hpp, as the formulas read. ---

// conv[o,i,j] = b[o] + sum over (c, kh, kw) in that order; `reverse_c` is the control's order.
V conv_as_written(const V& W, const V& b, const V& X, const ConvShape& k, bool reverse_c = false) {
  V y;
  for (std::int64_t o = 0; o < k.oc; ++o)
    for (std::int64_t i = 0; i < k.h; ++i)
      for (std::int64_t j = 0; j < k.w; ++j) {
        float acc = b[o];
        for (std::int64_t cc = 0; cc < k.ic; ++cc) {
          const std::int64_t c = reverse_c ? k.ic - 1 - cc : cc;
          for (std::int64_t kh = 0; kh < k.kH; ++kh)
            for (std::int64_t kw = 0; kw < k.kW; ++kw) {
              const std::int64_t r = i + kh - k.pH, s = j + kw - k.pW;
              if (r < 0 || r >= k.h || s < 0 || s >= k.w) continue;
              acc = acc + W[((o * k.ic + c) * k.kH + kh) * k.kW + kw] * X[(c * k.h + r) * k.w + s];
            }
        }
        y.push_back(acc);
      }
  return y;
}

// convIn[c,r,s] = sum over o, then i, then j (every (i, j), the indicator tested).
V conv_in_as_written(const V& W, const V& Dy, const ConvShape& k) {
  V y;
  for (std::int64_t c = 0; c < k.ic; ++c)
    for (std::int64_t r = 0; r < k.h; ++r)
      for (std::int64_t s = 0; s < k.w; ++s) {
        float acc = 0;
        for (std::int64_t o = 0; o < k.oc; ++o)
          for (std::int64_t i = 0; i < k.h; ++i)
            for (std::int64_t j = 0; j < k.w; ++j) {
              const std::int64_t kh = r + k.pH - i, kw = s + k.pW - j;
              if (kh < 0 || kh >= k.kH || kw < 0 || kw >= k.kW) continue;
              acc = acc + W[((o * k.ic + c) * k.kH + kh) * k.kW + kw] * Dy[(o * k.h + i) * k.w + j];
            }
        y.push_back(acc);
      }
  return y;
}

// convW[o,c,kh,kw] = sum over i, then j, added into y.
void conv_w_as_written(const V& X, const V& Dy, const ConvShape& k, V& y) {
  for (std::int64_t o = 0; o < k.oc; ++o)
    for (std::int64_t c = 0; c < k.ic; ++c)
      for (std::int64_t kh = 0; kh < k.kH; ++kh)
        for (std::int64_t kw = 0; kw < k.kW; ++kw) {
          float& acc = y[((o * k.ic + c) * k.kH + kh) * k.kW + kw];
          for (std::int64_t i = 0; i < k.h; ++i)
            for (std::int64_t j = 0; j < k.w; ++j) {
              const std::int64_t r = i + kh - k.pH, s = j + kw - k.pW;
              if (r < 0 || r >= k.h || s < 0 || s >= k.w) continue;
              acc = acc + X[(c * k.h + r) * k.w + s] * Dy[(o * k.h + i) * k.w + j];
            }
        }
}

// --- The generic strided / depthwise kernel: taps in the order (o, i, j, c, kh, kw). ---

template <class Tap>
void taps_as_written(const ConvGeometry& g, Tap tap) {
  const std::int64_t H = g.in_h(), W = g.in_w(), s = g.v.stride, ph = g.v.phase;
  for (std::int64_t o = 0; o < g.out_c; ++o)
    for (std::int64_t i = 0; i < g.h; ++i)
      for (std::int64_t j = 0; j < g.w; ++j) {
        const std::int64_t c_first = g.v.depthwise ? o : 0, c_end = g.v.depthwise ? o + 1 : g.in_c;
        for (std::int64_t c = c_first; c < c_end; ++c)
          for (std::int64_t kh = 0; kh < g.kH; ++kh)
            for (std::int64_t kw = 0; kw < g.kW; ++kw) {
              const std::int64_t r = s * i + ph + kh - g.pH(), q = s * j + ph + kw - g.pW();
              if (r < 0 || r >= H || q < 0 || q >= W) continue;
              tap((o * g.h + i) * g.w + j, (c * H + r) * W + q, ((g.v.depthwise ? o : o * g.in_c + c) * g.kH + kh) * g.kW + kw);
            }
      }
}

}  // namespace

TEST_CASE("den conv kernels: stride 1, every sum in the formula's order", "[den][conv_order]") {
  const std::vector<ConvShape> shapes = {{5, 3, 7, 6, 3, 3}, {4, 2, 5, 5, 1, 1}, {3, 2, 6, 4, 5, 3}, {2, 3, 4, 7, 3, 5}};
  std::uint32_t seed = 1;
  for (const ConvShape& k : shapes) {
    const V W = random_values(static_cast<std::size_t>(k.oc * k.ic * k.kH * k.kW), seed++);
    const V b = random_values(static_cast<std::size_t>(k.oc), seed++);
    const V X = random_values(static_cast<std::size_t>(2 * k.ic * k.h * k.w), seed++);  // two examples: the second at xbase
    const V Dy = random_values(static_cast<std::size_t>(2 * k.oc * k.h * k.w), seed++);
    const V X1(X.begin() + k.ic * k.h * k.w, X.end()), Dy1(Dy.begin() + k.oc * k.h * k.w, Dy.end());
    CHECK(same_bits(conv(f32, W, b, X, k.ic * k.h * k.w, k), conv_as_written(W, b, X1, k)));
    CHECK(same_bits(conv_in(f32, W, Dy, k.oc * k.h * k.w, k), conv_in_as_written(W, Dy1, k)));
    V G = random_values(W.size(), seed++), Gref = G;
    conv_w_add(f32, X, k.ic * k.h * k.w, Dy, k.oc * k.h * k.w, k, G);
    conv_w_as_written(X1, Dy1, k, Gref);
    CHECK(same_bits(G, Gref));
    if (k.ic > 1) {
      // Control: the same sums with the channels in the other order give other floats.
      CHECK_FALSE(same_bits(conv_as_written(W, b, X1, k), conv_as_written(W, b, X1, k, true)));
    }
  }
}

TEST_CASE("den conv kernels: strided and depthwise, every sum in the taps' order", "[den][conv_order]") {
  const std::vector<ConvVariant> variants = {kConvStride1, kConvStride2, kConvStride2Xla, kConvStride4, kDepthwise, kDepthwiseStride2, kDepthwiseStride2Xla};
  std::uint32_t seed = 100;
  for (const ConvVariant& v : variants) {
    const ConvGeometry g{v, v.depthwise ? 4 : 3, 4, 3, 5, 3, 3};
    const V K = random_values(static_cast<std::size_t>(g.kernel_size()), seed++);
    const V bias = random_values(static_cast<std::size_t>(g.out_c), seed++);
    const V X = random_values(static_cast<std::size_t>(g.in_size()), seed++);
    const V Dy = random_values(static_cast<std::size_t>(g.out_size()), seed++);
    V y(static_cast<std::size_t>(g.out_size()));
    for (std::int64_t o = 0; o < g.out_c; ++o)
      for (std::int64_t p = 0; p < g.h * g.w; ++p) y[o * g.h * g.w + p] = bias[o];
    V dx(static_cast<std::size_t>(g.in_size()), 0.0f), G = random_values(K.size(), seed++);
    const V G0 = G;
    taps_as_written(g, [&](std::int64_t out, std::int64_t in, std::int64_t k) {
      y[out] = y[out] + K[k] * X[in];
      dx[in] = dx[in] + K[k] * Dy[out];
      G[k] = G[k] + X[in] * Dy[out];
    });
    CHECK(same_bits(conv_forward(f32, g, K, bias, X, 0), y));
    CHECK(same_bits(conv_input_vjp(f32, g, K, Dy, 0), dx));
    V Gkernel = G0;
    conv_weight_vjp_add(f32, g, X, 0, Dy, 0, Gkernel);
    CHECK(same_bits(Gkernel, G));
  }
  // Control: the forward sums in another order (taps visited kw, kh reversed) give other floats.
  const ConvGeometry g{kConvStride1, 3, 4, 3, 5, 3, 3};
  const V K = random_values(static_cast<std::size_t>(g.kernel_size()), 7), X = random_values(static_cast<std::size_t>(g.in_size()), 8);
  const V zero_bias(static_cast<std::size_t>(g.out_c), 0.0f);
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> terms(static_cast<std::size_t>(g.out_size()));
  taps_as_written(g, [&](std::int64_t out, std::int64_t in, std::int64_t k) { terms[out].push_back({in, k}); });
  V reversed(static_cast<std::size_t>(g.out_size()), 0.0f);
  for (std::size_t out = 0; out < terms.size(); ++out)
    for (auto t = terms[out].rbegin(); t != terms[out].rend(); ++t) reversed[out] = reversed[out] + K[t->second] * X[t->first];
  CHECK_FALSE(same_bits(conv_forward(f32, g, K, zero_bias, X, 0), reversed));
}
