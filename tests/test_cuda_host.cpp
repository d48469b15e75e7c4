// The CUDA kernels' host path (the same kernel bodies, run in a loop) against the f32 domain:
// op by op, on random op-level programs, and on an artifact with every op kind of a train step.
#include <catch2/catch.hpp>
#include <rapidcheck.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "ast/mlir_parse.hpp"
#include "fuzz/gen_ops.hpp"
#include "interp/cuda/executor.hpp"
#include "oracle/float_check.hpp"

using namespace shlo;

namespace {

std::vector<std::vector<Value<F32Domain>>> random_inputs(const Module& m, std::uint64_t seed, float lo, float hi) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<std::vector<Value<F32Domain>>> in(1);
  for (const auto& a : m.function().arguments) {
    std::vector<float> v(static_cast<std::size_t>(num_elements(a.type.shape)));
    for (auto& x : v) x = u(gen);
    in[0].push_back(Tensor<float>(a.type.shape, v));
  }
  return in;
}

std::vector<Value<F32Domain>> f32_run(const Module& m, std::vector<std::vector<Value<F32Domain>>> in) {
  RunOptions o;
  return run_program(m, F32Domain{}, std::move(in), o).outputs[0];
}

std::int64_t ulps_apart(float a, float b) {
  if (a == b) return 0;
  std::int32_t x, y;
  std::memcpy(&x, &a, 4);
  std::memcpy(&y, &b, 4);
  if (x < 0) x = INT32_MIN - x;
  if (y < 0) y = INT32_MIN - y;
  return std::llabs(static_cast<long long>(x) - y);
}

// Largest ulp distance between two runs' float outputs (i1 outputs must be equal).
std::int64_t max_ulps(const std::vector<Value<F32Domain>>& a, const std::vector<Value<F32Domain>>& b) {
  std::int64_t worst = 0;
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (const auto* p = std::get_if<PredTensor>(&a[i])) {
      CHECK(p->data == std::get<PredTensor>(b[i]).data);
      continue;
    }
    const auto& x = std::get<Tensor<float>>(a[i]).data;
    const auto& y = std::get<Tensor<float>>(b[i]).data;
    REQUIRE(x.size() == y.size());
    for (std::size_t k = 0; k < x.size(); ++k) worst = std::max(worst, ulps_apart(x[k], y[k]));
  }
  return worst;
}

std::string unary_program(const char* op) {
  return std::string("module @m {\n  func.func @f(%x: tensor<64xf32>) -> tensor<64xf32> {\n    %r = stablehlo.") + op +
         " %x : tensor<64xf32>\n    return %r : tensor<64xf32>\n  }\n}\n";
}

}  // namespace

TEST_CASE("cuda host path: every elementwise kernel against the f32 domain", "[cuda]") {
  auto host = cuda::make_host_backend();
  // Correctly rounded ops: bit for bit. Library functions: glibc's float functions against
  // the f32 domain's double-then-round, within their documented ulps.
  const std::pair<const char*, std::int64_t> unary[] = {{"negate", 0}, {"abs", 0}, {"sqrt", 0}, {"exponential", 1}, {"log", 1},
                                                        {"tanh", 2},   {"rsqrt", 1}, {"logistic", 2}};
  for (const auto& [op, allowed] : unary) {
    INFO(op);
    const Module m = parse_module(unary_program(op), "u.mlir");
    const auto in = random_inputs(m, 7, 0.01f, 9.0f);
    CHECK(max_ulps(cuda::run_on_backend(m, *host, in, 1).outputs[0], f32_run(m, in)) <= allowed);
  }
  for (const char* op : {"add", "subtract", "multiply", "divide", "maximum", "minimum"}) {
    INFO(op);
    const std::string text = std::string("module @m {\n  func.func @f(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {\n    %r = stablehlo.") +
                             op + " %x, %y : tensor<64xf32>\n    return %r : tensor<64xf32>\n  }\n}\n";
    const Module m = parse_module(text, "b.mlir");
    const auto in = random_inputs(m, 11, -4.0f, 4.0f);
    CHECK(max_ulps(cuda::run_on_backend(m, *host, in, 1).outputs[0], f32_run(m, in)) == 0);
  }
  // Control: a different op is far away.
  const Module e = parse_module(unary_program("exponential"), "u.mlir"), l = parse_module(unary_program("log"), "u.mlir");
  const auto in = random_inputs(e, 7, 0.01f, 9.0f);
  CHECK(max_ulps(cuda::run_on_backend(e, *host, in, 1).outputs[0], f32_run(l, in)) > 1000);
}

