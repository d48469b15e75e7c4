// The template body of run_program; included once per domain (run_<domain>.cpp) so that each
// domain is its own translation unit.
#pragma once

#include <unordered_map>

#include "ast/mlir_print.hpp"
#include "interp/domain/rounding.hpp"
#include "interp/ops/contraction.hpp"
#include "interp/ops/elementwise.hpp"
#include "interp/ops/movement.hpp"
#include "interp/ops/reduction.hpp"
#include "interp/replica_loop.hpp"
#include "interp/run.hpp"

namespace shlo {

namespace run_detail {

template <class D>
using S = typename D::Scalar;

template <class D>
std::size_t bytes_of(const Value<D>& v) {
  return std::visit([](const auto& t) { return t.data.size() * sizeof(t.data[0]); }, v);
}

// A value of a reduced-precision type is a number of that format: an op whose result is
// typed bf16 or f8E4M3FN computes exactly (in the domain) and rounds once to nearest even
// (interp/domain/rounding.hpp), so a contraction typed bf16 is summed exactly and rounded at
// its result, as the Lean den of the reduced-precision constructors models it. A value above
// the format's range is +-inf (bf16) or NaN (f8E4M3FN), the oracle's overflow policy.
template <class D>
Value<D> round_to_result_type(const D& d, ElementType element, Value<D>&& v) {
  if (element != ElementType::BF16 && element != ElementType::F8E4M3FN) return std::move(v);
  const LowPrecisionFormat f = element == ElementType::BF16 ? LowPrecisionFormat::BFloat16 : LowPrecisionFormat::F8E4M3FN;
  auto& t = std::get<Tensor<S<D>>>(v);
  for (auto& x : t.data) {
    try {
      x = round_value(d, x, f, RoundingModel::NearestEven);
    } catch (const RoundingOverflow& overflow) {
      const std::uint64_t inf = overflow.negative() ? 0xFF800000u : 0x7F800000u;
      x = d.from_bits(f == LowPrecisionFormat::BFloat16 ? inf : 0x7FC00000u, FloatFormat::Binary32);
    }
  }
  return std::move(v);
}

// One instruction on one replica (everything but all_reduce), before its result type's rounding.
template <class D>
Value<D> execute_exactly(const D& d, const Instruction& inst, const std::vector<const Value<D>*>& args) {
  using T = Tensor<S<D>>;
  auto t = [&](std::size_t i) -> const T& { return std::get<T>(*args[i]); };
  auto p = [&](std::size_t i) -> const PredTensor& { return std::get<PredTensor>(*args[i]); };
  const auto& a = inst.attributes;
  const bool pred_values = inst.result_type.element == ElementType::I1;
  switch (inst.op) {
    case Op::Add: return ops::add(d, t(0), t(1));
    case Op::Subtract: return ops::subtract(d, t(0), t(1));
    case Op::Multiply: return ops::multiply(d, t(0), t(1));
    case Op::Divide: return ops::divide(d, t(0), t(1));
    case Op::Maximum: return ops::maximum(d, t(0), t(1));
    case Op::Minimum: return ops::minimum(d, t(0), t(1));
    case Op::And: return ops::and_(p(0), p(1));
    case Op::Or: return ops::or_(p(0), p(1));
    case Op::Negate: return ops::negate(d, t(0));
    case Op::Abs: return ops::abs(d, t(0));
    case Op::Exponential: return ops::exponential(d, t(0));
    case Op::Log: return ops::log(d, t(0));
    case Op::Sqrt: return ops::sqrt(d, t(0));
    case Op::Rsqrt: return ops::rsqrt(d, t(0));
    case Op::Tanh: return ops::tanh(d, t(0));
    case Op::Logistic: return ops::logistic(d, t(0));
    case Op::Compare: return ops::compare(d, parse_compare_direction(a.comparison_direction), t(0), t(1));
    case Op::Select: return ops::select(d, p(0), t(1), t(2));
    case Op::Convert:
      // #convert between float types keeps the value; a bf16 or f8E4M3FN result is then
      // rounded into its format like every result of that type (execute, below).
      if (is_float(inst.result_type.element) && is_float(inst.operand_types[0].element)) return *args[0];
      throw OpError(std::string("convert to ") + to_string(inst.result_type.element) + " is not supported");
    case Op::Constant:
      if (pred_values) return ops::pred_constant(a.literal, inst.result_type);
      return ops::constant(d, a.literal, inst.result_type);
    case Op::Iota: return ops::iota(d, inst.result_type, a.dimension);
    case Op::BroadcastInDim:
      if (pred_values) return ops::broadcast_in_dim(p(0), inst.result_type.shape, a.dimensions);
      return ops::broadcast_in_dim(t(0), inst.result_type.shape, a.dimensions);
    case Op::Reshape:
      if (pred_values) return ops::reshape(p(0), inst.result_type.shape);
      return ops::reshape(t(0), inst.result_type.shape);
    case Op::Transpose:
      if (pred_values) return ops::transpose(p(0), a.dimensions);
      return ops::transpose(t(0), a.dimensions);
    case Op::Reverse:
      if (pred_values) return ops::reverse(p(0), a.dimensions);
      return ops::reverse(t(0), a.dimensions);
    case Op::Slice:
      if (pred_values) return ops::slice(p(0), a.start_indices, a.limit_indices, a.strides);
      return ops::slice(t(0), a.start_indices, a.limit_indices, a.strides);
    case Op::Pad:
      if (pred_values) return ops::pad(p(0), p(1)[0], a.edge_padding_low, a.edge_padding_high, a.interior_padding);
      return ops::pad(t(0), t(1)[0], a.edge_padding_low, a.edge_padding_high, a.interior_padding);
    case Op::Concatenate: {
      if (pred_values) {
        std::vector<const PredTensor*> xs;
        for (std::size_t i = 0; i < args.size(); ++i) xs.push_back(&p(i));
        return ops::concatenate(xs, a.dimension);
      }
      std::vector<const T*> xs;
      for (std::size_t i = 0; i < args.size(); ++i) xs.push_back(&t(i));
      return ops::concatenate(xs, a.dimension);
    }
    case Op::DotGeneral: return ops::dot_general(d, t(0), t(1), dot_dimensions(a));
    case Op::Convolution: return ops::convolution(d, t(0), t(1), convolution_attributes(a), inst.result_type.shape);
    case Op::Reduce: return ops::reduce(d, t(0), t(1)[0], a.dimensions, *a.reduce_body);
    case Op::ReduceWindow:
      return ops::reduce_window(d, t(0), t(1)[0], window_attributes(a), region_binary_op(inst.regions[0], "reduce_window body"));
    case Op::SelectAndScatter:
      return ops::select_and_scatter(d, t(0), t(1), t(2)[0], window_attributes(a), region_compare(inst.regions[0]),
                                     region_binary_op(inst.regions[1], "scatter"));
    case Op::AllReduce:
      break;
  }
  throw OpError(std::string("stablehlo.") + op_name(inst.op) + " is not executable here");
}

// One instruction on one replica (everything but all_reduce).
template <class D>
Value<D> execute(const D& d, const Instruction& inst, const std::vector<const Value<D>*>& args) {
  return round_to_result_type(d, inst.result_type.element, execute_exactly(d, inst, args));
}

// The replica loop's backend for a domain's values on the CPU.
template <class D>
struct DomainBackend {
  const D& d;
  Value<D> execute(const Instruction& inst, const std::vector<const Value<D>*>& args) const { return run_detail::execute(d, inst, args); }
  Value<D> reshape(Value<D>&& v, const Shape& shape) const {
    return std::visit([&](auto&& t) -> Value<D> { return ops::reshape(std::move(t), shape); }, std::move(v));
  }
  // #all_reduce: one group's values combined in increasing replica id.
  Value<D> fold(Op body, const std::vector<const Value<D>*>& in_order) const {
    using T = Tensor<S<D>>;
    T acc = std::get<T>(*in_order[0]);
    for (std::size_t k = 1; k < in_order.size(); ++k) {
      const T& x = std::get<T>(*in_order[k]);
      for_each_element(acc.shape, acc.size(), [&](std::int64_t i) { acc[i] = combine(d, body, acc[i], x[i]); });
    }
    return acc;
  }
  std::size_t bytes(const Value<D>& v) const { return bytes_of<D>(v); }
};

}  // namespace run_detail

namespace run_detail {

template <class D>
RunResult<D> run_observed(const Module& m, const D& d, std::vector<std::vector<Value<D>>> inputs, const RunOptions& options,
                          ReplicaExchange<Value<D>>& exchange, const AfterInstruction<D>& after) {
  const Function& f = m.function();
  const auto local = exchange.local_replicas();
  if (inputs.size() != local.size())
    throw RunError("expected inputs for " + std::to_string(local.size()) + " replica(s), got " + std::to_string(inputs.size()));

  // Environment per local replica; inputs checked against the signature.
  std::vector<std::unordered_map<std::string, Value<D>>> env(local.size());
  for (std::size_t i = 0; i < local.size(); ++i) {
    auto& in = inputs[i];
    const std::string replica = "replica " + std::to_string(local[i]);
    if (in.size() != f.arguments.size())
      throw RunError(replica + ": expected " + std::to_string(f.arguments.size()) + " inputs, got " + std::to_string(in.size()));
    for (std::size_t a = 0; a < in.size(); ++a) {
      const Shape& shape = std::visit([](const auto& t) -> const Shape& { return t.shape; }, in[a]);
      const bool pred = std::holds_alternative<PredTensor>(in[a]);
      if (shape != f.arguments[a].type.shape || pred != (f.arguments[a].type.element == ElementType::I1))
        throw RunError("input " + f.arguments[a].name + " of " + replica + " has shape " + shape_to_string(shape) + (pred ? " (i1)" : "") +
                       ", expected " + to_string(f.arguments[a].type));
      env[i].emplace(f.arguments[a].name, std::move(in[a]));
    }
  }
  run_detail::DomainBackend<D> backend{d};
  LoopStats stats = run_replica_loop(m, backend, exchange, env, options, after);
  RunResult<D> result;
  result.profile = std::move(stats.profile);
  result.peak_live_bytes = stats.peak_live_bytes;
  result.outputs.resize(env.size());
  for (std::size_t i = 0; i < env.size(); ++i)
    for (const auto& name : f.return_values) result.outputs[i].push_back(env[i].at(name));
  if (options.keep_values) result.values = std::move(env);
  return result;
}

}  // namespace run_detail

template <class D>
RunResult<D> run_program(const Module& m, const D& d, std::vector<std::vector<Value<D>>> inputs, const RunOptions& options,
                         ReplicaExchange<Value<D>>& exchange) {
  return run_detail::run_observed(m, d, std::move(inputs), options, exchange, {});
}

template <class D>
RunResult<D> run_program(const Module& m, const D& d, std::vector<std::vector<Value<D>>> inputs, const RunOptions& options) {
  if (options.replicas < 1) throw RunError("the replica count must be at least 1");
  if (static_cast<int>(inputs.size()) != options.replicas)
    throw RunError("expected inputs for " + std::to_string(options.replicas) + " replica(s), got " + std::to_string(inputs.size()));
  InProcessExchange<Value<D>> exchange(options.replicas);
  return run_program(m, d, std::move(inputs), options, exchange);
}

template <class D>
RunResult<D> run_program_observed(const Module& m, const D& d, std::vector<std::vector<Value<D>>> inputs, const RunOptions& options,
                                  const AfterInstruction<D>& after) {
  if (options.replicas < 1) throw RunError("the replica count must be at least 1");
  if (static_cast<int>(inputs.size()) != options.replicas)
    throw RunError("expected inputs for " + std::to_string(options.replicas) + " replica(s), got " + std::to_string(inputs.size()));
  InProcessExchange<Value<D>> exchange(options.replicas);
  return run_detail::run_observed(m, d, std::move(inputs), options, exchange, after);
}

}  // namespace shlo

// Both forms of run_program for one domain (in its run_<domain>.cpp).
#define SHLO_INSTANTIATE_RUN_PROGRAM(D)                                                                                   \
  template RunResult<D> run_program(const Module&, const D&, std::vector<std::vector<Value<D>>>, const RunOptions&);     \
  template RunResult<D> run_program(const Module&, const D&, std::vector<std::vector<Value<D>>>, const RunOptions&,      \
                                    ReplicaExchange<Value<D>>&);                                                          \
  template RunResult<D> run_program_observed(const Module&, const D&, std::vector<std::vector<Value<D>>>, const RunOptions&, \
                                             const AfterInstruction<D>&);
