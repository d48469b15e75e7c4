// Text -> module: the module, its functions, types, scopes and regions (the calls and the check
// dialect's ops are read in mlir_parse_calls.cpp and mlir_parse_checks.cpp).
#include "ast/mlir_parse.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include <sys/stat.h>

#include "ast/mlir_parser.hpp"
#include "ast/regions.hpp"
#include "ast/verify.hpp"

namespace shlo {

Module ModuleParser::module() {
  Module m;
  m.file = lex_.file();
  while (parse_alias_definition(lex_, aliases_)) {
  }
  lex_.skip_space_and_comments();
  if (lex_.accept("module")) {
    if (lex_.accept("@")) m.name = lex_.identifier("the module name");
    if (lex_.accept("attributes")) m.attributes = lex_.balanced("the module's attribute dictionary {...}");
    lex_.expect("{", "'{' opening the module");
    functions(m);
    lex_.expect("}", "'func.func' or '}' closing the module");
  } else {
    m.implicit = true;
    if (!lex_.peek("func.func")) lex_.fail_expected("'module' or 'func.func' at the start of the program");
    functions(m);
  }
  while (parse_alias_definition(lex_, aliases_)) {
  }
  lex_.skip_space_and_comments();
  if (!lex_.at_end()) lex_.fail_expected(m.implicit ? "'func.func' or the end of the file" : "the end of the file after the module");
  verify_calls(m);
  try {
    select_entry(m);
  } catch (const std::invalid_argument&) {
    m.entry = 0;  // several candidates: a run must name one (shlo run --function)
  }
  return m;
}

void ModuleParser::define(const std::string& name, const TensorType& type, Location at) {
  auto [it, fresh] = scopes_.back().emplace(name, Definition{type, at});
  if (!fresh)
    lex_.fail_at(at, "redefinition of " + name + " (first defined at line " +
                         std::to_string(it->second.location.line) + ")");
}

const ModuleParser::Definition* ModuleParser::visible(const std::string& name) const {
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
    auto it = scope->find(name);
    if (it != scope->end()) return &it->second;
  }
  return nullptr;
}

TensorType ModuleParser::value_type(const std::string& name, Location at) {
  const Definition* d = visible(name);
  if (!d) lex_.fail_at(at, "use of undefined value " + name + " (values must be defined before use)");
  return d->type;
}

// An operand: a name defined earlier in a visible scope; its type is appended.
std::string ModuleParser::use(Instruction& inst) {
  const std::string name = value_use("an operand (%name)");
  inst.operands.push_back(name);
  inst.operand_types.push_back(visible(name)->type);
  return name;
}

std::string ModuleParser::value_use(std::string_view what) {
  lex_.skip_space();
  const Location at = lex_.location();
  std::string name = lex_.ssa_name(what);
  auto defined = [&](const std::string& n) { return visible(n) != nullptr; };
  if (lex_.accept("#")) {
    const std::int64_t index = lex_.integer("a result number after '#'");
    const std::string base = name;
    name += "#" + std::to_string(index);
    if (defined(name)) return name;
    if (index == 0 && defined(base)) return base;
    lex_.fail_at(at, "use of undefined value " + name + (defined(base + "#0") ? " (result number out of range)" : ""));
  }
  if (!defined(name)) {
    if (defined(name + "#0")) lex_.fail_at(at, name + " has several results: use " + name + "#0, " + name + "#1, ...");
    lex_.fail_at(at, "use of undefined value " + name + " (values must be defined before use)");
  }
  return name;
}

