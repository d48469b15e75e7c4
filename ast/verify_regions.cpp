#include "ast/verify_regions.hpp"

#include <algorithm>
#include <set>

#include "ast/verify_checker.hpp"
#include "ast/regions.hpp"
#include "ast/verify.hpp"

namespace shlo {

namespace {

// "(tensor<f32>, tensor<f32>)": a region's or an op's types, as its signature writes them.
std::string signature_types(const std::vector<TensorType>& ts) { return "(" + type_list(ts) + ")"; }

TensorType scalar(ElementType e) { return TensorType{{}, e}; }

class RegionChecker : public InstructionChecker {
 public:
  RegionChecker(const Instruction& inst, const std::string& file) : InstructionChecker(inst, file) {
    for (std::size_t i = 0; i < result_count(inst); ++i) results_.push_back(result_type(inst, i));
  }

  void check() {
    switch (inst_.op) {
      case Op::Reduce: return reduce();
      case Op::Sort: return sort();
      case Op::While: return while_();
      case Op::If: case Op::Case: return branches();
      case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Maximum: case Op::Minimum:
      case Op::And: case Op::Or: case Op::Negate: case Op::Abs: case Op::Exponential: case Op::Log: case Op::Sqrt:
      case Op::Rsqrt: case Op::Tanh: case Op::Logistic: case Op::Compare: case Op::Select: case Op::Convert:
      case Op::Constant: case Op::Iota: case Op::BroadcastInDim: case Op::Reshape: case Op::Transpose:
      case Op::Reverse: case Op::Slice: case Op::Pad: case Op::Concatenate: case Op::DotGeneral: case Op::Convolution:
      case Op::ReduceWindow: case Op::SelectAndScatter: case Op::AllReduce: case Op::Not: case Op::Xor:
      case Op::Power: case Op::Remainder: case Op::Sign: case Op::Floor: case Op::Ceil: case Op::RoundNearestEven:
      case Op::RoundNearestAfz: case Op::Sine: case Op::Cosine: case Op::LogPlusOne: case Op::ExponentialMinusOne:
      case Op::Clamp: case Op::BitcastConvert: case Op::DynamicSlice: case Op::DynamicUpdateSlice: case Op::Gather:
      case Op::Scatter: case Op::ShiftLeft: case Op::ShiftRightArithmetic: case Op::ShiftRightLogical:
        fail("is not an op with regions");
    }
  }

 private:
  std::vector<TensorType> argument_types(const Region& r) const {
    std::vector<TensorType> out;
    for (const auto& [name, type] : r.arguments) out.push_back(type);
    return out;
  }
  // The region's block arguments and returned types, as the spec's signature says.
  void signature(const Region& r, const std::vector<TensorType>& arguments, const std::vector<TensorType>& returns,
                 const std::string& what) const {
    require(argument_types(r) == arguments, what + " must take " + signature_types(arguments) + ", takes " + signature_types(argument_types(r)));
    require(r.result_types == returns, what + " must return " + signature_types(returns) + ", returns " + signature_types(r.result_types));
  }
  void region_count(std::size_t n) const {
    require(inst_.regions.size() == n, "needs " + std::to_string(n) + " region(s), has " + std::to_string(inst_.regions.size()));
  }

  // spec §reduce C1-C8: N inputs of one shape, N rank-0 inits, body (E0..EN-1, E0..EN-1) -> (E0..EN-1),
  // each Ei the input's type or a wider one (is_promotable).
  void reduce() {
    const std::size_t operands = inst_.operands.size();
    require(operands >= 2 && operands % 2 == 0, "takes N inputs and N init values, found " + std::to_string(operands) + " operands");
    const std::size_t n = operands / 2;
    region_count(1);
    const auto& dims = inst_.attributes.dimensions;
    const auto rank = static_cast<std::int64_t>(operand(0).shape.size());
    std::set<std::int64_t> seen;
    for (auto d : dims) {
      require(d >= 0 && d < rank, "dimensions entry " + std::to_string(d) + " is out of range for rank " + std::to_string(rank));
      require(seen.insert(d).second, "dimensions entry " + std::to_string(d) + " appears twice");
    }
    const auto body = reducer_body("C6");
    std::vector<TensorType> expected_results(n);
    for (std::size_t i = 0; i < n; ++i) {
      expected_results[i].element = body[i];  // C8
      for (std::int64_t d = 0; d < rank; ++d)
        if (!seen.count(d)) expected_results[i].shape.push_back(operand(0).shape[static_cast<std::size_t>(d)]);
    }
    require(results_ == expected_results, "the results must be " + signature_types(expected_results) + ", found " + signature_types(results_));
  }

