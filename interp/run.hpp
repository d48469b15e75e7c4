// Executes an op-level program on R replicas in lockstep (interp/replica_loop.hpp): one
// instruction at a time across the replicas, each large op's output elements split over
// threads. all_reduce is where the replicas meet: each replica group is folded in increasing
// replica id. Each tensor is freed after its last use.
#pragma once

#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "ast/program.hpp"
#include "interp/ops/common.hpp"

namespace shlo {

/// A failure while running: file:line:col of the instruction, the instruction, the reason.
class RunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct OpProfile {
  std::int64_t count = 0;
  double seconds = 0;
  double flops = 0;  // arithmetic operations (a multiply-add counts 2)
  // CPU time of the thread that runs the program, and the part of it in loops that split over
  // the threads (SplitWork): with one thread, the difference is what no thread count speeds up.
  double cpu_seconds = 0, split_seconds = 0;
};

/// One instruction's share of a run (every replica together), for a list of the slowest.
struct InstructionTime {
  Location location;
  Op op{};
  Shape shape;  // the (first) result's
  double seconds = 0, cpu_seconds = 0, split_seconds = 0;
};

struct RunProgress {
  std::size_t done = 0, total = 0;  // instructions (per replica)
  const Instruction* current = nullptr;
  double elapsed = 0;
};

struct RunOptions {
  int replicas = 1;
  /// Keep every value (no freeing) and return them in RunResult::values: for per-op checks.
  bool keep_values = false;
  /// Called before each instruction (for a progress line); may be empty.
  std::function<void(const RunProgress&)> progress;
  /// name -> k: keep the value until instruction k has run even when the text reads it no
  /// longer, for checks made during the run (shlo agree judges a node once its inputs exist).
  std::unordered_map<std::string, std::size_t> keep_until;
};

/// Every local replica's live values by name, as the run holds them.
template <class D>
using ValueEnv = std::vector<std::unordered_map<std::string, Value<D>>>;
/// Called after instruction k has run, before the values it was the last to need are freed.
template <class D>
using AfterInstruction = std::function<void(std::size_t k, const ValueEnv<D>& values)>;

template <class D>
struct RunResult {
  std::vector<std::vector<Value<D>>> outputs;  // [replica][result]
  std::map<std::string, OpProfile> profile;    // per op name
  std::vector<InstructionTime> instructions;   // per instruction run (calls' bodies included), in order
  std::size_t peak_live_bytes = 0;             // largest total of live tensors (scalar storage)
  std::vector<std::unordered_map<std::string, Value<D>>> values;  // [replica], with keep_values
};

/// Runs `m` on inputs[r][arg] for r < options.replicas. Throws RunError (located) for a
/// failing op, a missing or misshaped input, or replica_groups that do not partition the
/// replicas.
template <class D>
RunResult<D> run_program(const Module& m, const D& domain, std::vector<std::vector<Value<D>>> inputs,
                         const RunOptions& options);

/// The same, calling `after` after each instruction: checks that look at every value while
/// the run frees each one after its last use (and after options.keep_until).
template <class D>
RunResult<D> run_program_observed(const Module& m, const D& domain, std::vector<std::vector<Value<D>>> inputs,
                                  const RunOptions& options, const AfterInstruction<D>& after);

template <class V>
class ReplicaExchange;
/// The same with the replicas reached through `exchange` (another process's, MPI ranks'):
/// inputs[i] and outputs[i] are those of exchange.local_replicas()[i]; options.replicas is
/// not used.
template <class D>
RunResult<D> run_program(const Module& m, const D& domain, std::vector<std::vector<Value<D>>> inputs,
                         const RunOptions& options, ReplicaExchange<Value<D>>& exchange);

}  // namespace shlo
