#include "ast/mlir_parse.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include <sys/stat.h>

#include "ast/mlir_op_parse.hpp"
#include "ast/verify.hpp"

namespace shlo {

namespace {

constexpr int kMaxDenseNesting = 8;
// Regions inside regions: the printer writes one level; the limit keeps the recursive descent
// far from the stack's end on hostile input.
constexpr int kMaxRegionNesting = 32;
// `%r:N`: far more results than any real op has; bounds the names a hostile N creates.
constexpr std::int64_t kMaxPackedResults = 4096;

class Parser : public OpParseContext {
 public:
  Parser(std::string_view text, const std::string& file) : lex_(text, file) {}

  // module [@name] [attributes {...}] { func.func ... }, or bare functions (an implicit module).
  Module module() {
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

 private:
  // ---- scopes: the function body, and one isolated scope per region ----
  struct Definition {
    TensorType type;
    Location location;
  };
  using Scope = std::map<std::string, Definition>;

  void define(const std::string& name, const TensorType& type, Location at) {
    auto [it, fresh] = scopes_.back().emplace(name, Definition{type, at});
    if (!fresh)
      lex_.fail_at(at, "redefinition of " + name + " (first defined at line " +
                           std::to_string(it->second.location.line) + ")");
  }

  // ---- the op reader's view of this parser (ast/mlir_op_parse.hpp) ----
  Lexer& lexer() override { return lex_; }
  std::string operand(std::string_view what) override { return value_use(what); }
  int& region_depth() override { return region_depth_; }
  TensorType value_type(const std::string& name, Location at) override {
    auto it = scopes_.back().find(name);
    if (it == scopes_.back().end())
      lex_.fail_at(at, "use of undefined value " + name + " (values must be defined before use)");
    return it->second.type;
  }

  // An operand: a name defined earlier in the current scope; its type is appended.
  std::string use(Instruction& inst) {
    const std::string name = value_use("an operand (%name)");
    auto it = scopes_.back().find(name);
    inst.operands.push_back(name);
    inst.operand_types.push_back(it->second.type);
    return name;
  }

  // ---- types and attribute syntax ----
  TensorType type() override {
    lex_.expect("tensor", "a tensor type");
    lex_.expect("<");
    TensorType t;
    std::int64_t elements = 1;  // checked here once, so that every later shape product is exact
    for (;;) {
      lex_.skip_space();
      if (lex_.peek("f") || lex_.peek("bf") || lex_.peek("i") || lex_.peek("ui")) break;  // an element type ends the shape
      lex_.skip_space();
      const Location at = lex_.location();
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

  // ---- instructions ----
  Instruction instruction() {
    lex_.skip_space();
    const Location at = lex_.location();
    const std::string result = lex_.ssa_name("an instruction (%name = ...), a comment or 'return'");
    if (lex_.peek(":")) lex_.fail_at(lex_.location(), "multi-result instructions (%name:2) are not supported");
    lex_.expect("=", "'='");
    Instruction inst = parse_op(*this, at, &aliases_);
    inst.result = result;
    define(inst.result, inst.result_type, inst.location);
    return inst;
  }

  Region region() override {
    Region r;
    lex_.expect("{", "'{' opening a region");
    lex_.skip_space_and_comments();
    r.location = lex_.location();
    lex_.expect("^bb0", "the region's block '^bb0(...)'");
    scopes_.emplace_back();  // isolated: a region sees only its arguments and its own values
    lex_.expect("(");
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
    lex_.expect(":", "':' after the block arguments");
    bool generic_return = false;  // "stablehlo.return"(%a) : (tensor<f32>) -> ()
    for (;;) {
      lex_.skip_space_and_comments();
      if (lex_.accept("stablehlo.return")) break;
      if ((generic_return = lex_.accept("\"stablehlo.return\""))) break;
      r.body.push_back(instruction());
    }
    if (generic_return) lex_.expect("(", "'(' opening the returned values");
    do {
      lex_.skip_space();
      const Location at = lex_.location();
      const std::string name = lex_.ssa_name("a returned value");
      if (!scopes_.back().count(name)) lex_.fail_at(at, "use of undefined value " + name);
      r.results.push_back(name);
    } while (lex_.accept(","));
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
      if (scopes_.back().at(r.results[i]).type != r.result_types[i])
        lex_.fail_at(r.location, "returned value " + r.results[i] + " does not have type " + to_string(r.result_types[i]));
    scopes_.pop_back();
    lex_.skip_space_and_comments();
    lex_.expect("}", "'}' closing the region");
    return r;
  }

  // ---- functions, calls, checks (the top level; docs/mlir-forms.md sections 2-4 and 13) ----

  // A value as a use writes it: %x, or %x#i for result i of a multi-result op. Returns the name
  // the scope knows it by (%x#0 of a single-result %x is %x); fails on an undefined value.
  std::string value_use(std::string_view what) {
    lex_.skip_space();
    const Location at = lex_.location();
    std::string name = lex_.ssa_name(what);
    const Scope& scope = scopes_.back();
    if (lex_.accept("#")) {
      const std::int64_t index = lex_.integer("a result number after '#'");
      const std::string base = name;
      name += "#" + std::to_string(index);
      if (scope.count(name)) return name;
      if (index == 0 && scope.count(base)) return base;
      lex_.fail_at(at, "use of undefined value " + name + (scope.count(base + "#0") ? " (result number out of range)" : ""));
    }
    if (!scope.count(name)) {
      if (scope.count(name + "#0")) lex_.fail_at(at, name + " has several results: use " + name + "#0, " + name + "#1, ...");
      lex_.fail_at(at, "use of undefined value " + name + " (values must be defined before use)");
    }
    return name;
  }

  // The functions of a module (or of a file of bare functions), up to '}' or the end.
  void functions(Module& m) {
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

  // (T, ...) or a single T: the results of a function or of a call's type. With `attributes`,
  // a parenthesised result may carry a dictionary, kept raw.
  std::vector<TensorType> result_types(bool& parenthesized, std::vector<std::string>* attributes) {
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

  Function function() {
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
      f.body.push_back(body_item());
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

  // One item of a function body: a call, a check, or a stablehlo instruction.
  BodyItem body_item() {
    lex_.skip_space();
    if (lex_.peek("check.") || lex_.peek("stablehlo.custom_call") || lex_.peek("\"stablehlo.custom_call\"")) return check();
    if (lex_.peek("call") || lex_.peek("func.call")) return call();
    if (lex_.peek("%")) {
      Lexer probe = lex_;  // look past the result names for the op's name: calls are read here
      bool is_call = false;
      try {
        call_results(probe);
        probe.expect("=");
        is_call = probe.peek("call") || probe.peek("func.call");
      } catch (const ParseError&) {
        // not a call: instruction() reports the error in its own terms
      }
      if (is_call) return call();
    }
    return instruction();
  }

  // `%a`, `%a:2`, `%a, %b = `: the result names as uses write them (%a#0, %a#1 for a pack).
  static std::vector<std::string> call_results(Lexer& lex) {
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

  Call call() {
    Call c;
    lex_.skip_space();
    c.location = lex_.location();
    if (lex_.peek("%")) {
      c.results = call_results(lex_);
      lex_.expect("=", "'='");
    }
    c.func_prefix = lex_.accept("func.call");
    if (!c.func_prefix) lex_.expect("call", "'call'");
    lex_.expect("@", "the callee (@name)");
    c.callee = lex_.identifier("the callee's name");
    lex_.expect("(", "'(' opening the call's operands");
    Instruction collected;  // use() gathers the operands' names and types here
    if (!lex_.peek(")")) {
      do use(collected); while (lex_.accept(","));
    }
    lex_.expect(")", "')' or ','");
    c.operands = std::move(collected.operands);
    c.operand_types = std::move(collected.operand_types);
    lex_.expect(":", "':' and the callee's type (T, ...) -> R");
    lex_.expect("(", "'(' opening the operand types");
    std::vector<TensorType> printed;
    if (!lex_.peek(")")) {
      do printed.push_back(type()); while (lex_.accept(","));
    }
    lex_.expect(")", "')' or ','");
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
    return c;
  }

  static std::string type_list(const std::vector<TensorType>& ts) {
    std::string s;
    for (std::size_t i = 0; i < ts.size(); ++i) s += (i ? ", " : "") + to_string(ts[i]);
    return s;
  }

  double tolerance_value() {
    lex_.skip_space();
    const Location at = lex_.location();
    const std::string text = lex_.literal("a tolerance");
    try {
      std::size_t used = 0;
      const double v = std::stod(text, &used);
      if (used == text.size() && v >= 0) return v;
    } catch (const std::exception&) {
    }
    lex_.fail_at(at, "expected a non-negative tolerance, found '" + text + "'");
  }

  // `key = value` of a check: tolerance, max_ulp_difference, min_ulp_difference.
  void check_parameter(Check& c, const std::string& key, Location at) {
    if (key == "tolerance" && c.kind == CheckKind::AlmostEq) c.tolerance = tolerance_value();
    else if (key == "max_ulp_difference" && c.kind == CheckKind::Close) c.max_ulp = lex_.integer();
    else if (key == "min_ulp_difference" && c.kind == CheckKind::Close) c.min_ulp = lex_.integer();
    else lex_.fail_at(at, "unknown parameter '" + key + "' for " + check_name(c));
  }

  // `{key = value, ...}` with each value read by `value(key, location)`.
  template <class ReadValue>
  void dictionary(const char* opening, const char* key_what, ReadValue value) {
    lex_.expect("{", opening);
    if (!lex_.peek("}")) {
      do {
        lex_.skip_space();
        const Location at = lex_.location();
        const std::string key = lex_.identifier(key_what);
        lex_.expect("=");
        value(key, at);
      } while (lex_.accept(","));
    }
    lex_.expect("}", "'}' or ','");
  }

  // {tolerance = 0.01 : f64}: the parameters as an attribute dictionary.
  void check_dictionary(Check& c) {
    dictionary("'{' opening the check's attributes", "a check parameter", [&](const std::string& key, Location at) {
      check_parameter(c, key, at);
      if (lex_.accept(":")) lex_.identifier("the parameter's type");
    });
  }

  // check.expect_*(...) and stablehlo.custom_call @check.expect_*(...): no results.
  Check check() {
    Check c;
    lex_.skip_space();
    c.location = lex_.location();
    Instruction collected;
    if (lex_.accept("check.")) {
      const std::string name = lex_.identifier("a check op");
      bool literal = name.size() > 6 && name.compare(name.size() - 6, 6, "_const") == 0;
      const std::string base = literal ? name.substr(0, name.size() - 6) : name;
      if (base == "expect_eq") c.kind = CheckKind::Eq;
      else if (base == "expect_almost_eq") c.kind = CheckKind::AlmostEq;
      else if (base == "expect_close" && !literal) c.kind = CheckKind::Close;
      else
        lex_.fail_at(c.location, "unsupported check op 'check." + name +
                                     "' (expect_eq, expect_eq_const, expect_almost_eq, expect_almost_eq_const, expect_close)");
      use(collected);
      lex_.expect(",", "',' and the expected value");
      if (literal) c.expected = AttributeReader(*this, &aliases_).dense();
      else use(collected);
      while (lex_.accept(",")) {
        lex_.skip_space();
        const Location at = lex_.location();
        const std::string key = lex_.identifier("a check parameter");
        lex_.expect("=");
        check_parameter(c, key, at);
      }
      if (lex_.peek("{")) check_dictionary(c);
      lex_.expect(":", "':' and the type");
      if (lex_.peek("{")) check_dictionary(c);
      std::vector<TensorType> printed{type()};
      if (lex_.accept(",")) printed.push_back(type());
      if (printed.size() == 1) printed.push_back(printed[0]);
      if (literal) collected.operand_types.push_back(printed[0]);
      check_operand_types(c, collected.operands, collected.operand_types, printed);
    } else {
      custom_call_check(c, collected);
    }
    c.operands = std::move(collected.operands);
    c.operand_types = std::move(collected.operand_types);
    if (c.expected) {  // the literal is read by the constant's rules
      Instruction constant;
      constant.op = Op::Constant;
      AttributeReader(*this, &aliases_).finish_dense(*c.expected, c.operand_types[0], c.location);
      constant.attributes.literal = *c.expected;
      constant.result_type = c.operand_types[0];
      constant.location = c.location;
      verify_instruction(constant, lex_.file());
    }
    if (c.kind != CheckKind::Eq && !is_float(c.operand_types[0].element))
      lex_.fail_at(c.location, check_name(c) + " compares floats; the operands are " + to_string(c.operand_types[0]));
    return c;
  }

  void check_operand_types(const Check& c, const std::vector<std::string>& operands, const std::vector<TensorType>& types,
                           const std::vector<TensorType>& printed) {
    if (printed.size() != 2 || printed[0] != printed[1] || types.size() != 2)
      lex_.fail_at(c.location, check_name(c) + " compares two values of one type; the types written are " + type_list(printed));
    for (std::size_t i = 0; i < operands.size(); ++i)
      if (types[i] != printed[i])
        lex_.fail_at(c.location, "operand " + operands[i] + " has type " + to_string(types[i]) + " but the check says " +
                                     to_string(printed[i]));
  }

  // stablehlo.custom_call @check.expect_close(%a, %b) {has_side_effect = true} : (T, T) -> (), and
  // the generic "stablehlo.custom_call"(%a, %b) <{call_target_name = "check.expect_close", ...}> : ...
  // The tolerances are those of StableHLO's interpreter for these targets.
  void custom_call_check(Check& c, Instruction& collected) {
    c.custom_call = true;
    std::string target;
    std::string attributes;
    if (lex_.accept("stablehlo.custom_call")) {
      lex_.expect("@", "the call target (@check.expect_close, @check.expect_eq, @check.expect_almost_eq)");
      target = lex_.identifier("the call target");
    } else {
      lex_.expect("\"stablehlo.custom_call\"");
    }
    lex_.expect("(", "'(' opening the operands");
    if (!lex_.peek(")")) {
      do use(collected); while (lex_.accept(","));
    }
    lex_.expect(")", "')' or ','");
    if (lex_.peek("<")) attributes += lex_.balanced("the custom call's properties <{...}>");
    if (lex_.peek("{")) attributes += lex_.balanced("the custom call's attributes {...}");
    if (target.empty()) {
      const std::string key = "call_target_name = \"";
      const auto k = attributes.find(key);
      if (k != std::string::npos) target = attributes.substr(k + key.size(), attributes.find('"', k + key.size()) - k - key.size());
    }
    if (target == "check.expect_close") {
      c.kind = CheckKind::Close;
      c.max_ulp = 3;
    } else if (target == "check.expect_eq") {
      c.kind = CheckKind::Eq;
    } else if (target == "check.expect_almost_eq") {
      c.kind = CheckKind::AlmostEq;
      c.tolerance = 1e-3;
    } else {
      lex_.fail_at(c.location, "unsupported custom call target '" + target +
                                   "' (only check.expect_close, check.expect_eq and check.expect_almost_eq are run)");
    }
    lex_.expect(":", "':' and the types");
    lex_.expect("(", "'(' opening the operand types");
    std::vector<TensorType> printed;
    if (!lex_.peek(")")) {
      do printed.push_back(type()); while (lex_.accept(","));
    }
    lex_.expect(")", "')' or ','");
    lex_.expect("->", "'-> ()'");
    lex_.expect("(", "'()': a check has no results");
    lex_.expect(")", "')': a check has no results");
    check_operand_types(c, collected.operands, collected.operand_types, printed);
  }

  Lexer lex_;
  std::vector<Scope> scopes_;
  int region_depth_ = 0;
  AttributeAliases aliases_;
};

}  // namespace

Module parse_module(std::string_view text, const std::string& file) { return Parser(text, file).module(); }

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
