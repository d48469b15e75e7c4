// The op level of the parser: the pretty form of every op we run (docs/mlir-forms.md §10),
// and the binder that turns an OpSyntax record (pretty or generic) into a verified
// Instruction.
#include <vector>

#include "ast/mlir_op_parse.hpp"
#include "ast/regions.hpp"
#include "ast/verify.hpp"

namespace shlo {

// ast/mlir_parse_generic.cpp
void read_generic_op(OpParseContext& cx, AttributeReader& attrs, OpSyntax& op);

namespace {

std::string full_name(Op op) { return std::string("stablehlo.") + op_name(op); }

/// Which comparison types an element type admits (spec compare C3). Integer element types add
/// SIGNED (signed integers) and UNSIGNED (unsigned integers and i1) here.
bool compare_type_allowed(ElementType e, const std::string& type) {
  if (is_float(e)) return type == "FLOAT" || type == "TOTALORDER";
  if (e == ElementType::I1 || is_unsigned_integer(e)) return type == "UNSIGNED";
  return type == "SIGNED";  // signed integers
}

/// The attributes without which an op means nothing (by their generic names).
const std::vector<const char*>& required_attributes(Op op) {
  static const std::vector<const char*> none, value{"value"}, iota{"iota_dimension"}, compare{"comparison_direction"},
      broadcast{"broadcast_dimensions"}, transpose{"permutation"}, dimensions{"dimensions"},
      slice{"start_indices", "limit_indices"}, pad{"edge_padding_low", "edge_padding_high", "interior_padding"},
      concatenate{"dimension"}, dot{"dot_dimension_numbers"}, convolution{"dimension_numbers"},
      reduce_window{"window_dimensions"}, all_reduce{"replica_groups"}, dynamic_slice{"slice_sizes"},
      gather{"dimension_numbers", "slice_sizes"}, scatter{"scatter_dimension_numbers"};
  switch (op) {
    case Op::Constant: return value;
    case Op::Iota: return iota;
    case Op::Compare: return compare;
    case Op::BroadcastInDim: return broadcast;
    case Op::Transpose: return transpose;
    case Op::Reverse: case Op::Reduce: return dimensions;
    case Op::Slice: return slice;
    case Op::Pad: return pad;
    case Op::Concatenate: return concatenate;
    case Op::DotGeneral: return dot;
    case Op::Convolution: return convolution;
    case Op::ReduceWindow: return reduce_window;
    case Op::AllReduce: return all_reduce;
    case Op::DynamicSlice: return dynamic_slice;
    case Op::Gather: return gather;
    case Op::Scatter: return scatter;
    // No attribute to require. Every op is listed, not left to a default, so that
    // -Werror=switch makes whoever adds an op decide what it requires.
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Maximum: case Op::Minimum:
    case Op::And: case Op::Or: case Op::Negate: case Op::Abs: case Op::Exponential: case Op::Log: case Op::Sqrt:
    case Op::Rsqrt: case Op::Tanh: case Op::Logistic: case Op::Select: case Op::Convert: case Op::Reshape:
    case Op::SelectAndScatter: case Op::DynamicUpdateSlice: case Op::ShiftLeft: case Op::ShiftRightArithmetic:
    case Op::ShiftRightLogical: case Op::Not: case Op::Xor: case Op::Power: case Op::Remainder: case Op::Sign:
    case Op::Floor: case Op::Ceil: case Op::RoundNearestEven: case Op::RoundNearestAfz: case Op::Sine: case Op::Cosine:
    case Op::LogPlusOne: case Op::ExponentialMinusOne: case Op::Clamp: case Op::BitcastConvert: case Op::Sort:
    case Op::While: case Op::If: case Op::Case:
      return none;
  }
  return none;  // not reached: every enumerator is a case above
}

// The type part after an op's custom syntax.
enum class TypeForm {
  SameType,    // `: T`, or the functional type
  Functional,  // `: (T...) -> R`
  Select,      // `: P, T`, or the functional type
  ResultOnly,  // `: T` (constant, iota)
};

class PrettyReader {
 public:
  PrettyReader(OpParseContext& cx, AttributeReader& attrs, OpSyntax& op) : cx_(cx), l_(cx.lexer()), attrs_(attrs), op_(op) {}

