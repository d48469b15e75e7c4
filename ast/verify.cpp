#include "ast/verify.hpp"

#include <algorithm>
#include <set>

#include "ast/regions.hpp"
#include "ast/verify_checker.hpp"
#include "ast/verify_regions.hpp"
#include "ast/verify_indexing.hpp"
#include "num/integer_literal.hpp"

namespace shlo {

std::int64_t dilated_size(std::int64_t size, std::int64_t dilation) { return size == 0 ? 0 : (size - 1) * dilation + 1; }

std::int64_t num_windows(std::int64_t padded_size, std::int64_t dilated_window, std::int64_t stride) {
  if (padded_size <= 0 || dilated_window > padded_size) return 0;
  return (padded_size - dilated_window) / stride + 1;
}

namespace {

// Kinds of element types, as the spec's op signatures name them ("integer or boolean", ...).
enum ElementKinds : unsigned {
  kBool = 1,      // i1
  kSigned = 2,    // i8 ... i64
  kUnsigned = 4,  // ui8 ... ui64
  kFloat = 8,
  kInteger = kSigned | kUnsigned,
  kAny = kBool | kInteger | kFloat,
};

unsigned kind_of(ElementType e) {
  if (e == ElementType::I1) return kBool;
  if (is_signed_integer(e)) return kSigned;
  if (is_unsigned_integer(e)) return kUnsigned;
  return kFloat;
}

std::string kinds_to_string(unsigned kinds) {
  std::string s;
  auto add = [&](unsigned k, const char* name) {
    if ((kinds & k) == k) s += (s.empty() ? "" : " or ") + std::string(name);
  };
  if ((kinds & kInteger) == kInteger) add(kInteger, "integer");
  else {
    add(kSigned, "signed integer");
    add(kUnsigned, "unsigned integer");
  }
  add(kBool, "boolean (i1)");
  add(kFloat, "float");
  return s;
}

// The element kinds each elementwise op takes (spec: the op's "Inputs" table; abs and sign take
// signed integers only, as StablehloOps.td's operand types say).
unsigned elementwise_kinds(Op op) {
  switch (op) {
    case Op::Add: case Op::Multiply: case Op::Maximum: case Op::Minimum: return kAny;
    case Op::Subtract: case Op::Divide: case Op::Remainder: case Op::Power: case Op::Negate: return kInteger | kFloat;
    case Op::And: case Op::Or: case Op::Xor: case Op::Not: return kBool | kInteger;
    case Op::ShiftLeft: case Op::ShiftRightArithmetic: case Op::ShiftRightLogical: return kInteger;
    case Op::Abs: case Op::Sign: return kSigned | kFloat;
    case Op::Exponential: case Op::Log: case Op::Sqrt: case Op::Rsqrt: case Op::Tanh: case Op::Logistic:
    case Op::Floor: case Op::Ceil: case Op::RoundNearestEven: case Op::RoundNearestAfz: case Op::Sine:
    case Op::Cosine: case Op::LogPlusOne: case Op::ExponentialMinusOne:
      return kFloat;
    // Not elementwise: the verifier asks only for the elementwise ops.
    case Op::Compare: case Op::Select: case Op::Convert: case Op::Constant: case Op::Iota: case Op::BroadcastInDim:
    case Op::Reshape: case Op::Transpose: case Op::Reverse: case Op::Slice: case Op::Pad: case Op::Concatenate:
    case Op::DotGeneral: case Op::Convolution: case Op::Reduce: case Op::ReduceWindow: case Op::SelectAndScatter:
    case Op::AllReduce: case Op::Clamp: case Op::BitcastConvert: case Op::Sort: case Op::While: case Op::If:
    case Op::Case: case Op::DynamicSlice: case Op::DynamicUpdateSlice: case Op::Gather: case Op::Scatter:
      return 0;
  }
  return 0;  // not an enumerator
}

class Checker : public InstructionChecker {
 public:
  Checker(const Instruction& inst, const std::string& file) : InstructionChecker(inst, file) {}