 public:
  // reduce and reduce_window: N inputs of one shape, N rank-0 inits of their element types, a
  // body (E0..EN-1, E0..EN-1) -> (E0..EN-1) with each Ei the input's type or a wider one
  // (is_promotable, the spec's constraint `rule`). Returns E0..EN-1.
  std::vector<ElementType> reducer_body(const std::string& rule) const {
    const std::size_t n = inst_.operands.size() / 2;
    std::vector<TensorType> body_args(2 * n), body_returns(n);
    std::vector<ElementType> elements(n);
    const Region& body = inst_.regions.at(0);
    for (std::size_t i = 0; i < n; ++i) {
      require(operand(i).shape == operand(0).shape, "the inputs must have one shape, found " + to_string(operand(0)) + " and " +
                                                         to_string(operand(i)));
      require(operand(n + i) == scalar(operand(i).element),
              "init value " + inst_.operands[n + i] + " must be " + to_string(scalar(operand(i).element)) + ", is " +
                  to_string(operand(n + i)));
      const ElementType e = body.arguments.size() == 2 * n ? body.arguments[i].second.element : operand(i).element;
      require(is_promotable(operand(i).element, e), "the body computes input " + std::to_string(i) + " in " + to_string(e) +
                                                        ", which is not " + to_string(operand(i).element) +
                                                        " or a wider type of its kind (is_promotable, " + rule + ")");
      body_args[i] = body_args[n + i] = body_returns[i] = scalar(e);
      elements[i] = e;
    }
    signature(body, body_args, body_returns, "the body");
    return elements;
  }

 private:

  // spec §sort C1-C5: inputs of one shape, results = inputs, comparator (E0, E0, E1, E1, ...) -> tensor<i1>.
  void sort() {
    require(!inst_.operands.empty(), "needs at least one input");
    region_count(1);
    std::vector<TensorType> comparator_args;
    for (std::size_t i = 0; i < inst_.operands.size(); ++i) {
      require(operand(i).shape == operand(0).shape, "the inputs must have one shape, found " + to_string(operand(0)) + " and " +
                                                         to_string(operand(i)));
      comparator_args.push_back(scalar(operand(i).element));
      comparator_args.push_back(scalar(operand(i).element));
    }
    const auto rank = static_cast<std::int64_t>(operand(0).shape.size());
    const auto d = inst_.attributes.dimension;
    require(d >= -rank && d < rank, "dimension " + std::to_string(d) + " is out of range for rank " + std::to_string(rank));
    require(results_ == inst_.operand_types, "the results must have the inputs' types " + signature_types(inst_.operand_types));
    signature(inst_.regions[0], comparator_args, {scalar(ElementType::I1)}, "the comparator");
  }

  // spec §while C1-C3: cond (T...) -> tensor<i1>, body (T...) -> (T...), results (T...).
  void while_() {
    region_count(2);
    const auto& types = inst_.operand_types;
    require(!types.empty(), "needs at least one operand (a loop without values has no effect to compute)");
    require(results_ == types, "the results must have the operands' types " + signature_types(types));
    signature(inst_.regions[0], types, {scalar(ElementType::I1)}, "the cond region");
    signature(inst_.regions[1], types, types, "the body region");
  }

  // spec §if C1-C3 and §case C1-C4: a rank-0 i1 pred (if, two branches) or i32 index (case, at
  // least one); branches take nothing and return the results' types.
  void branches() {
    require(inst_.operands.size() == 1, "takes one operand, found " + std::to_string(inst_.operands.size()));
    const bool is_if = inst_.op == Op::If;
    const TensorType selector = scalar(is_if ? ElementType::I1 : ElementType::I32);
    require(operand(0) == selector, std::string(is_if ? "pred" : "index") + " must be " + to_string(selector) + ", is " +
                                        to_string(operand(0)));
    if (is_if) region_count(2);
    else require(!inst_.regions.empty(), "needs at least one branch");
    for (std::size_t b = 0; b < inst_.regions.size(); ++b)
      signature(inst_.regions[b], {}, results_, "branch " + std::to_string(b));
  }

  std::vector<TensorType> results_;
};

}  // namespace

void verify_region_op(const Instruction& inst, const std::string& file) { RegionChecker(inst, file).check(); }

std::vector<ElementType> verify_reducer_body(const Instruction& inst, const std::string& file, const std::string& rule) {
  return RegionChecker(inst, file).reducer_body(rule);
}

bool is_promotable(ElementType x, ElementType y) {
  if (x == ElementType::I1 || y == ElementType::I1) return x == y;
  if (is_float(x) || is_float(y)) return is_float(x) && is_float(y) && bit_width(x) <= bit_width(y);
  if (is_signed_integer(x) == is_signed_integer(y)) return bit_width(x) <= bit_width(y);
  return is_unsigned_integer(x) && bit_width(x) < bit_width(y);  // every ui8 value is an i16
}

}  // namespace shlo
