// All outputs together under the sampled tier's model: a test of the errors' size as a whole,
// beside the per-element verdicts (docs/sampled_tier.md, "All outputs together").
//
// Per element the verdict allows K sigma_hat, K about 17 at the default delta: a margin of 17
// standard deviations for the worst of the outputs. A computation that is wrong by a factor of 8
// in every error (bf16 operands where tf32's are claimed) then often stays within it element by
// element, while its errors together are far larger than the model's: their weighted sum of squares
//   S = sum_i (max(0, |y_i - v_i| - rest_i) / sigma_hat_i)^2
// (rest_i the sketch's share of element i's bound, taken off as a worst case) is, under the
// model, a Gaussian quadratic form whose mean is about the number n of elements and whose tail is
// set by the largest eigenvalue of the elements' correlations, which the P passes estimate (their
// Gram matrix). The test says UNLIKELY when S exceeds the limit that holds but with probability
// `kAggregateLevel`: a statement at that level, not at delta, so it never changes a verdict; it
// tells which profile the errors fit (the report's hint), where several are consistent.
#pragma once

#include <array>
#include <cstdint>

#include "interp/sampled/sampled.hpp"

namespace shlo {

/// The probability with which honest errors exceed the aggregate limit (under the model).
inline constexpr double kAggregateLevel = 1e-3;

/// The passes' Gram matrix over elements, each element's tangents over its sigma_hat:
/// G_pq = sum_i t_ip t_iq / sigma_hat_i^2. G / P is the sample correlation of the elements'
/// errors seen from the passes' side (the same nonzero eigenvalues).
class SampledGram {
 public:
  static constexpr int P = kSampledPasses;
  /// Adds one element (sigma_hat > 0).
  void add(const std::array<double, P>& tangent, double sigma_hat);
  void merge(const SampledGram& other);
  std::int64_t elements() const { return elements_; }
  /// An upper bound on G's largest eigenvalue: trace(G^(2^m))^(1/2^m), within a factor
  /// P^(2^-m) of it (m = 12: 0.1%).
  double largest_eigenvalue_bound() const;
  double operator()(int p, int q) const { return g_[static_cast<std::size_t>(p * P + q)]; }

 private:
  std::array<double, P * P> g_{};
  std::int64_t elements_ = 0;
};

/// The test's outcome.
struct AggregateFit {
  bool tested = false;        // the sampled tier ran and some element counted
  std::int64_t elements = 0;  // n: the elements in the Gram matrix
  double rms = 0;             // sqrt(S / n): the errors' root mean square over sigma_hat, beyond the rests
  double limit = 0;           // sqrt(limit on S / n) at kAggregateLevel
  double correlation = 0;     // the largest eigenvalue of G / P over n: 1/P for independent errors, 1 for one shared one
  bool unlikely() const { return tested && rms > limit; }
};

/// The limit on S under the model: with lambda_hat = largest_eigenvalue(G) / P and trace n,
///   lambda <= c^2 lambda_hat (the top direction's P samples: chi-square with P degrees),
///   trace <= (b + sqrt(b^2 + n))^2, b = sqrt(lambda x / P) (Laurent and Massart's lower tail),
///   sqrt(S) <= sqrt(trace) + sqrt(2 lambda x) (Gaussian concentration of a norm: Lipschitz
///   with constant sqrt(lambda)),
/// each but with probability level / 3 (x = ln(3 / level)). sum_excess: S over the elements.
AggregateFit aggregate_fit(const SampledGram& gram, double sum_excess, double level = kAggregateLevel);

}  // namespace shlo
