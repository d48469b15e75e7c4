// RapidCheck generators: well-typed SHlo expressions at batch 1 (where per-example den and the
// text agree, SHLO_SEMANTICS.md 1.4), SPMD replica families for allReduceMeanF, and values.
//
// An expression is generated in two steps: a plan (a skeleton-only expression: constructors,
// shapes, names) and then values for it; a replica family is one plan with R value sets.
// Shapes stay small enough that `exact` runs in milliseconds. Values are small rationals;
// fields that must be positive, distinct (the max-pool saved input: no ties, section 7.1) or
// literal-consistent (sStr and s, lrStr and lr) are generated so.
#pragma once

#include <rapidcheck.h>

#include "ast/expr.hpp"

namespace shlo::fuzz {

/// A plan: a chain of activation constructors (dense, conv, pool and their backward
/// passes, masks, softmax pieces) from operand leaves, optionally topped by a parameter
/// gradient, an SGD update or an optimizer node.
rc::Gen<ExprPtr> gen_plan(bool allow_transcendental);
/// Values for every real field of a plan (fresh draws per call).
rc::Gen<ExprPtr> gen_values(const ExprPtr& plan);
/// A well-typed expression with values. `with_gelu` admits geluF, whose text and den differ
/// by the decimal it prints for sqrt(2/pi) (SHLO_SEMANTICS.md 7.9): for the text properties.
rc::Gen<ExprPtr> gen_expr(bool allow_transcendental, bool with_gelu = false);

/// An expression of the batched set (section 3.9) at N = B in 2..3, where den and the text
/// agree (`with_gelu`: also the batched GELU rows, for the text properties, as gen_expr).
rc::Gen<ExprPtr> gen_batched_expr(bool allow_transcendental, bool with_gelu = false);

/// An SPMD family: allReduceMeanF over R (1..8) replicas of one plan, each with its own
/// values, optionally under an optimizer tail (sgd, momentum, AdamW). `rational_tail`
/// restricts the tail to rational ones.
rc::Gen<ExprPtr> gen_family(bool rational_tail);
/// A decimal literal as the text writes it, dyadic or not ("0.1", "2.5e-1", "0.00078125").
rc::Gen<std::string> gen_decimal_literal();

/// A non-SPMD family (a control): replica R-1 has a different plan.
rc::Gen<ExprPtr> gen_non_spmd_family();

/// The string fields of one node of `ctor`, by its row's recipe: literals where the row says
/// so, fresh SSA names otherwise (for generators that build nodes from the row alone).
rc::Gen<std::map<std::string, std::string>> gen_strings(const std::string& ctor);

}  // namespace shlo::fuzz
