// The data-parallel theorem on whole programs: a data-parallel train step (DP) on R replicas,
// each given a contiguous shard of the batch, against the single-device step (FULL) on the
// whole batch. The all-reduced mean of the per-replica gradients is the gradient of the mean
// loss, so every output that does not vary per replica must be the same in both.
//
// Verdicts per domain:
//   exact        the two values are equal, element by element;
//   interval:P   the two enclosures intersect in every element (consistent with equality in
//                the reals), with the widest enclosure reported;
//   f32, f64 or float outputs computed elsewhere (a GPU's): the gap between the two float
//                results lies within the sum of their sound bounds (the `shlo check`
//                analysis of each program on its inputs), and the two exact enclosures
//                intersect. A FAIL is never rounding.
// Outputs that vary per replica by design (a per-replica loss) are report-only: found by a
// data-flow pass over DP (a value that depends on a sharded argument other than through an
// all_reduce over every replica), or named by the caller.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ast/program.hpp"
#include "interp/bound/bound.hpp"
#include "interp/domain/domain_spec.hpp"
#include "interp/npy.hpp"
#include "interp/program_inputs.hpp"
#include "interp/ops/common.hpp"

namespace shlo {

/// A DP/FULL pair that does not correspond (names the argument or output).
class DpCheckError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// How the two programs correspond.
struct DpPlan {
  struct Argument {
    std::string name;          // "%x"
    std::size_t dp_index = 0;  // position in DP's signature
    bool sharded = false;      // replica r gets rows r*N .. r*N+N-1 of FULL's value
  };
  std::vector<Argument> arguments;  // in FULL's order
  struct Output {
    std::size_t index = 0;
    std::string dp_name, full_name;  // the returned values' names
    bool report_only = false;
    std::string why;  // why it is report-only
  };
  std::vector<Output> outputs;
  int replicas = 1;
};

/// Matches arguments by name and outputs by position; throws DpCheckError for a mismatch
/// (naming the argument or output). `report_only` names outputs (with or without '%', DP's or
/// FULL's return value names) to leave out of the verdict besides those found by data flow.
DpPlan plan_dp_check(const Module& dp, const Module& full, int replicas, const std::vector<std::string>& report_only = {});

/// DP's inputs per replica from FULL's inputs (in FULL's argument order): shards by rows,
/// shared arguments to every replica. out[replica][DP argument].
std::vector<std::vector<NpyArray>> shard_inputs(const DpPlan& plan, const Module& dp, const std::vector<NpyArray>& full_inputs);

// Drawn inputs: random_input (interp/program_inputs), the same draw as `shlo run --random-inputs`.

struct DpOutputVerdict {
  std::size_t index = 0;
  std::string name;  // DP's name (FULL's after a slash when it differs)
  Shape shape;
  std::int64_t elements = 0;
  bool report_only = false;  // then not judged: the fields below stay at their defaults
  std::string why;
  // Comparison of DP (replica 0) with FULL.
  std::int64_t failing = 0;      // elements that break the verdict
  std::int64_t first_failing = -1;
  std::int64_t unbounded = 0;    // float: elements whose bound is infinite (no verdict possible)
  double max_gap = 0;            // max |dp - full| (midpoints for interval)
  double worst_ratio = 0;        // float: max gap / (sum of the bounds)
  double widest = 0;             // interval: widest enclosure of either
  bool replicas_agree = true;    // every DP replica returned the same value
  bool pass() const { return report_only || (failing == 0 && replicas_agree); }
};

struct DpReport {
  std::string dp_file, full_file, domain;
  int replicas = 1;
  double dp_seconds = 0, full_seconds = 0, bound_seconds = 0;
  std::vector<DpOutputVerdict> outputs;
  bool pass() const;
};

/// Runs DP's replicas somewhere else than this process (MPI ranks): given every replica's
/// inputs, returns every replica's outputs, [replica][result]. One overload per domain that a
/// verdict runs DP in.
class ReplicaRunner {
 public:
  template <class D>
  using Values = std::vector<std::vector<Value<D>>>;
  virtual ~ReplicaRunner() = default;
  virtual Values<ExactDomain> run(const Module& m, const ExactDomain& d, Values<ExactDomain> inputs) = 0;
  virtual Values<IntervalDomain> run(const Module& m, const IntervalDomain& d, Values<IntervalDomain> inputs) = 0;
  virtual Values<F64Domain> run(const Module& m, const F64Domain& d, Values<F64Domain> inputs) = 0;
  virtual Values<F32Domain> run(const Module& m, const F32Domain& d, Values<F32Domain> inputs) = 0;
  virtual Values<BoundDomain> run(const Module& m, const BoundDomain& d, Values<BoundDomain> inputs) = 0;
};

struct DpCheckOptions {
  /// Float outputs computed elsewhere: dp_outputs[replica][result], full_outputs[result]
  /// (as `shlo run` writes them). When given, the float verdict judges these instead of
  /// running the programs in f32.
  std::optional<std::vector<std::vector<NpyArray>>> dp_outputs;
  std::optional<std::vector<NpyArray>> full_outputs;
  std::function<void(const std::string&)> progress;  // a phase line for a person; may be empty
  /// Where DP's replicas run; this process when null.
  ReplicaRunner* dp_runner = nullptr;
};

/// Runs DP on R replicas and FULL on the whole batch in `domain` (exact, interval:P, f32,
/// f64; mpfr:P has no verdict and is refused) and judges every output. Throws RunError for
/// a program that cannot run, DpCheckError for a pair that does not correspond.
DpReport dp_check(const Module& dp, const Module& full, const DpPlan& plan, const AnyDomain& domain,
                  const std::vector<NpyArray>& full_inputs, const DpCheckOptions& options = {});

/// The report as a table (one row per output, as `shlo check` prints) and as JSON.
std::string format_table(const DpReport& r);
std::string format_json(const DpReport& r);

}  // namespace shlo
