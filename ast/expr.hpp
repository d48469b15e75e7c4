// The SHlo expression tree: one node kind per constructor (SHLO_SEMANTICS.md section 3), each
// stated once as a row of a family file in ast/ctors/ with its shape parameters, string
// fields, real fields with their lengths, children, result length, skeleton, template, text
// inputs and the generator's recipe (docs/adding-a-constructor.md).
//
// A node keeps its fields in plain maps keyed by the names the specification uses ("wName",
// "W", "m"), so that the JSON form, the construction checks, the skeleton, the printer and the
// lifter are one generic code path over the table; only `den` (interp/den) is written per
// constructor, from its formula.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "num/rational.hpp"

namespace shlo {

/// A malformed expression: names the constructor, the field and the mismatch (and, from JSON,
/// where in the document).
class ExprError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Arity { Leaf, Unary, Binary, Family };

/// Every constructor, one enumerator per row of the family files (ast/ctors/*.def). No switch
/// over it has a `default:` (built with -Werror=switch); den's is generated from the rows and
/// calls den(Of<Ctor::X>, node) of interp/den/: a row without its den does not build.
enum class Ctor : int {
#define SHLO_CTOR(ID, NAME, ...) ID,
#include "ast/ctors/all.def"
#undef SHLO_CTOR
};

/// How the generator (fuzz/) draws the values of a real field.
enum class Draw {
  Small,           // small rationals p/q (|p| <= 12, q in 1, 2, 3, 4, 8), one per element
  NonNegative,     // the same without the sign (second moments, squares)
  Distinct,        // the same plus 101 i at index i: no ties (max-pool's saved input)
  FromLiteral,     // the exact value of the literal string field named in `literal`
  Fraction,        // beta1, beta2, mu: 1/2, 9/10 or 3/4
  Rho,             // 1/2 or 9/10
  BiasCorrection,  // 1, 1/2 or 1/4
  Epsilon,         // 1/100 or 1/10
  WeightDecay,     // 0 or 1/10
  LearningRate,    // 1/10, 1/2 or 2
};

struct RealField {
  const char* name = nullptr;
  const char* length = "1";  // a product of shape parameters ("m*n", "c*2*h*2*w") or "1"
  Draw draw = Draw::Small;
  const char* literal = nullptr;  // Draw::FromLiteral: the string field holding the literal
};

/// The kinds of literal a string field holds (the generator draws one, fuzz/gen.cpp).
enum class Lit { Scale, Divisor, Epsilon, Clip, Rounding };

struct LiteralField {
  const char* field = nullptr;  // "sStr"
  Lit kind = Lit::Scale;
};

/// An SSA-name field that is an input of the printed text: its type (template notation,
/// "T[m,n]", "T[ds]", "T[]") and the real field holding its value ("1-beta1": one minus it).
struct TextInput {
  const char* field = nullptr;
  const char* type = nullptr;
  const char* value = nullptr;
};

using Fields = std::vector<const char*>;

/// One constructor, stated once, as a row of a family file (ast/ctors/*.def). Rows name
/// their fields (designated initialisers); members with defaults may be left out.
struct CtorSpec {
  Ctor id{};                      // set by SHLO_CTOR
  const char* name = nullptr;     // "dotIn", "batchOp/dense", "allReduceMeanF"
  Fields nats{};                  // shape parameters, in signature order
  Fields strings{};               // string fields (SSA names, literal strings)
  std::vector<RealField> reals{}; // real-valued fields, used by den; drawn by the generator
  bool has_ds = false;            // the parameter-shape list field `ds` (prod ds = n)
  Arity arity = Arity::Unary;
  Fields child_lengths{};         // per child; a family uses the first for all
  const char* result_length = nullptr;
  // Skeleton and token (section 4): the token name (default: the name; "batched"/"batched2"
  // with a tag) and the fields it keeps, in order (default: all strings, all nats).
  const char* token = nullptr;
  const char* tag = "";
  std::optional<Fields> keep_strings{};
  std::optional<Fields> keep_nats{};
  // Printer: the template text, or the row whose template prints this one; template nats
  // named differently from ours.
  const char* text = nullptr;
  std::optional<Ctor> prints_like{};
  std::vector<std::pair<const char*, const char*>> template_renames{};  // {template nat, our nat}
  // Lift: false when an earlier row prints byte-identical text (SHLO_SEMANTICS.md 4.4 (b)):
  // the lifter then recovers the earlier, canonical constructor.
  bool canonical = true;
  // The oracle's text case: which SSA-name fields are inputs and what they hold.
  std::vector<TextInput> inputs{};
  // The generator's recipe for literal string fields (other string fields are fresh names).
  std::vector<LiteralField> literals{};
  // The oracle's text case: the type (template notation) where the text reads each child, for a
  // child that is not an activation of the printer's batch (the default, T[B, length/B]): a
  // per-channel statistics operand, "T[2*oc]".
  Fields child_types{};

  // Derived from the row once (ast/expr.cpp), read by the generic code.
  Fields skel_strings{};
  Fields skel_nats{};
  const char* templ = nullptr;  // the name of the row whose template prints this one ("" for none)
};

/// Every row, in the order of ast/ctors/all.def (the enum's order).
const std::vector<CtorSpec>& constructors();
/// By name ("dotIn", "batchOp/dense"); nullptr if unknown.
const CtorSpec* find_constructor(const std::string& name);
const CtorSpec& spec_of(Ctor c);
/// What is wrong with the registry (empty when nothing): every string field accounted for,
/// every template parses and names only fields of its row, names and tokens unique.
std::vector<std::string> registry_problems();
/// The same checks for one row (a row built by hand in a test, for example).
std::vector<std::string> row_problems(const CtorSpec& c);

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

/// Evaluates a length expression ("m*n", "1", "(tk+1)*D", "H/P") over the node's shape parameters
/// (natural arithmetic: a - b >= 0, a / 0 = 0).
std::int64_t eval_length(const std::string& expr, const std::map<std::string, std::int64_t>& nats);
/// Whether a length expression (or any text in its notation, "T[2*oc]") names the shape
/// parameter `nat`, as a whole word.
bool length_uses(const std::string& expr, const std::string& nat);

}  // namespace shlo
