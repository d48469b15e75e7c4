// The attributes each op kernel of interp/ops takes: its own typed record, read out of an
// instruction's flat Attributes (ast/program.hpp) by the function below it, so that a
// kernel's signature says what it reads (the simple ops take their few attributes as plain
// arguments).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "ast/program.hpp"

namespace shlo {

/// dot_general: `batching_dims = [..] x [..], contracting_dims = [..] x [..]`.
struct DotDimensions {
  std::vector<std::int64_t> lhs_batching, rhs_batching, lhs_contracting, rhs_contracting;
};

/// convolution: the dimension numbers, the window and the groups.
struct ConvolutionAttributes {
  ConvDimensionNumbers dims;
  // One entry per spatial dimension (the parser fills the spec's defaults).
  std::vector<std::int64_t> window_strides;
  std::vector<std::pair<std::int64_t, std::int64_t>> padding;   // (low, high)
  std::vector<std::int64_t> lhs_dilation, rhs_dilation;
  std::int64_t feature_group_count = 1, batch_group_count = 1;
};

/// reduce_window and select_and_scatter: the window over the operand (empty lists take the
/// spec's defaults: strides and dilations 1, padding 0).
struct WindowAttributes {
  std::vector<std::int64_t> dimensions, strides, base_dilations, window_dilations;
  std::vector<std::pair<std::int64_t, std::int64_t>> padding;
};

inline DotDimensions dot_dimensions(const Attributes& a) {
  return {a.lhs_batching_dimensions, a.rhs_batching_dimensions, a.lhs_contracting_dimensions, a.rhs_contracting_dimensions};
}

inline ConvolutionAttributes convolution_attributes(const Attributes& a) {
  return {a.conv, a.window_strides, a.padding, a.lhs_dilation, a.rhs_dilation, a.feature_group_count, a.batch_group_count};
}

inline WindowAttributes window_attributes(const Attributes& a) {
  return {a.window_dimensions, a.window_strides, a.base_dilations, a.window_dilations, a.padding};
}

}  // namespace shlo
