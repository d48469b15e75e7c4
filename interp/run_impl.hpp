// The template body of run_program; included once per domain (run_<domain>.cpp) so that each
// domain is its own translation unit.
#pragma once

#include <type_traits>
#include <unordered_map>
#include <unordered_set>

#include "ast/mlir_print.hpp"
#include "interp/bound/normalizing.hpp"
#include "interp/domain/ieee_typed.hpp"
#include "interp/domain/rounding.hpp"
#include "interp/ops/arithmetic.hpp"
#include "interp/ops/integer.hpp"
#include "interp/region_exec.hpp"
#include "interp/ops/total_order.hpp"
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
  if constexpr (std::is_same_v<D, F64Domain>)
    if (d.element_typed()) {  // the ieee domain: every float type is a rounding (interp/domain/ieee_typed.hpp)
      if (is_float(element))
        for (auto& x : std::get<Tensor<S<D>>>(v).data) x = round_to_element_type(x, element);
      return std::move(v);
    }
  if (element != ElementType::BF16 && element != ElementType::F8E4M3FN && element != ElementType::F16) return std::move(v);
  const LowPrecisionFormat f = element == ElementType::BF16   ? LowPrecisionFormat::BFloat16
                               : element == ElementType::F16 ? LowPrecisionFormat::Binary16
                                                             : LowPrecisionFormat::F8E4M3FN;
  auto& t = std::get<Tensor<S<D>>>(v);
  for (auto& x : t.data) {
    try {
      x = round_value(d, x, f, RoundingModel::NearestEven);
    } catch (const RoundingOverflow& overflow) {
      const std::uint64_t inf = overflow.negative() ? 0xFF800000u : 0x7F800000u;
      x = d.from_bits(f == LowPrecisionFormat::F8E4M3FN ? 0x7FC00000u : inf, FloatFormat::Binary32);
    }
  }
  return std::move(v);
}

// Which values an instruction's arithmetic is on: the element type of its data operand (the
// branches of select, the operand of clamp), or of its result for constant and iota.
inline ElementType arithmetic_element(const Instruction& inst) {
  switch (inst.op) {
    case Op::Constant: case Op::Iota: return inst.result_type.element;
    case Op::Select: case Op::Clamp: return inst.operand_types.at(1).element;
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Maximum: case Op::Minimum:
    case Op::And: case Op::Or: case Op::Negate: case Op::Abs: case Op::Exponential: case Op::Log: case Op::Sqrt:
    case Op::Rsqrt: case Op::Tanh: case Op::Logistic: case Op::Compare: case Op::Convert: case Op::BroadcastInDim:
    case Op::Reshape: case Op::Transpose: case Op::Reverse: case Op::Slice: case Op::Pad: case Op::Concatenate:
    case Op::DotGeneral: case Op::Convolution: case Op::Reduce: case Op::ReduceWindow: case Op::SelectAndScatter:
    case Op::AllReduce: case Op::Not: case Op::Xor: case Op::Power: case Op::Remainder: case Op::Sign: case Op::Floor:
    case Op::Ceil: case Op::RoundNearestEven: case Op::RoundNearestAfz: case Op::Sine: case Op::Cosine:
    case Op::LogPlusOne: case Op::ExponentialMinusOne: case Op::BitcastConvert: case Op::Sort: case Op::While:
    case Op::If: case Op::Case: case Op::DynamicSlice: case Op::DynamicUpdateSlice: case Op::Gather: case Op::Scatter:
    case Op::ShiftLeft: case Op::ShiftRightArithmetic: case Op::ShiftRightLogical:
      return inst.operand_types.empty() ? inst.result_type.element : inst.operand_types[0].element;
  }
  return inst.result_type.element;  // not an enumerator
}

