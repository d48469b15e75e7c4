// An SHlo expression as a runnable module: emit(e) wrapped in a function whose arguments are
// the names the text reads (leaf operands and the SSA-name fields such as wName or xName),
// with the values that den reads for them, per replica (replica r of an allReduceMeanF reads
// its child r's values). This is how den(e) and run(parse(emit(e))) meet.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ast/expr.hpp"
#include "ast/program.hpp"

namespace shlo {

struct TextCase {
  std::string text;  // the whole module
  std::vector<std::string> argument_order;
  std::vector<std::map<std::string, std::vector<Rational>>> inputs;  // [replica] name -> values
  std::int64_t replicas = 1;
};

/// What an SSA-name string field of a constructor means: the field ("wName"), its type in
/// template macro notation ("T[m,n]") and the real field that holds its value ("W"; "1-beta1"
/// for the separately written 1 - beta input). Empty for a constructor that reads no names.
struct NamedInput {
  const char* field;
  const char* type;
  const char* value;
};
const std::vector<NamedInput>& named_inputs(const std::string& constructor);

/// Builds the module for `e` at batch B (0: 1, or the N of its batched constructors, where
/// den and the text agree at N = B). Throws ExprError for a constructor whose names this
/// table does not type (see text_case.cpp).
TextCase text_case(const Expr& e, std::int64_t batch = 0);

}  // namespace shlo
