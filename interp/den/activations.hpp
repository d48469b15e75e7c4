// den of activations and masks (rows: ast/ctors/activations.def), the formulas of
// SHLO_SEMANTICS.md 3.3: one function den(Of<Ctor::X>, node) per constructor, u the child, k the
// children.
#pragma once

#include "interp/den_node.hpp"

namespace shlo::den_detail {

template <class D>
Vec<D> den(Of<Ctor::reluF>, const Node<D>& nd) {
  return nd.map(nd.len, [&](std::size_t i) { return nd.d.max(nd.u()[i], nd.num(0)); });
}

// The masks compare field data (the saved pre-activation): decided on its exact rationals.
template <class D>
Vec<D> selectPos_or_selectPosB(const Node<D>& nd) {
  const auto& x = nd.e.real("x");
  return nd.map(nd.len, [&](std::size_t i) { return x[i] > 0 ? nd.u()[i] : nd.num(0); });
}
template <class D>
Vec<D> den(Of<Ctor::selectPos>, const Node<D>& nd) { return selectPos_or_selectPosB(nd); }

template <class D>
Vec<D> den(Of<Ctor::relu6F>, const Node<D>& nd) {
  return nd.map(nd.len, [&](std::size_t i) { return nd.d.min(nd.d.max(nd.u()[i], nd.num(0)), nd.num(6)); });
}

template <class D>
Vec<D> den(Of<Ctor::selectMid>, const Node<D>& nd) {
  const auto& x = nd.e.real("x");
  return nd.map(nd.len, [&](std::size_t i) { return x[i] > 0 && x[i] < 6 ? nd.u()[i] : nd.num(0); });
}

template <class D>
Vec<D> den(Of<Ctor::sigmoidF>, const Node<D>& nd) {
  return nd.map(nd.len, [&](std::size_t i) { return nd.d.logistic(nd.u()[i]); });
}

template <class D>
Vec<D> den(Of<Ctor::geluF>, const Node<D>& nd) {  // 1/2 u (1 + tanh(sqrt(2/pi) (u + 0.044715 u^3)))
  using S = typename D::Scalar;
  const S k0 = nd.d.sqrt(nd.d.div(nd.num(2), nd.d.pi()));
  const S k1 = nd.d.from_rational(Rational(44715) / Rational(1000000));
  const S half = nd.d.from_rational(Rational(1, 2));
  return nd.map(nd.len, [&](std::size_t i) {
    const S& x = nd.u()[i];
    const S inner = nd.d.mul(k0, nd.d.add(x, nd.d.mul(k1, nd.d.mul(x, nd.d.mul(x, x)))));
    return nd.d.mul(nd.d.mul(half, x), nd.d.add(nd.num(1), nd.d.tanh(inner)));
  });
}

template <class D>
Vec<D> den(Of<Ctor::convertF>, const Node<D>& nd) {  // y[i] = rnd(u[i]); rnd: identity, binary32, bfloat16, rndP:<p>
  const std::string rnd = nd.e.string("rnd");
  if (rnd == "identity") return nd.u();
  RationalMap f;
  if (rnd == "binary32") f = round_binary32;
  else if (rnd == "bfloat16") f = round_bfloat16;
  else if (rnd.rfind("rndP:", 0) == 0) {
    const int p = std::stoi(rnd.substr(5));
    f = [p](const Rational& q) { return round_rndp(q, p); };
  } else {
    throw ExprError("convertF: unknown rounding '" + rnd + "' (identity, binary32, bfloat16, rndP:<p>)");
  }
  return nd.map(nd.len, [&](std::size_t i) { return nd.d.map_monotone(nd.u()[i], f); });
}

}  // namespace shlo::den_detail
