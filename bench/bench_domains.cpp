// Cost of one multiply-accumulate and one exp in each domain (ns per op), so that later work
// (the op kernels, the interval runs of whole programs) can be compared against the raw cost.
//   build/bench/bench_domains [--benchmark_filter=mac]
#include <benchmark/benchmark.h>

#include <vector>

#include "interp/domain/domain_spec.hpp"

using namespace shlo;

namespace {

constexpr int kN = 256;

template <class D>
std::vector<typename D::Scalar> operands(const D& d, int salt) {
  std::vector<typename D::Scalar> v;
  for (int i = 0; i < kN; ++i) v.push_back(d.from_rational(Rational(i % 17 + salt) / Rational(i % 13 + 3)));
  return v;
}

template <class D>
void mac(benchmark::State& state, D d) {
  const auto a = operands(d, 1), b = operands(d, 2);
  for (auto _ : state) {
    auto acc = d.from_rational(0);
    for (int i = 0; i < kN; ++i) acc = d.add(acc, d.mul(a[i], b[i]));
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * kN);
  state.counters["ns_per_op"] = benchmark::Counter(static_cast<double>(state.iterations() * kN),
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// The same, in place (what the dot and convolution kernels use).
template <class D>
void mac_in_place(benchmark::State& state, D d) {
  const auto a = operands(d, 1), b = operands(d, 2);
  for (auto _ : state) {
    auto acc = d.from_rational(0);
    for (int i = 0; i < kN; ++i) d.mac(acc, a[i], b[i]);
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * kN);
  state.counters["ns_per_op"] = benchmark::Counter(static_cast<double>(state.iterations() * kN),
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

template <class D>
void exp(benchmark::State& state, D d) {
  const auto a = operands(d, 1);
  for (auto _ : state) {
    for (int i = 0; i < kN; ++i) benchmark::DoNotOptimize(d.exp(a[i]));
  }
  state.SetItemsProcessed(state.iterations() * kN);
  state.counters["ns_per_op"] = benchmark::Counter(static_cast<double>(state.iterations() * kN),
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// exp of these operands is irrational, so `exact` has no exp benchmark.
BENCHMARK_CAPTURE(mac, exact, ExactDomain{});
BENCHMARK_CAPTURE(mac, interval_256, IntervalDomain(256));
BENCHMARK_CAPTURE(mac, interval_64, IntervalDomain(64));
BENCHMARK_CAPTURE(mac, mpfr_256, MpfrDomain(256));
BENCHMARK_CAPTURE(mac, f64, F64Domain{});
BENCHMARK_CAPTURE(mac, f32, F32Domain{});
BENCHMARK_CAPTURE(mac_in_place, exact, ExactDomain{});
BENCHMARK_CAPTURE(mac_in_place, interval_256, IntervalDomain(256));
BENCHMARK_CAPTURE(mac_in_place, mpfr_256, MpfrDomain(256));
BENCHMARK_CAPTURE(mac_in_place, f64, F64Domain{});
BENCHMARK_CAPTURE(mac_in_place, f32, F32Domain{});
BENCHMARK_CAPTURE(exp, interval_256, IntervalDomain(256));
BENCHMARK_CAPTURE(exp, interval_64, IntervalDomain(64));
BENCHMARK_CAPTURE(exp, mpfr_256, MpfrDomain(256));
BENCHMARK_CAPTURE(exp, f64, F64Domain{});
BENCHMARK_CAPTURE(exp, f32, F32Domain{});

}  // namespace

BENCHMARK_MAIN();
