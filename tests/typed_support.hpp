// Test helpers for programs with integer, boolean and float element types (issue 15): run a
// module in a domain and read each output as strings, integers by their element type.
#pragma once

#include "tests/support.hpp"

#include "num/integer_literal.hpp"

namespace shlo::test {

/// The outputs of a one-replica run of `text` in domain d, on inputs[argument] (literals of
/// each argument's element type: "true"/"false" for i1, decimals for integers).
template <class D>
std::vector<Strings> run_typed_all(const D& d, const std::string& text, const std::vector<Strings>& inputs = {}) {
  const Module m = parse_module(text, "test.mlir");
  std::vector<Value<D>> values;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const TensorType& t = m.function().arguments.at(i).type;
    if (t.element == ElementType::I1) {
      std::vector<Pred> v;
      for (const auto& s : inputs[i]) v.push_back(s == "true" ? 1 : 0);
      values.push_back(PredTensor(t.shape, v));
    } else if (is_integer(t.element)) {
      std::vector<std::uint64_t> v;
      for (const auto& s : inputs[i]) v.push_back(parse_integer_literal(s, bit_width(t.element), is_signed_integer(t.element)));
      values.push_back(IntTensor(t.shape, v));
    } else {
      std::vector<typename D::Scalar> v;
      for (const auto& s : inputs[i]) v.push_back(d.from_literal(s));
      values.push_back(Tensor<typename D::Scalar>(t.shape, std::move(v)));
    }
  }
  std::vector<std::vector<Value<D>>> per_replica{std::move(values)};
  const RunResult<D> result = run_program(m, d, std::move(per_replica), RunOptions{});
  std::vector<Strings> out;
  for (std::size_t k = 0; k < result.outputs.at(0).size(); ++k) {
    const auto& v = result.outputs[0][k];
    const ElementType e = m.function().return_types.at(k).element;
    Strings strings;
    if (const auto* p = std::get_if<PredTensor>(&v)) {
      for (auto b : p->data) strings.push_back(b & 1 ? "true" : "false");
    } else if (const auto* n = std::get_if<IntTensor>(&v)) {
      for (auto x : n->data) strings.push_back(integer_to_string(x, is_signed_integer(e)));
    } else {
      for (const auto& x : std::get<Tensor<typename D::Scalar>>(v).data) strings.push_back(d.to_string(x));
    }
    out.push_back(strings);
  }
  return out;
}

/// The single output.
template <class D>
Strings run_typed(const D& d, const std::string& text, const std::vector<Strings>& inputs = {}) {
  return run_typed_all(d, text, inputs).at(0);
}

/// A module `@m` with one argument-less function whose body lines (without indentation) end
/// in a value %r of type `result`.
inline std::string program(const std::vector<std::string>& lines, const std::string& result, const std::string& args = "") {
  std::string body;
  for (const auto& l : lines) body += "    " + l + "\n";
  return module_text(args, result, body, "%r");
}

}  // namespace shlo::test
