// A deliberately naive evaluator of op-level programs in float32 and float64: plain scalar
// loops over multi-indices, one result element at a time, summing in the documented order
// (interp/ops/contraction.hpp, reduction.hpp and the README) and using the documented scalar
// functions (interp/domain/ieee.hpp). It shares no code with interp/ops: it is the reference
// that `shlo run`'s f32 and f64 results must equal bit for bit.
//
// Supported: every op of the subset except convert, on one replica (all_reduce over the
// group [[0]] only), one result, i1 values inside the program (compare, select, and, or).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "ast/program.hpp"

namespace shlo {

/// How the naive evaluator orders a sum (the control reverses it; the result must then differ).
enum class NaiveSumOrder { Documented, Reversed };

class NaiveError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Runs `m` on one replica: inputs[k] is argument k's data (row-major); returns the first
/// result's data. T is float or double.
template <class T>
std::vector<T> naive_run(const Module& m, const std::vector<std::vector<T>>& inputs, NaiveSumOrder order = NaiveSumOrder::Documented);

extern template std::vector<float> naive_run(const Module&, const std::vector<std::vector<float>>&, NaiveSumOrder);
extern template std::vector<double> naive_run(const Module&, const std::vector<std::vector<double>>&, NaiveSumOrder);

}  // namespace shlo