  void read();

 private:
  void use() {
    l_.skip_space();
    const Location at = l_.location();
    const std::string name = cx_.operand("an operand (%name)");
    op_.inst.operand_types.push_back(cx_.value_type(name, at));
    op_.inst.operands.push_back(name);
  }
  void keyword(const char* word, const char* what) {
    l_.expect(word, what);
    l_.expect("=");
  }
  void given(const char* generic_name) { op_.given.insert(generic_name); }

  // [attr-dict] ':' types
  void types(TypeForm form) {
    if (l_.accept("{")) attrs_.dictionary(op_);
    l_.expect(":", "':' before the types");
    const std::size_t n = op_.inst.operands.size();
    if ((form == TypeForm::SameType || form == TypeForm::Select) && !l_.peek("(")) {
      const TensorType first = cx_.type();
      if (form == TypeForm::Select) {
        l_.expect(",", "',' and the result type");
        const TensorType t = cx_.type();
        op_.written_operand_types = {first, t, t};
        op_.written_result_types = {t};
      } else {
        op_.written_operand_types.assign(n, first);
        op_.written_result_types = {first};
      }
      return;
    }
    if (form == TypeForm::ResultOnly) {
      op_.written_result_types = {cx_.type()};
      return;
    }
    read_functional_type(cx_, op_);
  }

  void dot_general();
  void convolution();
  void reduce();
  void reduce_body();
  void while_loop();
  Region region_with(const std::vector<std::pair<std::string, TensorType>>& arguments);

  OpParseContext& cx_;
  Lexer& l_;
  AttributeReader& attrs_;
  OpSyntax& op_;

