// Module-level helpers: which function a run starts from, and the names of check ops.
#include <stdexcept>

#include "ast/mlir_lexer.hpp"
#include "ast/mlir_parse.hpp"
#include "ast/program.hpp"

namespace shlo {

std::string check_name(const Check& c) {
  const char* base = c.kind == CheckKind::Eq ? "expect_eq" : c.kind == CheckKind::AlmostEq ? "expect_almost_eq" : "expect_close";
  if (c.legacy_eq) return "stablehlo.custom_call @check.eq";
  if (c.custom_call) return std::string("stablehlo.custom_call @check.") + base;
  return std::string("check.") + base + (c.expected ? "_const" : "");
}

bool is_public(const Function& f) { return f.visibility != "private"; }

const Function* find_function(const Module& m, const std::string& name) {
  for (const auto& f : m.functions)
    if (f.name == name) return &f;
  return nullptr;
}

namespace {

std::string function_names(const Module& m) {
  std::string s;
  for (std::size_t i = 0; i < m.functions.size(); ++i) s += (i ? ", @" : "@") + m.functions[i].name;
  return s.empty() ? "none" : s;
}

}  // namespace

void select_entry(Module& m, const std::string& name) {
  auto index_of = [&](const Function* f) { return static_cast<std::size_t>(f - m.functions.data()); };
  if (!name.empty()) {
    const Function* f = find_function(m, name);
    if (!f) throw std::invalid_argument("no function @" + name + " in the module (functions: " + function_names(m) + ")");
    m.entry = index_of(f);
    return;
  }
  if (const Function* f = find_function(m, "main")) {
    m.entry = index_of(f);
    return;
  }
  const Function* only_public = nullptr;
  int publics = 0;
  for (const auto& f : m.functions)
    if (is_public(f)) {
      ++publics;
      only_public = &f;
    }
  if (publics == 1) {
    m.entry = index_of(only_public);
    return;
  }
  if (m.functions.size() == 1) {
    m.entry = 0;
    return;
  }
  throw std::invalid_argument("the module has no @main, and " + std::to_string(publics) + " public functions (" + function_names(m) +
                              "): choose one with --function NAME");
}

namespace {

std::string types(const std::vector<TensorType>& ts) {
  std::string s;
  for (std::size_t i = 0; i < ts.size(); ++i) s += (i ? ", " : "") + to_string(ts[i]);
  return "(" + s + ")";
}

// The interpreter dialect's rules for run_parallel (its verifier): a non-empty grid whose rows
// (replicas) have the same number of programs (partitions), each a function of the module;
// the operands and results are every process's arguments and results, replica-major.
void verify_run_parallel(const Module& m, const Call& c) {
  const std::string op = "interpreter.run_parallel: ";
  std::vector<TensorType> arguments, results;
  for (std::size_t r = 0; r < c.programs.size(); ++r) {
    if (c.programs[r].size() != c.programs[0].size())
      throw ParseError(m.file, c.location, op + "every row of `programs` (a replica) needs the same number of programs (partitions): row 0 has " +
                                               std::to_string(c.programs[0].size()) + ", row " + std::to_string(r) + " has " +
                                               std::to_string(c.programs[r].size()));
    for (const auto& name : c.programs[r]) {
      const Function* f = find_function(m, name);
      if (!f) throw ParseError(m.file, c.location, op + "program @" + name + " is not a function of the module");
      for (const auto& a : f->arguments) arguments.push_back(a.type);
      results.insert(results.end(), f->result_types.begin(), f->result_types.end());
    }
  }
  if (arguments != c.operand_types)
    throw ParseError(m.file, c.location, op + "the programs take " + types(arguments) + " in turn (replica-major), the op passes " +
                                             types(c.operand_types));
  if (results != c.result_types)
    throw ParseError(m.file, c.location, op + "the programs return " + types(results) + " in turn (replica-major), the op expects " +
                                             types(c.result_types));
}

}  // namespace

void verify_calls(const Module& m) {
  for (const auto& f : m.functions)
    for (const auto& item : f.body) {
      const auto* c = std::get_if<Call>(&item);
      if (!c) continue;
      if (!c->programs.empty()) {
        verify_run_parallel(m, *c);
        continue;
      }
      const Function* callee = find_function(m, c->callee);
      if (!callee) throw ParseError(m.file, c->location, "call to undefined function @" + c->callee);
      std::vector<TensorType> arguments;
      for (const auto& a : callee->arguments) arguments.push_back(a.type);
      if (arguments != c->operand_types)
        throw ParseError(m.file, c->location, "@" + c->callee + " takes " + types(arguments) + ", the call passes " + types(c->operand_types));
      if (callee->result_types != c->result_types)
        throw ParseError(m.file, c->location, "@" + c->callee + " returns " + types(callee->result_types) + ", the call expects " +
                                                  types(c->result_types));
    }
}

void require_single_function(const Module& m, const std::string& command) {
  const std::string why = command + " reads programs of one function without calls or checks";
  if (m.functions.size() > 1) throw ParseError(m.file, m.functions[1].location, why + "; this module has " + std::to_string(m.functions.size()));
  for (const auto& item : m.function().body) {
    if (const auto* c = std::get_if<Call>(&item))
      throw ParseError(m.file, c->location, why + (c->programs.empty() ? "; here is a call" : "; here is an interpreter.run_parallel"));
    if (const auto* c = std::get_if<Check>(&item)) throw ParseError(m.file, c->location, why + "; here is a check");
  }
}

}  // namespace shlo
