// den of the ViT family (rows: ast/ctors/vit.def), the formulas of
// docs/lean/transformer-families.md section 1. Every shared piece is one generic kernel used by
// the per-example row and its batched peers alike: a row without the nat N describes one
// example, a batched row N examples laid end to end (examples()).
#pragma once

#include "interp/den_node.hpp"

namespace shlo::den_detail {

inline std::size_t vit_at(std::int64_t i) { return static_cast<std::size_t>(i); }

// ---- row-wise dense over tokens: every row r of every example through the same layer ----

/// Forward: y[r,j] = sum_i u[r,i] W[i,j] + b[j]; input VJP: y[r,i] = sum_j W[i,j] u[r,j].
template <class D>
Vec<D> rows_dense(const Node<D>& nd, bool input_vjp) {
  const auto W = nd.real("W");
  const std::int64_t a = nd.n("a"), c = nd.n("c");
  const std::int64_t rows = examples(nd) * nd.n("tk");
  const Vec<D> b = input_vjp ? Vec<D>{} : nd.real("b");
  Vec<D> y;
  for (std::int64_t r = 0; r < rows; ++r) {
    Vec<D> part = input_vjp ? nd.dot_out(W, nd.u(), r * c, a, c) : nd.dot_in(W, nd.u(), r * a, a, c);
    for (std::size_t j = 0; j < b.size(); ++j) part[j] = nd.d.add(part[j], b[j]);
    y.insert(y.end(), part.begin(), part.end());
  }
  return y;
}
template <class D>
Vec<D> den(Of<Ctor::denseRowF>, const Node<D>& nd) { return rows_dense(nd, false); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_denseRow>, const Node<D>& nd) { return rows_dense(nd, false); }
template <class D>
Vec<D> den(Of<Ctor::denseRowBack>, const Node<D>& nd) { return rows_dense(nd, true); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_denseRowBack>, const Node<D>& nd) { return rows_dense(nd, true); }

/// Weight gradient: G[i,j] = sum over every row t (of every example) of x[t,i] u[t,j].
template <class D>
Vec<D> rows_dense_weight_grad(const Node<D>& nd) {
  const auto x = nd.real("x");
  const std::int64_t a = nd.n("a"), c = nd.n("c"), rows = examples(nd) * nd.n("tk");
  Vec<D> g(vit_at(a * c), nd.num(0));
  for (std::int64_t t = 0; t < rows; ++t)
    for (std::int64_t i = 0; i < a; ++i)
      for (std::int64_t j = 0; j < c; ++j) g[vit_at(i * c + j)] = nd.d.add(g[vit_at(i * c + j)], nd.d.mul(x[vit_at(t * a + i)], nd.u()[vit_at(t * c + j)]));
  return g;
}
/// Bias gradient: G[j] = sum over every row t of u[t,j] (a real row sum, unlike biasGrad).
template <class D>
Vec<D> rows_sum(const Node<D>& nd, const Vec<D>& u, std::int64_t rows, std::int64_t width) {
  Vec<D> g(vit_at(width), nd.num(0));
  for (std::int64_t t = 0; t < rows; ++t)
    for (std::int64_t j = 0; j < width; ++j) g[vit_at(j)] = nd.d.add(g[vit_at(j)], u[vit_at(t * width + j)]);
  return g;
}
template <class D>
Vec<D> den(Of<Ctor::rowDenseWeightGrad>, const Node<D>& nd) { return rows_dense_weight_grad(nd); }
template <class D>
Vec<D> den(Of<Ctor::rowDenseWeightGradB>, const Node<D>& nd) { return rows_dense_weight_grad(nd); }
template <class D>
Vec<D> den(Of<Ctor::rowDenseWeightSgd>, const Node<D>& nd) { return sgd_step(nd, "W", rows_dense_weight_grad(nd)); }
template <class D>
Vec<D> den(Of<Ctor::rowDenseBiasGrad>, const Node<D>& nd) { return rows_sum(nd, nd.u(), nd.n("tk"), nd.n("c")); }
template <class D>
Vec<D> den(Of<Ctor::rowDenseBiasGradB>, const Node<D>& nd) { return rows_sum(nd, nd.u(), nd.n("N") * nd.n("tk"), nd.n("c")); }
template <class D>
Vec<D> den(Of<Ctor::rowDenseBiasSgd>, const Node<D>& nd) { return sgd_step(nd, "b", rows_sum(nd, nd.u(), nd.n("tk"), nd.n("c"))); }

// ---- row softmax and its VJP ----

/// sm(v[base .. base+n))_j = exp(v_j) / sum_k exp(v_k), no max shift (as the text).
template <class D>
Vec<D> softmax_row(const Node<D>& nd, const Vec<D>& v, std::int64_t base, std::int64_t n) {
  Vec<D> e;
  auto sum = nd.num(0);
  for (std::int64_t j = 0; j < n; ++j) {
    e.push_back(nd.d.exp(v[vit_at(base + j)]));
    sum = nd.d.add(sum, e.back());
  }
  for (std::int64_t j = 0; j < n; ++j) e[vit_at(j)] = div0(nd.d, e[vit_at(j)], sum, nd.s, base + j);
  return e;
}
/// Forward: every row through sm. VJP (x the saved scores, p = sm(x[i,.])):
/// y[i,j] = p_j (u[i,j] - sum_k p_k u[i,k]).
template <class D>
Vec<D> rows_softmax(const Node<D>& nd, bool vjp) {
  const std::int64_t n = nd.n("n"), rows = examples(nd) * nd.n("m");
  const Vec<D> x = vjp ? nd.real("x") : Vec<D>{};
  Vec<D> y;
  for (std::int64_t r = 0; r < rows; ++r) {
    const Vec<D> p = softmax_row(nd, vjp ? x : nd.u(), r * n, n);
    if (!vjp) {
      y.insert(y.end(), p.begin(), p.end());
      continue;
    }
    auto dot = nd.num(0);
    for (std::int64_t k = 0; k < n; ++k) dot = nd.d.add(dot, nd.d.mul(p[vit_at(k)], nd.u()[vit_at(r * n + k)]));
    for (std::int64_t j = 0; j < n; ++j) y.push_back(nd.d.mul(p[vit_at(j)], nd.d.sub(nd.u()[vit_at(r * n + j)], dot)));
  }
  return y;
}
template <class D>
Vec<D> den(Of<Ctor::softmaxRowF>, const Node<D>& nd) { return rows_softmax(nd, false); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_softmaxRow>, const Node<D>& nd) { return rows_softmax(nd, false); }
template <class D>
Vec<D> den(Of<Ctor::softmaxRowBack>, const Node<D>& nd) { return rows_softmax(nd, true); }
template <class D>
Vec<D> den(Of<Ctor::softmaxRowBackB>, const Node<D>& nd) { return rows_softmax(nd, true); }

// ---- row layer norm (the per-example BN of SHLO_SEMANTICS.md 1.6 on each row) and its VJP ----

/// The statistics of row r (width n) of `src`: x^ and 1/sqrt(var + eps).
template <class D>
BnStats<D> row_stats(const Node<D>& nd, const Vec<D>& src, std::int64_t r, std::int64_t n) {
  using S = typename D::Scalar;
  return bn_stats<D>(nd.d, n, [&](std::int64_t i) -> const S& { return src[vit_at(r * n + i)]; }, nd.scalar("eps"), nd.s);
}
/// Forward: y[i,.] = gamma x^_i + beta; VJP (x saved): y[i,.] = bnIn_n(eps, gamma, x[i,.], u[i,.]).
template <class D>
Vec<D> rows_layer_norm(const Node<D>& nd, bool vjp) {
  const std::int64_t n = nd.n("n"), rows = examples(nd) * nd.n("m");
  const auto gamma = nd.scalar("gamma");
  const Vec<D> x = vjp ? nd.real("x") : Vec<D>{};
  Vec<D> y;
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto st = row_stats(nd, vjp ? x : nd.u(), r, n);
    if (!vjp) {
      const auto beta = nd.scalar("beta");
      for (const auto& xh : st.xhat) y.push_back(nd.d.add(nd.d.mul(gamma, xh), beta));
      continue;
    }
    const Vec<D> dx = bn_in(nd.d, st, nd.map(n, [&](std::size_t j) { return nd.d.mul(gamma, nd.u()[vit_at(r * n) + j]); }), nd.s);
    y.insert(y.end(), dx.begin(), dx.end());
  }
  return y;
}
template <class D>
Vec<D> den(Of<Ctor::lnRowF>, const Node<D>& nd) { return rows_layer_norm(nd, false); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_lnRow>, const Node<D>& nd) { return rows_layer_norm(nd, false); }
template <class D>
Vec<D> den(Of<Ctor::lnRowBack>, const Node<D>& nd) { return rows_layer_norm(nd, true); }
template <class D>
Vec<D> den(Of<Ctor::lnRowBackB>, const Node<D>& nd) { return rows_layer_norm(nd, true); }

