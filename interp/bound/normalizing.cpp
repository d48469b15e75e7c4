#include "interp/bound/normalizing.hpp"

#include <algorithm>
#include <unordered_map>

#include "num/rational.hpp"

namespace shlo {

namespace {

// Whether a reduce sums (its pretty form's `applies stablehlo.add`, or a region that adds its
// two arguments and returns the sum).
bool sums(const Instruction& reduce) {
  if (reduce.attributes.reduce_body) return *reduce.attributes.reduce_body == Op::Add;
  if (reduce.regions.size() != 1) return false;
  const Region& r = reduce.regions[0];
  if (r.arguments.size() != 2 || r.body.size() != 1 || r.results.size() != 1) return false;
  const Instruction& add = r.body[0];
  return add.op == Op::Add && add.operands.size() == 2 && add.result == r.results[0] &&
         std::is_permutation(add.operands.begin(), add.operands.end(), std::vector<std::string>{r.arguments[0].first, r.arguments[1].first}.begin());
}

// Whether a constant is a splat of the value q.
bool splat_of(const Instruction* constant, const Rational& q) {
  if (!constant || constant->op != Op::Constant || !constant->attributes.literal.splat || constant->attributes.literal.elements.size() != 1) return false;
  try {
    const Literal lit = parse_literal(constant->attributes.literal.elements[0]);
    return lit.kind == Literal::Kind::Finite && lit.value == q;
  } catch (const std::exception&) {
    return false;  // a form parse_literal does not read (hex bits): not recognised
  }
}

// Every function's instructions by result name.
using Definitions = std::unordered_map<std::string, const Instruction*>;
Definitions definitions(const Function& f) {
  Definitions defined;
  for (const BodyItem& item : f.body)
    if (const auto* inst = std::get_if<Instruction>(&item)) defined.emplace(inst->result, inst);
  return defined;
}
const Instruction* definition(const Definitions& defined, const std::string& name, Op op) {
  const auto it = defined.find(name);
  return it != defined.end() && it->second->op == op && it->second->result_types.empty() ? it->second : nullptr;
}

// The dimensions of `shape` that a reduce over `reduced` keeps, in order.
std::vector<std::int64_t> kept_dimensions(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& reduced) {
  std::vector<std::int64_t> kept;
  for (std::int64_t d = 0; d < static_cast<std::int64_t>(shape.size()); ++d)
    if (std::find(reduced.begin(), reduced.end(), d) == reduced.end()) kept.push_back(d);
  return kept;
}

// How many times the function reads `name`: as an operand anywhere (regions included, where a
// body may capture it), as a call's or a check's operand, as a returned value.
std::size_t uses(const Function& f, const std::string& name) {
  std::size_t n = 0;
  auto count = [&](const std::vector<std::string>& operands) { n += static_cast<std::size_t>(std::count(operands.begin(), operands.end(), name)); };
  auto instruction = [&](const Instruction& inst, const auto& self) -> void {
    count(inst.operands);
    for (const Region& r : inst.regions) {
      for (const Instruction& i : r.body) self(i, self);
      count(r.results);
    }
  };
  for (const BodyItem& item : f.body) {
    if (const auto* inst = std::get_if<Instruction>(&item)) instruction(*inst, instruction);
    else if (const auto* call = std::get_if<Call>(&item)) count(call->operands);
    else if (const auto* check = std::get_if<Check>(&item)) count(check->operands);
  }
  count(f.return_values);
  return n;
}

// A reduce of `operand` from a zero init that adds across `dims` (in any order).
bool sums_from_zero(const Definitions& defined, const Instruction& reduce, const std::string& operand, std::vector<std::int64_t> dims) {
  if (reduce.op != Op::Reduce || reduce.operands.size() != 2 || reduce.operands[0] != operand || !reduce.result_types.empty() || !sums(reduce))
    return false;
  std::vector<std::int64_t> reduced = reduce.attributes.dimensions;
  std::sort(reduced.begin(), reduced.end());
  std::sort(dims.begin(), dims.end());
  return reduced == dims && splat_of(definition(defined, reduce.operands[1], Op::Constant), Rational(0));
}

}  // namespace

std::unordered_set<const Instruction*> normalizing_divides(const Module& m, bool of_exps) {
  std::unordered_set<const Instruction*> out;
  for (const Function& f : m.functions) {
    const Definitions defined = definitions(f);
    for (const auto& [name, divide] : defined) {
      if (divide->op != Op::Divide || divide->operands.size() != 2 || !is_float(divide->result_type.element)) continue;
      const std::string& numerator = divide->operands[0];
      const Instruction* broadcast = definition(defined, divide->operands[1], Op::BroadcastInDim);
      if (!broadcast || broadcast->operands.size() != 1) continue;
      const Instruction* reduce = definition(defined, broadcast->operands[0], Op::Reduce);
      if (!reduce || reduce->operands.size() != 2 || reduce->operands[0] != numerator || !sums(*reduce)) continue;
      if (of_exps && (!definition(defined, numerator, Op::Exponential) ||
                      !sums_from_zero(defined, *reduce, numerator, reduce->attributes.dimensions)))
        continue;
      // The broadcast puts the reduce's kept dimensions back where they were, in order.
      const auto& shape = divide->result_type.shape;
      if (reduce->operand_types.empty() || reduce->operand_types[0].shape != shape || broadcast->result_type.shape != shape) continue;
      if (broadcast->attributes.dimensions == kept_dimensions(shape, reduce->attributes.dimensions)) out.insert(divide);
    }
  }
  return out;
}

CenteredMoments centered_moments(const Module& m) {
  CenteredMoments out;
  for (const Function& f : m.functions) {
    const Definitions defined = definitions(f);
    for (const auto& [name, square] : defined) {
      if (square->op != Op::Multiply || square->operands.size() != 2 || square->operands[0] != square->operands[1] ||
          !is_float(square->result_type.element))
        continue;
      const Instruction* subtract = definition(defined, square->operands[0], Op::Subtract);
      if (!subtract || subtract->operands.size() != 2) continue;
      const std::string& x = subtract->operands[0];
      const std::vector<std::int64_t>& shape = subtract->result_type.shape;
      // %m = divide(broadcast(reduce(%x) from zero across D), count)
      const Instruction* divide = definition(defined, subtract->operands[1], Op::Divide);
      if (!divide || divide->operands.size() != 2 || divide->result_type.shape != shape) continue;
      const Instruction* broadcast = definition(defined, divide->operands[0], Op::BroadcastInDim);
      if (!broadcast || broadcast->operands.size() != 1 || broadcast->result_type.shape != shape) continue;
      const Instruction* mean_sum = definition(defined, broadcast->operands[0], Op::Reduce);
      if (!mean_sum || mean_sum->operand_types.empty() || mean_sum->operand_types[0].shape != shape) continue;
      const std::vector<std::int64_t>& dims = mean_sum->attributes.dimensions;
      if (!sums_from_zero(defined, *mean_sum, x, dims) || broadcast->attributes.dimensions != kept_dimensions(shape, dims)) continue;
      std::int64_t count = 1;
      for (std::int64_t d : dims) {
        if (d < 0 || d >= static_cast<std::int64_t>(shape.size())) count = 0;
        else count *= shape[static_cast<std::size_t>(d)];
      }
      if (count <= 0 || !splat_of(definition(defined, divide->operands[1], Op::Constant), Rational(count))) continue;
      // The squares' one use: a sum over the same D from zero.
      if (uses(f, name) != 1) continue;
      const Instruction* variance = nullptr;
      for (const auto& [other, inst] : defined)
        if (std::count(inst->operands.begin(), inst->operands.end(), name)) variance = inst;
      if (!variance || !sums_from_zero(defined, *variance, name, dims)) continue;
      out.subtracts.insert(subtract);
      out.squares.insert(square);
    }
  }
  return out;
}

}  // namespace shlo
