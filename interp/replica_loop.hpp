// The one replica loop of every run path (the CPU domains, the CUDA executor, MPI ranks):
// one instruction at a time across the replicas this process holds, in lockstep; all_reduce
// is where the replicas meet, through a ReplicaExchange (the pluggable part): every replica in
// this process, or one replica per MPI rank. Either way each group is folded in increasing
// replica id, so results are the same bit for bit. Each value is freed after its last use.
//
// A backend supplies, for its value type V:
//   V execute(const Instruction&, const std::vector<const V*>& operands)   one replica
//   V reshape(V&& operand, const Shape&)        a reshape that takes the dying operand's storage
//   V fold(Op body, ElementType element, const std::vector<const V*>& in_order)   one all_reduce group
//   V fold_region(const Region& body, const std::vector<const V*>& in_order)   the same, any body
//     (optional: without it an all_reduce whose body is not one op is refused)
//   std::size_t bytes(const V&)                  for the peak of live values
//   void release(V&)                             (optional) frees a dying value's contents by the threads
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ast/regions.hpp"
#include "interp/ops/common.hpp"
#include "interp/run.hpp"

namespace shlo {

/// The replica groups of an all_reduce, each sorted; an OpError unless they partition
/// 0..replicas-1.
std::vector<std::vector<std::int64_t>> replica_partition(const Instruction& inst, int replicas);

/// The number of replicas of an `interpreter.run_parallel` grid that this loop runs: its rows,
/// when the grid is one column of one function and the caller runs as one process. Throws
/// RunError, located at the op, naming what is not supported otherwise.
int run_parallel_replicas(const Module& m, const Call& call, std::size_t caller_replicas);

/// Arithmetic operations of one instruction on one replica (a multiply-add counts 2), for
/// the profile.
double instruction_flops(const Instruction& inst);

/// How all_reduce reaches the other replicas' values.
template <class V>
class ReplicaExchange {
 public:
  using Fold = std::function<V(const std::vector<const V*>&)>;  // one group, in increasing replica id
  virtual ~ReplicaExchange() = default;
  /// R, the replicas of the whole run.
  virtual int replicas() const = 0;
  /// The replicas this process holds, increasing.
  virtual std::vector<int> local_replicas() const = 0;
  /// The all_reduce result of each local replica, from the local replicas' operands (in the
  /// order of local_replicas()); `fold` combines one group's values.
  virtual std::vector<V> all_reduce(const std::vector<std::vector<std::int64_t>>& groups, const std::vector<const V*>& local,
                                    const Fold& fold) = 0;
};

/// Every replica in this process.
template <class V>
class InProcessExchange final : public ReplicaExchange<V> {
 public:
  explicit InProcessExchange(int replicas) : replicas_(replicas) {}
  int replicas() const override { return replicas_; }
  std::vector<int> local_replicas() const override {
    std::vector<int> ids(static_cast<std::size_t>(replicas_));
    for (int r = 0; r < replicas_; ++r) ids[static_cast<std::size_t>(r)] = r;
    return ids;
  }
  std::vector<V> all_reduce(const std::vector<std::vector<std::int64_t>>& groups, const std::vector<const V*>& local,
                            const typename ReplicaExchange<V>::Fold& fold) override {
    std::vector<V> out(local.size());
    for (const auto& group : groups) {
      std::vector<const V*> members;
      for (auto r : group) members.push_back(local[static_cast<std::size_t>(r)]);
      const V folded = fold(members);
      for (auto r : group) out[static_cast<std::size_t>(r)] = folded;
    }
    return out;
  }

