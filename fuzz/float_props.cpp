// The float32 properties: any summation order of an f32 run, and the CUDA kernels, lie inside
// the sound bound of their profile.
#include <cmath>
#include <memory>
#include <optional>

#include "ast/mlir_parse.hpp"
#include "fuzz/float_props.hpp"
#include "fuzz/gen_ops.hpp"
#include "interp/cuda/executor.hpp"
#include "oracle/float_check.hpp"
#include "oracle/sum_order_domain.hpp"

namespace shlo::fuzz {

namespace {

using nlohmann::json;

// An op-level program with the float operations (compare/select, pooling, scatter,
// convolution, divide, log, rsqrt, exp, ...), its inputs, and an evaluation order.
rc::Gen<Instance> float_program() {
  return rc::gen::exec([] {
    const TextCase tc = *gen_op_program(true, true);
    Instance i;
    json inputs = json::object();
    for (const auto& [name, v] : tc.inputs[0]) {
      json values = json::array();
      for (const auto& q : v) values.push_back(static_cast<double>(round_rational<float>(q)));  // float32 inputs
      inputs[name] = values;
    }
    i.data = {{"program", tc.text}, {"inputs", inputs}, {"order", *rc::gen::inRange(0, 4)}, {"seed", *rc::gen::inRange(0, 1000)}};
    return i;
  });
}

struct Program {
  Module module;
  std::vector<std::vector<float>> inputs;  // per argument
};

Program program_of(const Instance& i) {
  Program p{parse_module(i.data.at("program").get<std::string>(), "program.mlir"), {}};
  const float scale = i.data.value("scale", 1.0f);  // the overflow property's inputs are scaled up
  for (const auto& a : p.module.function().arguments) {
    p.inputs.push_back(i.data.at("inputs").at(a.name).get<std::vector<float>>());
    for (float& x : p.inputs.back()) x *= scale;
  }
  return p;
}

template <class D>
std::vector<Value<D>> run_on(const D& d, const Program& p) {
  std::vector<std::vector<Value<D>>> in(1);
  for (std::size_t k = 0; k < p.inputs.size(); ++k) {
    std::vector<typename D::Scalar> v;
    for (float x : p.inputs[k]) v.push_back(d.from_double(x));
    in[0].push_back(Tensor<typename D::Scalar>(p.module.function().arguments[k].type.shape, std::move(v)));
  }
  RunOptions o;
  return run_program(p.module, d, std::move(in), o).outputs[0];
}

// Judges float results y[k] against the bound; the control moves each result three bounds
// away from the exact value's enclosure first, which must be flagged.
Verdict judge_all(const BoundDomain& d, const std::vector<BoundScalar>& bound, const std::vector<double>& y, bool moved) {
  for (std::size_t k = 0; k < y.size(); ++k) {
    double v = y[k];
    if (moved) {
      const BoundScalar s = d.closed(bound[k]);
      const double b = d.bound(s);
      if (!(b > 0) || std::isinf(b) || !std::isfinite(s.hi) || s.hi + 3 * b == s.hi) continue;
      v = s.hi + 3 * b;
    }
    if (judge_element(d, bound[k], v).over)
      return Verdict::fail("element " + std::to_string(k) + ": " + std::to_string(v) + " lies outside " + d.to_string(bound[k]));
  }
  return Verdict::pass();
}

std::vector<BoundScalar> bound_of(const BoundDomain& d, const Program& p) {
  return std::get<Tensor<BoundScalar>>(run_on(d, p)[0]).data;
}

Verdict any_order_within_bound(const Instance& i, bool moved) {
  const Program p = program_of(i);
  const BoundDomain ieee(float_profile("ieee"));
  const SumOrderDomain f32(static_cast<SumOrder>(i.data.value("order", 0)), i.data.value("seed", 0u));
  const auto out = std::get<Tensor<OrderedF32>>(run_on(f32, p)[0]).data;
  std::vector<double> y;
  for (const auto& s : out) y.push_back(f32.value(s));
  return judge_all(ieee, bound_of(ieee, p), y, moved);
}

// The same programs with their inputs scaled by 16 to 1024, so that exps overflow and what
// IEEE 754 makes of it follows (interp/bound/nonfinite.cpp): where the analysis says every
// evaluation gives inf or NaN, every order's f32 value must be that one (judge_element). The
// control puts 0.5 where the analysis says inf or NaN, and moves the others as above.
rc::Gen<Instance> overflowing_program() {
  return rc::gen::exec([] {
    Instance i = *float_program();
    i.data["scale"] = static_cast<float>(1 << *rc::gen::inRange(4, 11));
    return i;
  });
}

Verdict overflow_as_certain(const Instance& i, bool control) {
  const Program p = program_of(i);
  const BoundDomain ieee(float_profile("ieee"));
  std::vector<BoundScalar> bound;
  try {
    bound = bound_of(ieee, p);
  } catch (const DomainError& e) {  // scaled inputs may leave a log's or a divisor's domain
    return Verdict::discard(e.what());
  }
  const SumOrderDomain f32(static_cast<SumOrder>(i.data.value("order", 0)), i.data.value("seed", 0u));
  const auto out = std::get<Tensor<OrderedF32>>(run_on(f32, p)[0]).data;
  std::vector<double> y;
  for (const auto& s : out) y.push_back(f32.value(s));
  // The values certain but for an improbable event (decided by the statistical tier) must be
  // met as well: an honest evaluation misses one with probability below the check's delta.
  auto probable_met = [&]() -> std::optional<Verdict> {
    for (std::size_t k = 0; k < y.size(); ++k) {
      const BoundScalar s = ieee.closed(bound[k]);
      if (nonfinite(s) && ieee.probable(s) && judge_element(ieee, s, y[k]).improbable)
        return Verdict::fail("element " + std::to_string(k) + ": " + std::to_string(y[k]) + " where " + ieee.to_string(s));
    }
    return std::nullopt;
  };
  if (control) {
    bool certain = false;
    for (std::size_t k = 0; k < y.size(); ++k) {
      const BoundScalar s = ieee.closed(bound[k]);
      const auto kind = ieee.kind(s);
      if (kind == BoundDomain::Kind::PosInf || kind == BoundDomain::Kind::NegInf || kind == BoundDomain::Kind::NaN) {
        y[k] = 0.5;
        certain = true;
      }
    }
    if (certain) {
      if (auto missed = probable_met()) return *missed;
      return judge_all(ieee, bound, y, false);
    }
  }
  if (auto missed = probable_met()) return *missed;
  return judge_all(ieee, bound, y, control);
}

// The kernels run on the GPU when there is one, else on their host path.
cuda::Backend& kernels() {
  static std::unique_ptr<cuda::Backend> backend = [] {
    std::string why;
    auto device = cuda::make_device_backend(why);
    return device ? std::move(device) : cuda::make_host_backend();
  }();
  return *backend;
}

Verdict cuda_within_bound(const Instance& i, bool moved) {
  const Program p = program_of(i);
  std::vector<std::vector<Value<F32Domain>>> in(1);
  for (std::size_t k = 0; k < p.inputs.size(); ++k) in[0].push_back(Tensor<float>(p.module.function().arguments[k].type.shape, p.inputs[k]));
  const auto run = cuda::run_on_backend(p.module, kernels(), in, 1);
  const auto& out = std::get<Tensor<float>>(run.outputs[0][0]).data;
  const BoundDomain cuda(float_profile("cuda"));
  return judge_all(cuda, bound_of(cuda, p), std::vector<double>(out.begin(), out.end()), moved);
}

}  // namespace

std::vector<Property> float_properties() {
  return {
      {"domains.f32_any_order_within_bound",
       "f32 in any summation order (left, reversed, pairwise, shuffled) lies within the sound ieee-profile bound", "", float_program,
       [](const Instance& i) { return any_order_within_bound(i, false); }, [](const Instance& i) { return any_order_within_bound(i, true); }},
      {"domains.f32_overflow_as_certain",
       "with inputs scaled up until exps overflow, f32 in any order is the inf or NaN the analysis says every evaluation gives "
       "(or every one but for an improbable event), and within the bound elsewhere",
       "", overflowing_program, [](const Instance& i) { return overflow_as_certain(i, false); },
       [](const Instance& i) { return overflow_as_certain(i, true); }},
      {"cuda.kernels_within_bound", "the CUDA float32 kernels (on the GPU, or their host path) lie within the cuda-profile bound", "",
       float_program, [](const Instance& i) { return cuda_within_bound(i, false); }, [](const Instance& i) { return cuda_within_bound(i, true); }},
  };
}

}  // namespace shlo::fuzz
