#include "interp/replica_loop.hpp"

namespace shlo {

std::vector<std::vector<std::int64_t>> replica_partition(const Instruction& inst, int replicas) {
  std::vector<std::vector<std::int64_t>> groups = inst.attributes.replica_groups;
  std::set<std::int64_t> covered;
  for (auto& group : groups) {
    std::sort(group.begin(), group.end());
    for (auto r : group) {
      if (r >= replicas)
        throw OpError("replica_groups names replica " + std::to_string(r) + " but the program runs on " + std::to_string(replicas) +
                      " replica(s); run it with --replicas " + std::to_string(group.back() + 1) + " or more");
      covered.insert(r);
    }
  }
  if (static_cast<int>(covered.size()) != replicas)
    throw OpError("replica_groups cover " + std::to_string(covered.size()) + " of the " + std::to_string(replicas) +
                  " replicas; they must partition 0.." + std::to_string(replicas - 1));
  return groups;
}

int run_parallel_replicas(const Module& m, const Call& call, std::size_t caller_replicas) {
  const std::string where = m.file + ":" + std::to_string(call.location.line) + ":" + std::to_string(call.location.column) +
                            ": interpreter.run_parallel: ";
  // The spec's process grid is replicas x partitions; this loop has replicas only. With one
  // partition, the three all_reduce strategies (cross_replica, cross_replica_and_partition,
  // flattened_ids) name the same groups of replica ids, so channel_handle and
  // use_global_device_ids change nothing.
  const std::size_t partitions = call.programs.at(0).size();
  if (partitions != 1)
    throw RunError(where + "a grid of " + std::to_string(call.programs.size()) + " x " + std::to_string(partitions) +
                   " programs (replicas x partitions): only one partition per replica (programs = [[@f], [@f], ...]) runs here");
  for (const auto& row : call.programs)
    if (row[0] != call.programs[0][0])
      throw RunError(where + "different programs per process (@" + call.programs[0][0] + " and @" + row[0] +
                     "): only one program for every process (SPMD) runs here, the replicas in lockstep");
  if (caller_replicas != 1)
    throw RunError(where + "inside a program that runs on " + std::to_string(caller_replicas) +
                   " replicas: a grid runs here only from a single process");
  return static_cast<int>(call.programs.size());
}

double instruction_flops(const Instruction& inst) {
  auto n = [](const TensorType& t) { return static_cast<double>(num_elements(t.shape)); };
  const auto& a = inst.attributes;
  switch (inst.op) {
    case Op::DotGeneral: {
      double k = 1;
      for (auto dim : a.lhs_contracting_dimensions) k *= static_cast<double>(inst.operand_types[0].shape[static_cast<std::size_t>(dim)]);
      return 2 * k * n(inst.result_type);
    }
    case Op::Convolution: {
      const auto& rhs = inst.operand_types[1].shape;
      double k = static_cast<double>(rhs[static_cast<std::size_t>(a.conv.kernel_input_feature)]);
      for (auto dim : a.conv.kernel_spatial) k *= static_cast<double>(rhs[static_cast<std::size_t>(dim)]);
      return 2 * k * n(inst.result_type);
    }
    case Op::Reduce:
    case Op::SelectAndScatter:
    case Op::AllReduce:
      return n(inst.operand_types[0]);
    case Op::ReduceWindow: {
      double w = 1;
      for (auto x : a.window_dimensions) w *= static_cast<double>(x);
      return w * n(inst.result_type);
    }
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Maximum: case Op::Minimum:
    case Op::And: case Op::Or: case Op::Negate: case Op::Abs: case Op::Exponential: case Op::Log:
    case Op::Sqrt: case Op::Rsqrt: case Op::Tanh: case Op::Logistic: case Op::Compare: case Op::Select:
    case Op::Convert: case Op::Constant: case Op::Iota: case Op::BroadcastInDim: case Op::Reshape:
    case Op::Transpose: case Op::Reverse: case Op::Slice: case Op::Pad: case Op::Concatenate: SHLO_CASES_INTEGER_AND_MATH_OPS:
      return is_unary_elementwise(inst.op) || is_binary_elementwise(inst.op) || inst.op == Op::Compare ? n(inst.result_type) : 0;
  }
  return 0;  // not an enumerator
}

}  // namespace shlo
