// reduce, reduce_window, select_and_scatter and all_reduce, with the body of their regions
// given as a scalar combiner (ops/common.hpp).
//
// Order: reduce is a left fold from init over the input in row-major order, per result
// element; reduce_window pads (and base-dilates) with init, then folds each window from init
// in row-major window order; select_and_scatter selects in row-major window order keeping
// the current selection while select(current, candidate) is true (so with GE the first
// maximum wins), then folds the source values into the result from init in row-major source
// order; all_reduce folds the group's replicas in increasing replica id, starting from the
// first one's value.
// Spec: https://github.com/openxla/stablehlo/blob/main/docs/spec.md#reduce, #reduce_window,
// #select_and_scatter, #all_reduce
#pragma once

#include <algorithm>
#include <type_traits>

#include "ast/op_attributes.hpp"
#include "ast/verify.hpp"
#include "interp/ops/common.hpp"
#include "interp/ops/movement.hpp"

namespace shlo::ops {

// #reduce: per result element a left fold from init over its inputs in row-major order (of the
// reduced dimensions), result elements split over the threads. When the innermost dimension
// is kept, a block of result elements advances through the reduced positions together, so
// that consecutive elements read consecutive inputs; each one's fold order is the same.
template <class D>
Tensor<typename D::Scalar> reduce(const D& d, const Tensor<typename D::Scalar>& input, const typename D::Scalar& init,
                                  const std::vector<std::int64_t>& dimensions, Op body) {
  using S = typename D::Scalar;
  std::vector<std::int64_t> reduced = dimensions, kept;
  std::sort(reduced.begin(), reduced.end());
  Shape out_shape;
  for (std::size_t dim = 0; dim < input.shape.size(); ++dim)
    if (!std::binary_search(reduced.begin(), reduced.end(), static_cast<std::int64_t>(dim))) {
      kept.push_back(static_cast<std::int64_t>(dim));
      out_shape.push_back(input.shape[dim]);
    }
  const auto starts = offsets_over(input.shape, kept);     // first input of each result element
  const auto inner = offsets_over(input.shape, reduced);   // its inputs, in row-major order
  const bool innermost_kept = !kept.empty() && kept.back() == static_cast<std::int64_t>(input.shape.size()) - 1;
  if (!innermost_kept) {
    Tensor<S> out(out_shape, storage_for_writing<S>(num_elements(out_shape)));  // each element written once
    parallel_for_elements(out_shape, out.size(), [&](std::int64_t o) {
      S acc = init;
      const std::int64_t start = starts[static_cast<std::size_t>(o)];
      for (auto off : inner) acc = combine(d, body, acc, input[start + off]);
      out[o] = std::move(acc);
    }, static_cast<std::int64_t>(inner.size()) >= 64 ? 2 : 1024);
    return out;
  }
  Tensor<S> out(out_shape, filled(num_elements(out_shape), init));  // the accumulators
  constexpr std::int64_t kBlock = 256;
  const std::int64_t blocks = (out.size() + kBlock - 1) / kBlock;
  parallel_for_elements(out_shape, blocks, [&](std::int64_t b) {
    const std::int64_t o0 = b * kBlock, o1 = std::min(out.size(), o0 + kBlock);
    for (auto off : inner)
      for (std::int64_t o = o0; o < o1; ++o) {
        try {
          out[o] = combine(d, body, out[o], input[starts[static_cast<std::size_t>(o)] + off]);
        } catch (const DomainError& e) {
          throw OpError(std::string(e.what()) + " (at index " + index_string(out_shape, o) + ")");
        }
      }
  }, static_cast<std::int64_t>(inner.size()) >= 64 ? 2 : 8);
  return out;
}

/// The window geometry of reduce_window and select_and_scatter, with the spec's defaults.
struct WindowGeometry {
  Shape window, strides, window_dilations;
  Shape padded;   // input shape after padding and base dilation
  Shape windows;  // number of windows per dimension (the result shape)
};

inline WindowGeometry window_geometry(const Shape& input, const WindowAttributes& a) {
  const std::size_t r = input.size();
  WindowGeometry g;
  g.window = a.dimensions;
  g.strides = a.strides;
  if (g.strides.empty()) g.strides.assign(r, 1);
  g.window_dilations = a.window_dilations;
  if (g.window_dilations.empty()) g.window_dilations.assign(r, 1);
  Shape base = a.base_dilations;
  if (base.empty()) base.assign(r, 1);
  for (std::size_t i = 0; i < r; ++i) {
    const auto lo = a.padding.empty() ? 0 : a.padding[i].first, hi = a.padding.empty() ? 0 : a.padding[i].second;
    g.padded.push_back(lo + dilated_size(input[i], base[i]) + hi);
    g.windows.push_back(num_windows(g.padded[i], dilated_size(g.window[i], g.window_dilations[i]), g.strides[i]));
  }
  return g;
}

/// Offsets of the elements of one window (row-major window order) in a tensor with `strides`.
inline std::vector<std::int64_t> window_offsets(const WindowGeometry& g, const std::vector<std::int64_t>& strides) {
  const std::int64_t n = num_elements(g.window);
  std::vector<std::int64_t> out(static_cast<std::size_t>(n), 0);
  for (std::int64_t k = 0; k < n; ++k) {
    const auto kidx = unravel(g.window, k);
    for (std::size_t d = 0; d < kidx.size(); ++d) out[static_cast<std::size_t>(k)] += kidx[d] * g.window_dilations[d] * strides[d];
  }
  return out;
}

/// Offset of the first element of window `w` (flat over the windows) in a tensor with `strides`.
/// (Called once per window: it unravels w in place rather than allocating an index.)
inline std::int64_t window_start(const WindowGeometry& g, const std::vector<std::int64_t>& strides, std::int64_t w) {
  std::int64_t off = 0;
  for (std::size_t d = g.windows.size(); d-- > 0;) {
    if (g.windows[d] == 0) continue;
    off += w % g.windows[d] * g.strides[d] * strides[d];
    w /= g.windows[d];
  }
  return off;
}

/// Whether no two windows share an input position (every stride at least the dilated window
/// extent): then each position receives at most one window's value.
inline bool windows_disjoint(const WindowGeometry& g) {
  for (std::size_t d = 0; d < g.window.size(); ++d)
    if (g.windows[d] > 1 && g.strides[d] < dilated_size(g.window[d], g.window_dilations[d])) return false;
  return true;
}

// #reduce_window, the body given as `acc = body(acc, x)` on elements of any kind (the region
// executor passes a general body, interp/region_exec.hpp).
template <class S, class Body>
Tensor<S> reduce_window_by(const Tensor<S>& input, const S& init, const WindowAttributes& a, const Body& body) {
  const auto g = window_geometry(input.shape, a);
  const std::size_t r = input.shape.size();
  std::vector<std::int64_t> low(r, 0), high(r, 0), interior(r, 0);
  for (std::size_t i = 0; i < r; ++i) {
    if (!a.padding.empty()) {
      low[i] = a.padding[i].first;
      high[i] = a.padding[i].second;
    }
    if (!a.base_dilations.empty()) interior[i] = a.base_dilations[i] - 1;
  }
  const Tensor<S> padded = pad(input, init, low, high, interior);
  const auto strides = row_major_strides(padded.shape);
  const auto offsets = window_offsets(g, strides);
  Tensor<S> out(g.windows, storage_for_writing<S>(num_elements(g.windows)));  // each element written once
  parallel_for_elements(g.windows, out.size(), [&](std::int64_t w) {
    const std::int64_t start = window_start(g, strides, w);
    S acc = init;
    for (auto off : offsets) acc = body(acc, padded[start + off]);
    out[w] = std::move(acc);
  }, 256);
  return out;
}

// #reduce_window with a body of one op.
template <class D>
Tensor<typename D::Scalar> reduce_window(const D& d, const Tensor<typename D::Scalar>& input, const typename D::Scalar& init,
                                         const WindowAttributes& a, Op body) {
  using S = typename D::Scalar;
  return reduce_window_by(input, init, a, [&](const S& acc, const S& x) { return combine(d, body, acc, x); });
}

// #select_and_scatter. Padding positions are never selected (the spec leaves their value
// unspecified; the printer writes no padding here). Two passes, each split over the threads:
// every source element's selection (independent, written to its own slots of one flat table,
// no allocation per element), then every result element folds the source values sent to it
// in row-major source order, as the spec's sequential scatter does. When the windows are
// disjoint a result element receives at most one source element's values, so the second pass
// runs over the sources directly; otherwise the terms are sorted by position first.
// The bodies are one compare and one op (the printer's regions; the bound domain's analysis
// needs them so), or any callables select(current, candidate) -> bool and scatter(acc, x)
// (the region executor's, interp/region_exec.hpp).
template <class D, class Select = CompareDirection, class Scatter = Op>
Tensor<typename D::Scalar> select_and_scatter(const D& d, const Tensor<typename D::Scalar>& operand,
                                              const Tensor<typename D::Scalar>& source, const typename D::Scalar& init,
                                              const WindowAttributes& a, Select select, Scatter scatter) {
  using S = typename D::Scalar;
  constexpr bool one_op_bodies = std::is_same_v<Select, CompareDirection> && std::is_same_v<Scatter, Op>;
  constexpr bool may_flip = one_op_bodies && requires { d.window_selection(select, std::vector<const S*>{}); };
  [[maybe_unused]] auto selects = [&](const S& current, const S& candidate) {
    if constexpr (one_op_bodies) return decide(d, select, current, candidate);
    else return select(current, candidate);
  };
  if constexpr (may_flip)
    if (scatter != Op::Add) throw OpError("select_and_scatter: the bound domain supports an add scatter only");
  const auto g = window_geometry(operand.shape, a);
  const std::size_t r = operand.shape.size();
  const auto op_strides = row_major_strides(operand.shape);
  bool padded = false;
  for (const auto& p : a.padding) padded = padded || p.first != 0 || p.second != 0;
  const auto offsets = window_offsets(g, op_strides);
  const std::int64_t n = num_elements(g.window);
  // Calls visit(operand offset) for window s's positions inside the operand, in window order.
  auto for_each_candidate = [&](std::int64_t s, auto&& visit) {
    if (!padded) {
      const std::int64_t start = window_start(g, op_strides, s);
      for (auto off : offsets) visit(start + off);
      return;
    }
    const auto widx = unravel(source.shape, s);
    for (std::int64_t k = 0; k < n; ++k) {
      const auto kidx = unravel(g.window, k);
      std::int64_t off = 0;
      bool inside = true;
      for (std::size_t dim = 0; dim < r; ++dim) {
        const auto p = widx[dim] * g.strides[dim] + kidx[dim] - a.padding[dim].first;
        inside = inside && p >= 0 && p < operand.shape[dim];
        off += p * op_strides[dim];
      }
      if (inside) visit(off);
    }
  };
  // 1. Per source element, the positions it is sent to (and, in the bound domain, as what):
  //    slots s*per .. s*per+count[s]-1 of `sent`.
  //    Both arrays are written by the threads before they are read (DefaultInitAllocator: not
  //    zero-filled on the program's thread first).
  struct Sent {
    std::int64_t position;
    std::uint8_t exact, floating, likely;
  };
  const std::int64_t per = may_flip ? n : 1;
  std::vector<Sent, DefaultInitAllocator<Sent>> sent(static_cast<std::size_t>(source.size() * per));
  std::vector<std::int32_t, DefaultInitAllocator<std::int32_t>> count(static_cast<std::size_t>(source.size()));
  parallel_for_elements(source.shape, source.size(), [&](std::int64_t s) {
    Sent* to = sent.data() + s * per;
    auto& sent_count = count[static_cast<std::size_t>(s)];
    sent_count = 0;
    if constexpr (may_flip) {
      // The choice may differ between the exact and the float evaluation: every position
      // that may be chosen receives the source as a possible term.
      std::vector<std::int64_t> candidates;
      std::vector<const S*> values;
      for_each_candidate(s, [&](std::int64_t off) {
        candidates.push_back(off);
        values.push_back(&operand[off]);
      });
      const auto members = d.window_selection(select, values);
      for (std::size_t k = 0; k < candidates.size(); ++k)
        if (members[k].exact || members[k].floating)
          to[sent_count++] = {candidates[k], members[k].exact, members[k].floating, members[k].likely};
    } else {
      std::int64_t selected = -1;
      for_each_candidate(s, [&](std::int64_t off) {
        if (selected < 0 || !selects(operand[selected], operand[off])) selected = off;
      });
      if (selected >= 0) to[sent_count++] = {selected, 1, 1, 1};
    }
  }, 256);
  // 2. Per result element, its terms in increasing source order.
  Tensor<S> out(operand.shape, filled(operand.size(), init));
  auto add_term = [&](std::int64_t s, const Sent& t) {
    auto& o = out[t.position];
    if constexpr (may_flip) o = d.accumulate(o, d.scatter_term(source[s], {t.exact, t.floating, t.likely}));
    else if constexpr (one_op_bodies) o = combine(d, scatter, o, source[s]);
    else o = scatter(o, source[s]);
  };
  if (!padded && windows_disjoint(g)) {  // every position is in one window at most: no two sources meet
    parallel_for_elements(source.shape, source.size(), [&](std::int64_t s) {
      for (std::int32_t j = 0; j < count[static_cast<std::size_t>(s)]; ++j) {
        const Sent& t = sent[static_cast<std::size_t>(s * per + j)];
        try {
          add_term(s, t);
        } catch (const DomainError& e) {  // located at the result element, as in the sorted pass
          throw OpError(std::string(e.what()) + " (at index " + index_string(operand.shape, t.position) + ")");
        }
      }
    }, 1024);
    return out;
  }
  std::vector<std::int64_t> first(static_cast<std::size_t>(operand.size()) + 1, 0);
  for (std::int64_t s = 0; s < source.size(); ++s)
    for (std::int32_t j = 0; j < count[static_cast<std::size_t>(s)]; ++j) ++first[static_cast<std::size_t>(sent[static_cast<std::size_t>(s * per + j)].position) + 1];
  for (std::size_t i = 1; i < first.size(); ++i) first[i] += first[i - 1];
  std::vector<std::pair<std::int64_t, Sent>> terms(static_cast<std::size_t>(first.back()));
  std::vector<std::int64_t> fill(first.begin(), first.end() - 1);
  for (std::int64_t s = 0; s < source.size(); ++s)
    for (std::int32_t j = 0; j < count[static_cast<std::size_t>(s)]; ++j) {
      const Sent& t = sent[static_cast<std::size_t>(s * per + j)];
      terms[static_cast<std::size_t>(fill[static_cast<std::size_t>(t.position)]++)] = {s, t};
    }
  parallel_for_elements(operand.shape, operand.size(), [&](std::int64_t o) {
    for (std::int64_t j = first[static_cast<std::size_t>(o)]; j < first[static_cast<std::size_t>(o) + 1]; ++j) {
      const auto& [s, t] = terms[static_cast<std::size_t>(j)];
      add_term(s, t);
    }
  }, 1024);
  return out;
}

}  // namespace shlo::ops
