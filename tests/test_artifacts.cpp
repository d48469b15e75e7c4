// The ladder of real programs: each runs; the data-parallel one means what its all_reduce
// promises; f32 results sit within a few ulps of the certified enclosure.
#include <cmath>
#include <map>
#include <random>

#include "ast/mlir_print.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

// Random float32-representable inputs in [lo, hi), the same for every domain.
template <class D>
std::vector<std::vector<Value<D>>> random_inputs(const D& d, const Module& m, int replicas, unsigned seed, float lo, float hi) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<std::vector<Value<D>>> inputs(static_cast<std::size_t>(replicas));
  for (auto& replica : inputs)
    for (const auto& arg : m.function().arguments) {
      std::vector<typename D::Scalar> v;
      for (std::int64_t i = 0; i < num_elements(arg.type.shape); ++i) v.push_back(d.from_double(u(gen)));
      replica.push_back(Tensor<typename D::Scalar>(arg.type.shape, std::move(v)));
    }
  return inputs;
}

template <class D>
RunResult<D> run_random(const D& d, const Module& m, int replicas, unsigned seed, float lo, float hi) {
  RunOptions options;
  options.replicas = replicas;
  return run_program(m, d, random_inputs(d, m, replicas, seed, lo, hi), options);
}

}  // namespace

TEST_CASE("every program of the first ladder runs in f64 on random inputs", "[artifacts][slow]") {
  SHLO_REQUIRE_ARTIFACTS(dir);
  int ran = 0;
  for (const auto& path : ladder_files(dir)) {
    const std::string name = std::filesystem::path(path).filename().string();
    INFO(name);
    const Module m = parse_module_file(path);
    const int replicas = name.find("dp") != std::string::npos ? 2 : 1;
    // Small positive inputs: second moments and bias corrections must not be negative, and
    // the logits of eight layers of positive weights must not overflow exp (with inputs in
    // [0, 0.05) the cifar8 logits reach ~1e5 and exp overflows even in f64).
    const auto result = run_random(F64Domain{}, m, replicas, 7, 0.0f, 0.01f);
    REQUIRE(result.outputs.size() == static_cast<std::size_t>(replicas));
    REQUIRE(result.outputs[0].size() == m.function().return_values.size());
    for (std::size_t i = 0; i < result.outputs[0].size(); ++i) {
      const auto& t = std::get<Tensor<double>>(result.outputs[0][i]);
      CHECK(t.shape == m.function().return_types[i].shape);
      bool finite = true;
      for (double x : t.data) finite = finite && std::isfinite(x);
      CHECK(finite);
    }
    ++ran;
  }
  CHECK(ran == 13);
}

// Every all_reduce block of the data-parallel artifact (all_reduce, the constant R.0, the
// divide), cut out as it is written and run on two replicas in exact arithmetic, gives the
// replica mean of its operand.
TEST_CASE("the data-parallel artifact's all_reduce blocks denote the replica mean, exactly", "[artifacts][replicas]") {
  SHLO_REQUIRE_ARTIFACTS(dir);
  const Module m = parse_module_file(dir + "/cifar8_adamdp_train_step.mlir");
  const auto insts = instructions(m.function());
  std::mt19937 gen(11);
  std::uniform_int_distribution<int> num(-1000, 1000), den(1, 97);
  int blocks = 0;
  for (std::size_t k = 0; k < insts.size(); ++k) {
    if (insts[k]->op != Op::AllReduce) continue;
    REQUIRE(k + 2 < insts.size());
    const Instruction& divisor = *insts[k + 1];
    const Instruction& divide = *insts[k + 2];
    REQUIRE(divisor.op == Op::Constant);
    REQUIRE(divide.op == Op::Divide);
    REQUIRE(divide.operands == std::vector<std::string>{insts[k]->result, divisor.result});
    Instruction all_reduce = *insts[k];
    const TensorType type = all_reduce.operand_types[0];
    all_reduce.operands[0] = "%g";
    Function f;
    f.name = "block";
    f.arguments = {Argument{"%g", type, "", {}}};
    f.result_types = {type};
    f.body = {all_reduce, divisor, divide};
    f.return_values = {divide.result};
    f.return_types = {type};
    Module block;
    block.name = "m";
    block.functions = {f};
    block.file = "block.mlir";
    const std::string text = print_module(block);
    std::vector<std::vector<std::vector<std::string>>> inputs(2, {{}});
    const std::int64_t n = num_elements(type.shape);
    for (auto& replica : inputs)
      for (std::int64_t i = 0; i < n; ++i) replica[0].push_back(std::to_string(num(gen)) + "/" + std::to_string(den(gen)));
    const auto out = run_text(ExactDomain{}, text, inputs);
    for (int r = 0; r < 2; ++r)
      for (std::int64_t i = 0; i < n; ++i) {
        const ExactDomain E;
        const auto mean = E.div(E.add(E.parse(inputs[0][0][static_cast<std::size_t>(i)]), E.parse(inputs[1][0][static_cast<std::size_t>(i)])),
                                E.from_literal("2"));
        REQUIRE(out[static_cast<std::size_t>(r)][0][static_cast<std::size_t>(i)] == E.to_string(mean));
      }
    ++blocks;
  }
  CHECK(blocks == 22);
}

