#include "ast/program.hpp"

#include <array>

namespace shlo {

namespace {

struct OpInfo {
  Op op;
  const char* name;
};

constexpr std::array kOps = {
    OpInfo{Op::Add, "add"}, OpInfo{Op::Subtract, "subtract"}, OpInfo{Op::Multiply, "multiply"},
    OpInfo{Op::Divide, "divide"}, OpInfo{Op::Maximum, "maximum"}, OpInfo{Op::Minimum, "minimum"},
    OpInfo{Op::And, "and"}, OpInfo{Op::Or, "or"}, OpInfo{Op::Negate, "negate"}, OpInfo{Op::Abs, "abs"},
    OpInfo{Op::Exponential, "exponential"}, OpInfo{Op::Log, "log"}, OpInfo{Op::Sqrt, "sqrt"},
    OpInfo{Op::Rsqrt, "rsqrt"}, OpInfo{Op::Tanh, "tanh"}, OpInfo{Op::Logistic, "logistic"},
    OpInfo{Op::Compare, "compare"}, OpInfo{Op::Select, "select"}, OpInfo{Op::Convert, "convert"},
    OpInfo{Op::Constant, "constant"}, OpInfo{Op::Iota, "iota"},
    OpInfo{Op::BroadcastInDim, "broadcast_in_dim"}, OpInfo{Op::Reshape, "reshape"},
    OpInfo{Op::Transpose, "transpose"}, OpInfo{Op::Reverse, "reverse"}, OpInfo{Op::Slice, "slice"},
    OpInfo{Op::Pad, "pad"}, OpInfo{Op::Concatenate, "concatenate"},
    OpInfo{Op::DotGeneral, "dot_general"}, OpInfo{Op::Convolution, "convolution"},
    OpInfo{Op::Reduce, "reduce"}, OpInfo{Op::ReduceWindow, "reduce_window"},
    OpInfo{Op::SelectAndScatter, "select_and_scatter"}, OpInfo{Op::AllReduce, "all_reduce"},
    OpInfo{Op::Not, "not"}, OpInfo{Op::Xor, "xor"}, OpInfo{Op::Power, "power"}, OpInfo{Op::Remainder, "remainder"},
    OpInfo{Op::Sign, "sign"}, OpInfo{Op::Floor, "floor"}, OpInfo{Op::Ceil, "ceil"},
    OpInfo{Op::RoundNearestEven, "round_nearest_even"}, OpInfo{Op::RoundNearestAfz, "round_nearest_afz"},
    OpInfo{Op::Sine, "sine"}, OpInfo{Op::Cosine, "cosine"}, OpInfo{Op::LogPlusOne, "log_plus_one"},
    OpInfo{Op::ExponentialMinusOne, "exponential_minus_one"}, OpInfo{Op::Clamp, "clamp"},
    OpInfo{Op::BitcastConvert, "bitcast_convert"},
    OpInfo{Op::Sort, "sort"}, OpInfo{Op::While, "while"}, OpInfo{Op::If, "if"}, OpInfo{Op::Case, "case"},
    OpInfo{Op::DynamicSlice, "dynamic_slice"}, OpInfo{Op::DynamicUpdateSlice, "dynamic_update_slice"},
    OpInfo{Op::Gather, "gather"}, OpInfo{Op::Scatter, "scatter"}, OpInfo{Op::ShiftLeft, "shift_left"},
    OpInfo{Op::ShiftRightArithmetic, "shift_right_arithmetic"}, OpInfo{Op::ShiftRightLogical, "shift_right_logical"},
};

struct ElementTypeInfo {
  ElementType type;
  const char* name;
  int bits;
};

constexpr std::array kElementTypes = {
    ElementTypeInfo{ElementType::F32, "f32", 32}, ElementTypeInfo{ElementType::F64, "f64", 64},
    ElementTypeInfo{ElementType::BF16, "bf16", 16}, ElementTypeInfo{ElementType::F16, "f16", 16},
    ElementTypeInfo{ElementType::F8E4M3FN, "f8E4M3FN", 8}, ElementTypeInfo{ElementType::I1, "i1", 1},
    ElementTypeInfo{ElementType::I8, "i8", 8}, ElementTypeInfo{ElementType::I16, "i16", 16},
    ElementTypeInfo{ElementType::I32, "i32", 32}, ElementTypeInfo{ElementType::I64, "i64", 64},
    ElementTypeInfo{ElementType::UI8, "ui8", 8}, ElementTypeInfo{ElementType::UI16, "ui16", 16},
    ElementTypeInfo{ElementType::UI32, "ui32", 32}, ElementTypeInfo{ElementType::UI64, "ui64", 64},
};

}  // namespace

const char* to_string(ElementType t) {
  for (const auto& info : kElementTypes)
    if (info.type == t) return info.name;
  return "?";
}

std::optional<ElementType> element_type_from_name(const std::string& name) {
  for (const auto& info : kElementTypes)
    if (name == info.name) return info.type;
  return std::nullopt;
}

const char* element_type_names() { return "f32, f64, bf16, f16, f8E4M3FN, i1, i8, i16, i32, i64, ui8, ui16, ui32, ui64"; }

int bit_width(ElementType t) {
  for (const auto& info : kElementTypes)
    if (info.type == t) return info.bits;
  return 0;
}

bool is_float(ElementType t) {
  return t == ElementType::F32 || t == ElementType::F64 || t == ElementType::BF16 || t == ElementType::F8E4M3FN ||
         t == ElementType::F16;
}

bool is_signed_integer(ElementType t) {
  return t == ElementType::I8 || t == ElementType::I16 || t == ElementType::I32 || t == ElementType::I64;
}

bool is_unsigned_integer(ElementType t) {
  return t == ElementType::UI8 || t == ElementType::UI16 || t == ElementType::UI32 || t == ElementType::UI64;
}

bool is_integer(ElementType t) { return is_signed_integer(t) || is_unsigned_integer(t); }

std::string to_string(const TensorType& t) {
  std::string s = "tensor<";
  for (auto d : t.shape) s += std::to_string(d) + "x";
  return s + to_string(t.element) + ">";
}

std::string type_list(const std::vector<TensorType>& types) {
  std::string s;
  for (std::size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + to_string(types[i]);
  return s;
}

std::string integer_list(const std::vector<std::int64_t>& values) {
  std::string s = "[";
  for (std::size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}

const char* op_name(Op op) {
  for (const auto& info : kOps)
    if (info.op == op) return info.name;
  return "?";
}

std::optional<Op> op_from_name(const std::string& name) {
  for (const auto& info : kOps)
    if (name == info.name) return info.op;
  return std::nullopt;
}

bool is_unary_elementwise(Op op) {
  switch (op) {
    case Op::Negate: case Op::Abs: case Op::Exponential: case Op::Log: case Op::Sqrt:
    case Op::Rsqrt: case Op::Tanh: case Op::Logistic: case Op::Not: case Op::Sign: case Op::Floor: case Op::Ceil:
    case Op::RoundNearestEven: case Op::RoundNearestAfz: case Op::Sine: case Op::Cosine: case Op::LogPlusOne:
    case Op::ExponentialMinusOne:
      return true;
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Maximum: case Op::Minimum:
    case Op::And: case Op::Or: case Op::Compare: case Op::Select: case Op::Convert: case Op::Constant:
    case Op::Iota: case Op::BroadcastInDim: case Op::Reshape: case Op::Transpose: case Op::Reverse:
    case Op::Slice: case Op::Pad: case Op::Concatenate: case Op::DotGeneral: case Op::Convolution:
    case Op::Reduce: case Op::ReduceWindow: case Op::SelectAndScatter: case Op::AllReduce: case Op::Xor:
    case Op::Power: case Op::Remainder: case Op::Clamp: case Op::BitcastConvert: SHLO_CASES_INDEXING_OPS:
    case Op::Sort: case Op::While: case Op::If: case Op::Case:
      return false;
  }
  return false;  // not an enumerator
}

bool is_binary_elementwise(Op op) {
  switch (op) {
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Maximum:
    case Op::Minimum: case Op::And: case Op::Or: case Op::Xor: case Op::Power: case Op::Remainder:
    case Op::ShiftLeft: case Op::ShiftRightArithmetic: case Op::ShiftRightLogical:
      return true;
    case Op::Negate: case Op::Abs: case Op::Exponential: case Op::Log: case Op::Sqrt: case Op::Rsqrt:
    case Op::Tanh: case Op::Logistic: case Op::Compare: case Op::Select: case Op::Convert: case Op::Constant:
    case Op::Iota: case Op::BroadcastInDim: case Op::Reshape: case Op::Transpose: case Op::Reverse:
    case Op::Slice: case Op::Pad: case Op::Concatenate: case Op::DotGeneral: case Op::Convolution:
    case Op::Reduce: case Op::ReduceWindow: case Op::SelectAndScatter: case Op::AllReduce: case Op::Not:
    case Op::Sign: case Op::Floor: case Op::Ceil: case Op::RoundNearestEven: case Op::RoundNearestAfz: case Op::Sine:
    case Op::Cosine: case Op::LogPlusOne: case Op::ExponentialMinusOne: case Op::Clamp: case Op::BitcastConvert:
    case Op::Sort: case Op::While: case Op::If: case Op::Case:
    case Op::DynamicSlice: case Op::DynamicUpdateSlice: case Op::Gather: case Op::Scatter:
      return false;
  }
  return false;  // not an enumerator
}

bool Region::operator==(const Region& o) const {
  return arguments == o.arguments && body == o.body && results == o.results && result_types == o.result_types;
}

std::vector<const Instruction*> instructions(const Function& f) {
  std::vector<const Instruction*> out;
  for (const auto& item : f.body)
    if (const auto* inst = std::get_if<Instruction>(&item)) out.push_back(inst);
  return out;
}

}  // namespace shlo
