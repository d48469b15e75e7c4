#include "ast/indexing.hpp"

#include "ast/regions.hpp"

namespace shlo {

std::optional<ScatterCombiner> scatter_combiner(const Region& r) {
  if (r.arguments.size() != 2 || r.results.size() != 1) return std::nullopt;
  const std::string& current = r.arguments[0].first;
  const std::string& update = r.arguments[1].first;
  if (r.body.empty()) {
    if (r.results[0] == update) return ScatterCombiner{true, Op::Add};
    return std::nullopt;
  }
  if (r.body.size() != 1) return std::nullopt;
  const Instruction& inst = r.body[0];
  if (inst.result != r.results[0] || inst.operands != std::vector<std::string>{current, update}) return std::nullopt;
  if (!is_kernel_combiner(inst.op)) return std::nullopt;
  return ScatterCombiner{false, inst.op};
}

namespace {
// Spec gather I3-I8 and scatter I4-I9, peer by peer.
constexpr IndexingFieldNames kGatherNames{
    {"offset_dims", "collapsed_slice_dims", "operand_batching_dims", "start_indices_batching_dims", "start_index_map"},
    "index_vector_dim"};
constexpr IndexingFieldNames kScatterNames{
    {"update_window_dims", "inserted_window_dims", "input_batching_dims", "scatter_indices_batching_dims",
     "scatter_dims_to_operand_dims"},
    "index_vector_dim"};
}  // namespace

const IndexingFieldNames& indexing_field_names(Op op) { return op == Op::Scatter ? kScatterNames : kGatherNames; }

std::vector<std::int64_t>& indexing_list(IndexingDimensionNumbers& d, std::size_t i) {
  switch (i) {
    case 0: return d.offset_dims;
    case 1: return d.collapsed_slice_dims;
    case 2: return d.operand_batching_dims;
    case 3: return d.start_indices_batching_dims;
    default: return d.start_index_map;
  }
}
const std::vector<std::int64_t>& indexing_list(const IndexingDimensionNumbers& d, std::size_t i) {
  return indexing_list(const_cast<IndexingDimensionNumbers&>(d), i);
}

}  // namespace shlo
