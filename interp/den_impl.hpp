// The template body of denote(); included once per domain (den_<domain>.cpp). One case per
// constructor in a switch over Ctor without `default:` (a constructor without its case is a
// build error under -Werror=switch), each the formula of SHLO_SEMANTICS.md section 3 (u = den(child), a and b the
// left and right children, g the gradient child of the optimizer nodes).
#pragma once

#include "interp/den_kernels.hpp"

namespace shlo {

namespace den_detail {

template <class D>
class Denoter {
 public:
  using S = typename D::Scalar;
  Denoter(const D& d, std::vector<DenEvent>& events) : d_(d), events_(events) {}

  Vec<D> eval(const Expr& e, const std::string& path) {
    std::vector<Vec<D>> kids;
    for (std::size_t i = 0; i < e.children.size(); ++i) kids.push_back(eval(*e.children[i], path + "/" + std::to_string(i)));
    Site site{path, e.spec->name, &events_};
    return node(e, kids, site);
  }

 private:
  Vec<D> real(const Expr& e, const char* name) {
    Vec<D> v;
    for (const auto& q : e.real(name)) v.push_back(d_.from_rational(q));
    return v;
  }
  S scalar(const Expr& e, const char* name) { return d_.from_rational(e.real(name).at(0)); }
  S num(std::int64_t k) { return d_.from_rational(Rational(k)); }
  template <class F>
  Vec<D> map(std::int64_t n, F f) {
    Vec<D> y;
    y.reserve(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) y.push_back(f(static_cast<std::size_t>(i)));
    return y;
  }
  bool gt0(const S& x) { return decide(d_, CompareDirection::GT, x, num(0)); }
  ConvShape conv_shape(const Expr& e) {
    return {e.nat("ic"), e.nat("oc"), e.nat("h"), e.nat("w"), e.nat("kH"), e.nat("kW")};
  }
  // Adam's m' and v' (section 3.8).
  S m_next(const S& beta1, const S& m, const S& g) { return d_.add(d_.mul(beta1, m), d_.mul(d_.sub(num(1), beta1), g)); }
  S v_next(const S& beta2, const S& v, const S& g) {
    return d_.add(d_.mul(beta2, v), d_.mul(d_.sub(num(1), beta2), d_.mul(g, g)));
  }
  // (m'/bc1) / (sqrt(v'/bc2) + eps), Lean-total.
  S adam_direction(const Expr& e, const S& g, std::size_t i, const Site& s) {
    const S m1 = m_next(scalar(e, "beta1"), d_.from_rational(e.real("m")[i]), g);
    const S v1 = v_next(scalar(e, "beta2"), d_.from_rational(e.real("v")[i]), g);
    const auto idx = static_cast<std::int64_t>(i);
    const S mh = div0(d_, m1, scalar(e, "bc1"), s, idx);
    const S vh = div0(d_, v1, scalar(e, "bc2"), s, idx);
    return div0(d_, mh, d_.add(sqrt0(d_, vh, s, idx), scalar(e, "eps")), s, idx);
  }
  // dotIn: y[j] = sum_i u[base+i] W[i,j] (W is m x n).
  Vec<D> dot_in(const Vec<D>& W, const Vec<D>& u, std::int64_t base, std::int64_t m, std::int64_t n) {
    return map(n, [&](std::size_t j) {
      S acc = num(0);
      for (std::int64_t i = 0; i < m; ++i)
        acc = d_.add(acc, d_.mul(u[static_cast<std::size_t>(base + i)], W[static_cast<std::size_t>(i * n) + j]));
      return acc;
    });
  }
  // dotOut: y[i] = sum_j W[i,j] u[base+j] (W is m x n).
  Vec<D> dot_out(const Vec<D>& W, const Vec<D>& u, std::int64_t base, std::int64_t m, std::int64_t n) {
    return map(m, [&](std::size_t i) {
      S acc = num(0);
      for (std::int64_t j = 0; j < n; ++j)
        acc = d_.add(acc, d_.mul(W[i * static_cast<std::size_t>(n) + static_cast<std::size_t>(j)], u[static_cast<std::size_t>(base + j)]));
      return acc;
    });
  }
  S sum_squares(const Vec<D>& v) {
    S acc = num(0);
    for (const auto& x : v) acc = d_.add(acc, d_.mul(x, x));
    return acc;
  }

  Vec<D> node(const Expr& e, const std::vector<Vec<D>>& k, const Site& s);

