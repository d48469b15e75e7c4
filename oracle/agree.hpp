// Judging one expression: den(e) against the emitted text run on its replicas, exactly in
// `exact` when every value is rational, by overlapping enclosures in `interval` otherwise.
#pragma once

#include <string>
#include <vector>

#include "ast/expr.hpp"
#include "interp/domain/domain_spec.hpp"
#include "oracle/text_case.hpp"

namespace shlo {

/// The outcome of one comparison.
struct Agreement {
  bool agree = true;
  bool comparable = true;  // false when den raised a totality event (x/0, sqrt of a negative)
  std::string domain;      // "exact" or "interval:256"
  std::string detail;      // the first disagreement, for a person
};

/// den(e) vs run(parse(emit(e))) on R replicas. `perturb` adds 1 to the first input value of
/// replica 0 (the control: the comparison must then fail).
Agreement den_agrees_with_text(const Expr& e, bool perturb = false);

/// Runs a text case in `domain` and returns each replica's output, as the domain's strings
/// and as intervals' endpoints (for containment checks): out[replica][element].
std::vector<std::vector<std::string>> run_text_case(const TextCase& tc, const std::string& domain);

/// Does the interval string "[lo, hi]" (or a point) contain the exact rational string?
bool interval_contains(const std::string& interval, const std::string& exact, int precision);
/// Does the interval contain the mpfr value (both strings)?
bool interval_contains_point(const std::string& interval, const std::string& point, int precision);

}  // namespace shlo