 private:
  int replicas_;
};

struct LoopStats {
  std::map<std::string, OpProfile> profile;  // per op name
  std::vector<InstructionTime> instructions;  // per instruction run, in order
  std::size_t peak_live_bytes = 0;
};

/// Calls nested deeper than this are an error (a function that calls itself, directly or not).
inline constexpr int kMaxCallDepth = 64;

/// The op of an all_reduce body that is one combinable op of its two arguments, which the
/// backend's fold computes; none for any other body, which runs as a program.
inline std::optional<Op> all_reduce_kernel_op(const Region& body) {
  if (!is_single_binary_body(body)) return std::nullopt;
  try {
    return region_binary_op(body, "all_reduce body");
  } catch (const OpError&) {
    return std::nullopt;
  }
}

/// Runs function `f` of `m` on env[i] (the arguments of local replica i, bound by name). With
/// options.keep_values every value stays in env; otherwise only the arguments that are never
/// used and the returned values remain. `after` (may be empty) sees env after each
/// instruction k (counting instructions only, not calls or checks), before the values that
/// die there are freed. A call runs the callee on every replica, like any op; checks have no
/// effect on values (shlo test judges them from the kept values). Throws RunError located at
/// the instruction or call.
template <class V, class Backend>
LoopStats run_function_loop(const Module& m, const Function& f, Backend& backend, ReplicaExchange<V>& exchange,
                            std::vector<std::unordered_map<std::string, V>>& env, const RunOptions& options,
                            const std::function<void(std::size_t, const std::vector<std::unordered_map<std::string, V>>&)>& after,
                            int depth) {
  using Clock = std::chrono::steady_clock;
  const auto insts = instructions(f);
  const int R = exchange.replicas();
  LoopStats stats;
  std::size_t live = 0;
  for (const auto& e : env)
    for (const auto& [name, v] : e) live += backend.bytes(v);
  stats.peak_live_bytes = live;

  // Last use of every value, by body item (calls and checks read values too), or by
  // options.keep_until (an instruction index), so that it can be freed right after:
  // dies_after[j] lists the values that body item j is the last to need.
  std::vector<std::size_t> item_of_instruction;
  std::unordered_map<std::string, std::size_t> last_use;
  for (std::size_t j = 0; j < f.body.size(); ++j) {
    const std::vector<std::string>* operands = nullptr;
    if (const auto* inst = std::get_if<Instruction>(&f.body[j])) {
      item_of_instruction.push_back(j);
      operands = &inst->operands;
      for (const auto& name : captured_values(*inst)) last_use[name] = j;  // read by its regions
    } else if (const auto* call = std::get_if<Call>(&f.body[j])) {
      operands = &call->operands;
    } else if (const auto* check = std::get_if<Check>(&f.body[j])) {
      operands = &check->operands;
    }
    if (operands)
      for (const auto& name : *operands) last_use[name] = j;
  }
  for (const auto& [name, k] : options.keep_until)
    if (k < item_of_instruction.size()) last_use[name] = std::max(last_use[name], item_of_instruction[k]);
  const std::set<std::string> returned(f.return_values.begin(), f.return_values.end());
  std::vector<std::vector<std::string>> dies_after(f.body.size());
  if (!options.keep_values)
    for (const auto& [name, j] : last_use)
      if (j < f.body.size() && !returned.count(name)) dies_after[j].push_back(name);

  auto free_dead = [&](std::size_t j) {
    for (const auto& name : dies_after[j]) {
      for (auto& e : env) {
        auto it = e.find(name);
        if (it == e.end()) continue;
        live -= backend.bytes(it->second);
        if constexpr (requires { backend.release(it->second); }) backend.release(it->second);
        e.erase(it);
      }
    }
  };

  const auto start = Clock::now();
  std::size_t k = 0;  // the instruction index
  for (std::size_t j = 0; j < f.body.size(); ++j) {
    if (const auto* call = std::get_if<Call>(&f.body[j])) {
      const Location at = call->location;
      const std::string where = m.file + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": call @" + call->callee;
      if (depth >= kMaxCallDepth) throw RunError(where + ": calls nested more than " + std::to_string(kMaxCallDepth) + " deep");
      const Function* callee = find_function(m, call->callee);
      if (!callee) throw RunError(where + ": no such function");
      // interpreter.run_parallel: the callee runs on its own grid of replicas, which meet in
      // its all_reduces; each takes its arguments from the operands in turn.
      const bool parallel = !call->programs.empty();
      std::optional<InProcessExchange<V>> grid;
      std::vector<std::unordered_map<std::string, V>> callee_env(parallel ? call->programs.size() : env.size());
      if (parallel) {
        grid.emplace(run_parallel_replicas(m, *call, env.size()));
        std::size_t next = 0;
        for (auto& e : callee_env)
          for (const auto& argument : callee->arguments) e.emplace(argument.name, env[0].at(call->operands.at(next++)));
      } else {
        for (std::size_t i = 0; i < env.size(); ++i)
          for (std::size_t a = 0; a < call->operands.size(); ++a) callee_env[i].emplace(callee->arguments.at(a).name, env[i].at(call->operands[a]));
      }
      RunOptions inner;
      inner.replicas = parallel ? grid->replicas() : options.replicas;
      LoopStats callee_stats =
          parallel ? run_function_loop<V>(m, *callee, backend, *grid, callee_env, inner, {}, depth + 1)
                   : run_function_loop<V>(m, *callee, backend, exchange, callee_env, inner, {}, depth + 1);
      for (auto& [op, p] : callee_stats.profile) {
        auto& mine = stats.profile[op];
        mine.count += p.count;
        mine.seconds += p.seconds;
        mine.flops += p.flops;
        mine.cpu_seconds += p.cpu_seconds;
        mine.split_seconds += p.split_seconds;
      }
      stats.instructions.insert(stats.instructions.end(), callee_stats.instructions.begin(), callee_stats.instructions.end());
      stats.peak_live_bytes = std::max(stats.peak_live_bytes, live + callee_stats.peak_live_bytes);
      if (parallel) {  // every process's results in turn
        std::size_t next = 0;
        for (auto& e : callee_env)
          for (const auto& name : callee->return_values) {
            V v = e.at(name);
            live += backend.bytes(v);
            env[0].insert_or_assign(call->results.at(next++), std::move(v));
          }
      } else {
        for (std::size_t i = 0; i < env.size(); ++i)
          for (std::size_t r = 0; r < call->results.size(); ++r) {
            V v = callee_env[i].at(callee->return_values.at(r));
            live += backend.bytes(v);
            env[i].insert_or_assign(call->results[r], std::move(v));
          }
      }
      stats.peak_live_bytes = std::max(stats.peak_live_bytes, live);
      free_dead(j);
      continue;
    }
    if (!std::holds_alternative<Instruction>(f.body[j])) {  // a comment, or a check (judged by shlo test)
      free_dead(j);
      continue;
    }
    const Instruction& inst = *insts[k];
    if (options.progress) options.progress({k, insts.size(), &inst, std::chrono::duration<double>(Clock::now() - start).count()});
    const auto t0 = Clock::now();
    const double cpu0 = thread_cpu_seconds(), split0 = SplitWork::seconds();
    try {
      if (inst.op == Op::AllReduce) {
        const auto groups = replica_partition(inst, R);
        const Region& body = inst.regions[0];
        const std::optional<Op> kernel_op = all_reduce_kernel_op(body);
        // Integer folds wrap and order by the body's type, which may be wider (is_promotable).
        const ElementType element = body.arguments.at(0).second.element;
        const typename ReplicaExchange<V>::Fold fold = [&](const std::vector<const V*>& in_order) -> V {
          if (kernel_op) return backend.fold(*kernel_op, element, in_order);
          if constexpr (requires { backend.fold_region(body, in_order); }) return backend.fold_region(body, in_order);
          else throw OpError("stablehlo.all_reduce with a body of several ops is not supported here");
        };
        // The body folds each operand on its own (spec all_reduce C5): one exchange per operand,
        // which every replica (or MPI rank) makes in the same order.
        for (std::size_t p = 0; p < inst.operands.size(); ++p) {
          std::vector<const V*> operands;
          for (const auto& e : env) operands.push_back(&e.at(inst.operands[p]));
          auto outs = exchange.all_reduce(groups, operands, fold);
          for (std::size_t i = 0; i < env.size(); ++i) {
            live += backend.bytes(outs[i]);
            env[i].insert_or_assign(result_name(inst, p), std::move(outs[i]));
          }
        }
      } else {
        // A reshape of a value that dies here takes its storage instead of copying it.
        const bool donate = inst.op == Op::Reshape && !options.keep_values && last_use[inst.operands[0]] == j &&
                            !returned.count(inst.operands[0]) && !options.keep_until.count(inst.operands[0]);
        // So may an elementwise op (where the backend offers it) take the storage of its first
        // operand that dies here, is not returned, is not also another of its operands and is
        // not kept for `after` (options.keep_until: observers read it after this instruction).
        std::size_t write_into = inst.operands.size();  // none
        if constexpr (requires { backend.execute_into(inst, std::declval<V&>(), std::vector<const V*>{}); })
          if (!donate && !options.keep_values && result_count(inst) == 1)
            for (std::size_t p = 0; p < inst.operands.size() && write_into == inst.operands.size(); ++p) {
              const std::string& name = inst.operands[p];
              if (last_use[name] == j && !returned.count(name) && !options.keep_until.count(name) && std::count(inst.operands.begin(), inst.operands.end(), name) == 1 &&
                  backend.can_write_into_operand(inst, p))
                write_into = p;
            }
        // Regions read the values they capture after the operands (interp/region_exec.hpp).
        const auto captured = inst.regions.empty() ? std::vector<std::string>{} : captured_values(inst);
        for (auto& e : env) {
          V v;
          if (donate) {
            auto node = e.extract(inst.operands[0]);
            live -= backend.bytes(node.mapped());
            v = backend.reshape(std::move(node.mapped()), inst.result_type.shape);
          } else {
            typename std::unordered_map<std::string, V>::node_type dying;
            if (write_into < inst.operands.size()) {
              dying = e.extract(inst.operands[write_into]);
              live -= backend.bytes(dying.mapped());
            }
            std::vector<const V*> args;
            for (std::size_t p = 0; p < inst.operands.size(); ++p) args.push_back(p == write_into && dying ? &dying.mapped() : &e.at(inst.operands[p]));
            for (const auto& name : captured) args.push_back(&e.at(name));
            if (result_count(inst) > 1) {
              std::vector<V> results;
              if constexpr (requires { backend.execute_results(inst, args); }) results = backend.execute_results(inst, args);
              else throw OpError(std::string("stablehlo.") + op_name(inst.op) + " with several results is not supported here");
              for (std::size_t r = 0; r < results.size(); ++r) {
                live += backend.bytes(results[r]);
                e.insert_or_assign(result_name(inst, r), std::move(results[r]));
              }
              continue;
            }
            if constexpr (requires { backend.execute_into(inst, std::declval<V&>(), args); })
              v = dying ? backend.execute_into(inst, dying.mapped(), args) : backend.execute(inst, args);
            else
              v = backend.execute(inst, args);
          }
          live += backend.bytes(v);
          e.insert_or_assign(inst.result, std::move(v));
        }
      }
    } catch (const RunError&) {
      throw;
    } catch (const std::exception& e) {
      throw RunError(m.file + ":" + std::to_string(inst.location.line) + ":" + std::to_string(inst.location.column) + ": " + inst.result +
                     " = stablehlo." + op_name(inst.op) + ": " + e.what());
    }
    stats.peak_live_bytes = std::max(stats.peak_live_bytes, live);
    if (after) after(k, env);
    free_dead(j);
    InstructionTime spent{inst.location, inst.op, inst.result_type.shape, std::chrono::duration<double>(Clock::now() - t0).count(),
                          thread_cpu_seconds() - cpu0, SplitWork::seconds() - split0};
    auto& prof = stats.profile[op_name(inst.op)];
    prof.count += 1;
    prof.seconds += spent.seconds;
    prof.cpu_seconds += spent.cpu_seconds;
    prof.split_seconds += spent.split_seconds;
    stats.instructions.push_back(std::move(spent));
    prof.flops += instruction_flops(inst) * static_cast<double>(env.size());
    ++k;
  }
  return stats;
}

/// Runs the entry function of `m` (m.function()); see run_function_loop.
template <class V, class Backend>
LoopStats run_replica_loop(const Module& m, Backend& backend, ReplicaExchange<V>& exchange,
                           std::vector<std::unordered_map<std::string, V>>& env, const RunOptions& options,
                           const std::function<void(std::size_t, const std::vector<std::unordered_map<std::string, V>>&)>& after = {}) {
  return run_function_loop<V>(m, m.function(), backend, exchange, env, options, after, 0);
}

}  // namespace shlo