/// The per-feature gamma gradient of the vector LN: G[k] = sum over every row r of u[r,k] x^_r[k]
/// (x the saved LN input, rows of width `width`); with width = n and one row, the scalar form.
template <class D>
Vec<D> layer_norm_gamma_grad(const Node<D>& nd, std::int64_t rows, std::int64_t width) {
  const auto x = nd.real("x");
  Vec<D> g(vit_at(width), nd.num(0));
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto st = row_stats(nd, x, r, width);
    for (std::int64_t k = 0; k < width; ++k) g[vit_at(k)] = nd.d.add(g[vit_at(k)], nd.d.mul(nd.u()[vit_at(r * width + k)], st.xhat[vit_at(k)]));
  }
  return g;
}
template <class D>
Vec<D> sum_all(const Node<D>& nd, const Vec<D>& v) {
  auto acc = nd.num(0);
  for (const auto& t : v) acc = nd.d.add(acc, t);
  return {acc};
}
template <class D>
Vec<D> den(Of<Ctor::veclnGammaGrad>, const Node<D>& nd) { return layer_norm_gamma_grad(nd, nd.n("tk"), nd.n("D")); }
template <class D>
Vec<D> den(Of<Ctor::veclnGammaGradB>, const Node<D>& nd) { return layer_norm_gamma_grad(nd, nd.n("N") * nd.n("tk"), nd.n("D")); }
template <class D>
Vec<D> den(Of<Ctor::veclnGammaSgd>, const Node<D>& nd) { return sgd_step(nd, "gamma", layer_norm_gamma_grad(nd, nd.n("tk"), nd.n("D"))); }
template <class D>
Vec<D> den(Of<Ctor::lnGammaGrad>, const Node<D>& nd) { return sum_all(nd, layer_norm_gamma_grad(nd, 1, nd.n("n"))); }
template <class D>
Vec<D> den(Of<Ctor::lnGammaSgd>, const Node<D>& nd) { return sgd_step(nd, "gamma", sum_all(nd, layer_norm_gamma_grad(nd, 1, nd.n("n")))); }
template <class D>
Vec<D> den(Of<Ctor::lnBetaGrad>, const Node<D>& nd) { return sum_all(nd, nd.u()); }
template <class D>
Vec<D> den(Of<Ctor::lnBetaSgd>, const Node<D>& nd) { return sgd_step(nd, "beta", sum_all(nd, nd.u())); }

