// The denotation `den` of an SHlo expression in any domain, written from the formulas of
// SHLO_SEMANTICS.md section 3 directly (index sums as stated), not through the op kernels of
// interp/ops: two independent routes to one number.
//
// Where the Lean definitions are total (x/0 = 0, sqrt of a negative = 0), den follows them and
// records the event, so a caller can see it happened and exclude the output from comparisons
// with IEEE results.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ast/expr.hpp"
#include "interp/domain/rounding.hpp"

namespace shlo {

struct DenEvent {
  std::string node;         // path from the root: "root/0/1"
  std::string constructor;  // "softmaxDiv"
  std::int64_t index = 0;   // output (or internal) element index
  std::string kind;         // "div-by-zero", "sqrt-of-negative"
};

template <class D>
struct DenResult {
  std::vector<typename D::Scalar> value;
  std::vector<DenEvent> events;
};

/// What a run of den chooses that no field of the expression says.
struct DenOptions {
  // Lean's `rnd` of the reduced-precision constructors (ast/ctors/low_precision.def): the
  // identity (the default, as the Lean renders pass it) or each row's format rounded to
  // nearest even (what the printed text computes).
  RoundingModel rounding = RoundingModel::Identity;
};

/// den(e) in domain d. Throws ExprError for a skeleton-only expression, DomainError for an
/// operation the domain cannot carry out (an irrational value in `exact`, an undecidable
/// comparison in `interval`).
template <class D>
DenResult<D> denote(const D& d, const Expr& e, const DenOptions& options = {});

/// Values already in the domain that den reads in place of real fields: (node, field) -> the
/// field's values. For inputs that have no exact rational form (the enclosures of
/// `interval:P`), so that den is evaluated on them without a detour through the rationals.
/// A bound field is read by Node::real, Node::scalar and Node::at (interp/den_node.hpp); a den
/// that decides a comparison on a field's exact rationals (Expr::real: the masks) still reads
/// the node's rationals, which the caller sets to a representative of each value.
template <class D>
struct DenBindings {
  std::map<std::pair<const Expr*, std::string>, std::vector<typename D::Scalar>> fields;
  /// The bound values of e's field `name`, or nullptr.
  const std::vector<typename D::Scalar>* find(const Expr& e, const std::string& name) const {
    const auto it = fields.find({&e, name});
    return it == fields.end() ? nullptr : &it->second;
  }
};

/// den(e) with the fields in `bound` read from there.
template <class D>
DenResult<D> denote(const D& d, const Expr& e, const DenBindings<D>& bound, const DenOptions& options = {});

}  // namespace shlo
