// The printer (SHLO_SEMANTICS.md section 2): tokens folded with an operand-name stack and an
// SSA counter, each token expanded from its template; and renders, the module around it.
#pragma once

#include <string>
#include <vector>

#include "ast/expr.hpp"
#include "ast/skel.hpp"

namespace shlo {

/// A mutation hook for testing the tester: when nonzero, the all-reduce block divides by
/// R + offset instead of R (the kind of printer bug the property suite must catch). Only the
/// test suite sets it.
extern int g_fault_allreduce_divisor_offset;

struct EmitState {
  std::int64_t counter = 0;            // the next %v number
  std::vector<std::string> stack;      // operand names, top last
};

/// Appends the text of `tokens` (printed at batch B) and leaves their results on the stack.
std::string emit_tokens(std::int64_t batch, const std::vector<Token>& tokens, EmitState& state);

struct Emitted {
  std::string text;
  std::string result;  // the result name ("%MALFORMED" if the stream was not one tree)
};
/// emit(B, g): the text of an expression, its fresh names numbered from `counter` on.
Emitted emit(std::int64_t batch, const Expr& e, std::int64_t& counter);

/// A function as the renders write it: typed arguments, then items in order (an expression
/// bound to its result, or a verbatim line such as a comment or a hand-written
/// instruction), then the return.
struct RenderItem {
  ExprPtr expr;               // null for a verbatim line
  std::int64_t counter = -1;  // the first %v number of the expression; -1: continue the count
  std::string line;           // the verbatim line (without its newline)
};

struct Render {
  std::string module_name = "m";
  std::string name;
  std::vector<std::pair<std::string, std::string>> arguments;  // name, type text
  std::vector<std::string> result_types;
  bool parenthesized_results = true;
  std::int64_t batch = 1;
  std::vector<RenderItem> items;
  std::vector<std::string> return_values;
};

/// The whole module text.
std::string emit_render(const Render& r);

}  // namespace shlo
