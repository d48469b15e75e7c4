// NumPy .npy files (format versions 1.0, 2.0, 3.0) of f32, f64, bool (i1) and i64.
//
// Our own reader rather than xtensor's: it names the file and what was expected and found in
// every error, detects truncated files before allocating, accepts either byte order and
// Fortran order (converted to row-major), and never trusts the header's sizes.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "interp/tensor.hpp"

namespace shlo {

enum class NpyDtype { F32, F64, Bool, I64 };
const char* to_string(NpyDtype d);  // "f32", "f64", "bool", "i64"

class NpyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct NpyArray {
  Shape shape;
  std::variant<std::vector<float>, std::vector<double>, std::vector<std::uint8_t>,
               std::vector<std::int64_t>>
      data;  // row-major; bool as 0/1 bytes
  NpyDtype dtype() const { return static_cast<NpyDtype>(data.index()); }
};

NpyArray read_npy(const std::string& path);
/// Reads and checks dtype and shape; the error names the file, the expectation and the find.
NpyArray read_npy(const std::string& path, NpyDtype expected_dtype, const Shape& expected_shape);
/// Writes format 1.0, little-endian, C order, atomically (temporary name, then rename).
void write_npy(const std::string& path, const NpyArray& array);

}  // namespace shlo
