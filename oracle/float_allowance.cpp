#include "oracle/float_allowance.hpp"

#include <cmath>

#include "ast/mlir_parse.hpp"
#include "ast/mlir_print.hpp"
#include "interp/domain/domain_spec.hpp"
#include "interp/run.hpp"

namespace shlo {

namespace {

enum class Kind { Exact, Rounded, Libm, Sum };

Kind kind_of(Op op) {
  switch (op) {
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Sqrt: case Op::Constant: return Kind::Rounded;
    case Op::Exponential: case Op::Log: case Op::Tanh: case Op::Logistic: case Op::Rsqrt: return Kind::Libm;
    case Op::DotGeneral: case Op::Reduce: case Op::Convolution: case Op::ReduceWindow: return Kind::Sum;
    case Op::Maximum: case Op::Minimum: case Op::And: case Op::Or: case Op::Negate: case Op::Abs:
    case Op::Compare: case Op::Select: case Op::Convert: case Op::Iota: case Op::BroadcastInDim:
    case Op::Reshape: case Op::Transpose: case Op::Reverse: case Op::Slice: case Op::Pad: case Op::Concatenate:
    case Op::SelectAndScatter: case Op::AllReduce: return Kind::Exact;
    SHLO_CASES_INTEGER_AND_MATH_OPS:
      throw std::runtime_error(std::string("stablehlo.") + op_name(op) + " has no float32 allowance");
  }
  throw std::logic_error("kind_of: not an op");
}

// The libm allowance in ulps of the result. f32: computed in double and rounded once, so half
// an ulp plus a double-sized error: 1. f64: glibc's documented maximum errors on x86-64
// (exp, log 1; tanh 2), and for the composites rsqrt = 1/sqrt (2) and logistic =
// 1/(1 + exp(-x)) (3).
template <class T>
double libm_ulps(Op op) {
  if (std::is_same_v<T, float>) return 1;
  switch (op) {
    case Op::Tanh: case Op::Rsqrt: return 2;
    case Op::Logistic: return 3;
    case Op::Exponential: case Op::Log: case Op::Sqrt:
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Maximum: case Op::Minimum:
    case Op::And: case Op::Or: case Op::Negate: case Op::Abs: case Op::Compare: case Op::Select: case Op::Convert:
    case Op::Constant: case Op::Iota: case Op::BroadcastInDim: case Op::Reshape: case Op::Transpose:
    case Op::Reverse: case Op::Slice: case Op::Pad: case Op::Concatenate: case Op::DotGeneral:
    case Op::Convolution: case Op::Reduce: case Op::ReduceWindow: case Op::SelectAndScatter: case Op::AllReduce:
    SHLO_CASES_INTEGER_AND_MATH_OPS:
      return 1;
  }
  return 1;  // not an enumerator
}

// Terms per result element of a sum.
std::int64_t sum_length(const Instruction& inst) {
  std::int64_t n = 1;
  const auto& a = inst.attributes;
  if (inst.op == Op::DotGeneral)
    for (auto d : a.lhs_contracting_dimensions) n *= inst.operand_types[0].shape[static_cast<std::size_t>(d)];
  else if (inst.op == Op::Convolution)  // the window times the group's input features
    for (std::size_t k = 0; k < inst.operand_types[1].shape.size(); ++k)
      n *= static_cast<std::int64_t>(k) == a.conv.kernel_output_feature ? 1 : inst.operand_types[1].shape[k];
  else if (inst.op == Op::ReduceWindow)
    for (auto w : a.window_dimensions) n *= w;
  else
    for (auto d : inst.attributes.dimensions) n *= inst.operand_types[0].shape[static_cast<std::size_t>(d)];
  return n + 1;  // the init (or the +0 start) counts as a term
}

// One instruction as a module over its operands.
std::string single_op_module(const Instruction& inst) {
  std::string sig;
  std::vector<std::string> seen;
  for (std::size_t i = 0; i < inst.operands.size(); ++i) {
    if (std::find(seen.begin(), seen.end(), inst.operands[i]) != seen.end()) continue;
    seen.push_back(inst.operands[i]);
    sig += (sig.empty() ? "" : ", ") + inst.operands[i] + ": " + to_string(inst.operand_types[i]);
  }
  return "module @m {\n  func.func @op(" + sig + ") -> " + to_string(inst.result_type) + " {\n" + print_instruction(inst) + "    return " +
         inst.result + " : " + to_string(inst.result_type) + "\n  }\n}\n";
}

template <class T>
FloatCheck check(const TextCase& tc, bool perturb) {
  using D = IeeeDomain<T>;
  const D d;
  const IntervalDomain I(128);
  const double u = std::ldexp(1.0, -std::numeric_limits<T>::digits);
  FloatCheck out;
  const Module m = parse_module(tc.text, "program.mlir");
  std::vector<std::vector<Value<D>>> inputs(1);
  for (const auto& arg : m.function().arguments) {
    std::vector<T> v;
    for (const auto& q : tc.inputs[0].at(arg.name)) v.push_back(d.from_rational(q));
    inputs[0].push_back(Tensor<T>(arg.type.shape, std::move(v)));
  }
  RunOptions options;
  options.keep_values = true;
  const auto run = run_program(m, d, std::move(inputs), options);
  const auto& env = run.values.at(0);
  const auto insts = instructions(m.function());
  for (std::size_t k = 0; k < insts.size(); ++k) {
    const Instruction& inst = *insts[k];
    if (inst.result_type.element == ElementType::I1) continue;
    // The exact operation on the float operands, enclosed; for sums also on |operands|.
    const Module one = parse_module(single_op_module(inst), "op.mlir");
    std::vector<std::vector<Value<IntervalDomain>>> exact_in(1), abs_in(1);
    for (const auto& arg : one.function().arguments) {
      const auto& t = std::get<Tensor<T>>(env.at(arg.name));
      std::vector<BigInterval> a, b;
      for (T x : t.data) {
        a.push_back(I.from_double(static_cast<double>(x)));
        b.push_back(I.from_double(std::fabs(static_cast<double>(x))));
      }
      exact_in[0].push_back(Tensor<BigInterval>(t.shape, std::move(a)));
      abs_in[0].push_back(Tensor<BigInterval>(t.shape, std::move(b)));
    }
    const Kind kind = kind_of(inst.op);
    const auto enclosure = std::get<Tensor<BigInterval>>(run_program(one, I, exact_in, RunOptions{}).outputs[0][0]);
    Tensor<BigInterval> magnitude;
    if (kind == Kind::Sum) magnitude = std::get<Tensor<BigInterval>>(run_program(one, I, abs_in, RunOptions{}).outputs[0][0]);
    Tensor<T> got = std::get<Tensor<T>>(env.at(inst.result));
    const bool last = k + 1 == insts.size();
    for (std::int64_t i = 0; i < got.size(); ++i) {
      double allowance = 0;
      switch (kind) {
        case Kind::Exact: allowance = 0; break;
        case Kind::Rounded: allowance = 0.5 * ieee_ulp<T>(got[i]); break;
        case Kind::Libm: allowance = libm_ulps<T>(inst.op) * ieee_ulp<T>(got[i]); break;
        case Kind::Sum: {
          const double n = static_cast<double>(sum_length(inst));
          const double gamma = n * u / (1 - n * u);
          allowance = gamma * mpfr_get_d(magnitude[i].hi(), MPFR_RNDU) * (1 + 4 * u);  // the product rounded up
          break;
        }
      }
      if (perturb && last && i == 0) got[i] = static_cast<T>(got[i] + std::max(4 * allowance, ieee_ulp<T>(got[i])));
      const double x = static_cast<double>(got[i]);
      if (std::isnan(x)) {
        out.within = false;
        out.detail = std::string(op_name(inst.op)) + " produced NaN at element " + std::to_string(i);
        return out;
      }
      // x within [lo - allowance, hi + allowance], decided in MPFR (no double rounding).
      BigFloat lo(200), hi(200), v(200);
      mpfr_set_d(v.get(), x, MPFR_RNDN);
      mpfr_set(lo.get(), enclosure[i].lo(), MPFR_RNDD);
      mpfr_sub_d(lo.get(), lo.get(), allowance, MPFR_RNDD);
      mpfr_set(hi.get(), enclosure[i].hi(), MPFR_RNDU);
      mpfr_add_d(hi.get(), hi.get(), allowance, MPFR_RNDU);
      if (mpfr_less_p(v.get(), lo.get()) || mpfr_greater_p(v.get(), hi.get())) {
        out.within = false;
        out.detail = inst.result + " = stablehlo." + op_name(inst.op) + ", element " + std::to_string(i) + ": " + d.to_string(got[i]) +
                     " is outside " + I.to_string(enclosure[i]) + " +- " + std::to_string(allowance);
        return out;
      }
    }
    ++out.ops_checked;
  }
  return out;
}

}  // namespace

FloatCheck float_run_within_allowance(const TextCase& tc, const std::string& domain, bool perturb) {
  if (domain == "f32") return check<float>(tc, perturb);
  if (domain == "f64") return check<double>(tc, perturb);
  throw std::invalid_argument("float_run_within_allowance: domain must be f32 or f64");
}

}  // namespace shlo
