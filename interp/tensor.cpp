#include "interp/tensor.hpp"

#include <limits>

namespace shlo {

std::int64_t num_elements(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0) throw std::invalid_argument("negative dimension in shape " + shape_to_string(shape));
    if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d)
      throw std::invalid_argument("shape " + shape_to_string(shape) + " has too many elements");
    n *= d;
  }
  return n;
}

std::string shape_to_string(const Shape& shape) {
  if (shape.empty()) return "scalar";
  std::string s;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += "x";
    s += std::to_string(shape[i]);
  }
  return s;
}

std::vector<std::int64_t> row_major_strides(const Shape& shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

}  // namespace shlo
