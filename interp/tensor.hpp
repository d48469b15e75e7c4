// A tensor of one domain's scalars: a shape and the elements in row-major order.
//
// Plain std::vector storage: every kernel owns its loops and its summation order, and
// arbitrary-precision scalars never meet a library's expression machinery.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace shlo {

using Shape = std::vector<std::int64_t>;

/// Product of the dimensions (1 for a scalar); throws on a negative dimension or overflow.
std::int64_t num_elements(const Shape& shape);
/// "128x10", or "scalar" for rank 0.
std::string shape_to_string(const Shape& shape);
/// Row-major strides in elements.
std::vector<std::int64_t> row_major_strides(const Shape& shape);

template <class S>
struct Tensor {
  Shape shape;
  std::vector<S> data;

  Tensor() = default;
  Tensor(Shape s, const S& fill) : shape(std::move(s)), data(static_cast<std::size_t>(num_elements(shape)), fill) {}
  Tensor(Shape s, std::vector<S> d) : shape(std::move(s)), data(std::move(d)) {
    if (static_cast<std::int64_t>(data.size()) != num_elements(shape))
      throw std::invalid_argument("tensor of shape " + shape_to_string(shape) + " needs " +
                                  std::to_string(num_elements(shape)) + " elements, got " +
                                  std::to_string(data.size()));
  }
  std::int64_t rank() const { return static_cast<std::int64_t>(shape.size()); }
  std::int64_t size() const { return static_cast<std::int64_t>(data.size()); }
  S& operator[](std::int64_t i) { return data[static_cast<std::size_t>(i)]; }
  const S& operator[](std::int64_t i) const { return data[static_cast<std::size_t>(i)]; }
  /// Element at a multi-index (row-major), bounds-checked.
  const S& at(const std::vector<std::int64_t>& index) const { return data.at(flat_index(index)); }
  S& at(const std::vector<std::int64_t>& index) { return data.at(flat_index(index)); }

  std::size_t flat_index(const std::vector<std::int64_t>& index) const {
    if (index.size() != shape.size()) throw std::out_of_range("tensor index of wrong rank");
    std::int64_t flat = 0;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      if (index[d] < 0 || index[d] >= shape[d]) throw std::out_of_range("tensor index out of range");
      flat = flat * shape[d] + index[d];
    }
    return static_cast<std::size_t>(flat);
  }
};

}  // namespace shlo
