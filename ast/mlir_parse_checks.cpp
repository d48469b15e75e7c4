// The check dialect of StableHLO's interpreter tests (docs/mlir-forms.md section 13):
// `check.expect_eq %got, %want : T`, the `_const` forms with a literal, expect_almost_eq and
// expect_close with their parameters, and `stablehlo.custom_call @check.expect_*(...)`.
#include "ast/mlir_parser.hpp"
#include "ast/verify.hpp"

namespace shlo {

namespace {

// `{key = value, ...}` with each value read by `value(key, location)`.
template <class ReadValue>
void dictionary(Lexer& lex, const char* opening, const char* key_what, ReadValue value) {
  lex.expect("{", opening);
  if (!lex.peek("}")) {
    do {
      lex.skip_space();
      const Location at = lex.location();
      const std::string key = lex.identifier(key_what);
      lex.expect("=");
      value(key, at);
    } while (lex.accept(","));
  }
  lex.expect("}", "'}' or ','");
}

}  // namespace

double ModuleParser::tolerance_value() {
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
void ModuleParser::check_parameter(Check& c, const std::string& key, Location at) {
  if (key == "tolerance" && c.kind == CheckKind::AlmostEq) c.tolerance = tolerance_value();
  else if (key == "max_ulp_difference" && c.kind == CheckKind::Close) c.max_ulp = lex_.integer();
  else if (key == "min_ulp_difference" && c.kind == CheckKind::Close) c.min_ulp = lex_.integer();
  else lex_.fail_at(at, "unknown parameter '" + key + "' for " + check_name(c));
}

// {tolerance = 0.01 : f64}: the parameters as an attribute dictionary.
void ModuleParser::check_dictionary(Check& c) {
  dictionary(lex_, "'{' opening the check's attributes", "a check parameter", [&](const std::string& key, Location at) {
    check_parameter(c, key, at);
    if (lex_.accept(":")) lex_.identifier("the parameter's type");
  });
}

// check.expect_*(...) and stablehlo.custom_call @check.expect_*(...): no results.
Check ModuleParser::check(const std::string& result) {
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
    if (lex_.peek("{")) check_dictionary(c);  // `: tensor<f64> {tolerance = 0.1 : f64}`
    if (literal) collected.operand_types.push_back(printed[0]);
    check_operand_types(c, collected.operands, collected.operand_types, printed);
  } else {
    custom_call_check(c, collected, result);
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

void ModuleParser::check_operand_types(const Check& c, const std::vector<std::string>& operands,
                                       const std::vector<TensorType>& types, const std::vector<TensorType>& printed) {
  if (printed.size() != 2 || printed[0] != printed[1] || types.size() != 2)
    lex_.fail_at(c.location, check_name(c) + " compares two values of one type; the types written are " + type_list(printed));
  for (std::size_t i = 0; i < operands.size(); ++i)
    if (types[i] != printed[i])
      lex_.fail_at(c.location, "operand " + operands[i] + " has type " + to_string(types[i]) + " but the check says " +
                                   to_string(printed[i]));
}

// stablehlo.custom_call @check.expect_close(%a, %b) {has_side_effect = true} : (T, T) -> (), and
// the generic "stablehlo.custom_call"(%a, %b) <{call_target_name = "check.expect_close", ...}> : ...
// The tolerances are those of StableHLO's interpreter for these targets. The older JAX test data
// writes `%ok = stablehlo.custom_call @check.eq(%a, %b) : (T, T) -> tensor<i1>`: with `result`
// named, the check ends in `-> tensor<i1>` instead of `-> ()`.
void ModuleParser::custom_call_check(Check& c, Instruction& collected, const std::string& result) {
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
  } else if (target == "check.eq") {
    c.kind = CheckKind::Eq;  // on floats AlmostEq, decided below once the operand types are read
    c.legacy_eq = true;
  } else if (target == "check.expect_almost_eq") {
    c.kind = CheckKind::AlmostEq;
    c.tolerance = 1e-3;
  } else {
    lex_.fail_at(c.location, "unsupported custom call target '" + target +
                                 "' (only check.expect_close, check.expect_eq, check.expect_almost_eq and check.eq are run)");
  }
  lex_.expect(":", "':' and the types");
  const std::vector<TensorType> printed = parenthesised_types("the operand types");
  if (result.empty()) {
    lex_.expect("->", "'-> ()'");
    lex_.expect("(", "'()': a check has no results");
    lex_.expect(")", "')': a check has no results");
  } else {
    lex_.expect("->", "'-> tensor<i1>'");
    lex_.skip_space();
    const Location at = lex_.location();
    const bool parenthesized = lex_.accept("(");
    const TensorType t = type();
    if (parenthesized) lex_.expect(")", "')' closing the result type");
    if (t != TensorType{{}, ElementType::I1})
      lex_.fail_at(at, "a check with a result returns tensor<i1>, not " + to_string(t));
  }
  check_operand_types(c, collected.operands, collected.operand_types, printed);
  // StableHLO's interpreter runs @check.eq as expect_eq on integers and booleans, and on floats as
  // expect_almost_eq with tolerance 1e-4 (the expected values were computed by XLA, whose sums
  // may round differently in the last place).
  if (c.legacy_eq && is_float(printed[0].element)) {
    c.kind = CheckKind::AlmostEq;
    c.tolerance = 1e-4;
  }
}

void ModuleParser::check_with_result(std::vector<BodyItem>& body) {
  lex_.skip_space();
  const Location at = lex_.location();
  const std::string name = lex_.ssa_name();
  lex_.expect("=");
  Check c = check(name);
  Instruction yes;  // the check's value: true (a failed check has already failed the test)
  yes.op = Op::Constant;
  yes.result = name;
  yes.result_type = TensorType{{}, ElementType::I1};
  yes.attributes.literal.elements = {"true"};
  yes.location = c.location;
  body.emplace_back(std::move(c));
  define(name, yes.result_type, at);
  body.emplace_back(std::move(yes));
}

}  // namespace shlo
