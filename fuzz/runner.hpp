// Running a property with RapidCheck (seed, runs, shrinking), saving a failure to the corpus,
// and replaying saved cases.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "fuzz/property.hpp"

namespace shlo::fuzz {

struct PropertyRun {
  std::string name;
  int runs = 0;       // cases generated and judged
  int passed = 0;
  int failed = 0;     // 0 or 1: RapidCheck stops at the first failure and shrinks it
  std::int64_t discarded = 0;
  double seconds = 0;
  std::string reproduce;               // RapidCheck's reproduction string
  std::optional<Instance> counterexample;  // shrunk
  std::string detail;                  // why it failed
  std::uint64_t seed = 0;              // the seed of the (last, or failing) batch
};

/// A check's verdict on one instance; an exception is a failure, except an undecidable
/// interval comparison, which makes the case meaningless (a discard).
Verdict judge(const std::function<Verdict(const Instance&)>& check, const Instance& inst);

/// Runs `p` on `runs` cases from `seed` (RapidCheck's max_success), shrinking a failure.
PropertyRun run_property(const Property& p, std::uint64_t seed, int runs, int max_size = 100);

/// Batches of `batch` cases under seeds `seed`, `seed` + 1, ... until `seconds` of judging are
/// used (one batch when 0), stopping at the first failure, all in one child process: a property
/// that crashes (a wild read through a transposed index: SIGSEGV; an abort in GMP, MPFR or
/// std::terminate) is that property's failure, not the end of the run. The crashed batch is
/// run again in a second child that announces each case, and the case being judged when it
/// died is the counterexample (not shrunk), saved and replayed as any other. Coverage counted
/// in the child is added here. One fork per call, not per batch: about 3 ms.
PropertyRun run_property_for(const Property& p, std::uint64_t seed, int batch, double seconds);
/// One batch, isolated: run_property_for(p, seed, runs, 0).
PropertyRun run_property_isolated(const Property& p, std::uint64_t seed, int runs);

/// Writes corpus/<property>/<id>/case.json and program.mlir atomically; returns the folder.
std::string save_case(const std::string& corpus, const Property& p, const PropertyRun& run, std::uint64_t seed);

/// Re-runs a saved case (a folder or its case.json): the property's check on the saved
/// instance. The verdict says whether it passes now. A case that cannot be read (not JSON, an
/// unknown property, an instance whose data does not have the form the property's generator
/// writes, a precision out of range) is `unreadable`, with the reason in verdict.detail: an
/// error, never a pass or a discard. The check runs in a child process: a case that crashes
/// fails with the signal named, and the replay goes on.
struct Replay {
  std::string path, property;
  Verdict verdict;
  bool unreadable = false;
};
Replay replay_case(const std::string& path);

}  // namespace shlo::fuzz