TensorType ModuleParser::type() {
  lex_.expect("tensor", "a tensor type");
  lex_.expect("<");
  TensorType t;
  std::int64_t elements = 1;  // checked here once, so that every later shape product is exact
  for (;;) {
    lex_.skip_space();
    if (lex_.peek("f") || lex_.peek("bf") || lex_.peek("i") || lex_.peek("ui")) break;  // an element type ends the shape
    lex_.skip_space();
    const Location at = lex_.location();
    if (lex_.peek("complex"))
      lex_.fail_at(at, std::string("unsupported element type complex<...>: complex element types are not run (") +
                           element_type_names() + ")");
    const std::int64_t d = lex_.integer(std::string("a dimension or an element type (") + element_type_names() + ")");
    if (d < 0) lex_.fail_at(at, "negative dimension in tensor type");
    if (__builtin_mul_overflow(elements, d, &elements))
      lex_.fail_at(at, "the tensor type has more elements than a 64-bit count holds");
    t.shape.push_back(d);
    lex_.expect("x", "'x' between dimensions");
  }
  const Location element_at = lex_.location();
  const std::string e = lex_.identifier("an element type");
  if (auto element = element_type_from_name(e)) t.element = *element;
  else lex_.fail_at(element_at, "unsupported element type '" + e + "' (" + element_type_names() + ")");
  lex_.expect(">", "'>' closing the tensor type");
  return t;
}

Instruction ModuleParser::instruction() {
  lex_.skip_space();
  const Location at = lex_.location();
  const std::string result = lex_.ssa_name("an instruction (%name = ...), a comment or 'return'");
  std::int64_t pack = 1;  // `%r:N`: N results, used as %r#0 ... %r#N-1
  std::vector<std::string> listed{result};  // `%a, %b = ...`
  if (lex_.accept(":")) {
    const Location count_at = lex_.location();
    pack = lex_.integer("the number of results after ':'");
    if (pack < 1) lex_.fail_at(count_at, "an op defines at least one result");
  } else {
    while (lex_.accept(",")) {
      lex_.skip_space();
      listed.push_back(lex_.ssa_name("a result name"));
    }
    pack = static_cast<std::int64_t>(listed.size());
  }
  lex_.expect("=", "'='");
  Instruction inst = parse_op(*this, at, &aliases_);
  inst.result = result;
  if (listed.size() > 1) inst.results = listed;
  if (static_cast<std::int64_t>(result_count(inst)) != pack)
    lex_.fail_at(at, "stablehlo." + std::string(op_name(inst.op)) + " has " + std::to_string(result_count(inst)) +
                         " result(s) but " + std::to_string(pack) + " are named");
  for (std::size_t i = 0; i < result_count(inst); ++i) define(result_name(inst, i), result_type(inst, i), inst.location);
  return inst;
}

Region ModuleParser::region_with(const std::vector<std::pair<std::string, TensorType>>& arguments) {
  Region r;
  lex_.expect("{", "'{' opening a region");
  lex_.skip_space_and_comments();
  r.location = lex_.location();
  // Its own scope: its arguments and values, gone at its end; it reads the scopes around it.
  scopes_.emplace_back();
  for (const auto& [name, t] : arguments) {
    define(name, t, r.location);
    r.arguments.emplace_back(name, t);
  }
  // `^bb0(...):`, also `^bb0:` or no label at all when the block takes no arguments (if, case).
  if (arguments.empty() && lex_.peek("^")) {
    lex_.expect("^bb0", "the region's block '^bb0(...)'");
    if (lex_.accept("(")) {
      if (!lex_.peek(")")) {
        do {
          lex_.skip_space();
          const Location at = lex_.location();
          const std::string name = lex_.ssa_name("a block argument");
          lex_.expect(":");
          const TensorType t = type();
          define(name, t, at);
          r.arguments.emplace_back(name, t);
        } while (lex_.accept(","));
      }
      lex_.expect(")", "')' or ','");
    }
    lex_.expect(":", "':' after the block arguments");
  }
  bool generic_return = false;  // "stablehlo.return"(%a) : (tensor<f32>) -> ()
  for (;;) {
    lex_.skip_space_and_comments();
    if (lex_.accept("stablehlo.return")) break;
    if ((generic_return = lex_.accept("\"stablehlo.return\""))) break;
    r.body.push_back(instruction());
  }
  if (generic_return) lex_.expect("(", "'(' opening the returned values");
  do r.results.push_back(value_use("a returned value"));  // %x, %r#1, or a value of a scope around
  while (lex_.accept(","));
  if (generic_return) lex_.expect(")", "')' or ','");
  lex_.expect(":", "':' and the returned types");
  if (generic_return) lex_.expect("(", "'(' opening the returned types");
  do r.result_types.push_back(type()); while (lex_.accept(","));
  if (generic_return) {
    lex_.expect(")", "')' or ','");
    lex_.expect("->", "'-> ()' after the returned types");
    lex_.expect("(", "'()'");
    lex_.expect(")", "'()'");
  }
  if (r.result_types.size() != r.results.size())
    lex_.fail_at(r.location, "the region returns " + std::to_string(r.results.size()) + " value(s) but " +
                                 std::to_string(r.result_types.size()) + " type(s)");
  for (std::size_t i = 0; i < r.results.size(); ++i)
    if (visible(r.results[i])->type != r.result_types[i])
      lex_.fail_at(r.location, "returned value " + r.results[i] + " does not have type " + to_string(r.result_types[i]));
  scopes_.pop_back();
  lex_.skip_space_and_comments();
  lex_.expect("}", "'}' closing the region");
  return r;
}

