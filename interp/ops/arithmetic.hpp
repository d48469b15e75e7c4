// One instruction's arithmetic in one domain E, whatever kind of element E computes on: a
// float domain (exact, interval, mpfr, f32, f64, bound) for float tensors, IntegerDomain for
// integer tensors, BoolDomain for i1 tensors (interp/domain/integer.hpp). An op that E does not
// define (exp of integers, sine in the bound domain) is refused with a message naming the op
// and the domain; the verifier refuses most of them first.
#pragma once

#include <optional>
#include <type_traits>

#include "interp/ops/contraction.hpp"
#include "interp/ops/elementwise.hpp"
#include "interp/ops/indexing.hpp"
#include "interp/ops/movement.hpp"
#include "interp/ops/reduction.hpp"

namespace shlo::ops {

// #clamp: min(max(operand, min), max), the bounds rank 0 or of the operand's shape (so
// min > max gives max).
template <class E>
Tensor<typename E::Scalar> clamp(const E& e, const Tensor<typename E::Scalar>& low, const Tensor<typename E::Scalar>& x,
                                 const Tensor<typename E::Scalar>& high) {
  Storage<typename E::Scalar> out(x.data.size());  // every element written below
  parallel_for_elements(x.shape, x.size(), [&](std::int64_t i) {
    const auto& lo = low[low.rank() == 0 ? 0 : i];
    const auto& hi = high[high.rank() == 0 ? 0 : i];
    out[static_cast<std::size_t>(i)] = e.min(e.max(x[i], lo), hi);
  }, kElementwiseGrain<typename E::Scalar>);
  return Tensor<typename E::Scalar>(x.shape, std::move(out));
}

namespace detail {

[[noreturn]] inline void not_defined(const Instruction& inst, const std::string& domain) {
  throw OpError(std::string("stablehlo.") + op_name(inst.op) + " is not supported on " + domain + " values (element type " +
                to_string(inst.operand_types.empty() ? inst.result_type.element : inst.operand_types[0].element) + ")");
}

}  // namespace detail

// The cases of `arithmetic` below for one member function: `x` stands for the operand(s).
#define SHLO_UNARY_MEMBER(OP, member)                                                               \
  case Op::OP:                                                                                      \
    if constexpr (requires(const S& x) { e.member(x); })                                            \
      return map_unary(e, t(0), [&](const S& x) { return e.member(x); }, storage);                 \
    else                                                                                            \
      detail::not_defined(inst, e.name());
#define SHLO_BINARY_MEMBER(OP, member)                                                              \
  case Op::OP:                                                                                      \
    if constexpr (requires(const S& x) { e.member(x, x); })                                         \
      return map_binary(e, t(0), t(1), [&](const S& x, const S& y) { return e.member(x, y); }, storage); \
    else                                                                                            \
      detail::not_defined(inst, e.name());

/// The instruction's result in E; V is the run's value type (Value<D>), args its operands.
/// `storage` (may be null): a dying operand that an elementwise op may write its result into
/// (map_unary, map_binary); other ops leave it alone.
template <class V, class E>
V arithmetic(const E& e, const Instruction& inst, const std::vector<const V*>& args, Tensor<typename E::Scalar>* storage = nullptr) {
  using S = typename E::Scalar;
  using T = Tensor<S>;
  auto t = [&](std::size_t i) -> const T& { return std::get<T>(*args[i]); };
  auto p = [&](std::size_t i) -> const PredTensor& { return std::get<PredTensor>(*args[i]); };
  const auto& a = inst.attributes;
  switch (inst.op) {
    SHLO_BINARY_MEMBER(Add, add)
    SHLO_BINARY_MEMBER(Subtract, sub)
    SHLO_BINARY_MEMBER(Multiply, mul)
    SHLO_BINARY_MEMBER(Divide, div)
    SHLO_BINARY_MEMBER(Maximum, max)
    SHLO_BINARY_MEMBER(Minimum, min)
    SHLO_BINARY_MEMBER(Xor, bit_xor)
    SHLO_BINARY_MEMBER(Power, pow)
    SHLO_BINARY_MEMBER(Remainder, rem)
    SHLO_BINARY_MEMBER(ShiftLeft, shift_left)
    SHLO_BINARY_MEMBER(ShiftRightArithmetic, shift_right_arithmetic)
    SHLO_BINARY_MEMBER(ShiftRightLogical, shift_right_logical)
    // i1 and/or keep the bound domain's "may differ" bits (elementwise.hpp).
    case Op::And:
      if constexpr (std::is_same_v<T, PredTensor>) return and_(p(0), p(1));
      else if constexpr (requires(const S& x) { e.bit_and(x, x); })
        return map_binary(e, t(0), t(1), [&](const S& x, const S& y) { return e.bit_and(x, y); });
      else detail::not_defined(inst, e.name());
    case Op::Or:
      if constexpr (std::is_same_v<T, PredTensor>) return or_(p(0), p(1));
      else if constexpr (requires(const S& x) { e.bit_or(x, x); })
        return map_binary(e, t(0), t(1), [&](const S& x, const S& y) { return e.bit_or(x, y); });
      else detail::not_defined(inst, e.name());
    SHLO_UNARY_MEMBER(Negate, neg)
    SHLO_UNARY_MEMBER(Abs, abs)
    SHLO_UNARY_MEMBER(Exponential, exp)
    SHLO_UNARY_MEMBER(Log, log)
    SHLO_UNARY_MEMBER(Sqrt, sqrt)
    SHLO_UNARY_MEMBER(Rsqrt, rsqrt)
    SHLO_UNARY_MEMBER(Tanh, tanh)
    SHLO_UNARY_MEMBER(Logistic, logistic)
    SHLO_UNARY_MEMBER(Not, bit_not)
    SHLO_UNARY_MEMBER(Sign, sign)
    SHLO_UNARY_MEMBER(Floor, floor)
    SHLO_UNARY_MEMBER(Ceil, ceil)
    SHLO_UNARY_MEMBER(RoundNearestEven, round_even)
    SHLO_UNARY_MEMBER(RoundNearestAfz, round_away)
    SHLO_UNARY_MEMBER(Sine, sin)
    SHLO_UNARY_MEMBER(Cosine, cos)
    SHLO_UNARY_MEMBER(LogPlusOne, log1p)
    SHLO_UNARY_MEMBER(ExponentialMinusOne, expm1)
    case Op::Compare: return compare(e, parse_compare_direction(a.comparison_direction), t(0), t(1));
    case Op::Select: return select(e, p(0), t(1), t(2), storage);
    case Op::Clamp: return clamp(e, t(0), t(1), t(2));
    case Op::Iota: return iota(e, inst.result_type, a.dimension);
    case Op::DotGeneral: return dot_general(e, t(0), t(1), dot_dimensions(a));
    case Op::Convolution: return convolution(e, t(0), t(1), convolution_attributes(a), inst.result_type.shape);
    case Op::Reduce: return reduce(e, t(0), t(1)[0], a.dimensions, *a.reduce_body);
    case Op::ReduceWindow:
      return reduce_window(e, t(0), t(1)[0], window_attributes(a), region_binary_op(inst.regions[0], "reduce_window body"));
    case Op::SelectAndScatter:
      return select_and_scatter(e, t(0), t(1), t(2)[0], window_attributes(a), region_compare(inst.regions[0]),
                                region_binary_op(inst.regions[1], "scatter"));
    case Op::Scatter: {  // a combining body (the `set` body is a movement, below)
      const auto combiner = scatter_combiner(inst.regions.at(0));
      if (!combiner || combiner->set) break;
      return scatter(t(0), index_tensor(std::get<IntTensor>(*args[1]), inst.operand_types[1].element), t(2), a.indexing,
                     [&](S& target, const S& update) { target = combine(e, combiner->op, target, update); });
    }
    case Op::Constant: case Op::Convert: case Op::BitcastConvert: case Op::BroadcastInDim: case Op::Reshape:
    case Op::Transpose: case Op::Reverse: case Op::Slice: case Op::Pad: case Op::Concatenate: case Op::AllReduce:
    case Op::Sort: case Op::While: case Op::If: case Op::Case:  // interp/region_exec.hpp
    case Op::DynamicSlice: case Op::DynamicUpdateSlice: case Op::Gather:
      break;  // not arithmetic: the caller's
  }
  throw OpError(std::string("stablehlo.") + op_name(inst.op) + " is not executable here");
}

#undef SHLO_UNARY_MEMBER
#undef SHLO_BINARY_MEMBER

/// The movement ops, for every kind of element; nullopt for any other op.
template <class V>
std::optional<V> move_elements(const Instruction& inst, const std::vector<const V*>& args) {
  const auto& a = inst.attributes;
  auto on_operand = [&](auto f) -> std::optional<V> { return std::visit([&](const auto& x) -> V { return f(x); }, *args[0]); };
  switch (inst.op) {
    case Op::BroadcastInDim:
      return on_operand([&](const auto& x) { return broadcast_in_dim(x, inst.result_type.shape, a.dimensions); });
    case Op::Reshape: return on_operand([&](const auto& x) { return reshape(x, inst.result_type.shape); });
    case Op::Transpose: return on_operand([&](const auto& x) { return transpose(x, a.dimensions); });
    case Op::Reverse: return on_operand([&](const auto& x) { return reverse(x, a.dimensions); });
    case Op::Slice: return on_operand([&](const auto& x) { return slice(x, a.start_indices, a.limit_indices, a.strides); });
    case Op::Pad:
      return on_operand([&](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        return pad(x, std::get<X>(*args[1])[0], a.edge_padding_low, a.edge_padding_high, a.interior_padding);
      });
    case Op::Concatenate:
      return on_operand([&](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        std::vector<const X*> xs;
        for (const auto* v : args) xs.push_back(&std::get<X>(*v));
        return concatenate(xs, a.dimension);
      });
    // The indexing ops (interp/ops/indexing.hpp): operand 0 any element, indices integers.
    case Op::DynamicSlice:
    case Op::DynamicUpdateSlice: {
      const std::size_t first_start = inst.op == Op::DynamicSlice ? 1 : 2;
      std::vector<const IntTensor*> starts;
      for (std::size_t k = first_start; k < args.size(); ++k) starts.push_back(&std::get<IntTensor>(*args[k]));
      const ElementType index_type = inst.operand_types.at(first_start).element;
      const Shape& operand = inst.operand_types[0].shape;
      if (inst.op == Op::DynamicSlice)
        return on_operand([&](const auto& x) { return dynamic_slice(x, clamped_starts(starts, index_type, operand, a.slice_sizes), a.slice_sizes); });
      return on_operand([&](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        const X& update = std::get<X>(*args[1]);
        return dynamic_update_slice(x, update, clamped_starts(starts, index_type, operand, update.shape));
      });
    }
    case Op::Gather:
      return on_operand([&](const auto& x) {
        return gather(x, index_tensor(std::get<IntTensor>(*args[1]), inst.operand_types[1].element), a.indexing, a.slice_sizes,
                      inst.result_type.shape);
      });
    case Op::Scatter: {  // only the body that returns the update moves elements; others combine (arithmetic)
      const auto combiner = scatter_combiner(inst.regions.at(0));
      if (!combiner || !combiner->set) return std::nullopt;
      return on_operand([&](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        return scatter(x, index_tensor(std::get<IntTensor>(*args[1]), inst.operand_types[1].element), std::get<X>(*args[2]),
                       a.indexing, [](auto& target, const auto& update) { target = update; });
      });
    }
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Maximum: case Op::Minimum:
    case Op::And: case Op::Or: case Op::Negate: case Op::Abs: case Op::Exponential: case Op::Log: case Op::Sqrt:
    case Op::Rsqrt: case Op::Tanh: case Op::Logistic: case Op::Compare: case Op::Select: case Op::Convert:
    case Op::Constant: case Op::Iota: case Op::DotGeneral: case Op::Convolution: case Op::Reduce:
    case Op::ReduceWindow: case Op::SelectAndScatter: case Op::AllReduce: case Op::Not: case Op::Xor: case Op::Power:
    case Op::Remainder: case Op::Sign: case Op::Floor: case Op::Ceil: case Op::RoundNearestEven:
    case Op::RoundNearestAfz: case Op::Sine: case Op::Cosine: case Op::LogPlusOne: case Op::ExponentialMinusOne:
    case Op::Clamp: case Op::BitcastConvert: case Op::Sort: case Op::While: case Op::If: case Op::Case:
    case Op::ShiftLeft: case Op::ShiftRightArithmetic: case Op::ShiftRightLogical:
      return std::nullopt;
  }
  return std::nullopt;  // not an enumerator
}

}  // namespace shlo::ops
