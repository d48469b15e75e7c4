// The template body of run_program; included once per domain (run_<domain>.cpp) so that each
// domain is its own translation unit.
#pragma once

#include <chrono>
#include <set>
#include <unordered_map>

#include "ast/mlir_print.hpp"
#include "interp/ops/contraction.hpp"
#include "interp/ops/elementwise.hpp"
#include "interp/ops/movement.hpp"
#include "interp/ops/reduction.hpp"
#include "interp/run.hpp"

namespace shlo {

namespace run_detail {

template <class D>
using S = typename D::Scalar;

template <class D>
std::size_t bytes_of(const Value<D>& v) {
  return std::visit([](const auto& t) { return t.data.size() * sizeof(t.data[0]); }, v);
}

inline double flops_of(const Instruction& inst) {
  auto n = [](const TensorType& t) { return static_cast<double>(num_elements(t.shape)); };
  const auto& a = inst.attributes;
  switch (inst.op) {
    case Op::DotGeneral: {
      double k = 1;
      for (auto dim : a.lhs_contracting_dimensions) k *= static_cast<double>(inst.operand_types[0].shape[static_cast<std::size_t>(dim)]);
      return 2 * k * n(inst.result_type);
    }
    case Op::Convolution: {
      const auto& rhs = inst.operand_types[1].shape;
      double k = static_cast<double>(rhs[static_cast<std::size_t>(a.conv.kernel_input_feature)]);
      for (auto dim : a.conv.kernel_spatial) k *= static_cast<double>(rhs[static_cast<std::size_t>(dim)]);
      return 2 * k * n(inst.result_type);
    }
    case Op::Reduce:
    case Op::SelectAndScatter:
    case Op::AllReduce:
      return n(inst.operand_types[0]);
    case Op::ReduceWindow: {
      double w = 1;
      for (auto x : a.window_dimensions) w *= static_cast<double>(x);
      return w * n(inst.result_type);
    }
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Maximum: case Op::Minimum:
    case Op::And: case Op::Or: case Op::Negate: case Op::Abs: case Op::Exponential: case Op::Log:
    case Op::Sqrt: case Op::Rsqrt: case Op::Tanh: case Op::Logistic: case Op::Compare: case Op::Select:
    case Op::Convert: case Op::Constant: case Op::Iota: case Op::BroadcastInDim: case Op::Reshape:
    case Op::Transpose: case Op::Reverse: case Op::Slice: case Op::Pad: case Op::Concatenate:
      return is_unary_elementwise(inst.op) || is_binary_elementwise(inst.op) || inst.op == Op::Compare ? n(inst.result_type) : 0;
  }
  return 0;  // not an enumerator
}

// One instruction on one replica (everything but all_reduce).
template <class D>
Value<D> execute(const D& d, const Instruction& inst, const std::vector<const Value<D>*>& args) {
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
      // #convert between float types: to bf16 rounds to nearest even (8 significand bits,
      // the f32 exponent range); to f32 or f64 keeps the value (every value is a real here,
      // and a bf16 value is representable in both).
      if (inst.result_type.element == ElementType::BF16 && inst.operand_types[0].element != ElementType::BF16)
        return ops::map_unary(d, t(0), [&](const auto& x) { return d.map_monotone(x, round_bfloat16); });
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
    case Op::DotGeneral: return ops::dot_general(d, t(0), t(1), a);
    case Op::Convolution: return ops::convolution(d, t(0), t(1), a, inst.result_type.shape);
    case Op::Reduce: return ops::reduce(d, t(0), t(1)[0], a.dimensions, *a.reduce_body);
    case Op::ReduceWindow:
      return ops::reduce_window(d, t(0), t(1)[0], a, region_binary_op(inst.regions[0], "reduce_window body"));
    case Op::SelectAndScatter:
      return ops::select_and_scatter(d, t(0), t(1), t(2)[0], a, region_compare(inst.regions[0]),
                                     region_binary_op(inst.regions[1], "scatter"));
    case Op::AllReduce:
      break;
  }
  throw OpError(std::string("stablehlo.") + op_name(inst.op) + " is not executable here");
}

// #all_reduce across replicas: every group folded in increasing replica id.
template <class D>
std::vector<Value<D>> all_reduce(const D& d, const Instruction& inst, const std::vector<const Value<D>*>& per_replica) {
  using T = Tensor<S<D>>;
  const Op body = region_binary_op(inst.regions[0], "all_reduce body");
  const int R = static_cast<int>(per_replica.size());
  std::vector<Value<D>> out(static_cast<std::size_t>(R));
  std::set<std::int64_t> covered;
  for (auto group : inst.attributes.replica_groups) {
    std::sort(group.begin(), group.end());
    for (auto r : group) {
      if (r >= R)
        throw OpError("replica_groups names replica " + std::to_string(r) + " but the program runs on " + std::to_string(R) +
                      " replica(s); run it with --replicas " + std::to_string(group.back() + 1) + " or more");
      covered.insert(r);
    }
    T acc = std::get<T>(*per_replica[static_cast<std::size_t>(group[0])]);
    for (std::size_t k = 1; k < group.size(); ++k) {
      const T& x = std::get<T>(*per_replica[static_cast<std::size_t>(group[k])]);
      for_each_element(acc.shape, acc.size(), [&](std::int64_t i) { acc[i] = combine(d, body, acc[i], x[i]); });
    }
    for (auto r : group) out[static_cast<std::size_t>(r)] = acc;
  }
  if (static_cast<int>(covered.size()) != R)
    throw OpError("replica_groups cover " + std::to_string(covered.size()) + " of the " + std::to_string(R) +
                  " replicas; they must partition 0.." + std::to_string(R - 1));
  return out;
}

}  // namespace run_detail

