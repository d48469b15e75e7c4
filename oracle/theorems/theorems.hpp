// Checkable statements of the data-parallel theorems (SHLO_SEMANTICS.md section 6), one file
// per family, each naming the Lean theorem it checks. Each check takes one instance and says
// whether the statement holds on it; each control is a deliberately wrong variant.
#pragma once

#include <string>
#include <vector>

#include "ast/expr.hpp"

namespace shlo::theorems {

struct Result {
  bool holds = true;
  std::string detail;
};

/// operand(name, v): a leaf with values, for building the statements' instances.
ExprPtr operand(const std::string& name, const std::vector<Rational>& v);

// D1 den_allReduceMeanF_eq_dpMean: den(allReduceMeanF(g)) = dpMean(r -> den g_r), exactly, and
// the emitted all_reduce program on R replicas gives the same. `sum_instead` is the control.
Result dp_mean(const Expr& family, bool sum_instead = false);

// D2 skel_allReduceMeanF_of_spmd: for an SPMD family the skeleton is each replica's and the
// printed text does not depend on which replica's subtree is printed.
Result spmd_skeleton(const Expr& family);

// D6 / piece 1 (dpMeanGrad_eq_globalBatchGrad_of_perExample, contiguous shards): the replica
// mean of per-replica batch-summed dense and conv weight gradients equals (1/R) times the
// global-batch gradient. `drop_example` (control) removes one example from replica 0.
Result shard_gradient(std::int64_t R, std::int64_t N, std::int64_t a, std::int64_t c, const std::vector<Rational>& X,
                      const std::vector<Rational>& U, bool drop_example = false);

// D7 dpMeanGrad_ne_globalBatchGrad: with batch-coupled statistics and R shards of N examples,
// DP - global = Var_r(mu_r) (population variance of the shard means), the gradients computed
// by forward-mode dual numbers; the witness {0}, {2} gives 2 vs 1.
Result batch_bn_gap(const std::vector<std::vector<Rational>>& shards);

// D3 den_allReduceMeanF_eq_lossGrad_meanLoss: per-replica nodes weightGrad(x_r; sub(dotIn(W;
// x_r), y_r)) are the gradients of L_r(W) = 1/2 |x_r W - y_r|^2; the all-reduced node equals
// the gradient of the mean loss, computed independently by dual numbers. `sum_instead` is the
// control (the gradient of the sum).
Result mean_loss_gradient(const std::vector<std::vector<Rational>>& xs, const std::vector<std::vector<Rational>>& ys,
                          const std::vector<Rational>& W, std::int64_t m, std::int64_t n, bool sum_instead = false);

// D9 den_allReduceMeanF_convWeightGradB: the all-reduced conv weight gradient is the replica
// mean of per-replica batch sums of the conv Jacobian (in W) times the cotangent, the
// Jacobian taken by dual numbers over an independent convolution; kernels k = 1, 2, 3 (den
// is defined for even k). xs[r]: N examples of ic*h*w; cots[r]: N of oc*h*w.
Result conv_fold(const std::vector<std::vector<Rational>>& xs, const std::vector<std::vector<Rational>>& cots, const std::vector<Rational>& W,
                 std::int64_t N, std::int64_t ic, std::int64_t oc, std::int64_t h, std::int64_t w, std::int64_t k, bool sum_instead = false);

// D10 adamW_at_allReduceMeanF (and the Nesterov pair and the RMSProp triple): the optimizer
// nodes over the all-reduced gradient equal the optimizer step of section 5 (written
// independently) at dpMean. `optimizer`: "adamw" (hyper: b1 b2 eps lr wd bc1 bc2),
// "lamb" (as adamw, lr used in the update), "momentum" (mu lr), "rmsprop" (rho mu eps lr wd;
// m holds the buffer, v the mean square).
// `wrong_beta` (control) uses beta for (1 - beta) in the reference step.
Result optimizer_tail(const Expr& family, const std::string& optimizer, const std::vector<Rational>& hyper,
                      const std::vector<Rational>& theta, const std::vector<Rational>& m, const std::vector<Rational>& v,
                      bool wrong_beta = false);

// Synchronised batch norm (issue 12): on R replicas of equal shards (N examples of oc*h*w
// each), replica r's bnSyncF(x_r, bnPackB(mu, v)) with mu, v the all-reduced bnBatchMeanB and
// bnBatchVarAtB, and its bnSyncBack(dy_r, allReduceMeanF(bnSyncDyStatsB(dy_r', st))), equal
// rows r*N ... r*N+N-1 of bnBatchF and bnBatchBack over the concatenated batch: exactly where
// den is rational, else as overlapping interval:256 enclosures. `per_replica` (the control)
// uses bnBatchF/bnBatchBack of the shard alone, which differs whenever the shards' statistics do.
Result sync_bn(const std::vector<std::vector<Rational>>& shards, const std::vector<std::vector<Rational>>& cotangents, std::int64_t oc,
               std::int64_t h, std::int64_t w, const std::vector<Rational>& gamma, const std::vector<Rational>& beta, const Rational& eps,
               bool per_replica = false);
// The D7 counterexample for the per-channel batch statistics (issue 11): R shards of N
// examples (oc x h x w each, shards[r] in the batch layout). Each variance is read from den of
// bnGammaGradB with eps = 0 and the cotangent equal to the saved input (sum v x^ = m sigma),
// so sigma^2 = (grad / m)^2 needs rational standard deviations (the exact domain refuses an
// irrational one). Statement: global - (1/R) sum_r var_r = Var_r(mu_r) per channel (equal
// shards: the law of total variance), so the replica mean of per-shard variances is the global
// variance only when the shard means agree. dp_grad / global_grad_over_r: the same gamma
// gradients all-reduced versus (1/R) times the global one (equal for dense layers, D6).
struct ChannelStatGap {
  std::vector<Rational> replica_mean_var, global_var, shard_mean_spread, dp_grad, global_grad_over_r;
  Result result;
};
ChannelStatGap per_channel_bn_gap(const std::vector<std::vector<Rational>>& shards, std::int64_t N, std::int64_t oc, std::int64_t h,
                                  std::int64_t w);

}  // namespace shlo::theorems