// ---- matmul, transpose, heads, class token: data movement and products per example ----

/// y_e[i,j] = sum_l a_e[i,l] b_e[l,j] for each example e (a is m x k, b is k x n).
template <class D>
Vec<D> matmul_each(const Node<D>& nd) {
  const std::int64_t m = nd.n("m"), k = nd.n("k"), n = nd.n("n");
  Vec<D> y;
  for (std::int64_t e = 0; e < examples(nd); ++e)
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        auto acc = nd.num(0);
        for (std::int64_t l = 0; l < k; ++l) acc = nd.d.add(acc, nd.d.mul(nd.k[0][vit_at(e * m * k + i * k + l)], nd.k[1][vit_at(e * k * n + l * n + j)]));
        y.push_back(acc);
      }
  return y;
}
template <class D>
Vec<D> den(Of<Ctor::matmulF>, const Node<D>& nd) { return matmul_each(nd); }
template <class D>
Vec<D> den(Of<Ctor::matmulFB>, const Node<D>& nd) { return matmul_each(nd); }

/// Each example's m x n matrix transposed: y[j,i] = u[i,j].
template <class D>
Vec<D> transpose_each(const Node<D>& nd) {
  const std::int64_t m = nd.n("m"), n = nd.n("n");
  Vec<D> y;
  for (std::int64_t e = 0; e < examples(nd); ++e)
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < m; ++i) y.push_back(nd.u()[vit_at(e * m * n + i * n + j)]);
  return y;
}
template <class D>
Vec<D> den(Of<Ctor::transposeF>, const Node<D>& nd) { return transpose_each(nd); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_transpose>, const Node<D>& nd) { return transpose_each(nd); }

