// NumPy .npy files (format versions 1.0, 2.0, 3.0) of the dtypes the element types need:
// f4 f8 f2, b1, signed i1 i2 i4 i8 and unsigned u1 u2 u4 u8, and V2 (two raw bytes: how
// ml_dtypes' bfloat16 is saved, read as bf16 bit patterns).
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

enum class NpyDtype { F32, F64, Bool, I64, I8, I16, I32, U8, U16, U32, U64, F16, BF16 };
const char* to_string(NpyDtype d);  // "f32", "f64", "bool", "i64", "i8", ..., "u64", "f16", "bf16"

/// Element types that would otherwise share a C++ type with another dtype (u1 with b1's bytes,
/// f2 and V2 with u2): distinct types, so that each dtype is one alternative of NpyArray::data.
enum class NpyU8 : std::uint8_t {};
enum class NpyF16Bits : std::uint16_t {};   // IEEE binary16
enum class NpyBF16Bits : std::uint16_t {};  // bfloat16 (saved by ml_dtypes as the void dtype V2)

class NpyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct NpyArray {
  Shape shape;
  // In the order of NpyDtype.
  std::variant<std::vector<float>, std::vector<double>, std::vector<std::uint8_t>, std::vector<std::int64_t>,
               std::vector<std::int8_t>, std::vector<std::int16_t>, std::vector<std::int32_t>, std::vector<NpyU8>,
               std::vector<std::uint16_t>, std::vector<std::uint32_t>, std::vector<std::uint64_t>, std::vector<NpyF16Bits>,
               std::vector<NpyBF16Bits>>
      data;  // row-major; bool as 0/1 bytes
  NpyDtype dtype() const { return static_cast<NpyDtype>(data.index()); }
};

NpyArray read_npy(const std::string& path);
/// Reads and checks dtype and shape; the error names the file, the expectation and the find.
NpyArray read_npy(const std::string& path, NpyDtype expected_dtype, const Shape& expected_shape);
/// Writes format 1.0, little-endian, C order, atomically (temporary name, then rename).
void write_npy(const std::string& path, const NpyArray& array);

}  // namespace shlo
