// The convolutions of cifar8_train_step.mlir in f64 and f32, alone and in a steady state (the
// process's memory already touched), with 1 and 2 threads: what bench/threads.sh measures on
// the whole program, without process start, parsing and first-touch page faults.
//   build/bench/bench_convolution [--benchmark_filter=weight_gradient]
#include <benchmark/benchmark.h>

#include <random>

#include "interp/domain/ieee.hpp"
#include "interp/memory.hpp"
#include "interp/ops/contraction.hpp"

using namespace shlo;

namespace {

template <class S>
Tensor<S> random_tensor(const Shape& shape, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 0.01);
  std::vector<S> v(static_cast<std::size_t>(num_elements(shape)));
  for (auto& x : v) x = static_cast<S>(u(rng));
  return Tensor<S>(shape, std::move(v));
}

// NCHW input, OIHW kernel, NCHW output, stride 1, padding `pad` on every side.
ConvolutionAttributes nchw(std::int64_t pad) {
  ConvolutionAttributes a;
  a.dims.input_spatial = {2, 3};
  a.dims.kernel_spatial = {2, 3};
  a.dims.output_spatial = {2, 3};
  a.window_strides = {1, 1};
  a.padding = {{pad, pad}, {pad, pad}};
  a.lhs_dilation = {1, 1};
  a.rhs_dilation = {1, 1};
  return a;
}

template <class S>
void convolution(benchmark::State& state, Shape lhs_shape, Shape rhs_shape, Shape result_shape) {
  set_thread_count(static_cast<int>(state.range(0)));
  const IeeeDomain<S> d;
  const auto lhs = random_tensor<S>(lhs_shape, 1), rhs = random_tensor<S>(rhs_shape, 2);
  const auto a = nchw(1);
  for (auto _ : state) benchmark::DoNotOptimize(ops::convolution(d, lhs, rhs, a, result_shape));
  const double macs = static_cast<double>(num_elements(result_shape)) * static_cast<double>(num_elements(rhs_shape) / rhs_shape[0]);
  state.counters["GMAC/s"] = benchmark::Counter(macs * static_cast<double>(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

// cifar8_train_step line 15: a forward 3x3 convolution, 128 images of 16 channels.
void forward(benchmark::State& s) { convolution<double>(s, {128, 16, 32, 32}, {16, 16, 3, 3}, {128, 16, 32, 32}); }
// Line 298: a weight gradient, 16 "images" (input channels) of 128 features (the batch),
// its kernel a whole activation gradient: 131,072 products per result element.
void weight_gradient(benchmark::State& s) { convolution<double>(s, {16, 128, 32, 32}, {16, 128, 32, 32}, {16, 16, 3, 3}); }
// Line 280: the first layer's weight gradient (3 images: the RGB channels).
void first_weight_gradient(benchmark::State& s) { convolution<double>(s, {3, 128, 32, 32}, {16, 128, 32, 32}, {3, 16, 3, 3}); }
void weight_gradient_f32(benchmark::State& s) { convolution<float>(s, {16, 128, 32, 32}, {16, 128, 32, 32}, {16, 16, 3, 3}); }

}  // namespace

BENCHMARK(forward)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(weight_gradient)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(first_weight_gradient)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(weight_gradient_f32)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

int main(int argc, char** argv) {
  keep_freed_memory_for_reuse();  // as the shlo command does
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
