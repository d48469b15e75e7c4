#include "ast/verify_indexing.hpp"

#include <algorithm>
#include <set>

#include "ast/verify_checker.hpp"
#include "ast/indexing.hpp"
#include "ast/mlir_lexer.hpp"
#include "ast/regions.hpp"
#include "ast/verify_regions.hpp"

namespace shlo {

namespace {

bool contains(const std::vector<std::int64_t>& v, std::int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

class IndexingChecker : public InstructionChecker {
 public:
  IndexingChecker(const Instruction& inst, const std::string& file) : InstructionChecker(inst, file) {}

  void check() {
    switch (inst_.op) {
      case Op::DynamicSlice: return dynamic_slice();
      case Op::DynamicUpdateSlice: return dynamic_update_slice();
      case Op::Gather: return gather();
      case Op::Scatter: return scatter();
      case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Maximum: case Op::Minimum:
      case Op::And: case Op::Or: case Op::Negate: case Op::Abs: case Op::Exponential: case Op::Log: case Op::Sqrt:
      case Op::Rsqrt: case Op::Tanh: case Op::Logistic: case Op::Compare: case Op::Select: case Op::Convert:
      case Op::Constant: case Op::Iota: case Op::BroadcastInDim: case Op::Reshape: case Op::Transpose:
      case Op::Reverse: case Op::Slice: case Op::Pad: case Op::Concatenate: case Op::DotGeneral: case Op::Convolution:
      case Op::Reduce: case Op::ReduceWindow: case Op::SelectAndScatter: case Op::AllReduce: case Op::Not:
      case Op::Xor: case Op::Power: case Op::Remainder: case Op::Sign: case Op::Floor: case Op::Ceil:
      case Op::RoundNearestEven: case Op::RoundNearestAfz: case Op::Sine: case Op::Cosine: case Op::LogPlusOne:
      case Op::ExponentialMinusOne: case Op::Clamp: case Op::BitcastConvert: case Op::Sort: case Op::While:
      case Op::If: case Op::Case: case Op::ShiftLeft: case Op::ShiftRightArithmetic: case Op::ShiftRightLogical:
        fail("not an indexing op");
    }
  }

 private:
  void result_is(const TensorType& expected, const char* rule) const {
    require(inst_.result_type == expected, std::string("the result type must be ") + to_string(expected) + ", found " +
                                               to_string(inst_.result_type) + " (" + rule + ")");
  }
  void in_range(const std::vector<std::int64_t>& dims, std::int64_t r, const std::string& what, const char* rule) const {
    for (auto d : dims)
      require(d >= 0 && d < r, what + " " + std::to_string(d) + " is out of range for rank " + std::to_string(r) + " (" + rule + ")");
  }
  void unique(const std::vector<std::int64_t>& dims, const std::string& what, const char* rule) const {
    std::set<std::int64_t> seen;
    for (auto d : dims) require(seen.insert(d).second, what + " " + std::to_string(d) + " appears twice (" + rule + ")");
  }
  void sorted(const std::vector<std::int64_t>& dims, const std::string& what, const char* rule) const {
    require(std::is_sorted(dims.begin(), dims.end()), what + " " + integer_list(dims) + " must be sorted (" + rule + ")");
  }

  // Operands first..end: rank-0 tensors of one integer type, one per dimension of a rank-r operand.
  void start_indices(std::size_t first, std::int64_t r, const char* count_rule, const char* same_rule) const {
    require(static_cast<std::int64_t>(inst_.operands.size() - first) == r,
            "expects " + std::to_string(r) + " start indices (one per operand dimension), found " +
                std::to_string(inst_.operands.size() - first) + " (" + count_rule + ")");
    for (std::size_t k = first; k < inst_.operands.size(); ++k) {
      require(operand(k).shape.empty() && is_integer(operand(k).element),
              "start index " + inst_.operands[k] + " must be a rank-0 integer tensor, found " + to_string(operand(k)));
      require(operand(k) == operand(first), "the start indices must have one type, found " + to_string(operand(first)) + " and " +
                                                to_string(operand(k)) + " (" + same_rule + ")");
    }
  }

  void dynamic_slice() const {
    require(!inst_.operands.empty(), "expects an operand");
    const auto& sizes = inst_.attributes.slice_sizes;
    require(static_cast<std::int64_t>(sizes.size()) == rank(0),
            "slice_sizes " + integer_list(sizes) + " must have one entry per operand dimension (C2)");
    start_indices(1, rank(0), "C2", "C3");
    for (std::size_t d = 0; d < sizes.size(); ++d)
      require(sizes[d] >= 0 && sizes[d] <= operand(0).shape[d],
              "slice_sizes " + integer_list(sizes) + " must lie between 0 and the operand's shape (C4)");
    result_is(TensorType{sizes, operand(0).element}, "C1, C5");
  }

  void dynamic_update_slice() const {
    require(inst_.operands.size() >= 2, "expects an operand and an update");
    require(operand(1).element == operand(0).element, "the update must have the operand's element type (C2)");
    require(rank(1) == rank(0), "the update must have the operand's rank (C3)");
    start_indices(2, rank(0), "C4", "C5");
    for (std::size_t d = 0; d < operand(1).shape.size(); ++d)
      require(operand(1).shape[d] <= operand(0).shape[d], "the update " + to_string(operand(1)) + " is larger than the operand " +
                                                               to_string(operand(0)) + " (C6)");
    result_is(operand(0), "C1");
  }

  // The rules gather and scatter share, numbered as gather's (scatter's number in brackets).
  // `operand` is gather's operand or scatter's input; `windowed` the rank of gather's result
  // or scatter's updates.
  void dimension_numbers(const TensorType& op_type, const TensorType& indices, std::int64_t windowed) const {
    const auto& dn = inst_.attributes.indexing;
    const IndexingFieldNames& n = indexing_field_names(inst_.op);
    const auto op_rank = static_cast<std::int64_t>(op_type.shape.size());
    const auto index_rank = static_cast<std::int64_t>(indices.shape.size());
    require(is_integer(indices.element), "the indices must have an integer element type, found " + to_string(indices));
    require(static_cast<std::int64_t>(dn.offset_dims.size() + dn.collapsed_slice_dims.size() + dn.operand_batching_dims.size()) ==
                op_rank,
            std::string("the sizes of ") + n.lists[0] + ", " + n.lists[1] + " and " + n.lists[2] + " must add up to the rank " +
                std::to_string(op_rank) + " (C1 [C2])");
    require(dn.index_vector_dim >= 0 && dn.index_vector_dim <= index_rank,
            "index_vector_dim " + std::to_string(dn.index_vector_dim) + " is out of range for indices of rank " +
                std::to_string(index_rank) + " (C2 [C22])");
    const std::int64_t vector_size =
        dn.index_vector_dim < index_rank ? indices.shape[static_cast<std::size_t>(dn.index_vector_dim)] : 1;
    require(static_cast<std::int64_t>(dn.start_index_map.size()) == vector_size,
            std::string(n.lists[4]) + " " + integer_list(dn.start_index_map) + " must have " + std::to_string(vector_size) +
                " entries, the size of the index vector (C3 [C19])");
    unique(dn.offset_dims, n.lists[0], "C4 [C7]");
    sorted(dn.offset_dims, n.lists[0], "C4 [C7]");
    in_range(dn.offset_dims, windowed, n.lists[0], "C5 [C8]");
    std::vector<std::int64_t> collapsed_and_batching = dn.collapsed_slice_dims;
    collapsed_and_batching.insert(collapsed_and_batching.end(), dn.operand_batching_dims.begin(), dn.operand_batching_dims.end());
    unique(collapsed_and_batching, std::string(n.lists[1]) + " and " + n.lists[2] + " entry", "C6 [C9]");
    sorted(dn.collapsed_slice_dims, n.lists[1], "C7 [C10]");
    in_range(dn.collapsed_slice_dims, op_rank, n.lists[1], "C8 [C11]");
    sorted(dn.operand_batching_dims, n.lists[2], "C10 [C12]");
    in_range(dn.operand_batching_dims, op_rank, n.lists[2], "C11 [C13]");
    unique(dn.start_indices_batching_dims, n.lists[3], "C13 [C14]");
    in_range(dn.start_indices_batching_dims, index_rank, n.lists[3], "C14 [C15]");
    require(!contains(dn.start_indices_batching_dims, dn.index_vector_dim),
            std::string("index_vector_dim must not be in ") + n.lists[3] + " (C15 [C16])");
    require(dn.operand_batching_dims.size() == dn.start_indices_batching_dims.size(),
            std::string(n.lists[2]) + " and " + n.lists[3] + " must have one size (C16 [C17])");
    for (std::size_t i = 0; i < dn.operand_batching_dims.size(); ++i)
      require(op_type.shape[static_cast<std::size_t>(dn.operand_batching_dims[i])] ==
                  indices.shape[static_cast<std::size_t>(dn.start_indices_batching_dims[i])],
              "batching dimensions " + std::to_string(dn.operand_batching_dims[i]) + " and " +
                  std::to_string(dn.start_indices_batching_dims[i]) + " differ in size (C17 [C18])");
    std::vector<std::int64_t> map_and_batching = dn.start_index_map;
    map_and_batching.insert(map_and_batching.end(), dn.operand_batching_dims.begin(), dn.operand_batching_dims.end());
    unique(map_and_batching, std::string(n.lists[4]) + " and " + n.lists[2] + " entry", "C18 [C20]");
    in_range(dn.start_index_map, op_rank, n.lists[4], "C19 [C21]");
  }

  // The indices' shape without index_vector_dim: gather's batch_dim_sizes, scatter's
  // update_scatter_dim_sizes.
  std::vector<std::int64_t> batch_sizes(const TensorType& indices) const {
    std::vector<std::int64_t> out;
    for (std::size_t d = 0; d < indices.shape.size(); ++d)
      if (static_cast<std::int64_t>(d) != inst_.attributes.indexing.index_vector_dim) out.push_back(indices.shape[d]);
    return out;
  }

  void gather() const {
    require(inst_.operands.size() == 2, "expects an operand and start_indices");
    const auto& a = inst_.attributes;
    const auto& dn = a.indexing;
    const std::int64_t batch = static_cast<std::int64_t>(batch_sizes(operand(1)).size());
    dimension_numbers(operand(0), operand(1), batch + static_cast<std::int64_t>(dn.offset_dims.size()));
    require(static_cast<std::int64_t>(a.slice_sizes.size()) == rank(0),
            "slice_sizes " + integer_list(a.slice_sizes) + " must have one entry per operand dimension (C20)");
    for (std::size_t d = 0; d < a.slice_sizes.size(); ++d)
      require(a.slice_sizes[d] >= 0 && a.slice_sizes[d] <= operand(0).shape[d],
              "slice_sizes " + integer_list(a.slice_sizes) + " must lie between 0 and the operand's shape (C21)");
    for (auto d : dn.collapsed_slice_dims)
      require(a.slice_sizes[static_cast<std::size_t>(d)] <= 1, "slice_sizes of collapsed_slice_dims must be at most 1 (C9)");
    for (auto d : dn.operand_batching_dims)
      require(a.slice_sizes[static_cast<std::size_t>(d)] <= 1, "slice_sizes of operand_batching_dims must be at most 1 (C12)");
    // C22: combine(batch_dim_sizes, offset_dim_sizes).
    std::vector<std::int64_t> offsets;
    for (std::int64_t d = 0; d < rank(0); ++d)
      if (!contains(dn.collapsed_slice_dims, d) && !contains(dn.operand_batching_dims, d))
        offsets.push_back(a.slice_sizes[static_cast<std::size_t>(d)]);
    const auto batches = batch_sizes(operand(1));
    std::vector<std::int64_t> shape;
    std::size_t next_batch = 0, next_offset = 0;
    for (std::int64_t d = 0; d < batch + static_cast<std::int64_t>(offsets.size()); ++d)
      shape.push_back(contains(dn.offset_dims, d) ? offsets[next_offset++] : batches[next_batch++]);
    result_is(TensorType{shape, operand(0).element}, "C22, C23");
  }

  // spec §scatter C1-C25: N inputs of one shape, scatter_indices, N updates of one shape; the
  // update_computation (E0..EN-1, E0..EN-1) -> (E0..EN-1) with is_promotable(inputs[i], Ei),
  // any body (the interpreter runs it as a program); results (shape(inputs[i]), Ei).
  void scatter() const {
    const std::size_t count = inst_.operands.size();
    require(count >= 3 && count % 2 == 1,
            "takes N inputs, scatter_indices and N updates, found " + std::to_string(count) + " operands (C5)");
    const std::size_t n = (count - 1) / 2;
    const auto& dn = inst_.attributes.indexing;
    const TensorType& input = operand(0);
    const TensorType& indices = operand(n);
    const TensorType& updates = operand(n + 1);
    for (std::size_t i = 0; i < n; ++i) {
      require(operand(i).shape == input.shape,
              "the inputs must have one shape, found " + to_string(input) + " and " + to_string(operand(i)) + " (C1)");
      require(operand(n + 1 + i).shape == updates.shape,
              "the updates must have one shape, found " + to_string(updates) + " and " + to_string(operand(n + 1 + i)) + " (C3)");
      require(operand(n + 1 + i).element == operand(i).element,
              "update " + inst_.operands[n + 1 + i] + " must have the element type of input " + inst_.operands[i] + " (C6)");
    }
    dimension_numbers(input, indices, static_cast<std::int64_t>(updates.shape.size()));
    // C4: updates = combine(update_scatter_dim_sizes, update_window_dim_sizes).
    const auto scatter_sizes = batch_sizes(indices);
    require(scatter_sizes.size() + dn.offset_dims.size() == updates.shape.size(),
            "the updates " + to_string(updates) + " must have rank " + std::to_string(scatter_sizes.size() + dn.offset_dims.size()) +
                " (the scatter indices' dimensions and update_window_dims) (C4)");
    std::vector<std::int64_t> window_input_dims;
    for (std::int64_t d = 0; d < rank(0); ++d)
      if (!contains(dn.collapsed_slice_dims, d) && !contains(dn.operand_batching_dims, d)) window_input_dims.push_back(d);
    std::size_t next_scatter = 0, next_window = 0;
    for (std::size_t d = 0; d < updates.shape.size(); ++d) {
      if (contains(dn.offset_dims, static_cast<std::int64_t>(d))) {
        const auto in = input.shape[static_cast<std::size_t>(window_input_dims[next_window++])];
        require(updates.shape[d] <= in, "update window dimension " + std::to_string(d) + " is larger than the input's (C4)");
      } else {
        require(updates.shape[d] == scatter_sizes[next_scatter++],
                "update dimension " + std::to_string(d) + " must have the size of the scatter indices' dimension (C4)");
      }
    }
    require(inst_.regions.size() == 1, "needs one region, the update_computation");
    const Region& r = inst_.regions[0];
    require(r.arguments.size() == 2 * n && r.result_types.size() == n,
            "the update_computation must take " + std::to_string(2 * n) + " arguments and return " + std::to_string(n) +
                " values, one per input and update (C23)");
    require(result_count(inst_) == n, "has " + std::to_string(n) + " results, one per input, found " +
                                          std::to_string(result_count(inst_)) + " (C24)");
    for (std::size_t i = 0; i < n; ++i) {
      const TensorType& body = r.arguments[i].second;
      require(body.shape.empty() && is_promotable(operand(i).element, body.element),
              "the update_computation's argument " + std::to_string(i) + " must be a rank-0 tensor of " +
                  to_string(operand(i).element) + " or a wider type of its kind, found " + to_string(body) + " (C23)");
      require(r.arguments[n + i].second == body && r.result_types[i] == body,
              "the update_computation's arguments " + std::to_string(i) + " and " + std::to_string(n + i) + " and its result " +
                  std::to_string(i) + " must have one type, " + to_string(body) + " (C23)");
      require(result_type(inst_, i) == TensorType{input.shape, body.element},
              "result " + std::to_string(i) + " must be " + to_string(TensorType{input.shape, body.element}) + ", found " +
                  to_string(result_type(inst_, i)) + " (C24, C25)");
    }
  }

};

}  // namespace

void verify_indexing_op(const Instruction& inst, const std::string& file) { IndexingChecker(inst, file).check(); }

}  // namespace shlo