  void operand_count(std::size_t n) const {
    require(inst_.operands.size() == n, "expects " + std::to_string(n) + " operand(s), found " +
                                             std::to_string(inst_.operands.size()));
  }
  void operand_kinds(std::size_t i, unsigned kinds) const {
    require((kind_of(operand(i).element) & kinds) != 0, "the element type of operand " + inst_.operands[i] + " must be " +
                                                             kinds_to_string(kinds) + ", found " + to_string(operand(i)));
  }
  void float_operands() const {
    for (std::size_t i = 0; i < inst_.operand_types.size(); ++i)
      require(is_float(operand(i).element), "operand " + inst_.operands[i] + " must have a float element type, has " +
                                                to_string(operand(i)));
  }
  void dims_in_range(const std::vector<std::int64_t>& dims, std::int64_t r, const std::string& what, bool unique = true) const {
    std::set<std::int64_t> seen;
    for (auto d : dims) {
      require(d >= 0 && d < r, what + " " + std::to_string(d) + " is out of range for rank " + std::to_string(r));
      require(!unique || seen.insert(d).second, what + " " + std::to_string(d) + " appears twice");
    }
  }
  void size_is(const std::vector<std::int64_t>& v, std::int64_t n, const std::string& what) const {
    require(static_cast<std::int64_t>(v.size()) == n, what + " has " + std::to_string(v.size()) +
                                                           " entries, expected " + std::to_string(n));
  }
  void all_positive(const std::vector<std::int64_t>& v, const std::string& what) const {
    for (auto x : v) require(x > 0, what + " must be positive, found " + std::to_string(x));
  }
  void result_is(const TensorType& expected) const {
    require(inst_.result_type == expected, "the result type must be " + to_string(expected) + ", found " +
                                               to_string(inst_.result_type));
  }
  // A region (E, E) -> E or (E, E) -> i1; E is `e`, or when `promotable` any type the spec's
  // is_promotable allows (ast/verify_regions.hpp). Returns E, the result's element type.
  ElementType scalar_binary_region(const Region& r, ElementType e, bool returns_i1, const std::string& what,
                                   bool promotable = false) const {
    const ElementType body = promotable && !r.arguments.empty() ? r.arguments[0].second.element : e;
    require(is_promotable(e, body), what + " region computes in " + to_string(body) + ", which is not " + to_string(e) +
                                        " or a wider type of its kind (is_promotable)");
    const TensorType scalar{{}, body};
    require(r.arguments.size() == 2 && r.arguments[0].second == scalar && r.arguments[1].second == scalar,
            what + " region must take two " + to_string(scalar) + " arguments");
    require(r.result_types.size() == 1 && r.result_types[0] == TensorType{{}, returns_i1 ? ElementType::I1 : body},
            what + " region must return one " + (returns_i1 ? std::string("tensor<i1>") : to_string(scalar)));
    return body;
  }

  // Shape arithmetic on attacker-sized numbers: an overflow is a located error, never a wrap.
  std::int64_t checked_add(std::int64_t x, std::int64_t y, const std::string& what) const {
    std::int64_t sum = 0;
    if (__builtin_add_overflow(x, y, &sum)) fail(what + " does not fit in 64 bits");
    return sum;
  }
  std::int64_t checked_mul(std::int64_t x, std::int64_t y, const std::string& what) const {
    std::int64_t product = 0;
    if (__builtin_mul_overflow(x, y, &product)) fail(what + " does not fit in 64 bits");
    return product;
  }
  // (size - 1) * dilation + 1, or 0 for size 0, checked.
  std::int64_t checked_dilated(std::int64_t size, std::int64_t dilation, const std::string& what) const {
    return size == 0 ? 0 : checked_add(checked_mul(size - 1, dilation, what), 1, what);
  }
  // low + dilated + high, checked (low and high may be negative).
  std::int64_t checked_padded(std::int64_t low, std::int64_t dilated, std::int64_t high, const std::string& what) const {
    return checked_add(checked_add(low, dilated, what), high, what);
  }
  void constant_literals() const;

  void check();

