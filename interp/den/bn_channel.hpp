// den of per-channel batch normalisation (rows: ast/ctors/bn_channel.def), the formulas of
// docs/lean/conv-families-bn.md: one generic per-channel kernel, read in two groupings (per
// example or over the batch) and four parts (forward, input VJP, gamma and beta gradients).
#pragma once

#include "interp/den_node.hpp"

namespace shlo::den_detail {

/// The cells one set of statistics is taken over, in an N x (oc x h x w) layout. Instance form
/// (pooled = false): one group per (example, channel), its h*w cells. Batch form (pooled): one
/// group per channel, the N*h*w cells of that channel in every example.
struct ChannelGroups {
  std::int64_t N, oc, hw;
  bool pooled;
  std::int64_t count() const { return pooled ? oc : N * oc; }
  std::int64_t size() const { return pooled ? N * hw : hw; }
  std::int64_t channel(std::int64_t g) const { return g % oc; }
  std::size_t at(std::int64_t g, std::int64_t t) const {  // flat index of cell t of group g
    return static_cast<std::size_t>(pooled ? (t / hw * oc + g) * hw + t % hw : g * hw + t);
  }
};

enum class BnPart { Forward, InputVjp, GammaGrad, BetaGrad };

/// One kernel for every per-channel BN row. The statistics come from the saved field (or the
/// child for the forward); gamma, beta and eps are the row's fields of those names. Forward:
/// gamma[c] x^ + beta[c]; InputVjp: bnIn of (gamma[c] dy) per group; GammaGrad: sum dy x^ per
/// channel; BetaGrad: sum dy per channel (no statistics).
template <class D>
Vec<D> bn_per_channel(const Node<D>& nd, const ChannelGroups& G, BnPart part, const char* saved_field) {
  using S = typename D::Scalar;
  const bool parameter = part == BnPart::GammaGrad || part == BnPart::BetaGrad;
  Vec<D> y(static_cast<std::size_t>(parameter ? G.oc : G.N * G.oc * G.hw), nd.num(0));
  const Vec<D> saved = saved_field ? nd.real(saved_field) : Vec<D>{};
  const Vec<D>& stats_of = saved_field ? saved : nd.u();
  const Vec<D> gamma = part == BnPart::BetaGrad || part == BnPart::GammaGrad ? Vec<D>{} : nd.real("gamma");
  for (std::int64_t g = 0; g < G.count(); ++g) {
    const auto c = static_cast<std::size_t>(G.channel(g));
    if (part == BnPart::BetaGrad) {
      for (std::int64_t t = 0; t < G.size(); ++t) y[c] = nd.d.add(y[c], nd.u()[G.at(g, t)]);
      continue;
    }
    const auto st = bn_stats<D>(nd.d, G.size(), [&](std::int64_t t) -> const S& { return stats_of[G.at(g, t)]; }, nd.scalar("eps"), nd.s);
    if (part == BnPart::Forward) {
      const Vec<D> beta = nd.real("beta");
      for (std::int64_t t = 0; t < G.size(); ++t) y[G.at(g, t)] = nd.d.add(nd.d.mul(gamma[c], st.xhat[static_cast<std::size_t>(t)]), beta[c]);
    } else if (part == BnPart::InputVjp) {
      Vec<D> gdy;
      for (std::int64_t t = 0; t < G.size(); ++t) gdy.push_back(nd.d.mul(gamma[c], nd.u()[G.at(g, t)]));
      const auto dx = bn_in(nd.d, st, gdy, nd.s);
      for (std::int64_t t = 0; t < G.size(); ++t) y[G.at(g, t)] = dx[static_cast<std::size_t>(t)];
    } else {
      for (std::int64_t t = 0; t < G.size(); ++t) y[c] = nd.d.add(y[c], nd.d.mul(nd.u()[G.at(g, t)], st.xhat[static_cast<std::size_t>(t)]));
    }
  }
  return y;
}

template <class D>
ChannelGroups per_example_groups(const Node<D>& nd) { return {1, nd.n("oc"), nd.n("h") * nd.n("w"), false}; }
template <class D>
ChannelGroups batch_groups(const Node<D>& nd) { return {nd.n("N"), nd.n("oc"), nd.n("h") * nd.n("w"), true}; }

template <class D>
Vec<D> den(Of<Ctor::bnPerChannelF>, const Node<D>& nd) { return bn_per_channel(nd, per_example_groups(nd), BnPart::Forward, nullptr); }
template <class D>
Vec<D> den(Of<Ctor::bnPerChannelBack>, const Node<D>& nd) { return bn_per_channel(nd, per_example_groups(nd), BnPart::InputVjp, "x"); }
template <class D>
Vec<D> den(Of<Ctor::bnGammaGrad>, const Node<D>& nd) { return bn_per_channel(nd, per_example_groups(nd), BnPart::GammaGrad, "v"); }
template <class D>
Vec<D> den(Of<Ctor::bnGammaSgd>, const Node<D>& nd) { return sgd_step(nd, "gamma", den(Of<Ctor::bnGammaGrad>{}, nd)); }
template <class D>
Vec<D> den(Of<Ctor::bnBetaGrad>, const Node<D>& nd) { return bn_per_channel(nd, per_example_groups(nd), BnPart::BetaGrad, nullptr); }
template <class D>
Vec<D> den(Of<Ctor::bnBetaSgd>, const Node<D>& nd) { return sgd_step(nd, "beta", den(Of<Ctor::bnBetaGrad>{}, nd)); }

template <class D>
Vec<D> den(Of<Ctor::bnGammaGradB>, const Node<D>& nd) { return bn_per_channel(nd, batch_groups(nd), BnPart::GammaGrad, "v"); }
template <class D>
Vec<D> den(Of<Ctor::bnGammaSgdB>, const Node<D>& nd) { return sgd_step(nd, "gamma", den(Of<Ctor::bnGammaGradB>{}, nd)); }
template <class D>
Vec<D> den(Of<Ctor::bnBetaGradB>, const Node<D>& nd) { return bn_per_channel(nd, batch_groups(nd), BnPart::BetaGrad, nullptr); }
template <class D>
Vec<D> den(Of<Ctor::bnBetaSgdB>, const Node<D>& nd) { return sgd_step(nd, "beta", den(Of<Ctor::bnBetaGradB>{}, nd)); }
// bnBatchBack's value (SHLO_SEMANTICS.md 3.7): the layouts N(oc h w) and N(oc (h w)) number
// cells alike.
template <class D>
Vec<D> den(Of<Ctor::bnBatchLABack>, const Node<D>& nd) { return bn_per_channel(nd, batch_groups(nd), BnPart::InputVjp, "x"); }

/// Inference BN, frozen statistics: gamma[c] ((u - mu[c]) (1 / sqrt(var[c] + eps))) + beta[c]
/// on every cell of channel c of every example (Lean-total 1/sqrt). Also batchOp bnEval.
template <class D>
Vec<D> bn_eval(const Node<D>& nd) {
  const std::int64_t oc = nd.n("oc"), hw = nd.n("h") * nd.n("w");
  const Vec<D> gamma = nd.real("gamma"), beta = nd.real("beta"), mu = nd.real("mu"), var = nd.real("var");
  const auto eps = nd.scalar("eps");
  const Vec<D> inv = nd.map(oc, [&](std::size_t c) {
    const auto idx = static_cast<std::int64_t>(c);
    return div0(nd.d, nd.num(1), sqrt0(nd.d, nd.d.add(var[c], eps), nd.s, idx), nd.s, idx);
  });
  return nd.map(nd.len, [&](std::size_t i) {
    const auto c = static_cast<std::size_t>((static_cast<std::int64_t>(i) / std::max<std::int64_t>(hw, 1)) % oc);
    return nd.d.add(nd.d.mul(gamma[c], nd.d.mul(nd.d.sub(nd.u()[i], mu[c]), inv[c])), beta[c]);
  });
}
template <class D>
Vec<D> den(Of<Ctor::bnPerChannelEvalF>, const Node<D>& nd) { return bn_eval(nd); }

}  // namespace shlo::den_detail
