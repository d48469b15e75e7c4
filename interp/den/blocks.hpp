// den of the network blocks (rows: ast/ctors/blocks.def), the formulas of
// docs/lean/conv-families.md 2.4 and conv-families-blocks.md: pointwise maps (their batched
// forms are the same map on all N n entries), per-example spatial sums (gap, the broadcast
// adjoint, the SE gate cotangent), the 3x3/s2 max pool and squeeze-excitation.
#pragma once

#include <optional>

#include "interp/den/activations.hpp"
#include "interp/den/batched.hpp"
#include "interp/den/bn_channel.hpp"
#include "interp/den/core.hpp"
#include "interp/den_node.hpp"

namespace shlo::den_detail {

// --- pointwise -------------------------------------------------------------------------------

/// swish'(t) = sigma(t) (1 + t (1 - sigma(t))), the closed form of Lean's derivative.
template <class D>
typename D::Scalar swish_derivative(const D& d, const typename D::Scalar& t) {
  const auto sg = d.logistic(t);
  const auto one = d.from_rational(Rational(1));
  return d.mul(sg, d.add(one, d.mul(t, d.sub(one, sg))));
}

template <class D>
Vec<D> den(Of<Ctor::addV>, const Node<D>& nd) {
  return nd.map(nd.len, [&](std::size_t i) { return nd.d.add(nd.k.at(0)[i], nd.k.at(1)[i]); });
}
template <class D>
Vec<D> den(Of<Ctor::addVB>, const Node<D>& nd) { return den(Of<Ctor::addV>{}, nd); }

template <class D>
Vec<D> den(Of<Ctor::swishF>, const Node<D>& nd) {
  return nd.map(nd.len, [&](std::size_t i) { return nd.d.mul(nd.u()[i], nd.d.logistic(nd.u()[i])); });
}
template <class D>
Vec<D> den(Of<Ctor::batchOp_swish>, const Node<D>& nd) { return den(Of<Ctor::swishF>{}, nd); }

// The pointwise VJPs at the saved pre-activation x: u * f'(x).
enum class Gate { Swish, Sigmoid };
template <class D>
Vec<D> pointwise_vjp(const Node<D>& nd, Gate gate) {
  const Vec<D> x = nd.real("x");
  const auto one = nd.num(1);
  return nd.map(nd.len, [&](std::size_t i) {
    if (gate == Gate::Swish) return nd.d.mul(nd.u()[i], swish_derivative(nd.d, x[i]));
    const auto sg = nd.d.logistic(x[i]);
    return nd.d.mul(nd.u()[i], nd.d.mul(sg, nd.d.sub(one, sg)));
  });
}
template <class D>
Vec<D> den(Of<Ctor::swishBack>, const Node<D>& nd) { return pointwise_vjp(nd, Gate::Swish); }
template <class D>
Vec<D> den(Of<Ctor::swishBackB>, const Node<D>& nd) { return pointwise_vjp(nd, Gate::Swish); }
template <class D>
Vec<D> den(Of<Ctor::sigmoidBack>, const Node<D>& nd) { return pointwise_vjp(nd, Gate::Sigmoid); }
template <class D>
Vec<D> den(Of<Ctor::sigmoidBackB>, const Node<D>& nd) { return pointwise_vjp(nd, Gate::Sigmoid); }

// The per-example formulas of the core rows, on all N n entries.
template <class D>
Vec<D> den(Of<Ctor::sigmoidB>, const Node<D>& nd) { return den(Of<Ctor::sigmoidF>{}, nd); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_relu6>, const Node<D>& nd) { return den(Of<Ctor::relu6F>{}, nd); }
template <class D>
Vec<D> den(Of<Ctor::selectMidB>, const Node<D>& nd) { return den(Of<Ctor::selectMid>{}, nd); }
template <class D>
Vec<D> den(Of<Ctor::scaleB>, const Node<D>& nd) { return den(Of<Ctor::scaleF>{}, nd); }
template <class D>
Vec<D> den(Of<Ctor::shiftB>, const Node<D>& nd) {
  const auto s = nd.scalar("s");
  return nd.map(nd.len, [&](std::size_t i) { return nd.d.add(nd.u()[i], s); });
}
template <class D>
Vec<D> den(Of<Ctor::batchOp_bnEval>, const Node<D>& nd) { return bn_eval(nd); }

// --- spatial sums and their adjoints -----------------------------------------------------------

/// y[n c + k] = sum_{t < hw} w[n, k, t] u[n, k, t] (w = 1 without weights), for the `examples`
/// examples of a c x hw layout; divided by hw (Lean-total) for the average.
template <class D>
Vec<D> spatial_sum(const Node<D>& nd, std::int64_t examples, const Vec<D>* weights, bool average) {
  const std::int64_t c = nd.n("c"), hw = nd.n("h") * nd.n("w");
  const auto count = nd.num(hw);
  return nd.map(examples * c, [&](std::size_t g) {
    auto acc = nd.num(0);
    for (std::int64_t t = 0; t < hw; ++t) {
      const auto i = g * static_cast<std::size_t>(hw) + static_cast<std::size_t>(t);
      acc = nd.d.add(acc, weights ? nd.d.mul((*weights)[i], nd.u()[i]) : nd.u()[i]);
    }
    return average ? div0(nd.d, acc, count, nd.s, static_cast<std::int64_t>(g)) : acc;
  });
}
template <class D>
Vec<D> den(Of<Ctor::gapF>, const Node<D>& nd) { return spatial_sum(nd, 1, nullptr, true); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_gap>, const Node<D>& nd) { return spatial_sum(nd, nd.n("N"), nullptr, true); }
template <class D>
Vec<D> den(Of<Ctor::broadcastBack>, const Node<D>& nd) { return spatial_sum(nd, 1, nullptr, false); }
template <class D>
Vec<D> den(Of<Ctor::seReduceB>, const Node<D>& nd) {
  const Vec<D> x = nd.real("x");
  return spatial_sum(nd, nd.n("N"), &x, false);
}

/// gapT: y[n, k, t] = u[n c + k] / hw, the VJP of the average.
template <class D>
Vec<D> gap_transpose(const Node<D>& nd) {
  const std::int64_t hw = nd.n("h") * nd.n("w");
  const auto count = nd.num(hw);
  return nd.map(nd.len, [&](std::size_t i) {
    return div0(nd.d, nd.u()[i / static_cast<std::size_t>(hw)], count, nd.s, static_cast<std::int64_t>(i));
  });
}
template <class D>
Vec<D> den(Of<Ctor::gapBack>, const Node<D>& nd) { return gap_transpose(nd); }
template <class D>
Vec<D> den(Of<Ctor::gapBackBatched>, const Node<D>& nd) { return gap_transpose(nd); }

// --- the 3x3/s2 max pool ----------------------------------------------------------------------

/// The cells of output (i, j)'s window: rows 2i-1 .. 2i+1 and columns 2j-1 .. 2j+1 inside the
/// 2h x 2w grid, in row-major scan order (Lean's clamped duplicate at i = 0 or j = 0 names a cell
/// already in the window, so leaving it out changes nothing).
template <class F>
void window3(std::int64_t h, std::int64_t w, std::int64_t i, std::int64_t j, F f) {
  for (std::int64_t r = 2 * i - 1; r <= 2 * i + 1; ++r)
    for (std::int64_t s = 2 * j - 1; s <= 2 * j + 1; ++s)
      if (r >= 0 && r < 2 * h && s >= 0 && s < 2 * w) f(r * 2 * w + s);
}

template <class D>
Vec<D> den(Of<Ctor::maxPool3s2F>, const Node<D>& nd) {
  const std::int64_t c = nd.n("c"), h = nd.n("h"), w = nd.n("w"), plane = 4 * h * w;
  const std::int64_t examples = nd.len / std::max<std::int64_t>(c * h * w, 1);
  Vec<D> y;
  for (std::int64_t plane_no = 0; plane_no < examples * c; ++plane_no)
    for (std::int64_t i = 0; i < h; ++i)
      for (std::int64_t j = 0; j < w; ++j) {
        std::optional<typename D::Scalar> best;
        window3(h, w, i, j, [&](std::int64_t cell) {
          const auto& v = nd.u()[static_cast<std::size_t>(plane_no * plane + cell)];
          best = best ? nd.d.max(*best, v) : v;
        });
        y.push_back(*best);
      }
  return y;
}
template <class D>
Vec<D> den(Of<Ctor::batchOp_maxPool3s2>, const Node<D>& nd) { return den(Of<Ctor::maxPool3s2F>{}, nd); }

/// The accumulating backward: each output cell's cotangent goes to one maximiser of its window
/// in the saved input x, summed where windows overlap. Lean picks the maximiser by
/// Classical.choose, unspecified at a tie; den takes the first maximum in row-major window order
/// (what the text's select_and_scatter with a GE selector keeps) and records a "max-pool-tie"
/// event, since Lean's value there is not determined. x is data: compared on its rationals.
template <class D>
Vec<D> max_pool3_back(const Node<D>& nd) {
  const std::int64_t h = nd.n("h"), w = nd.n("w"), plane = 4 * h * w;
  const std::vector<Rational>& x = nd.e.real("x");
  Vec<D> y(static_cast<std::size_t>(nd.len), nd.num(0));
  std::int64_t out = 0;
  for (std::int64_t plane_no = 0; plane_no < nd.len / std::max<std::int64_t>(plane, 1); ++plane_no)
    for (std::int64_t i = 0; i < h; ++i)
      for (std::int64_t j = 0; j < w; ++j, ++out) {
        std::int64_t pick = -1;
        bool tie = false;
        window3(h, w, i, j, [&](std::int64_t cell) {
          const auto at = static_cast<std::size_t>(plane_no * plane + cell);
          if (pick < 0 || x[at] > x[static_cast<std::size_t>(pick)]) {
            pick = static_cast<std::int64_t>(at);
            tie = false;
          } else if (x[at] == x[static_cast<std::size_t>(pick)]) {
            tie = true;
          }
        });
        if (tie) nd.s.events->push_back({nd.s.node, nd.s.constructor, out, "max-pool-tie"});
        auto& acc = y[static_cast<std::size_t>(pick)];
        acc = nd.d.add(acc, nd.u()[static_cast<std::size_t>(out)]);
      }
  return y;
}
template <class D>
Vec<D> den(Of<Ctor::maxPool3s2Back>, const Node<D>& nd) { return max_pool3_back(nd); }
template <class D>
Vec<D> den(Of<Ctor::maxPool3s2BackB>, const Node<D>& nd) { return max_pool3_back(nd); }

// --- squeeze-excitation ------------------------------------------------------------------------

/// The gate of one example X (c x hw at `base`): s = gap(X), e = W1^T s + b1, a = swish(e),
/// z = W2^T a + b2, g = sigma(z). Keeps e and g (the VJP needs them).
template <class D>
struct SeGate {
  Vec<D> e, g;
};
template <class D>
SeGate<D> se_gate(const Node<D>& nd, const Vec<D>& X, std::int64_t base) {
  const std::int64_t c = nd.n("c"), r = nd.n("r"), hw = nd.n("h") * nd.n("w");
  const Vec<D> W1 = nd.real("W1"), b1 = nd.real("b1"), W2 = nd.real("W2"), b2 = nd.real("b2");
  const Vec<D> s = nd.map(c, [&](std::size_t k) {
    auto acc = nd.num(0);
    for (std::int64_t t = 0; t < hw; ++t) acc = nd.d.add(acc, X[static_cast<std::size_t>(base) + k * static_cast<std::size_t>(hw) + static_cast<std::size_t>(t)]);
    return div0(nd.d, acc, nd.num(hw), nd.s, static_cast<std::int64_t>(k));
  });
  SeGate<D> out;
  out.e = nd.dot_in(W1, s, 0, c, r);
  for (std::size_t j = 0; j < out.e.size(); ++j) out.e[j] = nd.d.add(out.e[j], b1[j]);
  const Vec<D> a = nd.map(r, [&](std::size_t j) { return nd.d.mul(out.e[j], nd.d.logistic(out.e[j])); });
  out.g = nd.dot_in(W2, a, 0, r, c);
  for (std::size_t k = 0; k < out.g.size(); ++k) out.g[k] = nd.d.logistic(nd.d.add(out.g[k], b2[k]));
  return out;
}

/// se(X)[k, t] = X[k, t] g[k], per example.
template <class D>
Vec<D> den(Of<Ctor::batchOp_seBlock>, const Node<D>& nd) {
  const std::int64_t per = nd.n("c") * nd.n("h") * nd.n("w"), hw = nd.n("h") * nd.n("w");
  Vec<D> y;
  for (std::int64_t ex = 0; ex < nd.n("N"); ++ex) {
    const auto gate = se_gate(nd, nd.u(), ex * per);
    for (std::int64_t i = 0; i < per; ++i)
      y.push_back(nd.d.mul(nd.u()[static_cast<std::size_t>(ex * per + i)], gate.g[static_cast<std::size_t>(i / hw)]));
  }
  return y;
}

/// The VJP of se at the saved input v_n with cotangent u_n (conv-families.md 2.4):
/// t = sum_space v D, dz = t g (1 - g), da = W2 dz, de = da swish'(e), ds = W1 de,
/// dX[k, .] = g[k] D[k, .] + ds[k] / hw.
template <class D>
Vec<D> den(Of<Ctor::seBackBatched>, const Node<D>& nd) {
  const std::int64_t c = nd.n("c"), r = nd.n("r"), hw = nd.n("h") * nd.n("w"), per = c * hw;
  const Vec<D> v = nd.real("v"), W1 = nd.real("W1"), W2 = nd.real("W2");
  const auto one = nd.num(1);
  Vec<D> y;
  for (std::int64_t ex = 0; ex < nd.n("N"); ++ex) {
    const auto gate = se_gate(nd, v, ex * per);
    const Vec<D> dz = nd.map(c, [&](std::size_t k) {
      auto t = nd.num(0);
      for (std::int64_t q = 0; q < hw; ++q) {
        const auto i = static_cast<std::size_t>(ex * per) + k * static_cast<std::size_t>(hw) + static_cast<std::size_t>(q);
        t = nd.d.add(t, nd.d.mul(v[i], nd.u()[i]));
      }
      return nd.d.mul(t, nd.d.mul(gate.g[k], nd.d.sub(one, gate.g[k])));
    });
    const Vec<D> da = nd.dot_out(W2, dz, 0, r, c);
    const Vec<D> de = nd.map(r, [&](std::size_t j) { return nd.d.mul(da[j], swish_derivative(nd.d, gate.e[j])); });
    const Vec<D> ds = nd.dot_out(W1, de, 0, c, r);
    for (std::int64_t i = 0; i < per; ++i) {
      const auto k = static_cast<std::size_t>(i / hw);
      const auto back = div0(nd.d, ds[k], nd.num(hw), nd.s, i);
      y.push_back(nd.d.add(nd.d.mul(gate.g[k], nd.u()[static_cast<std::size_t>(ex * per + i)]), back));
    }
  }
  return y;
}

// --- batched dense SGD -------------------------------------------------------------------------

// W - lr * (the batch-summed gradient of denseWeightGradB / denseBiasGradB, same fields).
template <class D>
Vec<D> den(Of<Ctor::denseWeightSgdB>, const Node<D>& nd) { return sgd_step(nd, "W", den(Of<Ctor::denseWeightGradB>{}, nd)); }
template <class D>
Vec<D> den(Of<Ctor::denseBiasSgdB>, const Node<D>& nd) { return sgd_step(nd, "b", den(Of<Ctor::denseBiasGradB>{}, nd)); }

// The heads' gradients: weightGradB is denseWeightGradB's sum over the batch (same fields);
// biasGradB is the identity (Lean's den), not the batch sum its text prints.
template <class D>
Vec<D> den(Of<Ctor::weightGradB>, const Node<D>& nd) { return den(Of<Ctor::denseWeightGradB>{}, nd); }
template <class D>
Vec<D> den(Of<Ctor::biasGradB>, const Node<D>& nd) { return nd.u(); }

}  // namespace shlo::den_detail
