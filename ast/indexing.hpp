// Facts about the indexing ops (dynamic_slice, dynamic_update_slice, gather, scatter) that the
// verifier and the interpreter share: which scatter update regions run without a region
// executor, and the spellings of the gather/scatter dimension numbers.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "ast/program.hpp"

namespace shlo {

/// A scatter update_computation the interpreter runs by pattern: `return %update` (`set`:
/// JAX's x.at[i].set(v)), or one binary op of (current value, update) in that order (`op`:
/// add, subtract, multiply, divide, maximum, minimum, and, or, xor; x.at[i].add(v) is add).
struct ScatterCombiner {
  bool set = false;
  Op op = Op::Add;  // when !set
};
/// The combiner region `r` computes, if it is one of those; nullopt for any other body (a
/// region executor would run it; none is plugged in yet).
std::optional<ScatterCombiner> scatter_combiner(const Region& r);

/// The field names of gather's dimension numbers (`#stablehlo.gather<...>`) or scatter's
/// (`#stablehlo.scatter<...>`), in the order of the record's five lists, then
/// index_vector_dim's name.
struct IndexingFieldNames {
  std::array<const char*, 5> lists;
  const char* index_vector_dim;
};
const IndexingFieldNames& indexing_field_names(Op op);  // Op::Gather or Op::Scatter
/// The list of `d` named by position `i` of indexing_field_names's lists.
const std::vector<std::int64_t>& indexing_list(const IndexingDimensionNumbers& d, std::size_t i);
std::vector<std::int64_t>& indexing_list(IndexingDimensionNumbers& d, std::size_t i);

}  // namespace shlo
