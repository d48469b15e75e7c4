#include "ast/mlir_parse.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include <sys/stat.h>

#include "ast/mlir_op_parse.hpp"

namespace shlo {

namespace {

class Parser : public OpParseContext {
 public:
  Parser(std::string_view text, const std::string& file) : lex_(text, file) {}

  Module module() {
    Module m;
    m.file = lex_.file();
    while (parse_alias_definition(lex_, aliases_)) {
    }
    lex_.expect("module", "the start of a module");
    lex_.expect("@", "the module name");
    m.name = lex_.identifier("the module name");
    lex_.expect("{");
    lex_.skip_space_and_comments();
    m.function = function();
    lex_.skip_space_and_comments();
    if (lex_.peek("func.func"))
      lex_.fail_at(lex_.location(), "a second func.func: the oracle reads modules with exactly one function");
    lex_.expect("}", "the end of the module");
    while (parse_alias_definition(lex_, aliases_)) {
    }
    if (!lex_.at_end()) lex_.fail_expected("the end of the file after the module");
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
  int& region_depth() override { return region_depth_; }
  TensorType value_type(const std::string& name, Location at) override {
    auto it = scopes_.back().find(name);
    if (it == scopes_.back().end())
      lex_.fail_at(at, "use of undefined value " + name + " (values must be defined before use)");
    return it->second.type;
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

  Function function() {
    Function f;
    lex_.expect("func.func", "'func.func'");
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
        define(arg.name, arg.type, arg.location);
        f.arguments.push_back(arg);
      } while (lex_.accept(","));
    }
    lex_.expect(")", "')' or ','");
    lex_.expect("->", "'->' and the result types");
    if (lex_.accept("(")) {
      f.parenthesized_results = true;
      do f.result_types.push_back(type()); while (lex_.accept(","));
      lex_.expect(")", "')' or ','");
    } else {
      f.result_types.push_back(type());
    }
    lex_.expect("{", "'{' opening the function body");
    for (;;) {
      if (lex_.line_comment_next()) {
        f.body.push_back(Comment{lex_.rest_of_line()});
        continue;
      }
      if (lex_.peek("return") || lex_.peek("func.return")) break;
      if (lex_.at_end() || lex_.peek("}")) lex_.fail_expected("'return' before the end of the function");
      f.body.push_back(instruction());
    }
    lex_.skip_space();
    f.return_location = lex_.location();
    if (!lex_.accept("func.return")) lex_.expect("return");
    do {
      lex_.skip_space();
      const Location at = lex_.location();
      const std::string name = lex_.ssa_name("a returned value");
      if (!scopes_.back().count(name)) lex_.fail_at(at, "use of undefined value " + name);
      f.return_values.push_back(name);
    } while (lex_.accept(","));
    lex_.expect(":", "':' and the returned types");
    do f.return_types.push_back(type()); while (lex_.accept(","));
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
