#include "ast/regions.hpp"

#include <algorithm>
#include <set>

namespace shlo {

std::size_t result_count(const Instruction& inst) { return inst.result_types.empty() ? 1 : inst.result_types.size(); }

std::string result_name(const Instruction& inst, std::size_t i) {
  if (!inst.results.empty()) return inst.results.at(i);
  return inst.result_types.empty() ? inst.result : inst.result + "#" + std::to_string(i);
}

const TensorType& result_type(const Instruction& inst, std::size_t i) {
  return inst.result_types.empty() ? inst.result_type : inst.result_types.at(i);
}

namespace {

// Adds to `out` the names `r` reads that are not defined inside it (nor in `bound`, the
// names defined by the regions around it, up to `inst`).
void collect_captures(const Region& r, std::set<std::string> bound, std::vector<std::string>& out) {
  for (const auto& [name, type] : r.arguments) bound.insert(name);
  auto read = [&](const std::string& name) {
    if (!bound.count(name) && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  };
  for (const auto& inst : r.body) {
    for (const auto& name : inst.operands) read(name);
    for (const auto& inner : inst.regions) collect_captures(inner, bound, out);
    for (std::size_t i = 0; i < result_count(inst); ++i) bound.insert(result_name(inst, i));
  }
  for (const auto& name : r.results) read(name);
}

}  // namespace

std::vector<std::string> captured_values(const Instruction& inst) {
  std::vector<std::string> out;
  for (const auto& r : inst.regions) collect_captures(r, {}, out);
  return out;
}

bool is_single_binary_body(const Region& r) {
  return r.arguments.size() == 2 && r.body.size() == 1 && r.results.size() == 1 && r.body[0].result_types.empty() &&
         r.results[0] == r.body[0].result && is_binary_elementwise(r.body[0].op) &&
         r.body[0].operands == std::vector<std::string>{r.arguments[0].first, r.arguments[1].first};
}

bool is_kernel_combiner(Op op) {
  switch (op) {
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Maximum: case Op::Minimum:
    case Op::And: case Op::Or: case Op::Xor:
      return true;
    // Every other op is listed, not left to a default, so that -Werror=switch asks whoever adds
    // an op whether the kernels combine with it.
    case Op::Power: case Op::Remainder: case Op::ShiftLeft: case Op::ShiftRightArithmetic: case Op::ShiftRightLogical:
    case Op::Negate: case Op::Abs: case Op::Exponential: case Op::Log: case Op::Sqrt: case Op::Rsqrt: case Op::Tanh:
    case Op::Logistic: case Op::Compare: case Op::Select: case Op::Convert: case Op::Constant: case Op::Iota:
    case Op::BroadcastInDim: case Op::Reshape: case Op::Transpose: case Op::Reverse: case Op::Slice: case Op::Pad:
    case Op::Concatenate: case Op::DotGeneral: case Op::Convolution: case Op::Reduce: case Op::ReduceWindow:
    case Op::SelectAndScatter: case Op::AllReduce: case Op::Not: case Op::Sign: case Op::Floor: case Op::Ceil:
    case Op::RoundNearestEven: case Op::RoundNearestAfz: case Op::Sine: case Op::Cosine: case Op::LogPlusOne:
    case Op::ExponentialMinusOne: case Op::Clamp: case Op::BitcastConvert: case Op::Sort: case Op::While: case Op::If:
    case Op::Case: case Op::DynamicSlice: case Op::DynamicUpdateSlice: case Op::Gather: case Op::Scatter:
      return false;
  }
  return false;  // not an enumerator
}

}  // namespace shlo
