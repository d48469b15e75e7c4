#include "interp/bound/normalizing.hpp"

#include <algorithm>
#include <unordered_map>

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

}  // namespace

std::unordered_set<const Instruction*> normalizing_divides(const Module& m) {
  std::unordered_set<const Instruction*> out;
  for (const Function& f : m.functions) {
    std::unordered_map<std::string, const Instruction*> defined;
    for (const BodyItem& item : f.body)
      if (const auto* inst = std::get_if<Instruction>(&item)) defined.emplace(inst->result, inst);
    auto definition = [&](const std::string& name, Op op) -> const Instruction* {
      const auto it = defined.find(name);
      return it != defined.end() && it->second->op == op && it->second->result_types.empty() ? it->second : nullptr;
    };
    for (const auto& [name, divide] : defined) {
      if (divide->op != Op::Divide || divide->operands.size() != 2 || !is_float(divide->result_type.element)) continue;
      const std::string& numerator = divide->operands[0];
      const Instruction* broadcast = definition(divide->operands[1], Op::BroadcastInDim);
      if (!broadcast || broadcast->operands.size() != 1) continue;
      const Instruction* reduce = definition(broadcast->operands[0], Op::Reduce);
      if (!reduce || reduce->operands.size() != 2 || reduce->operands[0] != numerator || !sums(*reduce)) continue;
      // The broadcast puts the reduce's kept dimensions back where they were, in order.
      const auto& shape = divide->result_type.shape;
      if (reduce->operand_types.empty() || reduce->operand_types[0].shape != shape || broadcast->result_type.shape != shape) continue;
      std::vector<std::int64_t> kept;
      const auto& reduced = reduce->attributes.dimensions;
      for (std::int64_t d = 0; d < static_cast<std::int64_t>(shape.size()); ++d)
        if (std::find(reduced.begin(), reduced.end(), d) == reduced.end()) kept.push_back(d);
      if (broadcast->attributes.dimensions == kept) out.insert(divide);
    }
  }
  return out;
}

}  // namespace shlo
