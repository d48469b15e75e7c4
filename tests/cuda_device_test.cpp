// The CUDA kernels on a real device against their host path and against the sound bound of
// the cuda profile, on random op-level programs: every element within the bound, and every
// program that calls no library function (exp, log, tanh, logistic, rsqrt) bit-identical. Exit 77 (reported by CTest as skipped, not
// passed) when this build has no CUDA or the machine has no device.
#include <cmath>
#include <cstdio>
#include <random>

#include "ast/mlir_parse.hpp"
#include "fuzz/gen_ops.hpp"
#include "interp/cuda/executor.hpp"
#include "oracle/float_check.hpp"

using namespace shlo;

int main() {
  std::string why;
  auto device = cuda::make_device_backend(why);
  if (!device) {
    std::printf("skipped: %s\n", why.c_str());
    return 77;
  }
  auto host = cuda::make_host_backend();
  const BoundDomain profile(float_profile("cuda"));
  const auto gen = fuzz::gen_op_program(true, true);
  // Only exp, log, tanh, logistic and rsqrt call each side's own library (kernels.hpp); every
  // other op must give the host path's bits exactly, so a program without them that differs is
  // a failure (an FMA contraction, another summation order).
  const char* library_ops[] = {"stablehlo.exponential", "stablehlo.log ", "stablehlo.tanh", "stablehlo.logistic", "stablehlo.rsqrt"};
  int failures = 0, identical = 0, plain = 0, plain_identical = 0;
  const int programs = 500;
  for (int i = 0; i < programs; ++i) {
    const TextCase tc = gen(rc::Random(static_cast<std::uint64_t>(i) * 7 + 5), 30).value();
    const Module m = parse_module(tc.text, "random.mlir");
    std::mt19937_64 rng(static_cast<std::uint64_t>(i));
    std::uniform_real_distribution<float> u(-3.0f, 3.0f);
    std::vector<std::vector<Value<F32Domain>>> in(1);
    std::vector<std::vector<Value<BoundDomain>>> bin(1);
    for (const auto& a : m.function().arguments) {
      std::vector<float> v(static_cast<std::size_t>(num_elements(a.type.shape)));
      std::vector<BoundScalar> b;
      for (auto& x : v) {
        x = u(rng);
        b.push_back(profile.from_double(x));
      }
      in[0].push_back(Tensor<float>(a.type.shape, v));
      bin[0].push_back(Tensor<BoundScalar>(a.type.shape, b));
    }
    const auto dev = cuda::run_on_backend(m, *device, in, 1).outputs[0];
    const auto ref = cuda::run_on_backend(m, *host, in, 1).outputs[0];
    RunOptions o;
    const auto bound = run_program(m, profile, std::move(bin), o).outputs[0];
    const auto& y = std::get<Tensor<float>>(dev[0]).data;
    const auto& h = std::get<Tensor<float>>(ref[0]).data;
    const auto& b = std::get<Tensor<BoundScalar>>(bound[0]).data;
    bool same = true;
    for (std::size_t k = 0; k < y.size(); ++k) {
      same = same && (y[k] == h[k] || (std::isnan(y[k]) && std::isnan(h[k])));
      if (judge_element(profile, b[k], y[k]).over) {
        if (++failures <= 5)
          std::printf("FAIL program %d element %zu: device %.9g, bound %s\n%s\n", i, k, y[k], profile.to_string(b[k]).c_str(), tc.text.c_str());
      }
    }
    identical += same;
    bool uses_library = false;
    for (const char* op : library_ops) uses_library = uses_library || tc.text.find(op) != std::string::npos;
    if (!uses_library) {
      ++plain;
      plain_identical += same;
      if (!same && ++failures <= 5) std::printf("FAIL program %d: not bit-identical to the host path, and it calls no library function\n%s\n", i, tc.text.c_str());
    }
  }
  std::printf("%d random programs on %s: %d bit-identical to the host path (%d of the %d that call no exp, log, tanh, logistic or rsqrt); %d failures\n",
              programs, device->name().c_str(), identical, plain_identical, plain, failures);
  return failures == 0 ? 0 : 1;
}
