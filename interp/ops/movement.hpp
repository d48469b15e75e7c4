// Data-movement ops, one function each, generic over the element type (domain scalars or
// predicates). Spec: https://github.com/openxla/stablehlo/blob/main/docs/spec.md
#pragma once

#include <algorithm>
#include <cstring>

#include "ast/program.hpp"
#include "interp/domain/rational.hpp"
#include "interp/domain/rounding.hpp"
#include "interp/ops/common.hpp"

namespace shlo::ops {

/// out[i] = in[base + sum_d index_d(i) * strides[d]] over the row-major indices of out_shape:
/// broadcast (stride 0), transpose (permuted strides), reverse (negative strides), slice.
/// Large outputs are split into one range per thread, each walking its own odometer.
template <class E>
Tensor<E> gather_strided(const Tensor<E>& in, const Shape& out_shape, const std::vector<std::int64_t>& strides,
                         std::int64_t base) {
  const std::int64_t n = num_elements(out_shape);
  Storage<E> out = storage_for_writing<E>(n);
  const std::size_t rank = out_shape.size();
  parallel_for_ranges(n, [&](std::int64_t begin, std::int64_t end) {
    std::vector<std::int64_t> index = unravel(out_shape, begin);
    std::int64_t offset = base;
    for (std::size_t d = 0; d < rank; ++d) offset += index[d] * strides[d];
    for (std::int64_t i = begin; i < end; ++i) {
      out[static_cast<std::size_t>(i)] = in.data[static_cast<std::size_t>(offset)];
      for (std::size_t d = rank; d-- > 0;) {  // odometer, last dimension fastest
        offset += strides[d];
        if (++index[d] < out_shape[d]) break;
        offset -= strides[d] * out_shape[d];
        index[d] = 0;
      }
    }
  }, kCopyGrain<E>);
  return Tensor<E>(out_shape, std::move(out));
}

// #broadcast_in_dim
template <class E>
Tensor<E> broadcast_in_dim(const Tensor<E>& operand, const Shape& result_shape, const std::vector<std::int64_t>& dims) {
  const auto in_strides = row_major_strides(operand.shape);
  std::vector<std::int64_t> strides(result_shape.size(), 0);
  for (std::size_t i = 0; i < dims.size(); ++i)
    strides[static_cast<std::size_t>(dims[i])] = operand.shape[i] == 1 ? 0 : in_strides[i];
  // Elements that track their rounding errors (the bound domain) learn that they are now
  // copies of one another, whose errors are one error, not independent ones: each is marked
  // with the operand element it copies.
  if constexpr (requires(E& x) { mark_replicated(x, std::int64_t{0}); })
    if (num_elements(result_shape) > operand.size()) {
      Tensor<E> sources = operand;
      for (std::int64_t i = 0; i < sources.size(); ++i) mark_replicated(sources.data[static_cast<std::size_t>(i)], i);
      return gather_strided(sources, result_shape, strides, 0);
    }
  return gather_strided(operand, result_shape, strides, 0);
}

// #reshape: row-major order is kept. A dying operand gives its storage; a live one is copied
// (by the threads when large).
template <class E>
Tensor<E> reshape(Tensor<E>&& operand, const Shape& result_shape) {
  operand.shape = result_shape;
  return std::move(operand);
}
template <class E>
Tensor<E> reshape(const Tensor<E>& operand, const Shape& result_shape) {
  return Tensor<E>(result_shape, copied(operand.data));
}

// #transpose: result dimension i is operand dimension permutation[i].
template <class E>
Tensor<E> transpose(const Tensor<E>& operand, const std::vector<std::int64_t>& permutation) {
  const auto in_strides = row_major_strides(operand.shape);
  Shape shape;
  std::vector<std::int64_t> strides;
  for (auto p : permutation) {
    shape.push_back(operand.shape[static_cast<std::size_t>(p)]);
    strides.push_back(in_strides[static_cast<std::size_t>(p)]);
  }
  return gather_strided(operand, shape, strides, 0);
}

// #reverse
template <class E>
Tensor<E> reverse(const Tensor<E>& operand, const std::vector<std::int64_t>& dims) {
  auto strides = row_major_strides(operand.shape);
  std::int64_t base = 0;
  for (auto d : dims) {
    const auto k = static_cast<std::size_t>(d);
    if (operand.shape[k] == 0) continue;
    base += (operand.shape[k] - 1) * strides[k];
    strides[k] = -strides[k];
  }
  return gather_strided(operand, operand.shape, strides, base);
}

// #slice
template <class E>
Tensor<E> slice(const Tensor<E>& operand, const std::vector<std::int64_t>& start, const std::vector<std::int64_t>& limit,
                const std::vector<std::int64_t>& step) {
  const auto in_strides = row_major_strides(operand.shape);
  Shape shape;
  std::vector<std::int64_t> strides;
  std::int64_t base = 0;
  for (std::size_t d = 0; d < start.size(); ++d) {
    // ceil((limit - start) / step) without overflow (a step may be near INT64_MAX); a dimension
    // of one element never steps, so its stride is 0 rather than a product that could wrap.
    const std::int64_t size = limit[d] == start[d] ? 0 : (limit[d] - start[d] - 1) / step[d] + 1;
    shape.push_back(size);
    strides.push_back(size > 1 ? in_strides[d] * step[d] : 0);
    base += start[d] * in_strides[d];
  }
  return gather_strided(operand, shape, strides, base);
}

// #pad: low/high may be negative (cropping); interior inserts padding between elements.
// Row by row of the operand's last dimension (one offset computation per row); each output
// element comes from at most one operand element, so the rows split over the threads.
template <class E>
Tensor<E> pad(const Tensor<E>& operand, const E& padding_value, const std::vector<std::int64_t>& low,
              const std::vector<std::int64_t>& high, const std::vector<std::int64_t>& interior) {
  Shape shape;
  for (std::size_t d = 0; d < operand.shape.size(); ++d) {
    const auto n = operand.shape[d];
    shape.push_back(low[d] + (n == 0 ? 0 : (n - 1) * (interior[d] + 1) + 1) + high[d]);
  }
  const std::size_t rank = shape.size();
  if (rank == 0) return operand;
  Tensor<E> out(shape, filled(num_elements(shape), padding_value));
  const auto out_strides = row_major_strides(shape);
  const std::int64_t row_len = operand.shape.back(), step = interior.back() + 1;
  if (row_len == 0) return out;
  const Shape leading(operand.shape.begin(), operand.shape.end() - 1);
  const std::int64_t rows = operand.size() / row_len;
  parallel_for_ranges(rows, [&](std::int64_t first_row, std::int64_t end_row) {
    std::vector<std::int64_t> index = unravel(leading, first_row);  // the operand row's index
    for (std::int64_t row = first_row; row < end_row; ++row) {
      std::int64_t offset = 0;
      bool inside = true;
      for (std::size_t d = 0; d + 1 < rank; ++d) {
        const auto p = low[d] + index[d] * (interior[d] + 1);
        inside = inside && p >= 0 && p < shape[d];
        offset += p * out_strides[d];
      }
      if (inside) {
        const std::int64_t start = row * row_len;
        for (std::int64_t j = 0; j < row_len; ++j) {
          const auto p = low.back() + j * step;
          if (p >= 0 && p < shape.back()) out[offset + p] = operand[start + j];
        }
      }
      for (std::size_t d = rank - 1; d-- > 0;) {  // odometer over the leading dimensions
        if (++index[d] < operand.shape[d]) break;
        index[d] = 0;
      }
    }
  }, std::max<std::int64_t>(1, kCopyGrain<E> / row_len));
  return out;
}

// #concatenate: per index of the dimensions before `dimension` (outer), each input's block in
// turn; the outer indices split over the threads.
template <class E>
Tensor<E> concatenate(const std::vector<const Tensor<E>*>& inputs, std::int64_t dimension) {
  Shape shape = inputs.at(0)->shape;
  const auto k = static_cast<std::size_t>(dimension);
  shape[k] = 0;
  for (const auto* t : inputs) shape[k] += t->shape[k];
  std::int64_t outer = 1;
  for (std::size_t d = 0; d < k; ++d) outer *= shape[d];
  const std::int64_t n = num_elements(shape);
  Storage<E> out = storage_for_writing<E>(n);
  if (outer == 0 || n == 0) return Tensor<E>(shape, std::move(out));
  const std::int64_t row = n / outer;  // one outer index's elements, all inputs together
  parallel_for_ranges(outer, [&](std::int64_t o0, std::int64_t o1) {
    for (std::int64_t o = o0; o < o1; ++o) {
      auto dst = out.begin() + o * row;
      for (const auto* t : inputs) {
        const std::int64_t block = t->size() / outer;
        dst = std::copy(t->data.begin() + o * block, t->data.begin() + (o + 1) * block, dst);
      }
    }
  }, std::max<std::int64_t>(1, kCopyGrain<E> / row));
  return Tensor<E>(shape, std::move(out));
}

/// The value of a binary16 (f16) bit pattern: by value, inf and NaN by their binary32 patterns.
template <class D>
typename D::Scalar from_binary16_bits(const D& d, std::uint64_t bits) {
  bool special = false;
  const Rational v = binary16_from_bits(bits, special);
  if (!special) return d.from_rational(v);
  const bool negative = (bits >> 15) & 1, nan = (bits & 0x3FF) != 0;
  return d.from_bits(nan ? 0x7FC00000u : negative ? 0xFF800000u : 0x7F800000u, FloatFormat::Binary32);
}

// #constant: a splat or a full list; each element read by the domain exactly as written.
template <class D>
Tensor<typename D::Scalar> constant(const D& d, const DenseLiteral& literal, const TensorType& type) {
  auto scalar = [&](const std::string& text) {
    if (text.rfind("0x", 0) == 0 || text.rfind("0X", 0) == 0) {
      std::uint64_t bits = std::stoull(text.substr(2), nullptr, 16);
      if (type.element == ElementType::F8E4M3FN) {  // no binary32 pattern holds it: by value
        bool nan = false;
        const Rational v = f8e4m3fn_from_bits(bits, nan);
        return nan ? d.from_bits(0x7FC00000u, FloatFormat::Binary32) : d.from_rational(v);
      }
      if (type.element == ElementType::F16) return from_binary16_bits(d, bits);
      if (type.element == ElementType::BF16) bits <<= 16;  // bf16 is the top half of a binary32
      return d.from_bits(bits, type.element == ElementType::F64 ? FloatFormat::Binary64 : FloatFormat::Binary32);
    }
    return d.from_literal(text);
  };
  if (literal.splat) return Tensor<typename D::Scalar>(type.shape, filled(num_elements(type.shape), scalar(literal.elements.at(0))));
  Storage<typename D::Scalar> values;
  for (const auto& e : literal.elements) values.push_back(scalar(e));
  return Tensor<typename D::Scalar>(type.shape, std::move(values));
}

/// An i1 constant: true/false (or 1/0).
PredTensor pred_constant(const DenseLiteral& literal, const TensorType& type);

// #iota: the index along `dimension`.
template <class D>
Tensor<typename D::Scalar> iota(const D& d, const TensorType& type, std::int64_t dimension) {
  const std::int64_t n = num_elements(type.shape);
  Storage<typename D::Scalar> out;
  out.reserve(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    out.push_back(d.from_rational(Rational(unravel(type.shape, i)[static_cast<std::size_t>(dimension)])));
  return Tensor<typename D::Scalar>(type.shape, std::move(out));
}

}  // namespace shlo::ops
