// The SHlo expression tree: one node kind per constructor of the core set
// (SHLO_SEMANTICS.md section 3), each stated once in the constructor table (expr.cpp) with its
// shape parameters, string fields, real fields with their lengths, children, result length,
// skeleton and emit template.
//
// A node keeps its fields in plain maps keyed by the names the specification uses ("wName",
// "W", "m"), so that the JSON form, the construction checks, the skeleton, the printer and the
// lifter are one generic code path over the table; only `den` (interp/den) is written per
// constructor, from its formula.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "interp/domain/rational.hpp"

namespace shlo {

/// A malformed expression: names the constructor, the field and the mismatch (and, from JSON,
/// where in the document).
class ExprError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Arity { Leaf, Unary, Binary, Family };

struct RealField {
  const char* name;
  const char* length;  // a product of shape parameters ("m*n", "c*2*h*2*w") or "1"
};

/// One constructor, stated once.
struct CtorSpec {
  const char* name;                     // "dotIn", "batchOp/dense", "allReduceMeanF"
  std::vector<const char*> nats;        // shape parameters, in signature order
  std::vector<const char*> strings;     // string fields (SSA names, literal strings)
  std::vector<RealField> reals;         // real-valued fields, used only by den
  bool has_ds;                          // the parameter-shape list field `ds` (prod ds = n)
  Arity arity;
  std::vector<const char*> child_lengths;  // per child; a family uses the first for all
  const char* result_length;
  // Skeleton and token (section 4): the token name ("batched"/"batched2" with a tag) and
  // the fields it keeps, in order.
  const char* token;
  const char* tag;
  std::vector<const char*> skel_strings;
  std::vector<const char*> skel_nats;
  // Printer: the template (ast/templates.inc) and template nats that are named differently.
  const char* templ;
  std::vector<std::pair<const char*, const char*>> template_renames;  // {template nat, our nat}
  // Lift: false when an earlier row prints byte-identical text (SHLO_SEMANTICS.md 4.4 (b)):
  // the lifter then recovers the earlier, canonical constructor.
  bool canonical;
};

const std::vector<CtorSpec>& constructors();
/// By name ("dotIn", "batchOp/dense"); nullptr if unknown.
const CtorSpec* find_constructor(const std::string& name);

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  const CtorSpec* spec = nullptr;
  std::map<std::string, std::int64_t> nats;
  std::map<std::string, std::string> strings;
  std::map<std::string, std::vector<Rational>> reals;  // empty for a skeleton-only expression
  std::vector<std::int64_t> ds;
  std::int64_t replicas = 0;  // R, allReduceMeanF only
  std::vector<ExprPtr> children;

  std::int64_t nat(const std::string& name) const;
  const std::string& string(const std::string& name) const;
  const std::vector<Rational>& real(const std::string& name) const;
  std::int64_t length() const;          // the result length
  bool has_values() const;              // false for a skeleton-only expression (from the lifter)
};

/// Checks every constraint of the signature (lengths of real fields and children, prod ds = n,
/// R >= 1 and R children) and returns the node. `values` = false accepts a node without real
/// fields (a skeleton-only expression, what the lifter builds).
ExprPtr make_expr(Expr e, bool values = true);

/// A skeleton-only node (no real fields): what the printer needs, and what plans are made of.
ExprPtr make_skeleton(const std::string& ctor, std::map<std::string, std::int64_t> nats, std::vector<ExprPtr> kids,
                      std::map<std::string, std::string> strings = {}, std::vector<std::int64_t> ds = {}, std::int64_t R = 0);

/// Evaluates a length expression ("m*n", "1") over the node's shape parameters.
std::int64_t eval_length(const std::string& expr, const std::map<std::string, std::int64_t>& nats);

}  // namespace shlo
