// Regions as programs (docs/mlir-ops-plan.md §4.2): a region's body runs like a small function
// on values of the run's value type, one instruction at a time through the same `execute` the
// function body uses (interp/run_impl.hpp), so every op and every domain works inside a region.
// The ops built on it: reduce, reduce_window and scatter with a body that is not one op (and
// with several inputs), select_and_scatter and all_reduce with such bodies, sort, while, if
// and case. The single-op bodies keep their fast kernels
// (interp/ops/reduction.hpp, interp/ops/indexing.hpp).
//
// A body may compute in a wider element type than its operands (spec `is_promotable`: i8
// inputs, an i32 body). Promotion needs no conversion of the values: an integer is stored
// sign- or zero-extended whatever its width, and a float value is a value of every wider float
// type; the body's own instructions compute and wrap or round in its type, and the op's
// results have that type. Such bodies always run here: the fast kernels compute in the
// operand's type.
//
// Included by interp/run_impl.hpp, which defines execute_results.
#pragma once

#include <algorithm>
#include <atomic>
#include <string>
#include <unordered_map>
#include <vector>

#include "ast/indexing.hpp"
#include "ast/op_attributes.hpp"
#include "ast/regions.hpp"
#include "interp/domain/integer.hpp"
#include "interp/ops/indexing.hpp"
#include "interp/ops/reduction.hpp"

