// What the property suite exercised: per property, how many judged cases drew each attribute
// of each op (op-level programs, counted by fuzz/gen_ops' attribute table) and how many
// contained each SHlo constructor (counted by the node's constructor name). Counting is off
// unless `shlo prop --coverage` turns it on.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>

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

/// The two tables for a person: per op and attribute, per constructor and property; a row of
/// 0 says "never drawn".
std::string coverage_report();
nlohmann::json coverage_json();

}  // namespace shlo::fuzz