// Control for the test above: a block whose divisor is R-1 instead of R does not give the mean.
TEST_CASE("control: an all_reduce block dividing by R-1 is not the mean", "[artifacts][replicas]") {
  const std::string text = module_text(
      "%g: tensor<2xf32>", "tensor<2xf32>",
      "    %s = \"stablehlo.all_reduce\"(%g) ({\n    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
      "      %c = stablehlo.add %a, %b : tensor<f32>\n      stablehlo.return %c : tensor<f32>\n"
      "    }) { replica_groups = dense<[[0, 1]]> : tensor<1x2xi64> } : (tensor<2xf32>) -> tensor<2xf32>\n"
      "    %n = stablehlo.constant dense<1.0> : tensor<2xf32>\n    %r = stablehlo.divide %s, %n : tensor<2xf32>\n",
      "%r");
  const auto out = run_text(ExactDomain{}, text, {{{"1", "3"}}, {{"2", "5"}}});
  CHECK(out[0][0] != Strings{"3/2", "4"});
}

// f32 against the interval:256 enclosure on the cheap rungs of the ladder: how many ulps
// from the enclosure each element lands. Positive inputs keep the sums free of cancellation,
// where a distance in ulps of the result means something (with mixed signs a result near 0
// can be thousands of its own ulps away; the error bound of the float-check work covers
// that). Even so a bias update b - lr*sum(p - y) of a tiny b cancels: a few elements land
// ~150 ulps away. Asserted: 90% within 16 ulps, none beyond 1024; the histogram is reported.
TEST_CASE("f32 results of the ladder lie within a few ulps of the interval:256 enclosure", "[artifacts][interval]") {
  SHLO_REQUIRE_ARTIFACTS(dir);
  for (const char* name : {"linear_fwd.mlir", "linear_train_step.mlir"}) {
    const Module m = parse_module_file(dir + "/" + name);
    const IntervalDomain I(256);
    const auto f32 = run_random(F32Domain{}, m, 1, 3, 0.0f, 0.1f);
    const auto enclosure = run_random(I, m, 1, 3, 0.0f, 0.1f);
    std::map<int, int> histogram;  // ulps outside the enclosure (0 = inside or touching) -> count
    double worst = 0;
    std::int64_t total = 0;
    for (std::size_t i = 0; i < f32.outputs[0].size(); ++i) {
      const auto& f = std::get<Tensor<float>>(f32.outputs[0][i]);
      const auto& e = std::get<Tensor<BigInterval>>(enclosure.outputs[0][i]);
      for (std::int64_t j = 0; j < f.size(); ++j) {
        const double x = f[j];
        const double lo = mpfr_get_d(e[j].lo(), MPFR_RNDD), hi = mpfr_get_d(e[j].hi(), MPFR_RNDU);
        const double ulp = std::ldexp(1.0, std::ilogb(std::max(std::fabs(x), 0x1p-126)) - 23);
        const double ulps = std::isfinite(x) ? std::max({0.0, (x - hi) / ulp, (lo - x) / ulp}) : 1e9;
        worst = std::max(worst, ulps);
        ++histogram[ulps == 0 ? 0 : ulps <= 1 ? 1 : ulps <= 4 ? 4 : ulps <= 16 ? 16 : ulps <= 64 ? 64 : ulps <= 1024 ? 1024 : 1 << 30];
        ++total;
      }
    }
    std::ostringstream report;
    report << name << ": " << total << " f32 elements; inside the enclosure: " << histogram[0] << ", within 1 ulp: " << histogram[1]
           << ", within 4: " << histogram[4] << ", within 16: " << histogram[16] << ", within 64: " << histogram[64]
           << ", within 1024: " << histogram[1024] << ", beyond (or not finite): " << histogram[1 << 30]
           << "; worst " << worst << " ulps";
    WARN(report.str());
    CHECK(histogram[1 << 30] == 0);
    CHECK(histogram[0] + histogram[1] + histogram[4] + histogram[16] >= total * 9 / 10);  // nearly all within 16 ulps
  }
}