 private:
  void window_op(const TensorType& input, std::vector<std::int64_t>& expected_shape);
  void compare_type() const;
  void bitcast_shapes() const;
  void contraction_result_element() const;
  void convolution();
  void dot_general();

};

void Checker::check() {
  const auto& a = inst_.attributes;
  const Op op = inst_.op;
  if (is_unary_elementwise(op)) {
    operand_count(1);
    operand_kinds(0, elementwise_kinds(op));
    result_is(operand(0));
    return;
  }
  if (is_binary_elementwise(op)) {
    operand_count(2);
    require(operand(0) == operand(1), "operands must have one type, found " + to_string(operand(0)) + " and " +
                                          to_string(operand(1)));
    operand_kinds(0, elementwise_kinds(op));
    result_is(operand(0));
    return;
  }
  switch (op) {
    case Op::Constant: {
      operand_count(0);
      if (!a.literal.splat) {
        require(a.literal.list_shape == inst_.result_type.shape,
                "the dense list's shape does not match " + to_string(inst_.result_type));
      }
      constant_literals();
      return;
    }
    case Op::Iota:
      operand_count(0);
      require(inst_.result_type.element != ElementType::I1, "the result must have an integer or float element type, has " +
                                                                 to_string(inst_.result_type));
      require(a.dimension >= 0 && a.dimension < static_cast<std::int64_t>(inst_.result_type.shape.size()),
              "iota dimension " + std::to_string(a.dimension) + " is out of range");
      return;
    case Op::Compare:
      operand_count(2);
      require(operand(0) == operand(1), "operands must have one type");
      compare_type();
      require(a.comparison_direction == "EQ" || a.comparison_direction == "NE" || a.comparison_direction == "LT" ||
                  a.comparison_direction == "LE" || a.comparison_direction == "GT" || a.comparison_direction == "GE",
              "unknown comparison direction '" + a.comparison_direction + "' (EQ NE LT LE GT GE)");
      result_is(TensorType{operand(0).shape, ElementType::I1});
      return;
    case Op::Select:
      operand_count(3);
      require(operand(0).element == ElementType::I1, "the predicate must be an i1 tensor");
      require(operand(0).shape.empty() || operand(0).shape == operand(1).shape,
              "the predicate must be rank 0 or have the operands' shape");
      require(operand(1) == operand(2), "on_true and on_false must have one type");
      result_is(operand(1));
      return;
    case Op::Clamp:
      operand_count(3);
      for (std::size_t bound : {std::size_t{0}, std::size_t{2}}) {
        require(operand(bound).element == operand(1).element, "min and max must have the operand's element type");
        require(operand(bound).shape.empty() || operand(bound).shape == operand(1).shape,
                "min and max must be rank 0 or have the operand's shape");
      }
      operand_kinds(1, kInteger | kFloat);
      result_is(operand(1));
      return;
    case Op::BitcastConvert:
      operand_count(1);
      bitcast_shapes();
      return;
    case Op::Convert:
      operand_count(1);
      require(operand(0).shape == inst_.result_type.shape, "convert keeps the shape");
      return;
    case Op::BroadcastInDim: {
      operand_count(1);
      const auto& out = inst_.result_type.shape;
      size_is(a.dimensions, rank(0), "dims");
      dims_in_range(a.dimensions, static_cast<std::int64_t>(out.size()), "dims entry");
      for (std::size_t i = 0; i < a.dimensions.size(); ++i) {
        const auto d = operand(0).shape[i];
        require(d == 1 || d == out[static_cast<std::size_t>(a.dimensions[i])],
                "operand dimension " + std::to_string(i) + " (" + std::to_string(d) + ") cannot broadcast to result dimension " +
                    std::to_string(a.dimensions[i]) + " (" + std::to_string(out[static_cast<std::size_t>(a.dimensions[i])]) + ")");
      }
      require(inst_.result_type.element == operand(0).element, "broadcast keeps the element type");
      return;
    }
    case Op::Reshape: {
      operand_count(1);
      std::int64_t n_in = 1, n_out = 1;
      for (auto d : operand(0).shape) n_in = checked_mul(n_in, d, "the operand's element count");
      for (auto d : inst_.result_type.shape) n_out = checked_mul(n_out, d, "the result's element count");
      require(n_in == n_out, "cannot reshape " + std::to_string(n_in) + " elements into " + std::to_string(n_out));
      require(inst_.result_type.element == operand(0).element, "reshape keeps the element type");
      return;
    }
    case Op::Transpose: {
      operand_count(1);
      size_is(a.dimensions, rank(0), "permutation");
      dims_in_range(a.dimensions, rank(0), "permutation entry");
      TensorType expected{{}, operand(0).element};
      for (auto d : a.dimensions) expected.shape.push_back(operand(0).shape[static_cast<std::size_t>(d)]);
      result_is(expected);
      return;
    }
    case Op::Reverse:
      operand_count(1);
      dims_in_range(a.dimensions, rank(0), "dims entry");
      result_is(operand(0));
      return;
    case Op::Slice: {
      operand_count(1);
      size_is(a.start_indices, rank(0), "the slice");
      TensorType expected{{}, operand(0).element};
      for (std::size_t i = 0; i < a.start_indices.size(); ++i) {
        const auto s = a.start_indices[i], l = a.limit_indices[i], st = a.strides[i];
        require(0 <= s && s <= l && l <= operand(0).shape[i],
                "slice " + std::to_string(s) + ":" + std::to_string(l) + " is out of range for dimension " +
                    std::to_string(i) + " of size " + std::to_string(operand(0).shape[i]));
        require(st > 0, "slice strides must be positive");
        expected.shape.push_back(l == s ? 0 : (l - s - 1) / st + 1);  // ceil((l - s) / st) without overflow
      }
      result_is(expected);
      return;
    }
    case Op::Pad: {
      operand_count(2);
      require(operand(1).shape.empty() && operand(1).element == operand(0).element,
              "the padding value must be a rank-0 tensor of the operand's element type");
      size_is(a.edge_padding_low, rank(0), "low");
      size_is(a.edge_padding_high, rank(0), "high");
      size_is(a.interior_padding, rank(0), "interior");
      TensorType expected{{}, operand(0).element};
      for (std::size_t i = 0; i < operand(0).shape.size(); ++i) {
        const auto d = operand(0).shape[i];
        require(a.interior_padding[i] >= 0, "interior padding must be non-negative");
        const std::string what = "the padded size of dimension " + std::to_string(i);
        const auto size = checked_padded(a.edge_padding_low[i], checked_dilated(d, checked_add(a.interior_padding[i], 1, what), what),
                                         a.edge_padding_high[i], what);
        require(size >= 0, "padding makes dimension " + std::to_string(i) + " negative");
        expected.shape.push_back(size);
      }
      result_is(expected);
      return;
    }
    case Op::Concatenate: {
      require(!inst_.operands.empty(), "needs at least one operand");
      require(a.dimension >= 0 && a.dimension < rank(0), "dim " + std::to_string(a.dimension) + " is out of range");
      TensorType expected = operand(0);
      for (std::size_t i = 1; i < inst_.operands.size(); ++i) {
        require(rank(i) == rank(0) && operand(i).element == operand(0).element, "operands must have one rank and element type");
        for (std::size_t d = 0; d < operand(0).shape.size(); ++d) {
          if (static_cast<std::int64_t>(d) == a.dimension) continue;
          require(operand(i).shape[d] == operand(0).shape[d], "operands differ in dimension " + std::to_string(d));
        }
        auto& size = expected.shape[static_cast<std::size_t>(a.dimension)];
        size = checked_add(size, operand(i).shape[static_cast<std::size_t>(a.dimension)], "the concatenated size");
      }
      result_is(expected);
      return;
    }
    case Op::DotGeneral:
      dot_general();
      return;
    case Op::Convolution:
      convolution();
      return;
    case Op::Reduce: {
      if (!inst_.regions.empty()) return verify_region_op(inst_, file_);  // a body, maybe several inputs
      operand_count(2);
      require(operand(1) == TensorType{{}, operand(0).element}, "init must be a rank-0 tensor of the input's element type");
      dims_in_range(a.dimensions, rank(0), "dimensions entry");
      TensorType expected{{}, operand(0).element};
      for (std::int64_t d = 0; d < rank(0); ++d)
        if (std::find(a.dimensions.begin(), a.dimensions.end(), d) == a.dimensions.end())
          expected.shape.push_back(operand(0).shape[static_cast<std::size_t>(d)]);
      result_is(expected);
      return;
    }
    case Op::ReduceWindow: {
      // spec §reduce_window C1: N inputs, N init values, N results; C13: body (E0..EN-1, E0..EN-1) -> (E0..EN-1).
      const std::size_t n = inst_.operands.size() / 2;
      require(n >= 1 && inst_.operands.size() % 2 == 0,
              "takes N inputs and N init values (C1), found " + std::to_string(inst_.operands.size()) + " operands");
      require(inst_.regions.size() == 1, "needs one region");
      std::vector<ElementType> body;
      if (n == 1) {
        require(operand(1) == TensorType{{}, operand(0).element}, "init must be a rank-0 tensor of the input's element type");
        body.push_back(scalar_binary_region(inst_.regions[0], operand(0).element, false, "the body", true));
      } else {
        body = verify_reducer_body(inst_, file_, "C13");  // ast/verify_regions.cpp
      }
      std::vector<std::int64_t> shape;
      window_op(operand(0), shape);
      require(result_count(inst_) == n, "has " + std::to_string(n) + " results, one per input (C1), found " +
                                            std::to_string(result_count(inst_)));
      for (std::size_t i = 0; i < n; ++i)  // C14-C16
        require(result_type(inst_, i) == TensorType{shape, body[i]}, "result " + std::to_string(i) + " must be " +
                                                                           to_string(TensorType{shape, body[i]}) + ", found " +
                                                                           to_string(result_type(inst_, i)));
      return;
    }
    case Op::SelectAndScatter: {
      operand_count(3);
      operand_kinds(0, kInteger | kFloat);
      require(operand(2) == TensorType{{}, operand(0).element}, "init must be a rank-0 tensor of the operand's element type");
      require(inst_.regions.size() == 2, "needs two regions (select, scatter)");
      scalar_binary_region(inst_.regions[0], operand(0).element, true, "the select");
      const ElementType body = scalar_binary_region(inst_.regions[1], operand(0).element, false, "the scatter", true);
      require(a.base_dilations.empty() && a.window_dilations.empty(), "takes no dilations");
      std::vector<std::int64_t> windows;
      window_op(operand(0), windows);
      require(operand(1).shape == windows, "source must have the shape of the windows, " +
                                               to_string(TensorType{windows, operand(0).element}));
      result_is(TensorType{operand(0).shape, body});
      return;
    }
    case Op::AllReduce: {
      // Any number of operands of any element type (integers and i1 fold exactly, spec all_reduce
      // I1); the one body (E, E) -> E folds each operand on its own (C5), result i has operand
      // i's shape and element type E (C6, C7).
      require(!inst_.operands.empty(), "needs at least one operand");
      require(inst_.regions.size() == 1, "needs one region");
      require(inst_.regions[0].arguments.size() == 2,
              "the body must take two scalars, (tensor<E>, tensor<E>) -> tensor<E>, and folds each operand on its own "
              "(spec all_reduce C5); it takes " + std::to_string(inst_.regions[0].arguments.size()));
      const ElementType body = scalar_binary_region(inst_.regions[0], operand(0).element, false, "the body", true);
      require(result_count(inst_) == inst_.operands.size(), "has one result per operand, " + std::to_string(inst_.operands.size()) +
                                                                 ", found " + std::to_string(result_count(inst_)));
      for (std::size_t i = 0; i < inst_.operands.size(); ++i) {
        require(is_promotable(operand(i).element, body), "operand " + std::to_string(i) + " is " + to_string(operand(i)) +
                                                             ", which the body's " + to_string(body) + " cannot hold (C5)");
        const TensorType expected{operand(i).shape, body};
        require(result_type(inst_, i) == expected, "result " + std::to_string(i) + " must be " + to_string(expected) + " (C6, C7), found " +
                                                       to_string(result_type(inst_, i)));
      }
      require(!a.replica_groups.empty() && !a.replica_groups[0].empty(), "needs replica_groups");
      std::set<std::int64_t> seen;
      for (const auto& g : a.replica_groups)
        for (auto r : g) {
          require(r != -1, "replica_groups pads a group with -1; the spec's all_reduce C3 (0 <= replica_groups) allows no "
                           "padding, so its groups must all have one size");
          require(r >= 0 && seen.insert(r).second, "replica " + std::to_string(r) + " is negative or in two groups (C1, C3)");
        }
      return;
    }
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Maximum: case Op::Minimum:
    case Op::And: case Op::Or: case Op::Negate: case Op::Abs: case Op::Exponential: case Op::Log:
    case Op::Sqrt: case Op::Rsqrt: case Op::Tanh: case Op::Logistic: case Op::Not: case Op::Xor: case Op::Power:
    case Op::Remainder: case Op::Sign: case Op::Floor: case Op::Ceil: case Op::RoundNearestEven: case Op::RoundNearestAfz:
    case Op::Sine: case Op::Cosine: case Op::LogPlusOne: case Op::ExponentialMinusOne: case Op::ShiftLeft:
    case Op::ShiftRightArithmetic: case Op::ShiftRightLogical:
      fail("no type rule");
    case Op::Sort: case Op::While: case Op::If: case Op::Case:
      return verify_region_op(inst_, file_);
    case Op::DynamicSlice: case Op::DynamicUpdateSlice: case Op::Gather: case Op::Scatter:
      verify_indexing_op(inst_, file_);  // ast/verify_indexing.cpp
      return;
  }
}

// Every element of a constant must be readable as its element type: i1 takes true/false/1/0,
// and a hex bit pattern has at most the digits of its format (f32 8, bf16 4, f64 16, f8E4M3FN 2).
void Checker::constant_literals() const {
  const ElementType e = inst_.result_type.element;
  for (const auto& text : inst_.attributes.literal.elements) {
    if (e == ElementType::I1) {
      require(text == "true" || text == "false" || text == "1" || text == "0",
              "an i1 constant must be true or false, found '" + text + "'");
      continue;
    }
    if (is_integer(e)) {  // a decimal in range or a hex bit pattern of at most the type's width
      try {
        parse_integer_literal(text, bit_width(e), is_signed_integer(e));
      } catch (const DomainError& error) {
        fail(error.what());
      }
      continue;
    }
    if (text.rfind("0x", 0) != 0 && text.rfind("0X", 0) != 0) continue;
    const std::size_t width = static_cast<std::size_t>(bit_width(e) / 4);
    const auto first = text.find_first_not_of('0', 2);
    const std::size_t digits = first == std::string::npos ? 0 : text.size() - first;
    require(digits <= width, "hex literal '" + text + "' has more than the " + std::to_string(width) + " digits of " +
                                 to_string(e));
  }
}

// compare C3: a written comparison type must fit the element type; WEAKORDER is not in the spec.
// Spec bitcast_convert (C1): one bit width keeps the shape; from a type E times wider, the
// result has the operand's shape and a last dimension E; to one E times wider, the operand has
// the result's shape and a last dimension E.
void Checker::bitcast_shapes() const {
  const TensorType& in = operand(0);
  const TensorType& out = inst_.result_type;
  const int in_width = bit_width(in.element), out_width = bit_width(out.element);
  const std::string types = std::string(to_string(in.element)) + " and " + to_string(out.element);
  if (in_width == out_width) {
    require(in.shape == out.shape, "between " + types + " (one bit width) the shape is kept");
    return;
  }
  const bool splits = in_width > out_width;
  const TensorType& wide = splits ? in : out;
  const TensorType& narrow = splits ? out : in;
  const std::int64_t ratio = splits ? in_width / out_width : out_width / in_width;
  std::vector<std::int64_t> expected = wide.shape;
  expected.push_back(ratio);
  require(narrow.shape == expected,
          types + " differ in bit width: the " + (splits ? "result" : "operand") + " must have the " +
              (splits ? "operand" : "result") + "'s shape and a last dimension of " + std::to_string(ratio));
}

void Checker::compare_type() const {
  const std::string& type = inst_.attributes.compare_type;
  if (type.empty()) return;
  const ElementType e = operand(0).element;
  const std::string expected = is_float(e) ? "FLOAT or TOTALORDER" : is_signed_integer(e) ? "SIGNED" : "UNSIGNED";
  const bool ok = is_float(e) ? (type == "FLOAT" || type == "TOTALORDER") : type == expected;
  require(ok, "comparison type " + type + " does not fit " + to_string(e) + " operands (expected " + expected + ")");
}

// dot_general and convolution: an integer contraction may accumulate into a wider integer type
// (i8 x i8 -> i32), a float one into another float type (bf16 -> f32); never across kinds.
void Checker::contraction_result_element() const {
  const ElementType in = operand(0).element, out = inst_.result_type.element;
  require(is_float(in) == is_float(out), "the result element type " + std::string(to_string(out)) + " must be of the operands' kind (" +
                                             to_string(in) + ")");
}

// reduce_window / select_and_scatter: window sizes and the number of windows per dimension.
void Checker::window_op(const TensorType& input, std::vector<std::int64_t>& windows) {
  auto a = inst_.attributes;  // copy: defaults fill in
  const std::int64_t r = static_cast<std::int64_t>(input.shape.size());
  size_is(a.window_dimensions, r, "window_dimensions");
  all_positive(a.window_dimensions, "window_dimensions");
  if (a.window_strides.empty()) a.window_strides.assign(static_cast<std::size_t>(r), 1);
  if (a.base_dilations.empty()) a.base_dilations.assign(static_cast<std::size_t>(r), 1);
  if (a.window_dilations.empty()) a.window_dilations.assign(static_cast<std::size_t>(r), 1);
  if (a.padding.empty()) a.padding.assign(static_cast<std::size_t>(r), {0, 0});
  size_is(a.window_strides, r, "window_strides");
  all_positive(a.window_strides, "window_strides");
  size_is(a.base_dilations, r, "base_dilations");
  all_positive(a.base_dilations, "base_dilations");
  size_is(a.window_dilations, r, "window_dilations");
  all_positive(a.window_dilations, "window_dilations");
  require(static_cast<std::int64_t>(a.padding.size()) == r, "padding needs one [low, high] pair per dimension");
  for (std::size_t d = 0; d < input.shape.size(); ++d) {
    const std::string what = "the padded size of dimension " + std::to_string(d);
    const auto padded = checked_padded(a.padding[d].first, checked_dilated(input.shape[d], a.base_dilations[d], what),
                                       a.padding[d].second, what);
    const auto window = checked_dilated(a.window_dimensions[d], a.window_dilations[d], "the dilated window of dimension " + std::to_string(d));
    windows.push_back(num_windows(padded, window, a.window_strides[d]));
  }
}

void Checker::dot_general() {
  const auto& a = inst_.attributes;
  operand_count(2);
  operand_kinds(0, kInteger | kFloat);
  require(operand(0).element == operand(1).element, "operands must have one element type");
  contraction_result_element();
  size_is(a.rhs_batching_dimensions, static_cast<std::int64_t>(a.lhs_batching_dimensions.size()), "rhs batching_dims");
  size_is(a.rhs_contracting_dimensions, static_cast<std::int64_t>(a.lhs_contracting_dimensions.size()), "rhs contracting_dims");
  std::vector<std::int64_t> lhs_all = a.lhs_batching_dimensions, rhs_all = a.rhs_batching_dimensions;
  lhs_all.insert(lhs_all.end(), a.lhs_contracting_dimensions.begin(), a.lhs_contracting_dimensions.end());
  rhs_all.insert(rhs_all.end(), a.rhs_contracting_dimensions.begin(), a.rhs_contracting_dimensions.end());
  dims_in_range(lhs_all, rank(0), "lhs dimension");
  dims_in_range(rhs_all, rank(1), "rhs dimension");
  for (std::size_t i = 0; i < lhs_all.size(); ++i) {
    const auto l = operand(0).shape[static_cast<std::size_t>(lhs_all[i])], r = operand(1).shape[static_cast<std::size_t>(rhs_all[i])];
    require(l == r, "lhs dimension " + std::to_string(lhs_all[i]) + " (" + std::to_string(l) + ") and rhs dimension " +
                        std::to_string(rhs_all[i]) + " (" + std::to_string(r) + ") must agree");
  }
  // The spec constrains only lhs and rhs to one element type (C13): a float result may differ
  // (bf16 operands accumulated into an f32 result, as the reduced-precision dense rows print).
  TensorType expected{{}, inst_.result_type.element};
  for (auto d : a.lhs_batching_dimensions) expected.shape.push_back(operand(0).shape[static_cast<std::size_t>(d)]);
  for (std::int64_t d = 0; d < rank(0); ++d)
    if (std::find(lhs_all.begin(), lhs_all.end(), d) == lhs_all.end()) expected.shape.push_back(operand(0).shape[static_cast<std::size_t>(d)]);
  for (std::int64_t d = 0; d < rank(1); ++d)
    if (std::find(rhs_all.begin(), rhs_all.end(), d) == rhs_all.end()) expected.shape.push_back(operand(1).shape[static_cast<std::size_t>(d)]);
  result_is(expected);
}

void Checker::convolution() {
  const auto& a = inst_.attributes;
  const auto& c = a.conv;
  operand_count(2);
  operand_kinds(0, kInteger | kFloat);
  require(operand(0).element == operand(1).element, "lhs and rhs must have one element type");
  contraction_result_element();
  const std::int64_t n = rank(0);
  require(rank(1) == n, "lhs and rhs must have one rank");
  require(n >= 2, "operands need rank 2 or more");
  const auto spatial = n - 2;
  size_is(c.input_spatial, spatial, "input spatial dimensions");
  size_is(c.kernel_spatial, spatial, "kernel spatial dimensions");
  size_is(c.output_spatial, spatial, "output spatial dimensions");
  size_is(a.window_strides, spatial, "stride");
  all_positive(a.window_strides, "stride");
  size_is(a.lhs_dilation, spatial, "lhs_dilate");
  all_positive(a.lhs_dilation, "lhs_dilate");
  size_is(a.rhs_dilation, spatial, "rhs_dilate");
  all_positive(a.rhs_dilation, "rhs_dilate");
  require(static_cast<std::int64_t>(a.padding.size()) == spatial, "pad needs one [low, high] pair per spatial dimension");
  auto all_dims = [](std::int64_t x, const std::vector<std::int64_t>& s, std::int64_t y) {
    std::vector<std::int64_t> v = {x};
    v.insert(v.end(), s.begin(), s.end());
    v.push_back(y);
    return v;
  };
  dims_in_range(all_dims(c.input_batch, c.input_spatial, c.input_feature), n, "input dimension");
  dims_in_range(all_dims(c.kernel_input_feature, c.kernel_spatial, c.kernel_output_feature), n, "kernel dimension");
  dims_in_range(all_dims(c.output_batch, c.output_spatial, c.output_feature), n, "output dimension");
  const auto& lhs = operand(0).shape;
  const auto& rhs = operand(1).shape;
  const auto fg = a.feature_group_count, bg = a.batch_group_count;
  require(fg > 0 && bg > 0, "group counts must be positive");
  require(fg == 1 || bg == 1, "feature_group_count and batch_group_count cannot both exceed 1");
  const auto in_batch = lhs[static_cast<std::size_t>(c.input_batch)];
  const auto in_feat = lhs[static_cast<std::size_t>(c.input_feature)];
  const auto k_in = rhs[static_cast<std::size_t>(c.kernel_input_feature)];
  const auto k_out = rhs[static_cast<std::size_t>(c.kernel_output_feature)];
  require(in_batch % bg == 0, "the input batch (" + std::to_string(in_batch) + ") is not divisible by batch_group_count");
  require(in_feat % fg == 0, "the input features (" + std::to_string(in_feat) + ") are not divisible by feature_group_count");
  require(k_in == in_feat / fg, "the kernel's input features (" + std::to_string(k_in) + ") must be input features / feature_group_count (" +
                                    std::to_string(in_feat / fg) + ")");
  require(k_out % bg == 0 && k_out % fg == 0, "the kernel's output features must be divisible by the group counts");
  std::vector<std::int64_t> shape(static_cast<std::size_t>(n), 0);
  shape[static_cast<std::size_t>(c.output_batch)] = in_batch / bg;
  shape[static_cast<std::size_t>(c.output_feature)] = k_out;
  for (std::size_t s = 0; s < static_cast<std::size_t>(spatial); ++s) {
    const std::string what = "the padded size of spatial dimension " + std::to_string(s);
    const auto padded = checked_padded(a.padding[s].first, checked_dilated(lhs[static_cast<std::size_t>(c.input_spatial[s])], a.lhs_dilation[s], what),
                                       a.padding[s].second, what);
    const auto window = checked_dilated(rhs[static_cast<std::size_t>(c.kernel_spatial[s])], a.rhs_dilation[s],
                                        "the dilated kernel of spatial dimension " + std::to_string(s));
    shape[static_cast<std::size_t>(c.output_spatial[s])] = num_windows(padded, window, a.window_strides[s]);
  }
  result_is(TensorType{shape, inst_.result_type.element});
}

}  // namespace

void verify_instruction(const Instruction& inst, const std::string& file) { Checker(inst, file).check(); }

}  // namespace shlo
