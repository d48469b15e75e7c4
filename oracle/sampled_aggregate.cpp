#include "oracle/sampled_aggregate.hpp"

#include <cmath>
#include <vector>

namespace shlo {

void SampledGram::add(const std::array<double, P>& tangent, double sigma_hat) {
  std::array<double, P> u;
  for (int p = 0; p < P; ++p) u[static_cast<std::size_t>(p)] = tangent[static_cast<std::size_t>(p)] / sigma_hat;
  for (int p = 0; p < P; ++p)
    for (int q = p; q < P; ++q)
      g_[static_cast<std::size_t>(p * P + q)] += u[static_cast<std::size_t>(p)] * u[static_cast<std::size_t>(q)];
  ++elements_;
}

void SampledGram::merge(const SampledGram& other) {
  for (std::size_t k = 0; k < g_.size(); ++k) g_[k] += other.g_[k];
  elements_ += other.elements_;
}

double SampledGram::largest_eigenvalue_bound() const {
  // The upper triangle holds the sums; the symmetric matrix, scaled to trace 1 at every squaring:
  // G^(2^k) = e^log_scale M with trace(M) = 1, so lambda_max(G)^(2^m) <= trace(G^(2^m)) = e^log_scale.
  std::vector<double> m(static_cast<std::size_t>(P * P)), next(m.size());
  double trace = 0;
  for (int p = 0; p < P; ++p) trace += g_[static_cast<std::size_t>(p * P + p)];
  if (!(trace > 0)) return 0;
  for (int p = 0; p < P; ++p)
    for (int q = 0; q < P; ++q)
      m[static_cast<std::size_t>(p * P + q)] = g_[static_cast<std::size_t>(p <= q ? p * P + q : q * P + p)] / trace;
  double log_scale = std::log(trace);
  constexpr int kSquarings = 12;
  for (int k = 0; k < kSquarings; ++k) {
    double t = 0;
    for (int p = 0; p < P; ++p)
      for (int q = 0; q < P; ++q) {
        double s = 0;
        for (int r = 0; r < P; ++r) s += m[static_cast<std::size_t>(p * P + r)] * m[static_cast<std::size_t>(r * P + q)];
        next[static_cast<std::size_t>(p * P + q)] = s;
      }
    for (int p = 0; p < P; ++p) t += next[static_cast<std::size_t>(p * P + p)];
    for (auto& x : next) x /= t;
    m.swap(next);
    log_scale = 2 * log_scale + std::log(t);
  }
  // The rounding of the squarings is far below the bound's own factor P^(2^-m) (0.1%); a
  // relative margin of 1e-9 covers it.
  return std::exp(std::ldexp(log_scale, -kSquarings)) * (1 + 1e-9);
}

AggregateFit aggregate_fit(const SampledGram& gram, double sum_excess, double level) {
  AggregateFit f;
  if (gram.elements() == 0) return f;
  constexpr double P = SampledGram::P;
  const double n = static_cast<double>(gram.elements());
  f.tested = true;
  f.elements = gram.elements();
  const double lambda_hat = gram.largest_eigenvalue_bound() / P;
  f.correlation = lambda_hat / n;
  const double each = level / 3;
  const double x = std::log(1 / each);
  const double c = chi_square_factor(kSampledPasses, each);
  const double lambda = c * c * lambda_hat;
  const double b = std::sqrt(lambda * x / P);
  const double root_trace = b + std::sqrt(b * b + n);
  const double root_limit = root_trace + std::sqrt(2 * lambda * x);
  f.limit = root_limit / std::sqrt(n);
  f.rms = std::sqrt(sum_excess / n);
  return f;
}

}  // namespace shlo
