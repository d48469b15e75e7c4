// den of synchronised batch norm (rows: ast/ctors/sync_bn.def), the formulas of
// docs/lean/transformer-families-2.md section 5. An activation of length N*oc*h*w is read as
// [N, oc, h*w]; channel c's m = N*h*w cells are its statistics' sample. The sync nodes read the
// statistics from their right operand (all-reduced across replicas by allReduceMeanF in the
// intended graph) instead of reducing their own input.
#pragma once

#include "interp/den_node.hpp"

namespace shlo::den_detail {

/// The cells of channel c of an [N, oc, hw] activation, in batch-major order.
struct ChannelCells {
  std::int64_t N, oc, hw;
  std::int64_t count() const { return N * hw; }
  std::size_t at(std::int64_t c, std::int64_t t) const { return static_cast<std::size_t>((t / hw * oc + c) * hw + t % hw); }
};
template <class D>
ChannelCells channel_cells(const Node<D>& nd) { return {nd.n("N"), nd.n("oc"), nd.n("h") * nd.n("w")}; }

/// Per channel: mean_m of f(c, cell) over the channel's cells (0 when m = 0, recorded).
template <class D, class F>
Vec<D> channel_means(const Node<D>& nd, const ChannelCells& cc, F f) {
  return nd.map(cc.oc, [&](std::size_t c) {
    auto sum = nd.num(0);
    for (std::int64_t t = 0; t < cc.count(); ++t) sum = nd.d.add(sum, f(static_cast<std::int64_t>(c), cc.at(static_cast<std::int64_t>(c), t)));
    return div0(nd.d, sum, nd.num(cc.count()), nd.s, static_cast<std::int64_t>(c));
  });
}

/// mean and population variance (two-pass) per channel of x.
template <class D>
std::pair<Vec<D>, Vec<D>> channel_mean_var(const Node<D>& nd, const ChannelCells& cc, const Vec<D>& x) {
  const Vec<D> mean = channel_means(nd, cc, [&](std::int64_t, std::size_t i) { return x[i]; });
  const Vec<D> var = channel_means(nd, cc, [&](std::int64_t c, std::size_t i) {
    const auto t = nd.d.sub(x[i], mean[static_cast<std::size_t>(c)]);
    return nd.d.mul(t, t);
  });
  return {mean, var};
}

/// The handed-in statistics st = [mu | var | ...] of channel c: mu, and Lean's
/// 1/sqrt(m2 - mu*mu + eps) with m2 = var + mu*mu (bnSyncXhat; 0 where the root is 0).
template <class D>
struct SyncStats {
  typename D::Scalar mu, inv_std;
};
template <class D>
SyncStats<D> sync_stats(const Node<D>& nd, const Vec<D>& st, std::int64_t oc, std::int64_t c) {
  const auto& mu = st[static_cast<std::size_t>(c)];
  const auto m2 = nd.d.add(st[static_cast<std::size_t>(oc + c)], nd.d.mul(mu, mu));
  const auto var_eps = nd.d.add(nd.d.sub(m2, nd.d.mul(mu, mu)), nd.scalar("eps"));
  return {mu, div0(nd.d, nd.num(1), sqrt0(nd.d, var_eps, nd.s, c), nd.s, c)};
}
/// x^ of cell i of channel c at the handed-in statistics.
template <class D>
typename D::Scalar sync_xhat(const Node<D>& nd, const SyncStats<D>& st, const typename D::Scalar& x) {
  return nd.d.mul(nd.d.sub(x, st.mu), st.inv_std);
}

template <class D>
Vec<D> den(Of<Ctor::bnBatchMeanB>, const Node<D>& nd) { return channel_mean_var(nd, channel_cells(nd), nd.u()).first; }

template <class D>
Vec<D> den(Of<Ctor::bnBatchVarB>, const Node<D>& nd) { return channel_mean_var(nd, channel_cells(nd), nd.u()).second; }

template <class D>
Vec<D> den(Of<Ctor::bnBatchVarAtB>, const Node<D>& nd) {  // var_m(x_c) + (mean_m(x_c) - mu[c])^2
  const auto [mean, var] = channel_mean_var(nd, channel_cells(nd), nd.k[0]);
  return nd.map(nd.len, [&](std::size_t c) {
    const auto t = nd.d.sub(mean[c], nd.k[1][c]);
    return nd.d.add(var[c], nd.d.mul(t, t));
  });
}

template <class D>
Vec<D> den(Of<Ctor::bnPackB>, const Node<D>& nd) {
  Vec<D> y = nd.k[0];
  y.insert(y.end(), nd.k[1].begin(), nd.k[1].end());
  return y;
}

template <class D>
Vec<D> den(Of<Ctor::bnSyncF>, const Node<D>& nd) {  // gamma (x - mu) / sqrt(var + eps) + beta
  const ChannelCells cc = channel_cells(nd);
  const auto gamma = nd.real("gamma"), beta = nd.real("beta");
  Vec<D> y(static_cast<std::size_t>(nd.len), nd.num(0));
  for (std::int64_t c = 0; c < cc.oc; ++c) {
    const auto st = sync_stats(nd, nd.k[1], cc.oc, c);
    for (std::int64_t t = 0; t < cc.count(); ++t) {
      const std::size_t i = cc.at(c, t);
      y[i] = nd.d.add(nd.d.mul(gamma[static_cast<std::size_t>(c)], sync_xhat(nd, st, nd.k[0][i])), beta[static_cast<std::size_t>(c)]);
    }
  }
  return y;
}

template <class D>
Vec<D> den(Of<Ctor::bnSyncDyStatsB>, const Node<D>& nd) {  // [st | mean(gamma dy) | mean(x^ gamma dy)]
  const ChannelCells cc = channel_cells(nd);
  const auto gamma = nd.real("gamma"), x = nd.real("x");
  const auto& dy = nd.k[0];
  auto gdy = [&](std::int64_t c, std::size_t i) { return nd.d.mul(gamma[static_cast<std::size_t>(c)], dy[i]); };
  const Vec<D> mdy = channel_means(nd, cc, gdy);
  const Vec<D> mdyx = channel_means(nd, cc, [&](std::int64_t c, std::size_t i) {
    return nd.d.mul(sync_xhat(nd, sync_stats(nd, nd.k[1], cc.oc, c), x[i]), gdy(c, i));
  });
  Vec<D> y = nd.k[1];
  y.insert(y.end(), mdy.begin(), mdy.end());
  y.insert(y.end(), mdyx.begin(), mdyx.end());
  return y;
}

template <class D>
Vec<D> den(Of<Ctor::bnSyncBack>, const Node<D>& nd) {  // (1/sqrt(var + eps)) (gamma dy - mdy - x^ mdyx)
  const ChannelCells cc = channel_cells(nd);
  const auto gamma = nd.real("gamma"), x = nd.real("x");
  const auto& dy = nd.k[0];
  const auto& ds = nd.k[1];
  Vec<D> y(static_cast<std::size_t>(nd.len), nd.num(0));
  for (std::int64_t c = 0; c < cc.oc; ++c) {
    const auto st = sync_stats(nd, ds, cc.oc, c);
    const auto& mdy = ds[static_cast<std::size_t>(2 * cc.oc + c)];
    const auto& mdyx = ds[static_cast<std::size_t>(3 * cc.oc + c)];
    for (std::int64_t t = 0; t < cc.count(); ++t) {
      const std::size_t i = cc.at(c, t);
      const auto g = nd.d.mul(gamma[static_cast<std::size_t>(c)], dy[i]);
      y[i] = nd.d.mul(st.inv_std, nd.d.sub(nd.d.sub(g, mdy), nd.d.mul(sync_xhat(nd, st, x[i]), mdyx)));
    }
  }
  return y;
}

template <class D>
Vec<D> den(Of<Ctor::bnSyncGammaGradB>, const Node<D>& nd) {  // sum over the channel's cells of dy x^ (a sum, not a mean)
  const ChannelCells cc = channel_cells(nd);
  const auto x = nd.real("x");
  return nd.map(cc.oc, [&](std::size_t c) {
    const auto st = sync_stats(nd, nd.k[1], cc.oc, static_cast<std::int64_t>(c));
    auto acc = nd.num(0);
    for (std::int64_t t = 0; t < cc.count(); ++t) {
      const std::size_t i = cc.at(static_cast<std::int64_t>(c), t);
      acc = nd.d.add(acc, nd.d.mul(nd.k[0][i], sync_xhat(nd, st, x[i])));
    }
    return acc;
  });
}

template <class D>
Vec<D> den(Of<Ctor::bnStatsMeanB>, const Node<D>& nd) { return Vec<D>(nd.u().begin(), nd.u().begin() + nd.n("oc")); }

template <class D>
Vec<D> den(Of<Ctor::bnStatsVarB>, const Node<D>& nd) { return Vec<D>(nd.u().begin() + nd.n("oc"), nd.u().end()); }

}  // namespace shlo::den_detail
