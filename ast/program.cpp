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
};

}  // namespace

const char* to_string(ElementType t) {
  switch (t) {
    case ElementType::F32: return "f32";
    case ElementType::F64: return "f64";
    case ElementType::BF16: return "bf16";
    case ElementType::I1: return "i1";
    case ElementType::I64: return "i64";
    case ElementType::F8E4M3FN: return "f8E4M3FN";
  }
  return "?";
}

bool is_float(ElementType t) {
  return t == ElementType::F32 || t == ElementType::F64 || t == ElementType::BF16 || t == ElementType::F8E4M3FN;
}

std::string to_string(const TensorType& t) {
  std::string s = "tensor<";
  for (auto d : t.shape) s += std::to_string(d) + "x";
  return s + to_string(t.element) + ">";
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
    case Op::Rsqrt: case Op::Tanh: case Op::Logistic:
      return true;
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Maximum: case Op::Minimum:
    case Op::And: case Op::Or: case Op::Compare: case Op::Select: case Op::Convert: case Op::Constant:
    case Op::Iota: case Op::BroadcastInDim: case Op::Reshape: case Op::Transpose: case Op::Reverse:
    case Op::Slice: case Op::Pad: case Op::Concatenate: case Op::DotGeneral: case Op::Convolution:
    case Op::Reduce: case Op::ReduceWindow: case Op::SelectAndScatter: case Op::AllReduce:
      return false;
  }
  return false;  // not an enumerator
}

bool is_binary_elementwise(Op op) {
  switch (op) {
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Maximum:
    case Op::Minimum: case Op::And: case Op::Or:
      return true;
    case Op::Negate: case Op::Abs: case Op::Exponential: case Op::Log: case Op::Sqrt: case Op::Rsqrt:
    case Op::Tanh: case Op::Logistic: case Op::Compare: case Op::Select: case Op::Convert: case Op::Constant:
    case Op::Iota: case Op::BroadcastInDim: case Op::Reshape: case Op::Transpose: case Op::Reverse:
    case Op::Slice: case Op::Pad: case Op::Concatenate: case Op::DotGeneral: case Op::Convolution:
    case Op::Reduce: case Op::ReduceWindow: case Op::SelectAndScatter: case Op::AllReduce:
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