 public:
  // `(T, ...) -> R` or `-> (R, ...)`, shared with the generic form.
  static void read_functional_type(OpParseContext& cx, OpSyntax& op) {
    Lexer& l = cx.lexer();
    op.functional_type = true;
    l.expect("(", "'(' opening the operand types");
    if (!l.peek(")")) {
      do op.written_operand_types.push_back(cx.type()); while (l.accept(","));
    }
    l.expect(")", "')' or ','");
    l.expect("->", "'->' before the result type");
    if (l.accept("(")) {
      if (!l.peek(")")) {
        do op.written_result_types.push_back(cx.type()); while (l.accept(","));
      }
      l.expect(")", "')' or ','");
    } else {
      op.written_result_types.push_back(cx.type());
    }
  }
};

void PrettyReader::read() {
  Attributes& a = op_.inst.attributes;
  const Op op = op_.inst.op;
  if (is_unary_elementwise(op) || op == Op::Convert || op == Op::BitcastConvert) {
    use();
    return types(TypeForm::SameType);
  }
  if (is_binary_elementwise(op)) {
    use();
    l_.expect(",");
    use();
    return types(TypeForm::SameType);
  }
  switch (op) {
    case Op::Constant: {
      // `dense<...>` (optionally after an attribute dictionary), then its type.
      if (l_.accept("{")) attrs_.dictionary(op_);
      l_.skip_space();
      const Location literal_at = l_.location();
      a.literal = attrs_.dense();
      given("value");
      types(TypeForm::ResultOnly);
      op_.value_type = op_.written_result_types.at(0);
      attrs_.finish_dense(a.literal, *op_.value_type, literal_at);
      return;
    }
    case Op::Iota:
      keyword("dim", "'dim = N'");
      a.dimension = l_.integer();
      given("iota_dimension");
      return types(TypeForm::ResultOnly);
    case Op::Compare:
      a.comparison_direction = l_.identifier("a comparison direction (EQ NE LT LE GT GE)");
      given("comparison_direction");
      l_.expect(",");
      use();
      l_.expect(",");
      use();
      if (l_.accept(",")) {
        a.compare_type = l_.identifier("a comparison type (FLOAT, TOTALORDER, SIGNED, UNSIGNED)");
        given("compare_type");
      }
      return types(TypeForm::Functional);
    case Op::Select:
      use();
      l_.expect(",");
      use();
      l_.expect(",");
      use();
      return types(TypeForm::Select);
    case Op::Clamp:  // %min, %operand, %max : T, or the functional type
      use();
      l_.expect(",");
      use();
      l_.expect(",");
      use();
      return types(TypeForm::SameType);
    case Op::BroadcastInDim:
    case Op::Transpose:
    case Op::Reverse:
      use();
      l_.expect(",");
      keyword("dims", "'dims = [...]'");
      a.dimensions = attrs_.int_list();
      given(op == Op::BroadcastInDim ? "broadcast_dimensions" : op == Op::Transpose ? "permutation" : "dimensions");
      return types(op == Op::Reverse ? TypeForm::SameType : TypeForm::Functional);
    case Op::Reshape:
      use();
      return types(TypeForm::Functional);
    case Op::Slice:
      use();
      l_.expect("[", "'[start:limit, ...]'");
      if (!l_.peek("]")) {
        do {
          a.start_indices.push_back(l_.integer());
          l_.expect(":", "':' in start:limit");
          a.limit_indices.push_back(l_.integer());
          a.strides.push_back(l_.accept(":") ? l_.integer() : 1);
        } while (l_.accept(","));
      }
      l_.expect("]", "']' or ','");
      given("start_indices"), given("limit_indices"), given("strides");
      return types(TypeForm::Functional);
    case Op::Pad:
      use();
      l_.expect(",");
      use();
      l_.expect(",");
      keyword("low", "'low = [...]'");
      a.edge_padding_low = attrs_.int_list();
      l_.expect(",");
      keyword("high", "'high = [...]'");
      a.edge_padding_high = attrs_.int_list();
      l_.expect(",");
      keyword("interior", "'interior = [...]'");
      a.interior_padding = attrs_.int_list();
      given("edge_padding_low"), given("edge_padding_high"), given("interior_padding");
      return types(TypeForm::Functional);
    case Op::Concatenate:
      do use(); while (l_.accept(",") && !l_.peek("dim"));
      keyword("dim", "'dim = N'");
      a.dimension = l_.integer();
      given("dimension");
      return types(TypeForm::Functional);
    case Op::DotGeneral:
      return dot_general();
    case Op::Convolution:
      return convolution();
    case Op::Reduce:
      return reduce();
    case Op::While:
      return while_loop();
    case Op::Sort: case Op::If: case Op::Case:
      l_.fail_at(op_.op_location, full_name(op) + " is written in the generic form \"" + full_name(op) + "\"(...) ({ regions }) : ...");
    case Op::DynamicSlice:  // %x, %i, %j, sizes = [2, 2]
      use();
      while (l_.accept(",") && !l_.peek("sizes")) use();
      keyword("sizes", "'sizes = [...]'");
      a.slice_sizes = attrs_.int_list();
      given("slice_sizes");
      return types(TypeForm::Functional);
    case Op::DynamicUpdateSlice:  // %x, %update, %i, %j
      do use(); while (l_.accept(","));
      return types(TypeForm::Functional);
    case Op::ReduceWindow:
    case Op::SelectAndScatter:
    case Op::AllReduce:
    case Op::Gather:
    case Op::Scatter:
      l_.fail_at(op_.op_location, full_name(op) + " is written in the generic form \"" + full_name(op) +
                                      "\"(...) ({ region }) {attributes}");
    // Read before this switch (the elementwise ops, convert, bitcast_convert).
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Maximum: case Op::Minimum:
    case Op::And: case Op::Or: case Op::Negate: case Op::Abs: case Op::Exponential: case Op::Log: case Op::Sqrt:
    case Op::Rsqrt: case Op::Tanh: case Op::Logistic: case Op::Convert: case Op::Not: case Op::Xor: case Op::Power:
    case Op::Remainder: case Op::Sign: case Op::Floor: case Op::Ceil: case Op::RoundNearestEven:
    case Op::RoundNearestAfz: case Op::Sine: case Op::Cosine: case Op::LogPlusOne: case Op::ExponentialMinusOne:
    case Op::BitcastConvert: case Op::ShiftLeft: case Op::ShiftRightArithmetic: case Op::ShiftRightLogical:
      l_.fail_at(op_.op_location, full_name(op) + " has no pretty form here");
  }
}

// %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [...], algorithm = <...>
void PrettyReader::dot_general() {
  Attributes& a = op_.inst.attributes;
  use();
  l_.expect(",");
  use();
  while (l_.accept(",")) {
    l_.skip_space();
    const Location at = l_.location();
    const std::string clause = l_.identifier("batching_dims, contracting_dims, precision or algorithm");
    l_.expect("=");
    if (clause == "batching_dims" || clause == "contracting_dims") {
      auto& lhs = clause == "batching_dims" ? a.lhs_batching_dimensions : a.lhs_contracting_dimensions;
      auto& rhs = clause == "batching_dims" ? a.rhs_batching_dimensions : a.rhs_contracting_dimensions;
      if (!op_.given.insert(clause == "batching_dims" ? "batching_dims" : "contracting_dims"))
        l_.fail_at(at, "'" + clause + "' is given twice");
      lhs = attrs_.int_list();
      l_.expect("x", "'x' between lhs and rhs dims");
      rhs = attrs_.int_list();
    } else if (clause == "precision") {
      a.precision_config = attrs_.precision_list();
    } else if (clause == "algorithm") {
      l_.expect("<", "'<' opening the algorithm");  // read and ignored, as the reference interpreter does
      do l_.skip_balanced(); while (l_.accept(","));
      l_.expect(">", "'>' closing the algorithm");
    } else {
      l_.fail_at(at, "unknown dot_general clause '" + clause + "' (batching_dims, contracting_dims, precision, algorithm)");
    }
  }
  if (op_.given.count("contracting_dims")) given("dot_dimension_numbers");
  else l_.fail_at(op_.op_location, "stablehlo.dot_general needs 'contracting_dims = [...] x [...]'");
  types(TypeForm::Functional);
}

// (%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {...} {attrs} : ...
void PrettyReader::convolution() {
  Attributes& a = op_.inst.attributes;
  l_.expect("(", "'(' before the convolution operands");
  use();
  l_.expect(",");
  use();
  l_.expect(")");
  keyword("dim_numbers", "'dim_numbers = ...'");
  attrs_.conv_dimension_numbers(a.conv);
  given("dimension_numbers");
  if (l_.accept(",")) {
    keyword("window", "'window = {...}'");
    l_.expect("{", "'{' opening the window");
    if (!l_.peek("}")) {
      do {
        l_.skip_space();
        const Location at = l_.location();
        const std::string field = l_.identifier("a window field (stride, pad, lhs_dilate, rhs_dilate, reverse)");
        l_.expect("=");
        if (field == "stride") a.window_strides = attrs_.int_list(), given("window_strides");
        else if (field == "pad") a.padding = attrs_.pair_list(), given("padding");
        else if (field == "lhs_dilate") a.lhs_dilation = attrs_.int_list(), given("lhs_dilation");
        else if (field == "rhs_dilate") a.rhs_dilation = attrs_.int_list(), given("rhs_dilation");
        else if (field == "reverse") {
          for (bool reversed : attrs_.bool_list())
            if (reversed) l_.fail_at(at, "a reversed convolution window (reverse = true) is not supported");
        } else {
          l_.fail_at(at, "unsupported window field '" + field + "' (stride, pad, lhs_dilate, rhs_dilate, reverse)");
        }
      } while (l_.accept(","));
    }
    l_.expect("}", "'}' or ','");
  }
  types(TypeForm::Functional);
}

// (%x init: %z) applies stablehlo.OP across dimensions = [...] : T, or the full form
// (%x init: %z), (%y init: %w) across dimensions = [...] : T reducer(...) (...) { body }
// (mlir-forms §12.1). The operands are kept as the generic form has them: inputs, then inits.
void PrettyReader::reduce() {
  Attributes& a = op_.inst.attributes;
  std::vector<std::string> inits;
  std::vector<TensorType> init_types;
  do {
    l_.expect("(", "'(' before the reduce operand");
    use();
    l_.expect("init", "'init:'");
    l_.expect(":");
    use();
    inits.push_back(op_.inst.operands.back());
    init_types.push_back(op_.inst.operand_types.back());
    op_.inst.operands.pop_back();
    op_.inst.operand_types.pop_back();
    l_.expect(")");
  } while (l_.accept(","));
  op_.inst.operands.insert(op_.inst.operands.end(), inits.begin(), inits.end());
  op_.inst.operand_types.insert(op_.inst.operand_types.end(), init_types.begin(), init_types.end());
  if (!l_.peek("applies")) return reduce_body();
  if (inits.size() != 1) l_.fail_at(l_.location(), "'applies' reduces one input; several inputs need a reducer body");
  l_.expect("applies", "'applies stablehlo.OP' or 'across dimensions = [...]'");
  l_.skip_space();
  const Location body_at = l_.location();
  const std::string body = l_.identifier("the reducer op (stablehlo.add, ...)");
  auto op = body.rfind("stablehlo.", 0) == 0 ? op_from_name(body.substr(10)) : std::nullopt;
  if (!op || !is_binary_elementwise(*op)) l_.fail_at(body_at, "expected a binary elementwise reducer, found '" + body + "'");
  a.reduce_body = op;
  l_.expect("across", "'across dimensions = [...]'");
  keyword("dimensions", "'dimensions = [...]'");
  a.dimensions = attrs_.int_list();
  given("dimensions");
  types(TypeForm::Functional);
}

// The full form's `across dimensions = [...] {attrs} : (T...) -> (R...) reducer(%a: E0, %c: E0)
// (%b: E1, %d: E1) { body }`: one pair per input, block arguments all first members, then all
// second members (mlir-forms §12.1).
void PrettyReader::reduce_body() {
  Attributes& a = op_.inst.attributes;
  l_.expect("across", "'applies stablehlo.OP' or 'across dimensions = [...]'");
  keyword("dimensions", "'dimensions = [...]'");
  a.dimensions = attrs_.int_list();
  given("dimensions");
  types(TypeForm::Functional);
  l_.expect("reducer", "'reducer' and the body's arguments");
  std::vector<std::pair<std::string, TensorType>> firsts, seconds;
  while (l_.accept("(")) {
    for (auto* side : {&firsts, &seconds}) {
      if (side == &seconds) l_.expect(",", "',' between the two arguments of a reducer pair");
      l_.skip_space();
      const std::string name = l_.ssa_name("a reducer argument");
      l_.expect(":");
      side->emplace_back(name, cx_.type());
    }
    l_.expect(")", "')' closing the reducer pair");
  }
  firsts.insert(firsts.end(), seconds.begin(), seconds.end());
  op_.inst.regions.push_back(region_with(firsts));
}

// (%arg = %init, ...) : T, ... [attributes {...}] cond { ... } do { ... } (mlir-forms §12.2):
// both regions take the same named arguments, one per operand.
void PrettyReader::while_loop() {
  l_.expect("(", "'(' opening the loop's values");
  std::vector<std::string> names;
  if (!l_.peek(")")) {
    do {
      l_.skip_space();
      names.push_back(l_.ssa_name("a loop value (%arg = %init)"));
      l_.expect("=", "'=' and the initial value");
      use();
    } while (l_.accept(","));
  }
  l_.expect(")", "')' or ','");
  if (!names.empty()) {
    l_.expect(":", "':' and the loop values' types");
    do op_.written_operand_types.push_back(cx_.type()); while (l_.accept(","));
  }
  op_.functional_type = true;
  op_.written_result_types = op_.written_operand_types;
  if (l_.accept("attributes")) {
    l_.expect("{");
    attrs_.dictionary(op_);
  }
  std::vector<std::pair<std::string, TensorType>> arguments;
  for (std::size_t i = 0; i < names.size() && i < op_.written_operand_types.size(); ++i)
    arguments.emplace_back(names[i], op_.written_operand_types[i]);
  l_.expect("cond", "'cond { ... }'");
  op_.inst.regions.push_back(region_with(arguments));
  l_.expect("do", "'do { ... }'");
  op_.inst.regions.push_back(region_with(arguments));
}

// A region of a pretty form, nested no deeper than the generic reader allows.
Region PrettyReader::region_with(const std::vector<std::pair<std::string, TensorType>>& arguments) {
  int& depth = cx_.region_depth();
  if (depth >= kMaxRegionNesting) l_.fail_at(op_.op_location, "regions nested more than " + std::to_string(kMaxRegionNesting) + " deep");
  ++depth;
  Region r = cx_.region_with(arguments);
  --depth;
  return r;
}

// A generic reduce's region, when it is one binary op of its two arguments and there is one
// input, is the pretty form's `applies` (the fast kernel runs exactly that); any other body
// stays a region, run as a program.
void reduce_body_from_region(OpSyntax& op) {
  Instruction& inst = op.inst;
  if (inst.regions.size() != 1 || inst.operands.size() != 2 || !is_single_binary_body(inst.regions[0])) return;
  const TensorType scalar{{}, inst.operand_types.at(0).element};
  const Region& r = inst.regions[0];
  if (r.arguments[0].second != scalar || r.arguments[1].second != scalar) return;  // the verifier says what is wrong
  inst.attributes.reduce_body = r.body[0].op;
  inst.regions.clear();
}

Instruction bind(OpParseContext& cx, OpSyntax& op) {
  Lexer& l = cx.lexer();
  Instruction& inst = op.inst;
  Attributes& a = inst.attributes;
  const std::string& name = op.name;  // as written, for messages
  // The written types against the operands' definitions.
  const auto& written = op.written_operand_types;
  if (written.size() != inst.operands.size())
    l.fail_at(inst.location, name + " has " + std::to_string(inst.operands.size()) + " operand(s) but " +
                                 std::to_string(written.size()) + " operand type(s) are written");
  for (std::size_t i = 0; i < written.size(); ++i)
    if (written[i] != inst.operand_types[i])
      l.fail_at(inst.location, "operand " + inst.operands[i] + " has type " + to_string(inst.operand_types[i]) +
                                   " but the instruction says " + to_string(written[i]));
  // Ops that may have several results keep them all (ast/regions.hpp).
  const bool several = inst.op == Op::Reduce || inst.op == Op::Sort || inst.op == Op::While || inst.op == Op::If ||
                       inst.op == Op::Case || inst.op == Op::Scatter || inst.op == Op::ReduceWindow || inst.op == Op::AllReduce;
  if (op.written_result_types.empty() || (op.written_result_types.size() != 1 && !several))
    l.fail_at(inst.location, name + " is written with " + std::to_string(op.written_result_types.size()) +
                                 " results; it has one");
  if (op.written_result_types.size() > 1) inst.result_types = op.written_result_types;
  inst.result_type = std::move(op.written_result_types[0]);
  for (const char* required : required_attributes(inst.op))
    if (!op.given.count(required)) l.fail_at(op.op_location, name + " needs the attribute '" + required + "'");
  switch (inst.op) {
    case Op::Constant:
      if (*op.value_type != inst.result_type)
        l.fail_at(inst.location, "the literal's type " + to_string(*op.value_type) + " is not the result type " +
                                     to_string(inst.result_type));
      break;
    case Op::Slice:
      if (!op.given.count("strides")) a.strides.assign(a.start_indices.size(), 1);
      if (a.limit_indices.size() != a.start_indices.size() || a.strides.size() != a.start_indices.size())
        l.fail_at(inst.location, "stablehlo.slice: start_indices, limit_indices and strides differ in length");
      break;
    case Op::Convolution: {
      // Absent window fields take the spec's defaults: stride and dilations 1, padding 0.
      const std::size_t spatial = a.conv.input_spatial.size();
      if (!op.given.count("window_strides")) a.window_strides.assign(spatial, 1);
      if (!op.given.count("padding")) a.padding.assign(spatial, {0, 0});
      if (!op.given.count("lhs_dilation")) a.lhs_dilation.assign(spatial, 1);
      if (!op.given.count("rhs_dilation")) a.rhs_dilation.assign(spatial, 1);
      break;
    }
    case Op::Reduce:
      if (!a.reduce_body) reduce_body_from_region(op);
      if (!a.reduce_body && inst.regions.empty()) l.fail_at(op.op_location, name + " needs a body (a region or 'applies')");
      break;
    case Op::Sort:
      if (!op.given.count("dimension")) a.dimension = -1;  // the spec's default: the last dimension
      break;
    case Op::Compare:
      if (a.compare_type == "NOTYPE") a.compare_type.clear();  // MLIR's spelling of "not given"
      if (!a.compare_type.empty() && !inst.operand_types.empty() &&
          !compare_type_allowed(inst.operand_types[0].element, a.compare_type))
        l.fail_at(inst.location, "stablehlo.compare: comparison type " + a.compare_type + " does not apply to " +
                                     to_string(inst.operand_types[0]) +
                                     (is_float(inst.operand_types[0].element) ? " (floats compare as FLOAT or TOTALORDER)" : ""));
      break;
    // No attribute check of their own.
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Maximum: case Op::Minimum:
    case Op::And: case Op::Or: case Op::Negate: case Op::Abs: case Op::Exponential: case Op::Log: case Op::Sqrt:
    case Op::Rsqrt: case Op::Tanh: case Op::Logistic: case Op::Select: case Op::Convert: case Op::Iota:
    case Op::BroadcastInDim: case Op::Reshape: case Op::Transpose: case Op::Reverse: case Op::Pad:
    case Op::Concatenate: case Op::DotGeneral: case Op::ReduceWindow: case Op::SelectAndScatter: case Op::AllReduce:
    case Op::Not: case Op::Xor: case Op::Power: case Op::Remainder: case Op::Sign: case Op::Floor: case Op::Ceil:
    case Op::RoundNearestEven: case Op::RoundNearestAfz: case Op::Sine: case Op::Cosine: case Op::LogPlusOne:
    case Op::ExponentialMinusOne: case Op::Clamp: case Op::BitcastConvert: case Op::While: case Op::If: case Op::Case:
    case Op::DynamicSlice: case Op::DynamicUpdateSlice: case Op::Gather: case Op::Scatter: case Op::ShiftLeft:
    case Op::ShiftRightArithmetic: case Op::ShiftRightLogical:
      break;
  }
  const bool takes_regions = inst.op == Op::ReduceWindow || inst.op == Op::SelectAndScatter || inst.op == Op::AllReduce ||
                            inst.op == Op::Reduce || inst.op == Op::Sort || inst.op == Op::While || inst.op == Op::If ||
                            inst.op == Op::Case || inst.op == Op::Scatter || inst.op == Op::ReduceWindow || inst.op == Op::AllReduce;
  if (!takes_regions && !inst.regions.empty()) l.fail_at(inst.location, name + " takes no regions");
  verify_instruction(inst, l.file());
  return std::move(inst);
}

Op resolve_op(Lexer& l, const std::string& name, Location at) {
  auto op = name.rfind("stablehlo.", 0) == 0 ? op_from_name(name.substr(10)) : std::nullopt;
  if (!op) l.fail_at(at, "unsupported op '" + name + "'");
  return *op;
}

}  // namespace

void read_functional_op_type(OpParseContext& cx, OpSyntax& op) { PrettyReader::read_functional_type(cx, op); }

Instruction parse_op(OpParseContext& cx, Location at, const AttributeAliases* aliases) {
  Lexer& l = cx.lexer();
  OpSyntax op;
  op.inst.location = at;
  l.skip_space();
  op.op_location = l.location();
  AttributeReader attrs(cx, aliases);
  if (l.peek("\"")) {
    op.name = l.string_literal("an op name");
    op.inst.op = resolve_op(l, op.name, op.op_location);
    read_generic_op(cx, attrs, op);
  } else {
    op.name = l.identifier("an op name (stablehlo.*)");
    op.inst.op = resolve_op(l, op.name, op.op_location);
    PrettyReader(cx, attrs, op).read();
  }
  return bind(cx, op);
}

}  // namespace shlo
