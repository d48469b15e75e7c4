// The shared formulas of SHLO_SEMANTICS.md 1.6 (convolutions, pooling, batch normalisation),
// generic over the domain, and Lean's total division and square root.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "interp/den.hpp"
#include "interp/ops/common.hpp"

namespace shlo::den_detail {

template <class D>
using Vec = std::vector<typename D::Scalar>;

/// Where den is being evaluated, for events.
struct Site {
  std::string node, constructor;
  std::vector<DenEvent>* events;
};

template <class D>
typename D::Scalar zero(const D& d) { return d.from_rational(0); }

/// Lean's x / y: 0 when y = 0 (recorded).
template <class D>
typename D::Scalar div0(const D& d, const typename D::Scalar& x, const typename D::Scalar& y, const Site& s, std::int64_t i) {
  if (decide(d, CompareDirection::EQ, y, zero(d))) {
    s.events->push_back({s.node, s.constructor, i, "div-by-zero"});
    return zero(d);
  }
  return d.div(x, y);
}

/// Lean's sqrt: 0 for a negative argument (recorded).
template <class D>
typename D::Scalar sqrt0(const D& d, const typename D::Scalar& x, const Site& s, std::int64_t i) {
  if (decide(d, CompareDirection::LT, x, zero(d))) {
    s.events->push_back({s.node, s.constructor, i, "sqrt-of-negative"});
    return zero(d);
  }
  return d.sqrt(x);
}

/// Convolution shapes, with the natural-arithmetic pads pH = (kH-1)/2, pW = (kW-1)/2.
struct ConvShape {
  std::int64_t ic, oc, h, w, kH, kW, pH, pW;
  ConvShape(std::int64_t ic_, std::int64_t oc_, std::int64_t h_, std::int64_t w_, std::int64_t kH_, std::int64_t kW_)
      : ic(ic_), oc(oc_), h(h_), w(w_), kH(kH_), kW(kW_), pH(kH_ > 0 ? (kH_ - 1) / 2 : 0), pW(kW_ > 0 ? (kW_ - 1) / 2 : 0) {}
};

/// conv(W,b,X)[o,i,j] = b[o] + sum_c sum_kh sum_kw W[o,c,kh,kw] * X~[c, i+kh-pH, j+kw-pW].
/// Each output's sum runs over (c, kh, kw) in that order, the padded taps skipped; the loops
/// keep one output channel's accumulators and put (i, j) innermost, so that X is read row by
/// row (with (c, kh, kw) innermost every term read X a whole map away from the last: on a
/// 56 x 56 map that was most of an f64 agree's time). Same terms, same order, same values.
template <class D>
Vec<D> conv(const D& d, const Vec<D>& W, const Vec<D>& b, const Vec<D>& X, std::int64_t xbase, const ConvShape& k) {
  Vec<D> y;
  y.reserve(static_cast<std::size_t>(k.oc * k.h * k.w));
  for (std::int64_t o = 0; o < k.oc; ++o) {
    const std::size_t base = y.size();
    y.insert(y.end(), static_cast<std::size_t>(k.h * k.w), b[static_cast<std::size_t>(o)]);
    for (std::int64_t c = 0; c < k.ic; ++c)
      for (std::int64_t kh = 0; kh < k.kH; ++kh)
        for (std::int64_t kw = 0; kw < k.kW; ++kw) {
          const auto& weight = W[static_cast<std::size_t>(((o * k.ic + c) * k.kH + kh) * k.kW + kw)];
          // The output rows and columns whose tap (kh, kw) lands inside the map.
          const std::int64_t i0 = std::max<std::int64_t>(0, k.pH - kh), i1 = std::min<std::int64_t>(k.h, k.h + k.pH - kh);
          const std::int64_t j0 = std::max<std::int64_t>(0, k.pW - kw), j1 = std::min<std::int64_t>(k.w, k.w + k.pW - kw);
          for (std::int64_t i = i0; i < i1; ++i) {
            const std::int64_t xrow = xbase + (c * k.h + i + kh - k.pH) * k.w + kw - k.pW;
            for (std::int64_t j = j0; j < j1; ++j) {
              auto& acc = y[base + static_cast<std::size_t>(i * k.w + j)];
              acc = d.add(acc, d.mul(weight, X[static_cast<std::size_t>(xrow + j)]));
            }
          }
        }
  }
  return y;
}

/// convIn(W,D)[c,r,s] = sum_o sum_i sum_j [0 <= r+pH-i < kH][0 <= s+pW-j < kW] W[o,c,r+pH-i,s+pW-j] D[o,i,j].
/// Each input cell's sum runs over o, then i, then j, increasing, only the (i, j) with a kernel
/// tap at (r+pH-i, s+pW-j) (kH x kW of them, not all h x w). The loops take one output channel
/// o at a time, so that D is read from one map, not from oc maps a map apart per term.
template <class D>
Vec<D> conv_in(const D& d, const Vec<D>& W, const Vec<D>& Dy, std::int64_t dbase, const ConvShape& k) {
  Vec<D> y(static_cast<std::size_t>(k.ic * k.h * k.w), zero(d));
  for (std::int64_t o = 0; o < k.oc; ++o)
    for (std::int64_t c = 0; c < k.ic; ++c)
      for (std::int64_t r = 0; r < k.h; ++r)
        for (std::int64_t s = 0; s < k.w; ++s) {
          auto& acc = y[static_cast<std::size_t>((c * k.h + r) * k.w + s)];
          const std::int64_t i0 = std::max<std::int64_t>(0, r + k.pH - k.kH + 1), i1 = std::min<std::int64_t>(k.h, r + k.pH + 1);
          const std::int64_t j0 = std::max<std::int64_t>(0, s + k.pW - k.kW + 1), j1 = std::min<std::int64_t>(k.w, s + k.pW + 1);
          for (std::int64_t i = i0; i < i1; ++i)
            for (std::int64_t j = j0; j < j1; ++j) {
              const std::int64_t kh = r + k.pH - i, kw = s + k.pW - j;
              acc = d.add(acc, d.mul(W[static_cast<std::size_t>(((o * k.ic + c) * k.kH + kh) * k.kW + kw)],
                                     Dy[static_cast<std::size_t>(dbase + (o * k.h + i) * k.w + j)]));
            }
        }
  return y;
}

/// convW(X,D)[o,c,kh,kw] = sum_i sum_j X~[c, i+kh-pH, j+kw-pW] D[o,i,j], added into `y`
/// (i, then j, increasing; the padded taps skipped).
template <class D>
void conv_w_add(const D& d, const Vec<D>& X, std::int64_t xbase, const Vec<D>& Dy, std::int64_t dbase, const ConvShape& k, Vec<D>& y) {
  for (std::int64_t o = 0; o < k.oc; ++o)
    for (std::int64_t c = 0; c < k.ic; ++c)
      for (std::int64_t kh = 0; kh < k.kH; ++kh)
        for (std::int64_t kw = 0; kw < k.kW; ++kw) {
          auto& acc = y[static_cast<std::size_t>(((o * k.ic + c) * k.kH + kh) * k.kW + kw)];
          const std::int64_t i0 = std::max<std::int64_t>(0, k.pH - kh), i1 = std::min<std::int64_t>(k.h, k.h + k.pH - kh);
          const std::int64_t j0 = std::max<std::int64_t>(0, k.pW - kw), j1 = std::min<std::int64_t>(k.w, k.w + k.pW - kw);
          for (std::int64_t i = i0; i < i1; ++i) {
            const std::int64_t xrow = xbase + (c * k.h + i + kh - k.pH) * k.w + kw - k.pW, drow = dbase + (o * k.h + i) * k.w;
            for (std::int64_t j = j0; j < j1; ++j)
              acc = d.add(acc, d.mul(X[static_cast<std::size_t>(xrow + j)], Dy[static_cast<std::size_t>(drow + j)]));
          }
        }
}

/// convB(D)[o] = sum_i sum_j D[o,i,j], added into `y`.
template <class D>
void conv_b_add(const D& d, const Vec<D>& Dy, std::int64_t dbase, std::int64_t oc, std::int64_t hw, Vec<D>& y) {
  for (std::int64_t o = 0; o < oc; ++o)
    for (std::int64_t p = 0; p < hw; ++p)
      y[static_cast<std::size_t>(o)] = d.add(y[static_cast<std::size_t>(o)], Dy[static_cast<std::size_t>(dbase + o * hw + p)]);
}

/// pool(X)[c,i,j] = max(max(X[c,2i,2j], X[c,2i+1,2j]), max(X[c,2i,2j+1], X[c,2i+1,2j+1])).
template <class D>
Vec<D> pool(const D& d, const Vec<D>& X, std::int64_t base, std::int64_t c, std::int64_t h, std::int64_t w) {
  Vec<D> y;
  auto x = [&](std::int64_t ch, std::int64_t r, std::int64_t s) -> const auto& {
    return X[static_cast<std::size_t>(base + (ch * 2 * h + r) * 2 * w + s)];
  };
  for (std::int64_t ch = 0; ch < c; ++ch)
    for (std::int64_t i = 0; i < h; ++i)
      for (std::int64_t j = 0; j < w; ++j)
        y.push_back(d.max(d.max(x(ch, 2 * i, 2 * j), x(ch, 2 * i + 1, 2 * j)), d.max(x(ch, 2 * i, 2 * j + 1), x(ch, 2 * i + 1, 2 * j + 1))));
  return y;
}

/// poolBack(X,D)[c,r,s] = D[c, r/2, s/2] if X[c,r,s] is a maximum of its window (every tied
/// maximum receives D), else 0. X is a field (data), so the comparisons are decided exactly
/// on its rationals, never on an enclosure. A window whose maximum is attained more than once
/// records a "max-pool-tie" event at its cotangent index (dbase + window): there the text's
/// select_and_scatter sends D to one maximiser only, so den and text need not agree.
template <class D>
Vec<D> pool_back(const D& d, const std::vector<Rational>& X, std::int64_t xbase, const Vec<D>& Dy, std::int64_t dbase, std::int64_t c,
                 std::int64_t h, std::int64_t w, const Site& site) {
  auto x = [&](std::int64_t ch, std::int64_t r, std::int64_t s) -> const Rational& {
    return X[static_cast<std::size_t>(xbase + (ch * 2 * h + r) * 2 * w + s)];
  };
  auto is_window_max = [&](std::int64_t ch, std::int64_t r, std::int64_t s) {
    bool is_max = true;
    for (std::int64_t a = 0; a < 2; ++a)
      for (std::int64_t b = 0; b < 2; ++b) is_max = is_max && x(ch, r, s) >= x(ch, 2 * (r / 2) + a, 2 * (s / 2) + b);
    return is_max;
  };
  for (std::int64_t ch = 0; ch < c; ++ch)
    for (std::int64_t i = 0; i < h; ++i)
      for (std::int64_t j = 0; j < w; ++j) {
        int maxima = 0;
        for (std::int64_t a = 0; a < 2; ++a)
          for (std::int64_t b = 0; b < 2; ++b) maxima += is_window_max(ch, 2 * i + a, 2 * j + b) ? 1 : 0;
        if (maxima > 1) site.events->push_back({site.node, site.constructor, dbase + (ch * h + i) * w + j, "max-pool-tie"});
      }
  Vec<D> y;
  for (std::int64_t ch = 0; ch < c; ++ch)
    for (std::int64_t r = 0; r < 2 * h; ++r)
      for (std::int64_t s = 0; s < 2 * w; ++s)
        y.push_back(is_window_max(ch, r, s) ? Dy[static_cast<std::size_t>(dbase + (ch * h + r / 2) * w + s / 2)] : zero(d));
  return y;
}

/// Mean, variance (population, two-pass), the inverse standard deviation and x^ of the
/// vector x[idx(0)], ..., x[idx(m-1)].
template <class D>
struct BnStats {
  typename D::Scalar s;  // 1/sqrt(var + eps)
  Vec<D> xhat;
};

template <class D>
BnStats<D> bn_stats(const D& d, std::int64_t m, const std::function<const typename D::Scalar&(std::int64_t)>& x,
                    const typename D::Scalar& eps, const Site& site) {
  const auto M = d.from_rational(Rational(m));
  auto sum = zero(d);
  for (std::int64_t i = 0; i < m; ++i) sum = d.add(sum, x(i));
  const auto mu = div0(d, sum, M, site, 0);
  auto sq = zero(d);
  for (std::int64_t i = 0; i < m; ++i) {
    const auto t = d.sub(x(i), mu);
    sq = d.add(sq, d.mul(t, t));
  }
  const auto var = div0(d, sq, M, site, 0);
  const auto s = div0(d, d.from_rational(1), sqrt0(d, d.add(var, eps), site, 0), site, 0);
  BnStats<D> out{s, {}};
  for (std::int64_t i = 0; i < m; ++i) out.xhat.push_back(d.mul(d.sub(x(i), mu), s));
  return out;
}

/// bnIn_m(eps, gamma, x, dy)_i = (1/m) s (m gamma dy_i - sum_j gamma dy_j - x^_i sum_j x^_j gamma dy_j).
template <class D>
Vec<D> bn_in(const D& d, const BnStats<D>& st, const Vec<D>& g /* gamma*dy */, const Site& site) {
  const std::int64_t m = static_cast<std::int64_t>(g.size());
  const auto M = d.from_rational(Rational(m));
  auto sg = zero(d), sxg = zero(d);
  for (std::int64_t j = 0; j < m; ++j) {
    sg = d.add(sg, g[static_cast<std::size_t>(j)]);
    sxg = d.add(sxg, d.mul(st.xhat[static_cast<std::size_t>(j)], g[static_cast<std::size_t>(j)]));
  }
  const auto scale = div0(d, st.s, M, site, 0);
  Vec<D> y;
  for (std::int64_t i = 0; i < m; ++i)
    y.push_back(d.mul(scale, d.sub(d.sub(d.mul(M, g[static_cast<std::size_t>(i)]), sg), d.mul(st.xhat[static_cast<std::size_t>(i)], sxg))));
  return y;
}

}  // namespace shlo::den_detail