/// Head h's column block of every row: slice y[r,j] = u[r, h d + j]; pad (its VJP) y[r,k] =
/// u[r, k - h d] where k div d = h, else 0.
template <class D>
Vec<D> heads_each(const Node<D>& nd, bool pad) {
  const std::int64_t heads = nd.n("heads"), d = nd.n("d"), h = nd.n("head"), rows = examples(nd) * nd.n("tk");
  if (h >= heads) throw ExprError(std::string(nd.e.spec->name) + ": head = " + std::to_string(h) + " is not below heads = " + std::to_string(heads));
  Vec<D> y;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t k = 0; k < (pad ? heads * d : d); ++k) {
      if (!pad) y.push_back(nd.u()[vit_at(r * heads * d + h * d + k)]);
      else y.push_back(k / d == h ? nd.u()[vit_at(r * d + k - h * d)] : nd.num(0));
    }
  return y;
}
template <class D>
Vec<D> den(Of<Ctor::headSliceF>, const Node<D>& nd) { return heads_each(nd, false); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_headSlice>, const Node<D>& nd) { return heads_each(nd, false); }
template <class D>
Vec<D> den(Of<Ctor::headPadF>, const Node<D>& nd) { return heads_each(nd, true); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_headPad>, const Node<D>& nd) { return heads_each(nd, true); }

/// The class token: slice keeps row 0 of each example's (tk+1) x D tokens; pad (its VJP)
/// puts u in row 0 and zeros in rows 1..tk.
template <class D>
Vec<D> class_token_each(const Node<D>& nd, bool pad) {
  const std::int64_t tk = nd.n("tk"), D_ = nd.n("D");
  Vec<D> y;
  for (std::int64_t e = 0; e < examples(nd); ++e)
    for (std::int64_t k = 0; k < (pad ? (tk + 1) * D_ : D_); ++k) {
      if (!pad) y.push_back(nd.u()[vit_at(e * (tk + 1) * D_ + k)]);
      else y.push_back(k < D_ ? nd.u()[vit_at(e * D_ + k)] : nd.num(0));
    }
  return y;
}
template <class D>
Vec<D> den(Of<Ctor::clsSliceF>, const Node<D>& nd) { return class_token_each(nd, false); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_clsSlice>, const Node<D>& nd) { return class_token_each(nd, false); }
template <class D>
Vec<D> den(Of<Ctor::clsPadF>, const Node<D>& nd) { return class_token_each(nd, true); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_clsPad>, const Node<D>& nd) { return class_token_each(nd, true); }

// ---- patch embedding, its parameter gradients and the position embedding ----