namespace shlo::run_detail {

/// The values of the scopes around a region that its body reads, by name.
template <class D>
using Captures = std::unordered_map<std::string, const Value<D>*>;

/// A while loop running more iterations than this is an error (a runaway loop, not a result):
/// 10^7 unless set (tests set a small limit to reach it quickly).
inline std::atomic<std::int64_t>& max_while_iterations() {
  static std::atomic<std::int64_t> limit{10'000'000};
  return limit;
}

// Every result of one instruction (interp/run_impl.hpp); args are its operands, then the
// values its regions capture (captured_values order).
template <class D>
std::vector<Value<D>> execute_results(const D& d, const Instruction& inst, const std::vector<const Value<D>*>& args);

/// Whether region `r` computes in another element type than operand `i` of `inst` (a
/// promotion, spec `is_promotable`).
inline bool promotes(const Instruction& inst, const Region& r, std::size_t i) {
  return !r.arguments.empty() && r.arguments[0].second.element != inst.operand_types.at(i).element;
}

/// Whether `inst` runs a region through the executor: the region ops, reduce, reduce_window and
/// scatter with a body other than one combinable op of its two arguments, several inputs or a
/// promoted body, and select_and_scatter with other bodies than one compare and one combiner.
inline bool runs_regions(const Instruction& inst) {
  auto one_combiner = [](const Region& r) {
    return is_single_binary_body(r) && is_kernel_combiner(r.body[0].op);
  };
  switch (inst.op) {
    case Op::Sort: case Op::While: case Op::If: case Op::Case: return true;
    case Op::Reduce: return !inst.attributes.reduce_body;
    case Op::ReduceWindow:
      return inst.operands.size() != 2 || !one_combiner(inst.regions.at(0)) || promotes(inst, inst.regions.at(0), 0);
    case Op::Scatter: {
      const Region& update = inst.regions.at(0);
      return inst.operands.size() != 3 || !scatter_combiner(update) || promotes(inst, update, 0);
    }
    case Op::SelectAndScatter: {
      const Region& select = inst.regions.at(0);
      const bool one_compare = select.arguments.size() == 2 && select.body.size() == 1 && select.results.size() == 1 &&
                               select.body[0].op == Op::Compare && select.results[0] == select.body[0].result &&
                               select.body[0].attributes.compare_type != "TOTALORDER" &&
                               select.body[0].operands == std::vector<std::string>{select.arguments[0].first, select.arguments[1].first};
      return !one_compare || !one_combiner(inst.regions.at(1)) || promotes(inst, inst.regions.at(1), 0);
    }
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Maximum: case Op::Minimum:
    case Op::And: case Op::Or: case Op::Negate: case Op::Abs: case Op::Exponential: case Op::Log: case Op::Sqrt:
    case Op::Rsqrt: case Op::Tanh: case Op::Logistic: case Op::Compare: case Op::Select: case Op::Convert:
    case Op::Constant: case Op::Iota: case Op::BroadcastInDim: case Op::Reshape: case Op::Transpose: case Op::Reverse:
    case Op::Slice: case Op::Pad: case Op::Concatenate: case Op::DotGeneral: case Op::Convolution: case Op::AllReduce:
    case Op::Not: case Op::Xor: case Op::Power: case Op::Remainder: case Op::Sign: case Op::Floor: case Op::Ceil:
    case Op::RoundNearestEven: case Op::RoundNearestAfz: case Op::Sine: case Op::Cosine: case Op::LogPlusOne:
    case Op::ExponentialMinusOne: case Op::Clamp: case Op::BitcastConvert: case Op::DynamicSlice:
    case Op::DynamicUpdateSlice: case Op::Gather: case Op::ShiftLeft: case Op::ShiftRightArithmetic:
    case Op::ShiftRightLogical:
      return false;
  }
  return false;  // not an enumerator
}

// ---- rank-0 views of tensor values, for any kind of element ----

template <class D>
const Shape& shape_of(const Value<D>& v) {
  return std::visit([](const auto& t) -> const Shape& { return t.shape; }, v);
}
/// Element i of v as a rank-0 value.
template <class D>
Value<D> element_at(const Value<D>& v, std::int64_t i) {
  return std::visit([&](const auto& t) -> Value<D> { return std::decay_t<decltype(t)>(Shape{}, t[i]); }, v);
}
/// dst[i] = src[j] (both of one kind).
template <class D>
void copy_element(Value<D>& dst, std::int64_t i, const Value<D>& src, std::int64_t j) {
  std::visit([&](auto& t) { t[i] = std::get<std::decay_t<decltype(t)>>(src)[j]; }, dst);
}
/// A tensor of `shape` filled with the rank-0 value `scalar`.
template <class D>
Value<D> filled_with(const Value<D>& scalar, const Shape& shape) {
  return std::visit([&](const auto& t) -> Value<D> { return std::decay_t<decltype(t)>(shape, t[0]); }, scalar);
}
/// The rank-0 i1 a cond, comparator or if region returns.
template <class D>
bool truth(const Value<D>& v, const char* what) {
  const auto* p = std::get_if<PredTensor>(&v);
  if (!p || p->size() != 1) throw OpError(std::string(what) + " must return a rank-0 i1 value");
  return (*p)[0] != 0;
}

/// Runs region `r` on `arguments` (bound to its block arguments in order), reading `outer`
/// for the names it does not define; returns the values its `stablehlo.return` lists.
template <class D>
std::vector<Value<D>> run_region(const D& d, const Region& r, std::vector<Value<D>> arguments, const Captures<D>& outer) {
  if (arguments.size() != r.arguments.size())
    throw OpError("the region takes " + std::to_string(r.arguments.size()) + " argument(s), given " + std::to_string(arguments.size()));
  std::unordered_map<std::string, Value<D>> local;
  for (std::size_t i = 0; i < arguments.size(); ++i) local.insert_or_assign(r.arguments[i].first, std::move(arguments[i]));
  auto lookup = [&](const std::string& name) -> const Value<D>& {
    if (auto it = local.find(name); it != local.end()) return it->second;
    if (auto it = outer.find(name); it != outer.end()) return *it->second;
    throw OpError("the region reads " + name + ", which it cannot see");
  };
  for (const Instruction& inst : r.body) {
    std::vector<const Value<D>*> args;
    for (const auto& name : inst.operands) args.push_back(&lookup(name));
    if (!inst.regions.empty())
      for (const auto& name : captured_values(inst)) args.push_back(&lookup(name));
    std::vector<Value<D>> results;
    try {
      results = execute_results(d, inst, args);
    } catch (const DomainError&) {
      throw;  // located by the caller at the element
    } catch (const std::exception& e) {
      throw OpError("in the region, line " + std::to_string(inst.location.line) + ": " + inst.result + " = stablehlo." +
                    op_name(inst.op) + ": " + e.what());
    }
    for (std::size_t i = 0; i < results.size(); ++i) local.insert_or_assign(result_name(inst, i), std::move(results[i]));
  }
  std::vector<Value<D>> out;
  for (const auto& name : r.results) out.push_back(lookup(name));
  return out;
}

// #reduce with a region body and N inputs (spec §reduce): per result element a left fold from
// the init values over the reduced positions in row-major order, body(acc..., element...), as
// the single-op kernel folds.
template <class D>
std::vector<Value<D>> reduce_with_body(const D& d, const Instruction& inst, const std::vector<const Value<D>*>& args,
                                       const Captures<D>& outer) {
  const std::size_t n = inst.operands.size() / 2;
  const Shape& shape = shape_of<D>(*args[0]);
  std::vector<std::int64_t> reduced = inst.attributes.dimensions, kept;
  std::sort(reduced.begin(), reduced.end());
  Shape out_shape;
  for (std::size_t dim = 0; dim < shape.size(); ++dim)
    if (!std::binary_search(reduced.begin(), reduced.end(), static_cast<std::int64_t>(dim))) {
      kept.push_back(static_cast<std::int64_t>(dim));
      out_shape.push_back(shape[dim]);
    }
  const auto starts = offsets_over(shape, kept);
  const auto inner = offsets_over(shape, reduced);
  std::vector<Value<D>> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(filled_with<D>(*args[n + i], out_shape));
  const Region& body = inst.regions.at(0);
  for_each_element(out_shape, num_elements(out_shape), [&](std::int64_t o) {
    std::vector<Value<D>> acc;
    for (std::size_t i = 0; i < n; ++i) acc.push_back(*args[n + i]);
    for (auto off : inner) {
      for (std::size_t i = 0; i < n; ++i) acc.push_back(element_at<D>(*args[i], starts[static_cast<std::size_t>(o)] + off));
      acc = run_region(d, body, std::move(acc), outer);
    }
    for (std::size_t i = 0; i < n; ++i) copy_element<D>(out[i], o, acc[i], 0);
  });
  return out;
}

// #reduce_window with a region body and N inputs (spec §reduce_window): each input padded
// and base-dilated with its init value, then per window a left fold from the init values over
// the window's positions in row-major order, body(acc..., element...), as the one-op kernel
// folds (ops::reduce_window_by).
template <class D>
std::vector<Value<D>> reduce_window_with_body(const D& d, const Instruction& inst, const std::vector<const Value<D>*>& args,
                                              const Captures<D>& outer) {
  const std::size_t n = inst.operands.size() / 2;
  const WindowAttributes window = window_attributes(inst.attributes);
  const auto g = ops::window_geometry(shape_of<D>(*args[0]), window);
  const std::size_t rank = g.window.size();
  std::vector<std::int64_t> low(rank, 0), high(rank, 0), interior(rank, 0);
  for (std::size_t k = 0; k < rank; ++k) {
    if (!window.padding.empty()) {
      low[k] = window.padding[k].first;
      high[k] = window.padding[k].second;
    }
    if (!window.base_dilations.empty()) interior[k] = window.base_dilations[k] - 1;
  }
  std::vector<Value<D>> padded, out;
  for (std::size_t i = 0; i < n; ++i) {
    padded.push_back(std::visit([&](const auto& input) -> Value<D> {
      using T = std::decay_t<decltype(input)>;
      return ops::pad(input, std::get<T>(*args[n + i])[0], low, high, interior);
    }, *args[i]));
    out.push_back(filled_with<D>(*args[n + i], g.windows));
  }
  const auto strides = row_major_strides(shape_of<D>(padded[0]));
  const auto offsets = ops::window_offsets(g, strides);
  const Region& body = inst.regions.at(0);
  for_each_element(g.windows, num_elements(g.windows), [&](std::int64_t w) {
    const std::int64_t start = ops::window_start(g, strides, w);
    std::vector<Value<D>> acc;
    for (std::size_t i = 0; i < n; ++i) acc.push_back(*args[n + i]);
    for (auto off : offsets) {
      for (std::size_t i = 0; i < n; ++i) acc.push_back(element_at<D>(padded[i], start + off));
      acc = run_region(d, body, std::move(acc), outer);
    }
    for (std::size_t i = 0; i < n; ++i) copy_element<D>(out[i], w, acc[i], 0);
  });
  return out;
}

// #all_reduce with a body other than one op: one group's values of one operand, in increasing
// replica id, folded element by element through the region, acc = body(acc, x), as the one-op
// fold does (interp/replica_loop.hpp). The body reads only its arguments: every replica has
// its own scope, so a captured value would be ambiguous.
template <class D>
Value<D> all_reduce_with_body(const D& d, const Region& body, const std::vector<const Value<D>*>& in_order) {
  constexpr bool bound_analysis = requires(const typename D::Scalar& x) { d.compare_bits(CompareDirection::EQ, x, x); };
  if constexpr (bound_analysis) {
    throw OpError("stablehlo.all_reduce with a body of several ops is not supported in the " + d.name() + " domain");
  } else {
    Value<D> acc = *in_order.at(0);
    const std::int64_t size = num_elements(shape_of<D>(acc));
    for (std::size_t k = 1; k < in_order.size(); ++k)
      for (std::int64_t i = 0; i < size; ++i) {
        const auto folded = run_region(d, body, {element_at<D>(acc, i), element_at<D>(*in_order[k], i)}, Captures<D>{});
        copy_element<D>(acc, i, folded.at(0), 0);
      }
    return acc;
  }
}

// #select_and_scatter with region bodies: the window kernel, select and scatter the regions.
template <class D>
Value<D> select_and_scatter_with_bodies(const D& d, const Instruction& inst, const std::vector<const Value<D>*>& args,
                                        const Captures<D>& outer) {
  const Region& select = inst.regions.at(0);
  const Region& scatter = inst.regions.at(1);
  return std::visit([&](const auto& operand) -> Value<D> {
    using T = std::decay_t<decltype(operand)>;
    using E = std::decay_t<decltype(operand.data[0])>;
    auto selects = [&](const E& current, const E& candidate) {
      return truth<D>(run_region(d, select, {Value<D>(T(Shape{}, current)), Value<D>(T(Shape{}, candidate))}, outer).at(0),
                      "the select region");
    };
    auto scatters = [&](const E& acc, const E& x) {
      return std::get<T>(run_region(d, scatter, {Value<D>(T(Shape{}, acc)), Value<D>(T(Shape{}, x))}, outer).at(0))[0];
    };
    const T& source = std::get<T>(*args[1]);
    const E& init = std::get<T>(*args[2])[0];
    const auto window = window_attributes(inst.attributes);
    // The kernel's domain argument only names the element kind here: the bodies are the regions.
    if constexpr (std::is_same_v<T, IntTensor>)
      return ops::select_and_scatter(IntegerDomain(inst.operand_types[0].element), operand, source, init, window, selects, scatters);
    else if constexpr (std::is_same_v<T, PredTensor>)
      throw OpError("select_and_scatter of i1 values is not defined");
    else
      return ops::select_and_scatter(d, operand, source, init, window, selects, scatters);
  }, *args[0]);
}

// #scatter with an update_computation region and N inputs (spec §scatter): copies of the
// inputs; for every update index in row-major order whose target is inside the inputs, the
// region maps (current_0..N-1, update_0..N-1) to the new values at the target.
template <class D>
std::vector<Value<D>> scatter_with_body(const D& d, const Instruction& inst, const std::vector<const Value<D>*>& args,
                                        const Captures<D>& outer) {
  const std::size_t n = (inst.operands.size() - 1) / 2;  // inputs, scatter_indices, updates
  const Region& body = inst.regions.at(0);
  std::vector<Value<D>> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(*args[i]);
  const auto indices = ops::index_tensor(std::get<IntTensor>(*args[n]), inst.operand_types.at(n).element);
  ops::for_each_scatter_target(shape_of<D>(*args[0]), indices, shape_of<D>(*args[n + 1]), inst.attributes.indexing,
                               [&](std::int64_t target, std::int64_t u) {
                                 std::vector<Value<D>> operands;
                                 for (std::size_t i = 0; i < n; ++i) operands.push_back(element_at<D>(out[i], target));
                                 for (std::size_t i = 0; i < n; ++i) operands.push_back(element_at<D>(*args[n + 1 + i], u));
                                 const auto updated = run_region(d, body, std::move(operands), outer);
                                 for (std::size_t i = 0; i < n; ++i) copy_element<D>(out[i], target, updated.at(i), 0);
                               });
  return out;
}

// A stable merge sort of `order` by `less`, which may be any predicate: the result is always
// a permutation (an inconsistent comparator gives an implementation-defined order, spec §sort).
template <class Less>
void merge_sort(std::vector<std::int64_t>& order, const Less& less) {
  std::vector<std::int64_t> merged(order.size());
  for (std::size_t width = 1; width < order.size(); width *= 2) {
    for (std::size_t lo = 0; lo < order.size(); lo += 2 * width) {
      const std::size_t mid = std::min(lo + width, order.size()), hi = std::min(lo + 2 * width, order.size());
      std::size_t a = lo, b = mid, k = lo;
      while (a < mid && b < hi) merged[k++] = less(order[b], order[a]) ? order[b++] : order[a++];  // ties keep the left
      while (a < mid) merged[k++] = order[a++];
      while (b < hi) merged[k++] = order[b++];
    }
    order.swap(merged);
  }
}

// #sort: every 1-D slice along `dimension` of all inputs permuted together, ordered by the
// comparator region on (lhs_0, rhs_0, lhs_1, rhs_1, ...). Always stable (a stable order is one
// of the orders an unstable sort may give).
template <class D>
std::vector<Value<D>> sort(const D& d, const Instruction& inst, const std::vector<const Value<D>*>& args, const Captures<D>& outer) {
  const std::size_t n = inst.operands.size();
  const Shape& shape = shape_of<D>(*args[0]);
  const auto rank = static_cast<std::int64_t>(shape.size());
  const std::int64_t dim = inst.attributes.dimension < 0 ? inst.attributes.dimension + rank : inst.attributes.dimension;
  const std::int64_t length = shape[static_cast<std::size_t>(dim)];
  std::int64_t stride = 1;  // between consecutive elements of a slice
  for (std::int64_t k = dim + 1; k < rank; ++k) stride *= shape[static_cast<std::size_t>(k)];
  std::vector<Value<D>> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(*args[i]);
  const std::int64_t total = num_elements(shape);
  if (total == 0) return out;
  const Region& comparator = inst.regions.at(0);
  for (std::int64_t block = 0; block < total / (length * stride); ++block)
    for (std::int64_t within = 0; within < stride; ++within) {
      const std::int64_t base = block * length * stride + within;
      std::vector<std::int64_t> order(static_cast<std::size_t>(length));
      for (std::int64_t k = 0; k < length; ++k) order[static_cast<std::size_t>(k)] = base + k * stride;
      merge_sort(order, [&](std::int64_t lhs, std::int64_t rhs) {
        std::vector<Value<D>> pair_args;
        for (std::size_t i = 0; i < n; ++i) {
          pair_args.push_back(element_at<D>(*args[i], lhs));
          pair_args.push_back(element_at<D>(*args[i], rhs));
        }
        return truth<D>(run_region(d, comparator, std::move(pair_args), outer).at(0), "the sort comparator");
      });
      for (std::size_t i = 0; i < n; ++i)
        for (std::int64_t k = 0; k < length; ++k) copy_element<D>(out[i], base + k * stride, *args[i], order[static_cast<std::size_t>(k)]);
    }
  return out;
}

// #while: state = operands; while cond(state): state = body(state).
template <class D>
std::vector<Value<D>> while_loop(const D& d, const Instruction& inst, const std::vector<const Value<D>*>& args,
                                 const Captures<D>& outer) {
  std::vector<Value<D>> state;
  for (std::size_t i = 0; i < inst.operands.size(); ++i) state.push_back(*args[i]);
  for (std::int64_t iterations = 0;; ++iterations) {
    if (!truth<D>(run_region(d, inst.regions.at(0), state, outer).at(0), "the while cond region")) return state;
    if (iterations == max_while_iterations())
      throw OpError("the loop did not end after " + std::to_string(max_while_iterations()) + " iterations (the oracle's limit)");
    state = run_region(d, inst.regions.at(1), std::move(state), outer);
  }
}

// #if and #case: one branch runs; case's index out of range selects the last branch.
template <class D>
std::vector<Value<D>> branch(const D& d, const Instruction& inst, const std::vector<const Value<D>*>& args, const Captures<D>& outer) {
  std::size_t chosen = 0;
  if (inst.op == Op::If) {
    chosen = truth<D>(*args[0], "the if predicate") ? 0 : 1;
  } else {
    const auto index = static_cast<std::int64_t>(std::get<IntTensor>(*args[0])[0]);  // sign-extended i32
    const auto branches = static_cast<std::int64_t>(inst.regions.size());
    chosen = static_cast<std::size_t>(index >= 0 && index < branches ? index : branches - 1);
  }
  return run_region(d, inst.regions.at(chosen), {}, outer);
}

/// The results of an instruction that runs regions (runs_regions(inst)); args are its
/// operands, then its captures.
template <class D>
std::vector<Value<D>> execute_region_op(const D& d, const Instruction& inst, const std::vector<const Value<D>*>& args) {
  constexpr bool bound_analysis = requires(const typename D::Scalar& x) { d.compare_bits(CompareDirection::EQ, x, x); };
  if constexpr (bound_analysis) {
    throw OpError(std::string("stablehlo.") + op_name(inst.op) + " with a region run as a program is not supported in the " +
                  d.name() + " domain");
  } else {
    Captures<D> outer;
    const auto captured = captured_values(inst);
    for (std::size_t i = 0; i < captured.size(); ++i) outer.emplace(captured[i], args.at(inst.operands.size() + i));
    switch (inst.op) {
      case Op::Reduce: return reduce_with_body(d, inst, args, outer);
      case Op::ReduceWindow: return reduce_window_with_body(d, inst, args, outer);
      case Op::SelectAndScatter: return {select_and_scatter_with_bodies(d, inst, args, outer)};
      case Op::Scatter: return scatter_with_body(d, inst, args, outer);
      case Op::Sort: return sort(d, inst, args, outer);
      case Op::While: return while_loop(d, inst, args, outer);
      case Op::If: case Op::Case: return branch(d, inst, args, outer);
      case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Maximum: case Op::Minimum:
      case Op::And: case Op::Or: case Op::Negate: case Op::Abs: case Op::Exponential: case Op::Log: case Op::Sqrt:
      case Op::Rsqrt: case Op::Tanh: case Op::Logistic: case Op::Compare: case Op::Select: case Op::Convert:
      case Op::Constant: case Op::Iota: case Op::BroadcastInDim: case Op::Reshape: case Op::Transpose:
      case Op::Reverse: case Op::Slice: case Op::Pad: case Op::Concatenate: case Op::DotGeneral: case Op::Convolution:
      case Op::AllReduce: case Op::Not: case Op::Xor: case Op::Power: case Op::Remainder: case Op::Sign:
      case Op::Floor: case Op::Ceil: case Op::RoundNearestEven: case Op::RoundNearestAfz: case Op::Sine:
      case Op::Cosine: case Op::LogPlusOne: case Op::ExponentialMinusOne: case Op::Clamp: case Op::BitcastConvert:
      case Op::DynamicSlice: case Op::DynamicUpdateSlice: case Op::Gather: case Op::ShiftLeft:
      case Op::ShiftRightArithmetic: case Op::ShiftRightLogical:
        break;
    }
    throw OpError(std::string("stablehlo.") + op_name(inst.op) + " has no region to run");
  }
}

}  // namespace shlo::run_detail
