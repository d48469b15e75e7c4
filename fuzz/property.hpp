// The property catalogue: each property has a stable name, a one-line statement, the Lean
// theorem it checks (for the theorem family), a generator of instances, a check, and a
// control (a deliberately wrong variant that the property must reject).
#pragma once

#include <nlohmann/json.hpp>
#include <rapidcheck.h>

#include <functional>
#include <string>
#include <vector>

#include "ast/expr.hpp"

namespace shlo::fuzz {

/// One test case: an expression (possibly a replica family) and any extra data, both
/// serialisable so that a failure can be saved and replayed without RapidCheck.
struct Instance {
  ExprPtr expr;
  nlohmann::json data = nlohmann::json::object();
};
/// Rationals as JSON strings in the literal grammar, and back (the data of saved cases).
nlohmann::json rationals_to_json(const std::vector<Rational>& v);
std::vector<Rational> rationals_from_json(const nlohmann::json& a);
nlohmann::json instance_to_json(const Instance& i);
Instance instance_from_json(const nlohmann::json& j);

struct Verdict {
  enum class Status { Pass, Fail, Discard };
  Status status = Status::Pass;
  std::string detail;
  static Verdict pass() { return {}; }
  static Verdict fail(std::string why) { return {Status::Fail, std::move(why)}; }
  static Verdict discard(std::string why) { return {Status::Discard, std::move(why)}; }
  bool passed() const { return status == Status::Pass; }
};

struct Property {
  std::string name;       // "meaning.den_equals_text"
  std::string statement;  // one line
  std::string theorem;    // the Lean theorem, for the theorem family; "" otherwise
  std::function<rc::Gen<Instance>()> gen;
  std::function<Verdict(const Instance&)> check;
  std::function<Verdict(const Instance&)> control;
};

/// Every property, in a stable order.
const std::vector<Property>& catalogue();
const Property* find_property(const std::string& name);

}  // namespace shlo::fuzz