/// Where patch p < tk sits: (h', w') = (p div W', p mod W'), W' = W div P (Lean: x div 0 = 0,
/// x mod 0 = x), and the image element under kernel tap (c, kh, kw), null outside the image.
struct PatchGrid {
  std::int64_t ic, H, W, P, tk, D;
  // The flat index in one image of tap (kh, kw) of patch p on channel c, or -1 off the image.
  std::int64_t pixel_index(std::int64_t p, std::int64_t c, std::int64_t kh, std::int64_t kw) const {
    const std::int64_t Wp = P == 0 ? 0 : W / P;
    const std::int64_t hq = Wp == 0 ? 0 : p / Wp, wq = Wp == 0 ? p : p % Wp;
    const std::int64_t r = hq * P + kh, s = wq * P + kw;
    return r >= H || s >= W ? -1 : (c * H + r) * W + s;
  }
  template <class S>
  const S* pixel(const std::vector<S>& img, std::int64_t base, std::int64_t p, std::int64_t c, std::int64_t kh, std::int64_t kw) const {
    const std::int64_t at = pixel_index(p, c, kh, kw);
    return at < 0 ? nullptr : &img[static_cast<std::size_t>(base + at)];
  }
  std::int64_t tap(std::int64_t d, std::int64_t c, std::int64_t kh, std::int64_t kw) const { return ((d * ic + c) * P + kh) * P + kw; }
};
template <class D>
PatchGrid patch_grid(const Node<D>& nd) {
  return {nd.n("ic"), nd.n("H"), nd.n("W"), nd.n("P"), nd.n("tk"), nd.n("D")};
}

/// y[0,d] = pos[0,d] + cls[d]; y[p+1,d] = store(sum_{c,kh,kw} W[d,c,kh,kw] img~[c, h'P+kh, w'P+kw]) + b[d] + pos[p+1,d],
/// in the text's order, with the kernel W and the image img given: the f32 rows pass their fields
/// and the identity store, the bf16 peer (interp/den/low_precision.hpp) both rounded and a
/// rounding store.
template <class D, class Store>
Vec<D> patch_embed_each(const Node<D>& nd, const Vec<D>& W, const Vec<D>& img, Store store) {
  const PatchGrid g = patch_grid(nd);
  const auto b = nd.real("b"), cls = nd.real("cls"), pos = nd.real("pos");
  Vec<D> y;
  for (std::int64_t e = 0; e < examples(nd); ++e)
    for (std::int64_t row = 0; row <= g.tk; ++row)
      for (std::int64_t d = 0; d < g.D; ++d) {
        if (row == 0) {
          y.push_back(nd.d.add(cls[vit_at(d)], pos[vit_at(d)]));
          continue;
        }
        auto acc = nd.num(0);
        for (std::int64_t c = 0; c < g.ic; ++c)
          for (std::int64_t kh = 0; kh < g.P; ++kh)
            for (std::int64_t kw = 0; kw < g.P; ++kw)
              if (const auto* x = g.pixel(img, e * g.ic * g.H * g.W, row - 1, c, kh, kw))
                acc = nd.d.add(acc, nd.d.mul(W[vit_at(g.tap(d, c, kh, kw))], *x));
        y.push_back(nd.d.add(nd.d.add(store(acc), b[vit_at(d)]), pos[vit_at(row * g.D + d)]));
      }
  return y;
}
template <class D>
Vec<D> patch_embed_each(const Node<D>& nd) {
  return patch_embed_each(nd, nd.real("W"), nd.u(), [](const auto& sum) { return sum; });
}
template <class D>
Vec<D> den(Of<Ctor::patchEmbedF>, const Node<D>& nd) { return patch_embed_each(nd); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_patchEmbed>, const Node<D>& nd) { return patch_embed_each(nd); }

/// The input VJP of patchEmbedF: y[c,hh,ww] = sum_{p<tk} sum_{kh,kw} [tap (kh, kw) of patch p is
/// (hh, ww)] sum_d W[d,c,kh,kw] u[p+1,d]. The class row and the position embedding reach no
/// pixel, so u's row 0 is not read; pixels no patch covers get 0.
template <class D>
Vec<D> den(Of<Ctor::patchEmbedBack>, const Node<D>& nd) {
  const PatchGrid g = patch_grid(nd);
  const auto W = nd.real("W");
  Vec<D> y(vit_at(g.ic * g.H * g.W), nd.num(0));
  for (std::int64_t p = 0; p < g.tk; ++p)
    for (std::int64_t c = 0; c < g.ic; ++c)
      for (std::int64_t kh = 0; kh < g.P; ++kh)
        for (std::int64_t kw = 0; kw < g.P; ++kw) {
          const std::int64_t at = g.pixel_index(p, c, kh, kw);
          if (at < 0) continue;
          auto acc = nd.num(0);
          for (std::int64_t d = 0; d < g.D; ++d) acc = nd.d.add(acc, nd.d.mul(W[vit_at(g.tap(d, c, kh, kw))], nd.u()[vit_at((p + 1) * g.D + d)]));
          y[vit_at(at)] = nd.d.add(y[vit_at(at)], acc);
        }
  return y;
}

