// The indexing ops, generic over the element (domain scalars, integers, predicates):
// dynamic_slice, dynamic_update_slice, gather, scatter. Spec sections of the same names.
// Indices are integer tensors of any integer type; their values are read exactly (an
// unsigned value above INT64_MAX saturates, which clamps or skips exactly as the true value).
#pragma once

#include <algorithm>
#include <limits>

#include "ast/indexing.hpp"
#include "interp/ops/common.hpp"
#include "interp/ops/movement.hpp"

namespace shlo::ops {

/// Element i of an integer tensor of element type `type` as an index.
inline std::int64_t index_value(const IntTensor& t, std::int64_t i, ElementType type) {
  const std::uint64_t bits = t[i];
  if (is_unsigned_integer(type) && bits > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(bits);  // signed types are stored sign-extended
}

/// The spec's `adjusted_start_indices = clamp(0, start_indices, shape(operand) - sizes)` of
/// dynamic_slice and dynamic_update_slice, from rank-0 start index tensors.
inline std::vector<std::int64_t> clamped_starts(const std::vector<const IntTensor*>& starts, ElementType type,
                                                const Shape& operand, const std::vector<std::int64_t>& sizes) {
  std::vector<std::int64_t> out;
  for (std::size_t d = 0; d < starts.size(); ++d)
    out.push_back(std::clamp<std::int64_t>(index_value(*starts[d], 0, type), 0, operand[d] - sizes[d]));
  return out;
}

// #dynamic_slice: a slice of `sizes` at the clamped start.
template <class E>
Tensor<E> dynamic_slice(const Tensor<E>& operand, const std::vector<std::int64_t>& start, const std::vector<std::int64_t>& sizes) {
  std::vector<std::int64_t> limit(start.size()), step(start.size(), 1);
  for (std::size_t d = 0; d < start.size(); ++d) limit[d] = start[d] + sizes[d];
  return slice(operand, start, limit, step);
}

// #dynamic_update_slice: a copy of the operand with `update` written at the clamped start
// (the operand value itself is unchanged: values are immutable).
template <class E>
Tensor<E> dynamic_update_slice(const Tensor<E>& operand, const Tensor<E>& update, const std::vector<std::int64_t>& start) {
  Tensor<E> out(operand.shape, copied(operand.data));
  const auto strides = row_major_strides(operand.shape);
  for (std::int64_t u = 0; u < update.size(); ++u) {
    const auto index = unravel(update.shape, u);
    std::int64_t flat = 0;
    for (std::size_t d = 0; d < index.size(); ++d) flat += (start[d] + index[d]) * strides[d];
    out[flat] = update[u];
  }
  return out;
}

/// The spec's index map shared by gather and scatter (in gather's names; scatter's are their
/// peers, ast/program.hpp): for an index of the result (gather) or of the updates (scatter),
/// the operand index `start + batching + offset`, where each start coordinate first goes
/// through `adjust(operand_dim, start)` (gather clamps, scatter does not). Returns false when
/// the index overflows 64 bits (then out of bounds).
class IndexMap {
 public:
  IndexMap(const IndexingDimensionNumbers& dn, const Shape& operand, const Tensor<std::int64_t>& indices, std::size_t index_rank)
      : dn_(dn), operand_(operand), indices_(indices) {
    for (std::int64_t d = 0; d < static_cast<std::int64_t>(index_rank); ++d)
      if (!contains(dn.offset_dims, d)) batch_dims_.push_back(d);
    for (std::int64_t d = 0; d < static_cast<std::int64_t>(operand.size()); ++d)
      if (!contains(dn.collapsed_slice_dims, d) && !contains(dn.operand_batching_dims, d)) offset_operand_dims_.push_back(d);
  }

  template <class Adjust>
  bool operand_index(const std::vector<std::int64_t>& index, Adjust adjust, std::vector<std::int64_t>& out) const {
    out.assign(operand_.size(), 0);
    std::vector<std::int64_t> batch_index;
    for (auto d : batch_dims_) batch_index.push_back(index[static_cast<std::size_t>(d)]);
    // start_index: indices[batch_index with ':' at index_vector_dim], or [indices[batch_index]].
    const auto ivd = static_cast<std::size_t>(dn_.index_vector_dim);
    const bool has_vector = ivd < indices_.shape.size();
    std::vector<std::int64_t> at = batch_index;
    if (has_vector) at.insert(at.begin() + static_cast<std::ptrdiff_t>(ivd), 0);
    for (std::size_t k = 0; k < dn_.start_index_map.size(); ++k) {
      if (has_vector) at[ivd] = static_cast<std::int64_t>(k);
      const auto d = static_cast<std::size_t>(dn_.start_index_map[k]);
      out[d] = adjust(d, indices_.at(at));
    }
    for (std::size_t i = 0; i < dn_.operand_batching_dims.size(); ++i) {
      const auto d_start = static_cast<std::size_t>(dn_.start_indices_batching_dims[i]);
      const std::int64_t b = batch_index[d_start - (d_start < ivd ? 0 : 1)];
      if (__builtin_add_overflow(out[static_cast<std::size_t>(dn_.operand_batching_dims[i])], b,
                                 &out[static_cast<std::size_t>(dn_.operand_batching_dims[i])]))
        return false;
    }
    for (std::size_t k = 0; k < offset_operand_dims_.size(); ++k) {
      auto& o = out[static_cast<std::size_t>(offset_operand_dims_[k])];
      if (__builtin_add_overflow(o, index[static_cast<std::size_t>(dn_.offset_dims[k])], &o)) return false;
    }
    return true;
  }

 private:
  static bool contains(const std::vector<std::int64_t>& v, std::int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

  const IndexingDimensionNumbers& dn_;
  const Shape& operand_;
  const Tensor<std::int64_t>& indices_;
  std::vector<std::int64_t> batch_dims_;           // result (updates) axes not in offset_dims
  std::vector<std::int64_t> offset_operand_dims_;  // operand axes that take the offset index, in order
};

/// An integer tensor of element type `type` as exact indices.
inline Tensor<std::int64_t> index_tensor(const IntTensor& t, ElementType type) {
  std::vector<std::int64_t> out(t.data.size());
  for (std::int64_t i = 0; i < t.size(); ++i) out[static_cast<std::size_t>(i)] = index_value(t, i, type);
  return Tensor<std::int64_t>(t.shape, std::move(out));
}

// #gather: each start coordinate clamped so that the slice stays inside the operand.
template <class E>
Tensor<E> gather(const Tensor<E>& operand, const Tensor<std::int64_t>& indices, const IndexingDimensionNumbers& dn,
                 const std::vector<std::int64_t>& slice_sizes, const Shape& result_shape) {
  const IndexMap map(dn, operand.shape, indices, result_shape.size());
  auto clamp_start = [&](std::size_t d, std::int64_t s) { return std::clamp<std::int64_t>(s, 0, operand.shape[d] - slice_sizes[d]); };
  const std::int64_t n = num_elements(result_shape);
  Storage<E> out;
  out.reserve(static_cast<std::size_t>(n));
  std::vector<std::int64_t> operand_index;
  for (std::int64_t r = 0; r < n; ++r) {
    map.operand_index(unravel(result_shape, r), clamp_start, operand_index);  // clamped: never out of bounds
    out.push_back(operand.at(operand_index));
  }
  return Tensor<E>(result_shape, std::move(out));
}

/// The spec's scatter loop without its update: for every update index in row-major order
/// (the spec leaves the order to the implementation; this one makes repeated targets
/// deterministic), `visit(target, u)` with the flat index of the spec's result_index in the
/// input and the flat update index. An update whose result_index is out of bounds is skipped,
/// element by element as the spec's `exec` says (so a window partly outside keeps its inside
/// elements).
template <class Visit>
void for_each_scatter_target(const Shape& input, const Tensor<std::int64_t>& indices, const Shape& updates,
                             const IndexingDimensionNumbers& dn, Visit visit) {
  const IndexMap map(dn, input, indices, updates.size());
  auto as_is = [](std::size_t, std::int64_t s) { return s; };
  const auto strides = row_major_strides(input);
  std::vector<std::int64_t> target;
  const std::int64_t n = num_elements(updates);
  for (std::int64_t u = 0; u < n; ++u) {
    if (!map.operand_index(unravel(updates, u), as_is, target)) continue;
    bool inside = true;
    for (std::size_t d = 0; d < target.size(); ++d) inside = inside && target[d] >= 0 && target[d] < input[d];
    if (!inside) continue;
    std::int64_t flat = 0;
    for (std::size_t d = 0; d < target.size(); ++d) flat += target[d] * strides[d];
    visit(flat, u);
  }
}

// #scatter of one input with a combiner the interpreter knows (a `set` or one binary op):
// a copy of `input` where `update(target, u)` combines each in-bounds target with its update.
template <class E, class Update>
Tensor<E> scatter(const Tensor<E>& input, const Tensor<std::int64_t>& indices, const Tensor<E>& updates,
                  const IndexingDimensionNumbers& dn, Update update) {
  Tensor<E> out(input.shape, copied(input.data));
  for_each_scatter_target(input.shape, indices, updates.shape, dn,
                          [&](std::int64_t target, std::int64_t u) { update(out[target], updates[u]); });
  return out;
}

}  // namespace shlo::ops