  const D& d_;
  std::vector<DenEvent>& events_;
};

template <class D>
Vec<D> Denoter<D>::node(const Expr& e, const std::vector<Vec<D>>& k, const Site& s) {
  const Ctor c = e.spec->id;
  const D& d = d_;
  auto u = [&]() -> const Vec<D>& { return k.at(0); };
  auto n = [&](const char* name) { return e.nat(name); };
  const std::int64_t len = e.length();

  switch (c) {
  case Ctor::operand:
    return real(e, "v");
  // 3.2 dense, elementwise and loss pieces
  case Ctor::dotIn:
    return dot_in(real(e, "W"), u(), 0, n("m"), n("n"));
  case Ctor::dotOut:
    return dot_out(real(e, "W"), u(), 0, n("m"), n("n"));
  case Ctor::addBcast: {
    const auto b = real(e, "b");
    return map(len, [&](std::size_t j) { return d.add(u()[j], b[j]); });
  }
  case Ctor::expe: case Ctor::batchOp_expe:
    return map(len, [&](std::size_t j) { return d.exp(u()[j]); });
  case Ctor::softmaxDiv: case Ctor::batchOp_softmaxDiv: {  // per example: y[j] = u[j] / sum_k u[k]
    const std::int64_t width = n("n");
    const std::int64_t examples = c == Ctor::softmaxDiv ? 1 : n("N");
    Vec<D> y;
    for (std::int64_t ex = 0; ex < examples; ++ex) {
      S sum = num(0);
      for (std::int64_t j = 0; j < width; ++j) sum = d.add(sum, u()[static_cast<std::size_t>(ex * width + j)]);
      for (std::int64_t j = 0; j < width; ++j) y.push_back(div0(d, u()[static_cast<std::size_t>(ex * width + j)], sum, s, ex * width + j));
    }
    return y;
  }
  case Ctor::sub: case Ctor::subB:
    return map(len, [&](std::size_t j) { return d.sub(k[0][j], k[1][j]); });
  case Ctor::scaleF: {
    const S sc = scalar(e, "s");
    return map(len, [&](std::size_t i) { return d.mul(sc, u()[i]); });
  }
  // 3.3 activations and masks
  case Ctor::reluF:
    return map(len, [&](std::size_t i) { return d.max(u()[i], num(0)); });
  case Ctor::batchOp_relu:
    return map(len, [&](std::size_t i) { return gt0(u()[i]) ? u()[i] : num(0); });
  // The masks compare field data (the saved pre-activation): decided on its exact rationals.
  case Ctor::selectPos: case Ctor::selectPosB: {
    const auto& x = e.real("x");
    return map(len, [&](std::size_t i) { return x[i] > 0 ? u()[i] : num(0); });
  }
  case Ctor::relu6F:
    return map(len, [&](std::size_t i) { return d.min(d.max(u()[i], num(0)), num(6)); });
  case Ctor::selectMid: {
    const auto& x = e.real("x");
    return map(len, [&](std::size_t i) { return x[i] > 0 && x[i] < 6 ? u()[i] : num(0); });
  }
  case Ctor::sigmoidF:
    return map(len, [&](std::size_t i) { return d.logistic(u()[i]); });
  case Ctor::geluF: {  // 1/2 u (1 + tanh(sqrt(2/pi) (u + 0.044715 u^3)))
    const S k0 = d.sqrt(d.div(num(2), d.pi()));
    const S k1 = d.from_rational(Rational(44715) / Rational(1000000));
    const S half = d.from_rational(Rational(1, 2));
    return map(len, [&](std::size_t i) {
      const S& x = u()[i];
      const S inner = d.mul(k0, d.add(x, d.mul(k1, d.mul(x, d.mul(x, x)))));
      return d.mul(d.mul(half, x), d.add(num(1), d.tanh(inner)));
    });
  }
  case Ctor::convertF: {  // y[i] = rnd(u[i]); rnd: identity, binary32, bfloat16, rndP:<p>
    const std::string rnd = e.string("rnd");
    if (rnd == "identity") return u();
    RationalMap f;
    if (rnd == "binary32") f = round_binary32;
    else if (rnd == "bfloat16") f = round_bfloat16;
    else if (rnd.rfind("rndP:", 0) == 0) {
      const int p = std::stoi(rnd.substr(5));
      f = [p](const Rational& q) { return round_rndp(q, p); };
    } else {
      throw ExprError("convertF: unknown rounding '" + rnd + "' (identity, binary32, bfloat16, rndP:<p>)");
    }
    return map(len, [&](std::size_t i) { return d.map_monotone(u()[i], f); });
  }
  // 3.4 convolution and pooling
  case Ctor::flatConvF:
    return conv(d, real(e, "W"), real(e, "b"), u(), 0, conv_shape(e));
  case Ctor::convBack:
    return conv_in(d, real(e, "W"), u(), 0, conv_shape(e));
  case Ctor::maxPoolF:
    return pool(d, u(), 0, n("c"), n("h"), n("w"));
  case Ctor::maxPoolBack:
    return pool_back(d, e.real("x"), 0, u(), 0, n("c"), n("h"), n("w"));
  // 3.5 fused SGD and 3.6 parameter gradients
  case Ctor::weightSgd: case Ctor::weightGrad: {  // W[i,j] - lr x[i] u[j]  /  x[i] u[j]
    const auto x = real(e, "x");
    const std::int64_t m = n("m"), nn = n("n");
    Vec<D> y;
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < nn; ++j) y.push_back(d.mul(x[static_cast<std::size_t>(i)], u()[static_cast<std::size_t>(j)]));
    if (c == Ctor::weightGrad) return y;
    const auto W = real(e, "W");
    const S lr = scalar(e, "lr");
    return map(len, [&](std::size_t i) { return d.sub(W[i], d.mul(lr, y[i])); });
  }
  case Ctor::biasSgd: {
    const auto b = real(e, "b");
    const S lr = scalar(e, "lr");
    return map(len, [&](std::size_t j) { return d.sub(b[j], d.mul(lr, u()[j])); });
  }
  case Ctor::biasGrad:
    return u();  // the identity: the batch sum lives only in the text
  case Ctor::convWeightGrad: case Ctor::convWeightSgd: {
    const ConvShape ks = conv_shape(e);
    Vec<D> y(static_cast<std::size_t>(len), num(0));
    conv_w_add(d, real(e, "x"), 0, u(), 0, ks, y);
    if (c == Ctor::convWeightGrad) return y;
    const auto W = real(e, "W");
    const S lr = scalar(e, "lr");
    return map(len, [&](std::size_t i) { return d.sub(W[i], d.mul(lr, y[i])); });
  }
  case Ctor::convBiasGrad: case Ctor::convBiasSgd: {
    Vec<D> y(static_cast<std::size_t>(n("oc")), num(0));
    conv_b_add(d, u(), 0, n("oc"), n("h") * n("w"), y);
    if (c == Ctor::convBiasGrad) return y;
    const auto b = real(e, "b");
    const S lr = scalar(e, "lr");
    return map(len, [&](std::size_t o) { return d.sub(b[o], d.mul(lr, y[o])); });
  }
  // 3.7 batch normalisation
  case Ctor::bnF: case Ctor::bnBack: {
    const auto& src = c == Ctor::bnF ? u() : real(e, "x");
    const auto st = bn_stats<D>(d, len, [&](std::int64_t i) -> const S& { return src[static_cast<std::size_t>(i)]; }, scalar(e, "eps"), s);
    const S gamma = scalar(e, "gamma");
    if (c == Ctor::bnF) {
      const S beta = scalar(e, "beta");
      return map(len, [&](std::size_t i) { return d.add(d.mul(gamma, st.xhat[i]), beta); });
    }
    return bn_in(d, st, map(len, [&](std::size_t i) { return d.mul(gamma, u()[i]); }), s);
  }
  case Ctor::bnBatchF: case Ctor::bnBatchBack: {  // per channel over m = N h w (the transposed layout)
    const std::int64_t N = n("N"), oc = n("oc"), hw = n("h") * n("w"), m = N * hw;
    const auto gamma = real(e, "gamma");
    const auto saved = c == Ctor::bnBatchF ? u() : real(e, "x");
    const auto at = [&](std::int64_t ch, std::int64_t t) { return static_cast<std::size_t>((t / hw * oc + ch) * hw + t % hw); };
    Vec<D> y(static_cast<std::size_t>(len), num(0));
    for (std::int64_t ch = 0; ch < oc; ++ch) {
      const auto st = bn_stats<D>(d, m, [&](std::int64_t t) -> const S& { return saved[at(ch, t)]; }, scalar(e, "eps"), s);
      if (c == Ctor::bnBatchF) {
        const auto beta = real(e, "beta");
        for (std::int64_t t = 0; t < m; ++t)
          y[at(ch, t)] = d.add(d.mul(gamma[static_cast<std::size_t>(ch)], st.xhat[static_cast<std::size_t>(t)]), beta[static_cast<std::size_t>(ch)]);
      } else {
        Vec<D> g;
        for (std::int64_t t = 0; t < m; ++t) g.push_back(d.mul(gamma[static_cast<std::size_t>(ch)], u()[at(ch, t)]));
        const auto dx = bn_in(d, st, g, s);
        for (std::int64_t t = 0; t < m; ++t) y[at(ch, t)] = dx[static_cast<std::size_t>(t)];
      }
    }
    return y;
  }
  // 3.8 optimizer and clipping nodes
  case Ctor::adamMNextF: {
    const S b1 = scalar(e, "beta1");
    const auto m = real(e, "m");
    return map(len, [&](std::size_t i) { return m_next(b1, m[i], u()[i]); });
  }
  case Ctor::adamVNextF: {
    const S b2 = scalar(e, "beta2");
    const auto v = real(e, "v");
    return map(len, [&](std::size_t i) { return v_next(b2, v[i], u()[i]); });
  }
  case Ctor::adamWParamF: {  // theta - lr dir - (wd lr) theta
    const auto theta = real(e, "theta");
    const S lr = scalar(e, "lr"), wd = scalar(e, "wd");
    return map(len, [&](std::size_t i) {
      return d.sub(d.sub(theta[i], d.mul(lr, adam_direction(e, u()[i], i, s))), d.mul(d.mul(wd, lr), theta[i]));
    });
  }
  case Ctor::lambDirF: {  // dir + wd theta
    const auto theta = real(e, "theta");
    const S wd = scalar(e, "wd");
    return map(len, [&](std::size_t i) { return d.add(adam_direction(e, u()[i], i, s), d.mul(wd, theta[i])); });
  }
  case Ctor::sgdParamF: {
    const auto theta = real(e, "theta");
    const S lr = scalar(e, "lr");
    return map(len, [&](std::size_t i) { return d.sub(theta[i], d.mul(lr, u()[i])); });
  }
  case Ctor::momVNextF: case Ctor::momParamF: {  // v' = mu v + g; theta - lr (g + mu v')
    const auto v = real(e, "v");
    const S mu = scalar(e, "mu");
    if (c == Ctor::momVNextF) return map(len, [&](std::size_t i) { return d.add(d.mul(mu, v[i]), u()[i]); });
    const auto theta = real(e, "theta");
    const S lr = scalar(e, "lr");
    return map(len, [&](std::size_t i) {
      const S v1 = d.add(d.mul(mu, v[i]), u()[i]);
      return d.sub(theta[i], d.mul(lr, d.add(u()[i], d.mul(mu, v1))));
    });
  }
  case Ctor::rmsBufNextF: {  // mu buf + g / sqrt(rho sq + (1 - rho) g^2 + eps)
    const auto sq = real(e, "sq"), buf = real(e, "buf");
    const S rho = scalar(e, "rho"), mu = scalar(e, "mu"), eps = scalar(e, "eps");
    return map(len, [&](std::size_t i) {
      const S s1 = v_next(rho, sq[i], u()[i]);
      const auto idx = static_cast<std::int64_t>(i);
      return d.add(d.mul(mu, buf[i]), div0(d, u()[i], sqrt0(d, d.add(s1, eps), s, idx), s, idx));
    });
  }
  case Ctor::gradSumSqAccF:
    return {d.add(k[0].at(0), sum_squares(k[1]))};
  case Ctor::clipScaleF: {  // min(1, c / (sqrt s + eps)) e
    const S fac = d.min(num(1), div0(d, scalar(e, "c"), d.add(sqrt0(d, k[0].at(0), s, 0), scalar(e, "eps")), s, 0));
    return map(len, [&](std::size_t i) { return d.mul(fac, k[1][i]); });
  }
  case Ctor::lambScaleF: {  // trust = sqrt(wn2)/sqrt(rn2) if both > 0, else 1
    const S& wn2 = k[0].at(0);
    const S rn2 = sum_squares(k[1]);
    const S trust = gt0(wn2) && gt0(rn2) ? div0(d, sqrt0(d, wn2, s, 0), sqrt0(d, rn2, s, 0), s, 0) : num(1);
    return map(len, [&](std::size_t i) { return d.mul(trust, k[1][i]); });
  }
  // 3.9 the batched set: y_n = denOp(u_n), parameter gradients summed over n
  case Ctor::batchOp_dense: case Ctor::batchOp_dotOut: {  // the per-example map on each example
    const auto W = real(e, "W");
    const std::int64_t in = c == Ctor::batchOp_dense ? n("a") : n("n");
    Vec<D> y;
    for (std::int64_t ex = 0; ex < n("N"); ++ex) {
      Vec<D> part = c == Ctor::batchOp_dense ? dot_in(W, u(), ex * in, n("a"), n("c")) : dot_out(W, u(), ex * in, n("m"), n("n"));
      if (c == Ctor::batchOp_dense) {
        const auto bias = real(e, "bias");
        for (std::size_t j = 0; j < part.size(); ++j) part[j] = d.add(part[j], bias[j]);
      }
      y.insert(y.end(), part.begin(), part.end());
    }
    return y;
  }
  case Ctor::batchOp_conv: case Ctor::convBackBatched: case Ctor::batchOp_maxPool: case Ctor::maxPoolBackB: {
    const std::int64_t N = n("N"), per_in = eval_length(e.spec->child_lengths[0], e.nats) / std::max<std::int64_t>(N, 1);
    Vec<D> y;
    for (std::int64_t ex = 0; ex < N; ++ex) {
      Vec<D> part;
      if (c == Ctor::batchOp_conv) part = conv(d, real(e, "W"), real(e, "bias"), u(), ex * per_in, conv_shape(e));
      else if (c == Ctor::convBackBatched) part = conv_in(d, real(e, "W"), u(), ex * per_in, conv_shape(e));
      else if (c == Ctor::batchOp_maxPool) part = pool(d, u(), ex * per_in, n("c"), n("h"), n("w"));
      else part = pool_back(d, e.real("x"), ex * 4 * per_in, u(), ex * per_in, n("c"), n("h"), n("w"));
      y.insert(y.end(), part.begin(), part.end());
    }
    return y;
  }
  case Ctor::divConstB: {
    const S sc = scalar(e, "s");
    return map(len, [&](std::size_t i) { return div0(d, u()[i], sc, s, static_cast<std::int64_t>(i)); });
  }
  case Ctor::convWeightGradB: case Ctor::convBiasGradB: {
    const ConvShape ks = conv_shape(e);
    Vec<D> y(static_cast<std::size_t>(len), num(0));
    for (std::int64_t ex = 0; ex < n("N"); ++ex) {
      if (c == Ctor::convWeightGradB) conv_w_add(d, real(e, "x"), ex * ks.ic * ks.h * ks.w, u(), ex * ks.oc * ks.h * ks.w, ks, y);
      else conv_b_add(d, u(), ex * ks.oc * ks.h * ks.w, ks.oc, ks.h * ks.w, y);
    }
    return y;
  }
  case Ctor::denseWeightGradB: {  // y[i c + j] = sum_n x_n[i] u_n[j]
    const auto x = real(e, "x");
    const std::int64_t N = n("N"), a = n("a"), cc = n("c");
    Vec<D> y(static_cast<std::size_t>(len), num(0));
    for (std::int64_t ex = 0; ex < N; ++ex)
      for (std::int64_t i = 0; i < a; ++i)
        for (std::int64_t j = 0; j < cc; ++j) {
          auto& acc = y[static_cast<std::size_t>(i * cc + j)];
          acc = d.add(acc, d.mul(x[static_cast<std::size_t>(ex * a + i)], u()[static_cast<std::size_t>(ex * cc + j)]));
        }
    return y;
  }
  case Ctor::denseBiasGradB: {
    const std::int64_t N = n("N"), cc = n("c");
    Vec<D> y(static_cast<std::size_t>(cc), num(0));
    for (std::int64_t ex = 0; ex < N; ++ex)
      for (std::int64_t j = 0; j < cc; ++j) y[static_cast<std::size_t>(j)] = d.add(y[static_cast<std::size_t>(j)], u()[static_cast<std::size_t>(ex * cc + j)]);
    return y;
  }
  // 3.10 the data-parallel node: (1/R) sum_r den(g_r)
  case Ctor::allReduceMeanF: {
    const S R = num(e.replicas);
    return map(len, [&](std::size_t i) {
      S acc = num(0);
      for (const auto& replica : k) acc = d.add(acc, replica[i]);
      return d.div(acc, R);
    });
  }
  }
  throw ExprError(std::string("den: constructor '") + e.spec->name + "' has no denotation here");
}

}  // namespace den_detail

template <class D>
DenResult<D> denote(const D& d, const Expr& e) {
  if (!e.has_values()) throw ExprError("den: the expression is a skeleton (no real fields); den needs values");
  DenResult<D> out;
  den_detail::Denoter<D> den(d, out.events);
  try {
    out.value = den.eval(e, "root");
  } catch (const DomainError& err) {
    throw DomainError(std::string("den: ") + err.what());
  }
  return out;
}

}  // namespace shlo