// The functions of a module (or of a file of bare functions), up to '}' or the end.
void ModuleParser::functions(Module& m) {
  for (;;) {
    lex_.skip_space_and_comments();
    if (!lex_.peek("func.func")) break;
    Function f = function();
    for (const auto& g : m.functions)
      if (g.name == f.name)
        lex_.fail_at(f.location, "redefinition of function @" + f.name + " (first defined at line " + std::to_string(g.location.line) + ")");
    m.functions.push_back(std::move(f));
  }
  if (m.functions.empty()) lex_.fail_expected("a function (func.func)");
}

std::vector<TensorType> ModuleParser::result_types(bool& parenthesized, std::vector<std::string>* attributes) {
  std::vector<TensorType> out;
  parenthesized = lex_.accept("(");
  if (!parenthesized) {
    out.push_back(type());
    if (attributes) attributes->push_back("");
    return out;
  }
  if (!lex_.peek(")")) {
    do {
      out.push_back(type());
      if (attributes) attributes->push_back(lex_.peek("{") ? lex_.balanced("the result's attribute dictionary") : "");
    } while (lex_.accept(","));
  }
  lex_.expect(")", "')' or ','");
  return out;
}

std::vector<TensorType> ModuleParser::parenthesised_types(std::string_view what) {
  lex_.expect("(", "'(' opening " + std::string(what));
  std::vector<TensorType> out;
  if (!lex_.peek(")")) {
    do out.push_back(type()); while (lex_.accept(","));
  }
  lex_.expect(")", "')' or ','");
  return out;
}

