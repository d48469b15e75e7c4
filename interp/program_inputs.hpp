// A program's inputs on R replicas: read from .npy files or drawn from a seed, checked against
// the arguments' types, and turned into domain values. This is the one place where .npy data
// becomes domain values: `shlo run`, `shlo check` and `shlo agree` all read inputs through it.
//
// File layout (what `shlo run --out` writes): DIR/<arg>.npy (the argument name without %),
// shared by every replica, or DIR/r<k>/<arg>.npy, or DIR/r<k>/inputs/<arg>.npy per replica.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ast/program.hpp"
#include "interp/npy.hpp"
#include "interp/ops/common.hpp"

namespace shlo {

/// A missing, unreadable or misshaped input: names the file (or the argument) and the mismatch.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// DIR/r<k>/NAME when that exists, else DIR/NAME (shared by every replica).
std::string replica_file(const std::string& dir, int replica, const std::string& name);
/// An input: DIR/r<k>/NAME, DIR/r<k>/inputs/NAME (saved by a drawn run on R > 1), else DIR/NAME.
std::string replica_input(const std::string& dir, int replica, const std::string& name);

/// Arrays for every argument of replicas first .. first+arrays.size()-1 of `total`, with where
/// each came from (for messages). One process holds them all; an MPI rank holds its own.
struct InputArrays {
  std::vector<std::vector<NpyArray>> arrays;      // [replica - first][argument]
  std::vector<std::vector<std::string>> sources;  // [replica - first][argument]: the file, or the argument
  int first = 0;
  int total = 1;
};

/// Reads the arguments' files from DIR for replicas first .. first+count-1 (count < 0: all of
/// `replicas`); each is checked against its argument's type (shape; bool for i1; f32 data for a
/// float argument, f64 only for an f64 one: an f64 file for a narrower argument would feed values
/// the type cannot hold, so it is refused unless `convert_f64`, which rounds it to float32 once).
/// Throws InputError.
InputArrays read_inputs(const Function& f, const std::string& dir, int replicas, int first = 0, int count = -1,
                        bool convert_f64 = false);

/// The .npy dtype that holds the values of element type e as they are: bool for i1, the integer
/// dtype of e's width and signedness, f16, bf16 (V2), f32, f64; f8E4M3FN has none (f32).
NpyDtype npy_dtype_of(ElementType e);

/// Whether an array of dtype `d` may feed an argument of element type e: an integer or i1
/// argument takes its own dtype only (no conversion between widths or signedness); a float
/// argument takes its own dtype and, as always, f32 or f64 data (which the domain rounds to
/// its values; read_inputs refuses f64 for a narrower argument unless asked to convert).
bool npy_dtype_fits(NpyDtype d, ElementType e);

/// An integer array's elements as the interpreter holds them: 64-bit patterns, sign-extended
/// for signed dtypes, zero-extended for unsigned ones.
std::vector<std::uint64_t> npy_integer_bits(const NpyArray& a);
/// Integer elements (64-bit patterns, as IntTensor holds them) as an array of e's dtype, for
/// writing an integer output in its own element type.
NpyArray npy_of_integers(const Shape& shape, const std::vector<std::uint64_t>& bits, ElementType e);
/// A float array's elements as doubles (f16 and bf16 exactly, from their bit patterns).
std::vector<double> npy_float_values(const NpyArray& a);

/// "LO,HI" (two finite numbers, LO < HI); throws InputError otherwise.
std::pair<double, double> parse_range(const std::string& text);

/// One argument's drawn values: float32-representable values uniform in [lo, hi), deterministic
/// in (seed, replica, argument index); random bits for i1; for an integer type, integers uniform
/// in [ceil(lo), floor(hi)] within the type's range (InputError when no integer is left).
/// Every command draws through this.
NpyArray random_input(const TensorType& type, std::uint64_t seed, int replica, std::size_t index, double lo, double hi);

/// random_input for every argument of replicas first .. first+count-1 (count < 0: all).
InputArrays random_inputs(const Function& f, std::uint64_t seed, int replicas, double lo, double hi, int first = 0,
                          int count = -1);

/// Writes the arrays as DIR/inputs/<arg>.npy (DIR/r<k>/inputs/ when there are several replicas).
void save_inputs(const Function& f, const InputArrays& in, const std::string& dir);

/// One array as a value of `type` in domain d (floats through d.from_double: exact in the
/// exact and interval domains, rounded once in f32). Throws InputError naming `source`.
template <Domain D>
Value<D> npy_value(const D& d, const NpyArray& a, const TensorType& type, const std::string& source) {
  if (a.shape != type.shape)
    throw InputError(source + ": shape is " + shape_to_string(a.shape) + ", expected " + to_string(type));
  if (!npy_dtype_fits(a.dtype(), type.element))
    throw InputError(source + ": dtype is " + to_string(a.dtype()) + ", expected " + to_string(npy_dtype_of(type.element)) + " for " +
                     to_string(type));
  if (type.element == ElementType::I1) return PredTensor(a.shape, std::get<std::vector<std::uint8_t>>(a.data));
  if (is_integer(type.element)) return IntTensor(a.shape, npy_integer_bits(a));
  // Converted by the threads (a batch of images is most of a short run's serial time), straight
  // from the file's float32 or float64 values; half-width floats through doubles.
  using S = typename D::Scalar;
  const std::int64_t n = num_elements(a.shape);
  Storage<S> values = storage_for_writing<S>(n);
  auto convert = [&](const auto& from) {
    parallel_for_elements(a.shape, n, [&](std::int64_t i) {
      values[static_cast<std::size_t>(i)] = d.from_double(static_cast<double>(from[static_cast<std::size_t>(i)]));
    }, kElementwiseGrain<S>);
  };
  try {
    if (const auto* floats = std::get_if<std::vector<float>>(&a.data)) convert(*floats);
    else if (const auto* doubles = std::get_if<std::vector<double>>(&a.data)) convert(*doubles);
    else convert(npy_float_values(a));
  } catch (const std::exception& e) {  // NaN into exact, say (with the element's index)
    throw InputError(source + ": " + e.what());
  }
  return Tensor<S>(a.shape, std::move(values));
}

/// Every argument of every replica as domain values: out[replica][argument]. `sources` names
/// the files in messages (the argument's name where it is empty).
template <Domain D>
std::vector<std::vector<Value<D>>> npy_values(const D& d, const Function& f, const std::vector<std::vector<NpyArray>>& arrays,
                                              const std::vector<std::vector<std::string>>& sources = {}) {
  std::vector<std::vector<Value<D>>> out(arrays.size());
  for (std::size_t r = 0; r < arrays.size(); ++r) {
    if (arrays[r].size() != f.arguments.size())
      throw InputError("replica " + std::to_string(r) + ": " + std::to_string(arrays[r].size()) + " inputs for " +
                       std::to_string(f.arguments.size()) + " arguments");
    for (std::size_t i = 0; i < f.arguments.size(); ++i) {
      const std::string source = r < sources.size() && i < sources[r].size() ? sources[r][i] : "input " + f.arguments[i].name;
      out[r].push_back(npy_value(d, arrays[r][i], f.arguments[i].type, source));
    }
  }
  return out;
}
template <Domain D>
std::vector<std::vector<Value<D>>> npy_values(const D& d, const Function& f, const InputArrays& in) {
  return npy_values(d, f, in.arrays, in.sources);
}

}  // namespace shlo
