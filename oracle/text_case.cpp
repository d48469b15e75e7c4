#include "oracle/text_case.hpp"

#include <set>

#include "ast/emit.hpp"
#include "ast/expr_json.hpp"
#include "ast/template.hpp"

namespace shlo {

namespace {

std::string type_text(const std::string& pattern, const Expr& e, std::int64_t batch) {
  std::map<std::string, std::int64_t> nats = e.nats;
  nats["B"] = batch;
  const std::string inner = pattern.substr(2, pattern.size() - 3);
  std::string out = "tensor<";
  if (inner == "ds") {
    for (auto d : e.ds) out += std::to_string(d) + "x";
  } else if (!inner.empty()) {
    std::size_t a = 0;
    while (a <= inner.size()) {
      std::size_t b = inner.find(',', a);
      if (b == std::string::npos) b = inner.size();
      std::int64_t v = 0;
      if (!eval_nat(inner.substr(a, b - a), nats, v)) throw ExprError("text_case: cannot size " + pattern);
      out += std::to_string(v) + "x";
      a = b + 1;
    }
  }
  return out + "f32>";
}

struct Collector {
  std::int64_t batch;
  std::vector<std::pair<std::string, std::string>> args;  // name, type
  std::set<std::string> seen;
  std::vector<std::map<std::string, std::vector<Rational>>> inputs;

  void add(const std::string& name, const std::string& type, const std::vector<Rational>& values, std::size_t replica) {
    if (seen.insert(name).second) args.emplace_back(name, type);
    inputs[replica][name] = values;
  }

  // `leaf_type`: the type of this node's value where its parent reads it.
  void walk(const Expr& e, const std::string& leaf_type, std::size_t replica) {
    if (e.spec->arity == Arity::Leaf) {
      add(e.string("name"), leaf_type, e.real("v"), replica);
      return;
    }
    // The row's text inputs (every other string field is a literal: registry_problems()).
    for (const auto& in : e.spec->inputs) {
      std::vector<Rational> v;
      const std::string src = in.value;
      if (src.rfind("1-", 0) == 0) {
        v = {Rational(1) - e.real(src.substr(2)).at(0)};
      } else {
        v = e.real(src);
      }
      add(e.string(in.field), type_text(in.type, e, batch), v, replica);
    }
    const std::string child_type = e.spec->has_ds ? type_text("T[ds]", e, batch) : std::string();
    for (std::size_t k = 0; k < e.children.size(); ++k) {
      const Expr& child = *e.children[k];
      // A parameter-shaped binary node (gradSumSqAccF, clipScaleF, lambScaleF) reads a rank-0
      // scalar on the left.
      const bool scalar_left = e.spec->has_ds && e.spec->arity == Arity::Binary && k == 0;
      const bool typed = k < e.spec->child_types.size() && e.spec->child_types[k] != nullptr;
      const std::string t = scalar_left ? "tensor<f32>"
                            : typed ? type_text(e.spec->child_types[k], e, batch)
                            : !child_type.empty() ? child_type
                                                  : "tensor<" + std::to_string(batch) + "x" + std::to_string(child.length() / batch) + "xf32>";
      if (e.spec->arity == Arity::Family) {
        if (k == 0) {  // each replica reads its own child
          for (std::size_t r = 0; r < e.children.size(); ++r) walk(*e.children[r], t, r);
        }
        break;
      }
      walk(child, t, replica);
    }
  }
};

// The walks below recurse; an expression deeper than kMaxExprDepth (built by hand, never by the
// printer) is refused first, by a walk that keeps its own stack. So is a node the printer writes
// as a comment: its text computes nothing, so no text case can check its den.
void check_depth(const Expr& root) {
  std::vector<std::pair<const Expr*, int>> todo = {{&root, 0}};
  while (!todo.empty()) {
    const auto [e, depth] = todo.back();
    todo.pop_back();
    if (depth > kMaxExprDepth) throw ExprError("text_case: the expression is nested more than " + std::to_string(kMaxExprDepth) + " deep");
    if (printed_as_comment(*e->spec))
      throw ExprError(std::string("text_case: the printer writes ") + e->spec->name + " as a comment line, which computes nothing");
    for (const auto& c : e->children) todo.emplace_back(c.get(), depth + 1);
  }
}

std::int64_t family_size(const Expr& e) {
  if (e.spec->arity == Arity::Family) return e.replicas;
  for (const auto& c : e.children)
    if (auto r = family_size(*c); r > 1) return r;
  return 1;
}

// The printer's B: the N of a batched constructor (they are compared at N = B), else 1. The
// batched rows are the ones with an N: the per-example 3x3/s2 max pool rows ride the batched
// token without one, the heads' weightGradB and biasGradB the per-example tokens with one.
std::int64_t batch_of(const Expr& e) {
  if (e.nats.count("N")) return e.nat("N");
  for (const auto& c : e.children)
    if (auto b = batch_of(*c); b > 1) return b;
  return 1;
}

}  // namespace

TextCase text_case(const Expr& e, std::int64_t batch) {
  check_depth(e);
  if (batch <= 0) batch = batch_of(e);
  TextCase out;
  out.replicas = family_size(e);
  Collector col{batch, {}, {}, std::vector<std::map<std::string, std::vector<Rational>>>(static_cast<std::size_t>(out.replicas))};
  col.walk(e, "tensor<" + std::to_string(batch) + "x" + std::to_string(e.length() / batch) + "xf32>", 0);
  // Names outside any family are the same on every replica.
  for (std::size_t r = 1; r < col.inputs.size(); ++r)
    for (const auto& [name, v] : col.inputs[0])
      if (!col.inputs[r].count(name)) col.inputs[r][name] = v;
  std::int64_t counter = 0;
  const Emitted body = emit(batch, e, counter);
  // The result type is the last type on the last line.
  const auto last = body.text.rfind("tensor<");
  if (last == std::string::npos) throw ExprError("text_case: the expression prints no text");
  const std::string result_type = body.text.substr(last, body.text.find('>', last) - last + 1);
  std::string sig;
  for (const auto& [name, type] : col.args) {
    sig += (sig.empty() ? "" : ", ") + name + ": " + type;
    out.argument_order.push_back(name);
  }
  out.text = "module @m {\n  func.func @fuzz(" + sig + ") -> " + result_type + " {\n" + body.text + "    return " + body.result +
             " : " + result_type + "\n  }\n}\n";
  out.inputs = std::move(col.inputs);
  return out;
}

}  // namespace shlo