// One instruction on one replica (everything but all_reduce), before its result type's rounding.
// Float values compute in D; integer and i1 values in IntegerDomain / BoolDomain, the same in
// every domain (the bound domain, an error analysis of float32, refuses them but for i1
// and/or and the movement ops). `storage`: see ops::arithmetic.
template <class D>
Value<D> execute_exactly(const D& d, const Instruction& inst, const std::vector<const Value<D>*>& args,
                         Tensor<S<D>>* storage = nullptr) {
  if (runs_regions(inst)) return std::move(execute_region_op(d, inst, args).at(0));
  if (auto moved = ops::move_elements(inst, args)) return std::move(*moved);
  const auto& a = inst.attributes;
  constexpr bool bound_analysis = requires(const S<D>& x) { d.compare_bits(CompareDirection::EQ, x, x); };
  if (bound_analysis && inst.op == Op::Scatter)  // its `set` body moved above; a combining one has no error model yet
    throw OpError("stablehlo.scatter with a combining update_computation is not supported in the " + d.name() + " domain");
  // Float arithmetic in D, or in the ieee domain that of the element type computed in: the
  // result's for convert, constant and the contractions (which accumulate in it), else the operand's.
  const bool result_typed = inst.op == Op::Convert || inst.op == Op::Constant || inst.op == Op::DotGeneral || inst.op == Op::Convolution;
  const ElementType float_type = result_typed ? inst.result_type.element : arithmetic_element(inst);
  if (inst.op == Op::Convert)
    return with_float_arithmetic(d, float_type, [&](const auto& e) { return ops::convert(e, inst, *args[0]); });
  if (inst.op == Op::BitcastConvert) return ops::bitcast_convert(d, inst, *args[0]);
  const ElementType element = arithmetic_element(inst);
  if (inst.op == Op::Constant) {
    if (element == ElementType::I1) return ops::pred_constant(a.literal, inst.result_type);
    if (is_integer(element)) return ops::int_constant(a.literal, inst.result_type);
    return with_float_arithmetic(d, element, [&](const auto& e) -> Value<D> { return ops::constant(e, a.literal, inst.result_type); });
  }
  if (inst.op == Op::Compare && a.compare_type == "TOTALORDER")  // floats only (the parser checks compare_type)
    return ops::compare_total_order(d, parse_compare_direction(a.comparison_direction), std::get<Tensor<S<D>>>(*args[0]),
                                    std::get<Tensor<S<D>>>(*args[1]));
  if (is_float(element))
    return with_float_arithmetic(d, float_type, [&](const auto& e) { return ops::arithmetic<Value<D>>(e, inst, args, storage); });
  if (bound_analysis && !(element == ElementType::I1 && (inst.op == Op::And || inst.op == Op::Or)))
    throw OpError(std::string("stablehlo.") + op_name(inst.op) + " on " + to_string(element) + " values is not supported in the " +
                  d.name() + " domain");
  if (element == ElementType::I1) return ops::arithmetic<Value<D>>(BoolDomain{}, inst, args);
  // dot_general and convolution accumulate in their result type, which may be wider.
  const bool contraction = inst.op == Op::DotGeneral || inst.op == Op::Convolution;
  return ops::arithmetic<Value<D>>(IntegerDomain(contraction ? inst.result_type.element : element), inst, args);
}

// One instruction on one replica (everything but all_reduce).
template <class D>
Value<D> execute(const D& d, const Instruction& inst, const std::vector<const Value<D>*>& args, Tensor<S<D>>* storage = nullptr) {
  return round_to_result_type(d, inst.result_type.element, execute_exactly(d, inst, args, storage));
}

// Every result of one instruction: args are its operands, then the values its regions capture.
template <class D>
std::vector<Value<D>> execute_results(const D& d, const Instruction& inst, const std::vector<const Value<D>*>& args) {
  if (runs_regions(inst)) return execute_region_op(d, inst, args);
  std::vector<Value<D>> out;
  out.push_back(execute(d, inst, args));
  return out;
}

