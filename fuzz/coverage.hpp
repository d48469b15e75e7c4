// What the property suite exercised: per property, how many judged cases drew each attribute
// of each op (op-level programs, counted by fuzz/gen_ops' attribute table) and how many
// contained each SHlo constructor (counted by the node's constructor name). Counting is off
// unless `shlo prop --coverage` turns it on.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fuzz/property.hpp"

namespace shlo::fuzz {

void set_coverage(bool on);
bool coverage_enabled();
void clear_coverage();

/// Counts one judged case of `property` (each key once per case).
void count_case(const std::string& property, const Instance& inst);

/// counts[property][key]; keys are "op <name>\t<attribute>" ("(cases)" for any use of the op)
/// and "constructor\t<name>".
const std::map<std::string, std::map<std::string, std::int64_t>>& coverage_counts();

/// The Lean `SHlo` inductive's constructors (fuzz/lean_constructors.def): 215 names, `batchOp`
/// once, and the 44 descriptors `batchOp` takes.
const std::vector<std::string>& lean_constructors();
const std::vector<std::string>& lean_batch_ops();

/// One row of the constructor table: a Lean constructor (batchOp as "batchOp/<descriptor>"),
/// or a registry row that is none of them.
struct ConstructorRow {
  enum class Status { NoRow, NeverDrawn, Drawn, NotInLean };
  std::string name;
  Status status = Status::NoRow;
  std::int64_t cases = 0;
  std::map<std::string, std::int64_t> per_property;
};
/// Every Lean constructor of `lean` (default: the whole list), in order, batchOp expanded into
/// its descriptors; then the registry rows outside the list.
std::vector<ConstructorRow> constructor_rows(const std::vector<std::string>& lean = lean_constructors());

/// The two tables for a person: per op and attribute, per constructor and property; a row of
/// 0 says "never drawn", a Lean constructor the registry lacks says "no row".
std::string coverage_report();
nlohmann::json coverage_json();
/// Adds counts in the form coverage_json() writes (from a child process, fuzz/runner).
void add_coverage(const nlohmann::json& counts);

}  // namespace shlo::fuzz
