// The sampled tier's risk factors (sampled.hpp; docs/sampled_tier.md, "What each value
// carries"): the chi-square factor on sigma_hat, the Cauchy order statistic's on the sketch.
#include <algorithm>
#include <cmath>

#include "interp/sampled/sampled.hpp"

namespace shlo {

double chi_square_factor(int passes, double alpha) {
  // P(chi2_P <= x) = P(Poisson(x/2) >= P/2) for even P: sum_{j >= k} e^-y y^j / j!, y = x / 2.
  const int k = passes / 2;
  auto lower_tail = [&](double y) {
    double term = std::exp(-y + k * std::log(y) - std::lgamma(k + 1.0)), sum = 0;
    for (int j = k; j < k + 400 && term > sum * 1e-17; ++j) {
      sum += term;
      term *= y / (j + 1);
    }
    return sum;
  };
  double lo = 0, hi = passes;  // the quantile lies below the mean for alpha < 1/2
  for (int it = 0; it < 200; ++it) {
    const double mid = (lo + hi) / 2;
    (lower_tail(mid / 2) > alpha ? hi : lo) = mid;
  }
  return std::sqrt(passes / lo);  // lo: the tail at lo is at most alpha, so the factor errs upward
}

double sketch_factor(int passes, int rank, double alpha) {
  // The rank-th smallest of `passes` |Cauchy| lies below q exactly when at least `rank` of them
  // do: a binomial tail in F(q) = (2/pi) atan(q).
  auto tail = [&](double f) {
    double sum = 0;
    for (int j = rank; j <= passes; ++j)
      sum += std::exp(std::lgamma(passes + 1.0) - std::lgamma(j + 1.0) - std::lgamma(passes - j + 1.0) + j * std::log(f) +
                      (passes - j) * std::log1p(-f));
    return sum;
  };
  double lo = 0, hi = 1;
  for (int it = 0; it < 200; ++it) {
    const double mid = (lo + hi) / 2;
    (tail(mid) > alpha ? hi : lo) = mid;
  }
  return 1 / std::tan(M_PI / 2 * lo);  // lo: the tail there is at most alpha, so the factor errs upward
}

SampledFactors sampled_factors(double risk, double events) {
  const double each = risk / std::max(events, 1.0) / 3;  // Hoeffding, chi-square, sketch
  const double lambda = std::sqrt(2 * std::log(2 / each));
  const double c = chi_square_factor(kSampledPasses, each);
  return {lambda * c, sketch_factor(kSampledPasses, kSketchRank, each), c};
}

}  // namespace shlo