/// The kernel's gradient summed over the examples: G[d,c,kh,kw] = sum_e sum_{p<tk}
/// x~_e[c, h'P+kh, w'P+kw] u_e[p+1, d] (the class row 0 excluded), of the image x and cotangent u
/// given (the bf16 peer passes both rounded).
template <class D>
Vec<D> patch_weight_grad(const Node<D>& nd, const Vec<D>& x, const Vec<D>& u) {
  const PatchGrid g = patch_grid(nd);
  Vec<D> G(vit_at(g.D * g.ic * g.P * g.P), nd.num(0));
  for (std::int64_t e = 0; e < examples(nd); ++e)
    for (std::int64_t p = 0; p < g.tk; ++p)
      for (std::int64_t d = 0; d < g.D; ++d)
        for (std::int64_t c = 0; c < g.ic; ++c)
          for (std::int64_t kh = 0; kh < g.P; ++kh)
            for (std::int64_t kw = 0; kw < g.P; ++kw)
              if (const auto* xv = g.pixel(x, e * g.ic * g.H * g.W, p, c, kh, kw)) {
                auto& acc = G[vit_at(g.tap(d, c, kh, kw))];
                acc = nd.d.add(acc, nd.d.mul(*xv, u[vit_at((e * (g.tk + 1) + p + 1) * g.D + d)]));
              }
  return G;
}
template <class D>
Vec<D> patch_weight_grad(const Node<D>& nd) {
  return patch_weight_grad(nd, nd.real("x"), nd.u());
}
template <class D>
Vec<D> den(Of<Ctor::patchEmbedWeightGrad>, const Node<D>& nd) { return patch_weight_grad(nd); }
template <class D>
Vec<D> den(Of<Ctor::patchEmbedWeightGradB>, const Node<D>& nd) { return patch_weight_grad(nd); }
template <class D>
Vec<D> den(Of<Ctor::patchEmbedWeightSgd>, const Node<D>& nd) { return sgd_step(nd, "Wp", patch_weight_grad(nd)); }

/// The patch bias gradient: G[i] = sum_e sum_{p<tk} u_e[p+1, i] (the class row skipped).
template <class D>
Vec<D> patch_bias_grad(const Node<D>& nd) {
  const std::int64_t tk = nd.n("tk"), c = nd.n("c");
  Vec<D> G(vit_at(c), nd.num(0));
  for (std::int64_t e = 0; e < examples(nd); ++e)
    for (std::int64_t p = 1; p <= tk; ++p)
      for (std::int64_t i = 0; i < c; ++i) G[vit_at(i)] = nd.d.add(G[vit_at(i)], nd.u()[vit_at((e * (tk + 1) + p) * c + i)]);
  return G;
}
template <class D>
Vec<D> den(Of<Ctor::patchEmbedBiasGrad>, const Node<D>& nd) { return patch_bias_grad(nd); }
template <class D>
Vec<D> den(Of<Ctor::patchEmbedBiasGradB>, const Node<D>& nd) { return patch_bias_grad(nd); }
template <class D>
Vec<D> den(Of<Ctor::patchEmbedBiasSgd>, const Node<D>& nd) { return sgd_step(nd, "b", patch_bias_grad(nd)); }

/// The position embedding's gradient: the cotangent summed over the examples (one example:
/// the identity, the batch sum living only in the text, as biasGrad).
template <class D>
Vec<D> den(Of<Ctor::posEmbedGrad>, const Node<D>& nd) { return nd.u(); }
template <class D>
Vec<D> den(Of<Ctor::posEmbedGradB>, const Node<D>& nd) { return rows_sum(nd, nd.u(), nd.n("N"), nd.len); }
template <class D>
Vec<D> den(Of<Ctor::posEmbedSgd>, const Node<D>& nd) { return sgd_step(nd, "pos", nd.u()); }

}  // namespace shlo::den_detail
