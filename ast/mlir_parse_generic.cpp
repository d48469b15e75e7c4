// MLIR's generic op form (docs/mlir-forms.md §9), for every op we run:
//   "stablehlo.NAME"(%a, ...) <{properties}> ({ region }, ...) {attributes} : (T...) -> R
// Properties and the attribute dictionary are read alike (older text puts everything in the
// dictionary, newer text the inherent attributes in the properties), in any order.
#include "ast/mlir_op_parse.hpp"

namespace shlo {

// ast/mlir_parse_ops.cpp
void read_functional_op_type(OpParseContext& cx, OpSyntax& op);


void read_generic_op(OpParseContext& cx, AttributeReader& attrs, OpSyntax& op) {
  Lexer& l = cx.lexer();
  l.expect("(", "'(' opening the operands");
  if (!l.peek(")")) {
    do {
      l.skip_space();
      const Location at = l.location();
      const std::string name = cx.operand("an operand (%name)");
      op.inst.operand_types.push_back(cx.value_type(name, at));
      op.inst.operands.push_back(name);
    } while (l.accept(","));
  }
  l.expect(")", "')' or ','");
  if (l.accept("<{")) {
    attrs.dictionary(op);
    l.expect(">", "'>' closing the properties <{...}>");
  }
  if (l.accept("(")) {
    int& depth = cx.region_depth();
    if (depth >= kMaxRegionNesting)
      l.fail_at(op.op_location, "regions nested more than " + std::to_string(kMaxRegionNesting) + " deep");
    ++depth;
    do {
      l.skip_space();
      op.inst.regions.push_back(cx.region());
    } while (l.accept(","));
    l.expect(")", "')' closing the regions");
    --depth;
  }
  if (l.accept("{")) attrs.dictionary(op);
  l.expect(":", "':' and the op's function type");
  read_functional_op_type(cx, op);
}

}  // namespace shlo