// The replica loop's backend for a domain's values on the CPU.
template <class D>
struct DomainBackend {
  const D& d;
  /// Divides by their numerator's own sum (interp/bound/normalizing.hpp), for a domain that
  /// knows more of them (the bound analysis and the sampled tier: normalized_div).
  std::unordered_set<const Instruction*> normalizing = {};
  /// Of those, the ones whose numerator is an exp and whose sum starts from 0 (the same header).
  std::unordered_set<const Instruction*> normalizing_exps = {};
  /// Batch normalisation's centred second moments (the same header; BoundDomain::centering_sub
  /// and centered_square).
  CenteredMoments centered = {};
  Value<D> execute(const Instruction& inst, const std::vector<const Value<D>*>& args) const {
    [[maybe_unused]] auto binary = [&](auto f) {
      return round_to_result_type(d, inst.result_type.element,
                                  ops::map_binary(d, std::get<Tensor<S<D>>>(*args[0]), std::get<Tensor<S<D>>>(*args[1]), f));
    };
    if constexpr (requires(const S<D>& x) { d.normalized_div(x, x, true); }) {
      if (normalizing.count(&inst)) {
        const bool exps = normalizing_exps.count(&inst) > 0;
        return binary([&](const S<D>& x, const S<D>& y) { return d.normalized_div(x, y, exps); });
      }
    }
    if constexpr (requires(const S<D>& x) { d.centering_sub(x, x); }) {
      if (centered.subtracts.count(&inst)) return binary([&](const S<D>& x, const S<D>& m) { return d.centering_sub(x, m); });
      if (centered.squares.count(&inst)) return binary([&](const S<D>& c, const S<D>&) { return d.centered_square(c); });
    }
    return run_detail::execute(d, inst, args);
  }
  // An operand that dies at this instruction (the replica loop knows) may give its storage to
  // the result when it has the result's type (shape and element) and D's scalars are machine
  // floats (f32, f64: an arbitrary-precision element keeps its own precision on assignment).
  // Only elementwise ops write there (ops::map_unary, map_binary); others compute as usual.
  bool can_write_into_operand(const Instruction& inst, std::size_t position) const {
    return std::is_floating_point_v<S<D>> && inst.regions.empty() && position < inst.operand_types.size() &&
           inst.operand_types[position] == inst.result_type && is_float(inst.result_type.element);
  }
  // args[k] is &dying, for the operand k that dies here.
  Value<D> execute_into(const Instruction& inst, Value<D>& dying, const std::vector<const Value<D>*>& args) const {
    return run_detail::execute(d, inst, args, std::get_if<Tensor<S<D>>>(&dying));
  }
  std::vector<Value<D>> execute_results(const Instruction& inst, const std::vector<const Value<D>*>& args) const {
    return run_detail::execute_results(d, inst, args);
  }
  Value<D> reshape(Value<D>&& v, const Shape& shape) const {
    return std::visit([&](auto&& t) -> Value<D> { return ops::reshape(std::move(t), shape); }, std::move(v));
  }
  // #all_reduce: one group's values combined in increasing replica id; float values in D,
  // integers and i1 exactly (IntegerDomain / BoolDomain) in every domain.
  Value<D> fold(Op body, ElementType element, const std::vector<const Value<D>*>& in_order) const {
    if (element == ElementType::I1) return fold_in<PredTensor>(BoolDomain{}, body, in_order);
    if (is_integer(element)) return fold_in<IntTensor>(IntegerDomain(element), body, in_order);
    return with_float_arithmetic(d, element, [&](const auto& e) { return fold_in<Tensor<S<D>>>(e, body, in_order); });
  }
  // The same with a body of several ops, run as a program (interp/region_exec.hpp).
  Value<D> fold_region(const Region& body, const std::vector<const Value<D>*>& in_order) const {
    return all_reduce_with_body(d, body, in_order);
  }
  template <class T, class E>
  static Value<D> fold_in(const E& e, Op body, const std::vector<const Value<D>*>& in_order) {
    T acc(std::get<T>(*in_order[0]).shape, copied(std::get<T>(*in_order[0]).data));
    for (std::size_t k = 1; k < in_order.size(); ++k) {
      const T& x = std::get<T>(*in_order[k]);
      parallel_for_elements(acc.shape, acc.size(), [&](std::int64_t i) { acc[i] = combine(e, body, acc[i], x[i]); },
                            kElementwiseGrain<typename E::Scalar>);
    }
    return acc;
  }
  std::size_t bytes(const Value<D>& v) const { return bytes_of<D>(v); }
  // A dying value's multiple-precision limbs are freed by the threads (release_in_parallel).
  void release(Value<D>& v) const {
    if (auto* t = std::get_if<Tensor<typename D::Scalar>>(&v)) release_in_parallel(t->data);
  }
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
      const bool pred = std::holds_alternative<PredTensor>(in[a]), integer = std::holds_alternative<IntTensor>(in[a]);
      const ElementType expected = f.arguments[a].type.element;
      if (shape != f.arguments[a].type.shape || pred != (expected == ElementType::I1) || integer != is_integer(expected))
        throw RunError("input " + f.arguments[a].name + " of " + replica + " has shape " + shape_to_string(shape) +
                       (pred ? " (i1)" : integer ? " (integer)" : "") + ", expected " + to_string(f.arguments[a].type));
      env[i].emplace(f.arguments[a].name, std::move(in[a]));
    }
  }
  run_detail::DomainBackend<D> backend{d};
  if constexpr (requires(const S<D>& x) { d.normalized_div(x, x, true); }) {
    backend.normalizing = normalizing_divides(m);
    backend.normalizing_exps = normalizing_divides(m, true);
  }
  if constexpr (requires(const S<D>& x) { d.centering_sub(x, x); }) backend.centered = centered_moments(m);
  LoopStats stats = run_replica_loop(m, backend, exchange, env, options, after);
  RunResult<D> result;
  result.profile = std::move(stats.profile);
  result.instructions = std::move(stats.instructions);
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
