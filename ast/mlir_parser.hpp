// Internal to the parser (ast/mlir_parse*.cpp): the recursive-descent parser of a module.
//
// One class, defined over three files: the module, its functions, types, scopes and regions
// (mlir_parse.cpp); calls between functions (mlir_parse_calls.cpp); the check dialect's ops
// (mlir_parse_checks.cpp). The op level is ast/mlir_op_parse.hpp.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ast/mlir_op_parse.hpp"

namespace shlo {

class ModuleParser : public OpParseContext {
 public:
  ModuleParser(std::string_view text, const std::string& file) : lex_(text, file) {}

  /// module [@name] [attributes {...}] { func.func ... }, or bare functions (an implicit module).
  Module module();

 private:
  // ---- scopes: the function body, and one scope per region (which sees the scopes around it) ----
  struct Definition {
    TensorType type;
    Location location;
  };
  using Scope = std::map<std::string, Definition>;

  void define(const std::string& name, const TensorType& type, Location at);
  /// The definition of `name` visible here: the innermost scope first, then outwards (a region
  /// reads the values of the scopes around it); null if none.
  const Definition* visible(const std::string& name) const;

  // ---- the op reader's view of this parser (ast/mlir_op_parse.hpp) ----
  Lexer& lexer() override { return lex_; }
  std::string operand(std::string_view what) override { return value_use(what); }
  int& region_depth() override { return region_depth_; }
  TensorType value_type(const std::string& name, Location at) override;
  TensorType type() override;
  Region region() override { return region_with({}); }
  Region region_with(const std::vector<std::pair<std::string, TensorType>>& arguments) override;

  /// An operand: a name defined earlier in the current scope; its name and type are appended
  /// to `inst`.
  std::string use(Instruction& inst);
  /// A value as a use writes it: %x, or %x#i for result i of a multi-result op. Returns the
  /// name the scope knows it by (%x#0 of a single-result %x is %x); fails on an undefined value.
  std::string value_use(std::string_view what);

  // ---- functions and their bodies (mlir_parse.cpp) ----
  void functions(Module& m);
  Function function();
  /// Reads one item of a function body into `body`: a call, a check, or a stablehlo instruction.
  void body_item(std::vector<BodyItem>& body);
  Instruction instruction();
  /// (T, ...) or a single T: the results of a function or of a call's type. With
  /// `attributes`, a parenthesised result may carry a dictionary, kept raw.
  std::vector<TensorType> result_types(bool& parenthesized, std::vector<std::string>* attributes);
  /// `(T, ...)`, possibly empty: the operand types of a call or a check; `what` names them in
  /// the error when the '(' is missing.
  std::vector<TensorType> parenthesised_types(std::string_view what);

  // ---- calls (mlir_parse_calls.cpp) ----
  /// `%a`, `%a:2`, `%a, %b`: the result names as uses write them (%a#0, %a#1 for a pack).
  static std::vector<std::string> call_results(Lexer& lex);
  /// Where a call starts (its location), and its results `%r, ... =` if it has any.
  Call call_start();
  Call call();
  /// `"interpreter.run_parallel"(%a, ...) {programs = [[@f], ...]} : (T, ...) -> (R, ...)`.
  Call run_parallel();
  /// `(%a, ...)`: a call's operands, with their types.
  void call_operands(Call& c);
  /// After the ':': `(T, ...) -> R` or `-> (R, ...)`, checked against the operands and results,
  /// whose names it defines.
  void call_type(Call& c);
  /// The entries of run_parallel's attributes, up to the '}' (not consumed).
  void run_parallel_attributes(Call& c);

  // ---- the check dialect (mlir_parse_checks.cpp) ----
  /// check.expect_*(...) and stablehlo.custom_call @check.expect_*(...): no results; or, with
  /// `result` named, the older `%ok = stablehlo.custom_call @check.eq(...) : ... -> tensor<i1>`.
  Check check(const std::string& result = "");
  void custom_call_check(Check& c, Instruction& collected, const std::string& result);
  /// `%ok = stablehlo.custom_call @check.eq(%a, %b) : (T, T) -> tensor<i1>`: the check, then %ok
  /// defined as the constant true (a check that does not hold fails the test; one that holds
  /// yields true, as in StableHLO's interpreter).
  void check_with_result(std::vector<BodyItem>& body);
  void check_operand_types(const Check& c, const std::vector<std::string>& operands, const std::vector<TensorType>& types,
                           const std::vector<TensorType>& printed);
  /// `key = value` of a check: tolerance, max_ulp_difference, min_ulp_difference.
  void check_parameter(Check& c, const std::string& key, Location at);
  /// {tolerance = 0.01 : f64}: the parameters as an attribute dictionary.
  void check_dictionary(Check& c);
  double tolerance_value();

  Lexer lex_;
  std::vector<Scope> scopes_;
  int region_depth_ = 0;
  AttributeAliases aliases_;
};

}  // namespace shlo