TEST_CASE("cuda host path: random op-level programs agree with the f32 domain, and lie within the bound", "[cuda]") {
  auto host = cuda::make_host_backend();
  const auto gen = fuzz::gen_op_program(true, true);
  const BoundDomain ieee(float_profile("ieee"));
  int identical = 0, programs = 0;
  for (int i = 0; i < 2000; ++i) {
    const TextCase tc = gen(rc::Random(static_cast<std::uint64_t>(i) * 104729 + 3), 30).value();
    INFO(tc.text);
    const Module m = parse_module(tc.text, "random.mlir");
    const auto in = random_inputs(m, static_cast<std::uint64_t>(i), -3.0f, 3.0f);
    const auto dev = cuda::run_on_backend(m, *host, in, 1).outputs[0];
    const auto ref = f32_run(m, in);
    const bool library = tc.text.find("exponential") != std::string::npos || tc.text.find("log") != std::string::npos ||
                         tc.text.find("tanh") != std::string::npos || tc.text.find("rsqrt") != std::string::npos;
    if (!library) {  // same kernels, same order: bit for bit
      REQUIRE(max_ulps(dev, ref) == 0);
      ++identical;
    }
    // Always: inside the sound bound of the ieee profile.
    std::vector<std::vector<Value<BoundDomain>>> bin(1);
    for (const auto& v : in[0]) {
      std::vector<BoundScalar> s;
      for (float x : std::get<Tensor<float>>(v).data) s.push_back(ieee.from_double(x));
      bin[0].push_back(Tensor<BoundScalar>(std::get<Tensor<float>>(v).shape, s));
    }
    RunOptions o;
    const auto bound = run_program(m, ieee, std::move(bin), o).outputs[0];
    const auto& b = std::get<Tensor<BoundScalar>>(bound[0]).data;
    const auto& y = std::get<Tensor<float>>(dev[0]).data;
    for (std::size_t k = 0; k < y.size(); ++k) REQUIRE_FALSE(judge_element(ieee, b[k], y[k]).over);
    ++programs;
  }
  CHECK(programs == 2000);
  CHECK(identical > 300);
}

TEST_CASE("cuda host path: a CNN train step (conv, pooling, select_and_scatter, reduce) bit for bit", "[cuda][artifacts]") {
  const std::string path = std::string(SHLO_ARTIFACTS_DIR) + "/cnn_train_step.mlir";
  if (!std::ifstream(path)) {
    WARN("skipped: " << path << " is absent");
    return;
  }
  const Module m = parse_module_file(path);
  const auto in = random_inputs(m, 5, 0.0f, 0.01f);
  auto host = cuda::make_host_backend();
  CHECK(max_ulps(cuda::run_on_backend(m, *host, in, 1).outputs[0], f32_run(m, in)) == 0);
}

TEST_CASE("cuda: without a device the backend says why", "[cuda]") {
  std::string why;
  auto dev = cuda::make_device_backend(why);
  if (dev) {
    CHECK(why.empty());
  } else {
    CHECK_FALSE(why.empty());
  }
  CHECK(cuda::built_with_cuda() == (std::string(SHLO_CUDA_BUILT) == "1"));
}

TEST_CASE("cuda host path: iota, bf16 convert, and/or on i1, select on a scalar predicate, all_reduce on 3 replicas", "[cuda]") {
  const char* text = R"(module @m {
  func.func @f(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xf32>) {
    %i = stablehlo.iota dim = 1 : tensor<2x3xf32>
    %a = stablehlo.add %x, %i : tensor<2x3xf32>
    %b = stablehlo.convert %a : (tensor<2x3xf32>) -> tensor<2x3xbf16>
    %c = stablehlo.convert %b : (tensor<2x3xbf16>) -> tensor<2x3xf32>
    %p = stablehlo.compare GT, %c, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %q = stablehlo.compare LE, %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %r = stablehlo.and %p, %q : tensor<2x3xi1>
    %s = stablehlo.or %r, %q : tensor<2x3xi1>
    %t = stablehlo.constant dense<true> : tensor<i1>
    %u = stablehlo.select %t, %c, %y : tensor<i1>, tensor<2x3xf32>
    %v = "stablehlo.all_reduce"(%u) ({
    ^bb0(%e: tensor<f32>, %g: tensor<f32>):
      %h = stablehlo.add %e, %g : tensor<f32>
      stablehlo.return %h : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %w = stablehlo.concatenate %s, %s, dim = 0 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<4x3xi1>
    %z = stablehlo.slice %w [1:3, 0:3] : (tensor<4x3xi1>) -> tensor<2x3xi1>
    return %v, %z, %c : tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xf32>
  }
})";
  const Module m = parse_module(text, "misc.mlir");
  std::vector<std::vector<Value<F32Domain>>> in;
  for (int r = 0; r < 3; ++r) in.push_back(random_inputs(m, static_cast<std::uint64_t>(r) + 40, -2.0f, 2.0f)[0]);
  auto host = cuda::make_host_backend();
  const auto dev = cuda::run_on_backend(m, *host, in, 3).outputs;
  RunOptions o;
  o.replicas = 3;
  const auto ref = run_program(m, F32Domain{}, in, o).outputs;
  for (int r = 0; r < 3; ++r) CHECK(max_ulps(dev[static_cast<std::size_t>(r)], ref[static_cast<std::size_t>(r)]) == 0);
  // bf16 really rounded: 1 + 2^-9 (between bf16 neighbours 1 and 1 + 2^-7) goes to 1.
  CHECK(cuda::to_bf16(1.0f + 0x1p-9f) == 1.0f);
  CHECK(cuda::to_bf16(1.0f + 0x1p-7f + 0x1p-9f) == 1.0f + 0x1p-7f);
  CHECK(cuda::to_bf16(1.0f + 0x1p-8f) == 1.0f);  // a tie: to even
  CHECK(cuda::to_bf16(1.0f + 0x1p-7f + 0x1p-8f) == 1.0f + 0x1p-6f);
}