template <class D>
RunResult<D> run_program(const Module& m, const D& d, std::vector<std::vector<Value<D>>> inputs, const RunOptions& options) {
  using namespace run_detail;
  using Clock = std::chrono::steady_clock;
  const Function& f = m.function;
  const int R = options.replicas;
  if (R < 1) throw RunError("the replica count must be at least 1");
  if (static_cast<int>(inputs.size()) != R)
    throw RunError("expected inputs for " + std::to_string(R) + " replica(s), got " + std::to_string(inputs.size()));
  const auto insts = instructions(f);
  auto where = [&](const Instruction& inst) {
    return m.file + ":" + std::to_string(inst.location.line) + ":" + std::to_string(inst.location.column) + ": " +
           inst.result + " = stablehlo." + op_name(inst.op) + ": ";
  };

  // Environment per replica; inputs checked against the signature.
  std::vector<std::unordered_map<std::string, Value<D>>> env(static_cast<std::size_t>(R));
  std::size_t live = 0, peak = 0;
  for (int r = 0; r < R; ++r) {
    auto& in = inputs[static_cast<std::size_t>(r)];
    if (in.size() != f.arguments.size())
      throw RunError("replica " + std::to_string(r) + ": expected " + std::to_string(f.arguments.size()) + " inputs, got " +
                     std::to_string(in.size()));
    for (std::size_t i = 0; i < in.size(); ++i) {
      const Shape& shape = std::visit([](const auto& t) -> const Shape& { return t.shape; }, in[i]);
      const bool pred = std::holds_alternative<PredTensor>(in[i]);
      if (shape != f.arguments[i].type.shape || pred != (f.arguments[i].type.element == ElementType::I1))
        throw RunError("input " + f.arguments[i].name + " of replica " + std::to_string(r) + " has shape " + shape_to_string(shape) +
                       (pred ? " (i1)" : "") + ", expected " + to_string(f.arguments[i].type));
      live += bytes_of<D>(in[i]);
      env[static_cast<std::size_t>(r)].emplace(f.arguments[i].name, std::move(in[i]));
    }
  }
  peak = live;

  // Last use of every value, so that it can be freed right after.
  std::unordered_map<std::string, std::size_t> last_use;
  for (std::size_t k = 0; k < insts.size(); ++k)
    for (const auto& name : insts[k]->operands) last_use[name] = k;
  const std::set<std::string> returned(f.return_values.begin(), f.return_values.end());

  RunResult<D> result;
  const auto start = Clock::now();
  for (std::size_t k = 0; k < insts.size(); ++k) {
    const Instruction& inst = *insts[k];
    if (options.progress)
      options.progress({k, insts.size(), &inst, std::chrono::duration<double>(Clock::now() - start).count()});
    const auto t0 = Clock::now();
    try {
      if (inst.op == Op::AllReduce) {
        std::vector<const Value<D>*> per_replica;
        for (int r = 0; r < R; ++r) per_replica.push_back(&env[static_cast<std::size_t>(r)].at(inst.operands[0]));
        auto outs = all_reduce(d, inst, per_replica);
        for (int r = 0; r < R; ++r) {
          live += bytes_of<D>(outs[static_cast<std::size_t>(r)]);
          env[static_cast<std::size_t>(r)].insert_or_assign(inst.result, std::move(outs[static_cast<std::size_t>(r)]));
        }
      } else {
        // A reshape of a value that dies here takes its storage instead of copying it.
        const bool donate = inst.op == Op::Reshape && !options.keep_values && last_use[inst.operands[0]] == k &&
                            !returned.count(inst.operands[0]);
        for (int r = 0; r < R; ++r) {
          auto& e = env[static_cast<std::size_t>(r)];
          Value<D> v;
          if (donate) {
            auto node = e.extract(inst.operands[0]);
            live -= bytes_of<D>(node.mapped());
            v = std::visit([&](auto&& t) -> Value<D> { return ops::reshape(std::move(t), inst.result_type.shape); },
                           std::move(node.mapped()));
          } else {
            std::vector<const Value<D>*> args;
            for (const auto& name : inst.operands) args.push_back(&e.at(name));
            v = execute(d, inst, args);
          }
          live += bytes_of<D>(v);
          e.insert_or_assign(inst.result, std::move(v));
        }
      }
    } catch (const OpError& e) {
      throw RunError(where(inst) + e.what());
    } catch (const DomainError& e) {
      throw RunError(where(inst) + e.what());
    }
    peak = std::max(peak, live);
    for (const auto& name : inst.operands) {
      if (options.keep_values || last_use[name] != k || returned.count(name)) continue;
      for (auto& e : env) {
        auto it = e.find(name);
        if (it == e.end()) continue;
        live -= bytes_of<D>(it->second);
        e.erase(it);
      }
    }
    auto& prof = result.profile[op_name(inst.op)];
    prof.count += 1;
    prof.seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    prof.flops += flops_of(inst) * R;
  }
  result.peak_live_bytes = peak;
  if (options.keep_values) result.values = env;
  result.outputs.resize(static_cast<std::size_t>(R));
  for (int r = 0; r < R; ++r)
    for (const auto& name : f.return_values) result.outputs[static_cast<std::size_t>(r)].push_back(env[static_cast<std::size_t>(r)].at(name));
  return result;
}

}  // namespace shlo
