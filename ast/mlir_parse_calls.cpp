// Calls between the functions of a module: `%r = call @f(%a) : (T) -> R`, also `func.call`,
// several results as `%r:2` (used as %r#0, %r#1) or `%a, %b` (docs/mlir-forms.md sections 2-4);
// and the interpreter dialect's `interpreter.run_parallel`, a call of a grid of processes
// (section 13.1).
#include "ast/mlir_parser.hpp"

namespace shlo {

namespace {
// `%r:N`: far more results than any real op has; bounds the names a hostile N creates.
constexpr std::int64_t kMaxPackedResults = 4096;
}  // namespace

std::vector<std::string> ModuleParser::call_results(Lexer& lex) {
  std::vector<std::string> out;
  do {
    lex.skip_space();
    const Location at = lex.location();
    const std::string name = lex.ssa_name("a result name");
    if (lex.accept(":")) {
      const std::int64_t n = lex.integer("the number of results after ':'");
      if (n < 1 || n > kMaxPackedResults)
        lex.fail_at(at, "a result pack holds 1 to " + std::to_string(kMaxPackedResults) + " results, not " + std::to_string(n));
      for (std::int64_t i = 0; i < n; ++i) out.push_back(name + "#" + std::to_string(i));
    } else {
      out.push_back(name);
    }
  } while (lex.accept(","));
  return out;
}

void ModuleParser::call_operands(Call& c) {
  lex_.expect("(", "'(' opening the call's operands");
  Instruction collected;  // use() gathers the operands' names and types here
  if (!lex_.peek(")")) {
    do use(collected); while (lex_.accept(","));
  }
  lex_.expect(")", "')' or ','");
  c.operands = std::move(collected.operands);
  c.operand_types = std::move(collected.operand_types);
}

void ModuleParser::call_type(Call& c) {
  const std::vector<TensorType> printed = parenthesised_types("the operand types");
  if (printed != c.operand_types)
    lex_.fail_at(c.location, "the call's operand types (" + type_list(printed) + ") are not those of its operands (" +
                                 type_list(c.operand_types) + ")");
  lex_.expect("->", "'->' before the result types");
  bool parenthesized = false;
  c.result_types = result_types(parenthesized, nullptr);
  if (c.result_types.size() != c.results.size())
    lex_.fail_at(c.location, "the call defines " + std::to_string(c.results.size()) + " value(s) but its type has " +
                                 std::to_string(c.result_types.size()) + " result(s)");
  for (std::size_t i = 0; i < c.results.size(); ++i) define(c.results[i], c.result_types[i], c.location);
}

Call ModuleParser::call_start() {
  Call c;
  lex_.skip_space();
  c.location = lex_.location();
  if (lex_.peek("%")) {
    c.results = call_results(lex_);
    lex_.expect("=", "'='");
  }
  return c;
}

Call ModuleParser::call() {
  Call c = call_start();
  c.func_prefix = lex_.accept("func.call");
  if (!c.func_prefix) lex_.expect("call", "'call'");
  lex_.expect("@", "the callee (@name)");
  c.callee = lex_.identifier("the callee's name");
  call_operands(c);
  lex_.expect(":", "':' and the callee's type (T, ...) -> R");
  call_type(c);
  return c;
}

// `programs = [[@f0, @f1], [@f2, @f3]]`: one row per replica, one symbol per partition.
void ModuleParser::run_parallel_attributes(Call& c) {
  if (lex_.peek("}")) return;
  do {
    lex_.skip_space();
    const Location at = lex_.location();
    const std::string key = lex_.identifier("an attribute name of interpreter.run_parallel");
    lex_.expect("=", "'=' after " + key);
    if (key == "infeed")
      lex_.fail_at(at, "interpreter.run_parallel with `infeed` (the processes' infeed queues) is not supported: no op here reads an infeed");
    if (key != "programs") lex_.fail_at(at, "interpreter.run_parallel has no attribute `" + key + "` (it has `programs` and `infeed`)");
    if (!c.programs.empty()) lex_.fail_at(at, "interpreter.run_parallel's `programs` is written twice");
    lex_.expect("[", "'[' opening the programs grid [[@f, ...], ...]");
    do {
      lex_.expect("[", "'[' opening one replica's programs [@f, ...]");
      std::vector<std::string> row;
      do {
        lex_.expect("@", "a function (@name)");
        row.push_back(lex_.identifier("a function's name"));
      } while (lex_.accept(","));
      lex_.expect("]", "']' or ','");
      c.programs.push_back(std::move(row));
    } while (lex_.accept(","));
    lex_.expect("]", "']' or ','");
  } while (lex_.accept(","));
}

Call ModuleParser::run_parallel() {
  Call c = call_start();
  lex_.expect("\"interpreter.run_parallel\"", "\"interpreter.run_parallel\"");
  call_operands(c);
  // MLIR prints the attributes as properties <{...}> or in the dictionary {...}, or both.
  if (lex_.accept("<{")) {
    run_parallel_attributes(c);
    lex_.expect("}", "'}' closing the properties");
    lex_.expect(">", "'>' closing the properties <{...}>");
  }
  if (lex_.accept("{")) {
    run_parallel_attributes(c);
    lex_.expect("}", "'}' closing the attributes");
  }
  if (c.programs.empty()) lex_.fail_at(c.location, "interpreter.run_parallel needs `programs = [[@f, ...], ...]`");
  c.callee = c.programs[0][0];
  lex_.expect(":", "':' and the type (T, ...) -> (R, ...)");
  call_type(c);
  return c;
}

}  // namespace shlo