Function ModuleParser::function() {
  Function f;
  lex_.skip_space();
  f.location = lex_.location();
  lex_.expect("func.func", "'func.func'");
  if (lex_.accept("public")) f.visibility = "public";
  else if (lex_.accept("private")) f.visibility = "private";
  lex_.expect("@", "the function name");
  f.name = lex_.identifier("the function name");
  lex_.expect("(", "'(' opening the arguments");
  scopes_.emplace_back();
  if (!lex_.peek(")")) {
    do {
      lex_.skip_space();
      Argument arg;
      arg.location = lex_.location();
      arg.name = lex_.ssa_name("an argument (%name: type)");
      lex_.expect(":");
      arg.type = type();
      if (lex_.peek("{")) arg.attributes = lex_.balanced("the argument's attribute dictionary");
      define(arg.name, arg.type, arg.location);
      f.arguments.push_back(arg);
    } while (lex_.accept(","));
  }
  lex_.expect(")", "')' or ','");
  if (lex_.accept("->")) f.result_types = result_types(f.parenthesized_results, &f.result_attributes);
  if (lex_.accept("attributes")) f.attributes = lex_.balanced("the function's attribute dictionary {...}");
  lex_.expect("{", "'{' opening the function body");
  for (;;) {
    if (lex_.line_comment_next()) {
      f.body.push_back(Comment{lex_.rest_of_line()});
      continue;
    }
    if (lex_.peek("return") || lex_.peek("func.return")) break;
    if (lex_.at_end() || lex_.peek("}")) lex_.fail_expected("'return' before the end of the function");
    body_item(f.body);
  }
  lex_.skip_space();
  f.return_location = lex_.location();
  f.func_return = lex_.accept("func.return");
  if (!f.func_return) lex_.expect("return");
  if (lex_.peek("%")) {
    do f.return_values.push_back(value_use("a returned value")); while (lex_.accept(","));
    lex_.expect(":", "':' and the returned types");
    do f.return_types.push_back(type()); while (lex_.accept(","));
  }
  if (f.return_types != f.result_types)
    lex_.fail_at(f.return_location, "the return types do not match the function's result types");
  if (f.return_types.size() != f.return_values.size())
    lex_.fail_at(f.return_location, "return lists " + std::to_string(f.return_values.size()) + " value(s) but " +
                                        std::to_string(f.return_types.size()) + " type(s)");
  for (std::size_t i = 0; i < f.return_values.size(); ++i)
    if (scopes_.back().at(f.return_values[i]).type != f.return_types[i])
      lex_.fail_at(f.return_location, "returned value " + f.return_values[i] + " has type " +
                                          to_string(scopes_.back().at(f.return_values[i]).type) + ", not " +
                                          to_string(f.return_types[i]));
  lex_.skip_space_and_comments();
  lex_.expect("}", "'}' closing the function");
  scopes_.pop_back();
  return f;
}

// Each item is constructed in place: returning it as a BodyItem by value made GCC 12 warn
// (-Wmaybe-uninitialized, a false positive) about the moved variant.
void ModuleParser::body_item(std::vector<BodyItem>& body) {
  lex_.skip_space();
  if (lex_.peek("check.") || lex_.peek("stablehlo.custom_call") || lex_.peek("\"stablehlo.custom_call\"")) {
    body.emplace_back(check());
    return;
  }
  if (lex_.peek("call") || lex_.peek("func.call")) {
    body.emplace_back(call());
    return;
  }
  if (lex_.peek("\"interpreter.run_parallel\"")) {  // without results
    body.emplace_back(run_parallel());
    return;
  }
  if (lex_.peek("%")) {
    // Look past the result names (`%a`, `%a:N`, `%a, %b`) for the op's name: calls are read
    // here. A pack's count is not judged yet: call() says what is wrong with it.
    Lexer probe = lex_;
    bool is_call = false, is_check = false, is_run_parallel = false;
    try {
      do {
        probe.ssa_name();
        if (probe.accept(":")) probe.integer();
      } while (probe.accept(","));
      probe.expect("=");
      is_call = probe.peek("call") || probe.peek("func.call");
      is_run_parallel = probe.peek("\"interpreter.run_parallel\"");
      is_check = probe.accept("stablehlo.custom_call") && probe.accept("@") && probe.peek("check.");
    } catch (const ParseError&) {
      // not a call: instruction() reports the error in its own terms
    }
    if (is_call) {
      body.emplace_back(call());
      return;
    }
    if (is_run_parallel) {
      body.emplace_back(run_parallel());
      return;
    }
    if (is_check) {  // the older JAX test data: `%ok = stablehlo.custom_call @check.eq(...)`
      check_with_result(body);
      return;
    }
  }
  body.emplace_back(instruction());
}

Module parse_module(std::string_view text, const std::string& file) { return ModuleParser(text, file).module(); }

Module parse_module_file(const std::string& path) {
  // A FIFO or a device would be waited on or read forever: only regular files are programs.
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0)
    throw ParseError(path, Location{0, 0}, std::string("cannot open file: ") + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) throw ParseError(path, Location{0, 0}, "cannot read file: not a regular file");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParseError(path, Location{0, 0}, std::string("cannot open file: ") + (errno ? std::strerror(errno) : "unknown reason"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_module(buffer.str(), path);
}

}  // namespace shlo
