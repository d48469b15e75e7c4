// Test helpers for programs with integer, boolean and float element types (issue 15): run a
// module in a domain and read each output as strings, integers by their element type.
#pragma once

#include "tests/support.hpp"

#include "num/integer_literal.hpp"

namespace shlo::test {

/// The domains the typed tests run in most.
inline const ExactDomain E;
inline const F32Domain F32;
inline const F64Domain F64;

/// A value of `type` from literals of its element type: "true"/"false" for i1, decimals for
/// integers, the domain's literals for floats.
template <class D>
Value<D> typed_value(const D& d, const TensorType& type, const Strings& literals) {
  if (type.element == ElementType::I1) {
    std::vector<Pred> v;
    for (const auto& s : literals) v.push_back(s == "true" ? 1 : 0);
    return PredTensor(type.shape, v);
  }
  if (is_integer(type.element)) {
    std::vector<std::uint64_t> v;
    for (const auto& s : literals) v.push_back(parse_integer_literal(s, bit_width(type.element), is_signed_integer(type.element)));
    return IntTensor(type.shape, v);
  }
  std::vector<typename D::Scalar> v;
  for (const auto& s : literals) v.push_back(d.from_literal(s));
  return Tensor<typename D::Scalar>(type.shape, std::move(v));
}

/// `v` as strings: "true"/"false", integers by their element type `e`, floats as the domain writes them.
template <class D>
Strings typed_strings(const D& d, const Value<D>& v, ElementType e) {
  Strings strings;
  if (const auto* p = std::get_if<PredTensor>(&v)) {
    for (auto b : p->data) strings.push_back(b & 1 ? "true" : "false");
  } else if (const auto* n = std::get_if<IntTensor>(&v)) {
    for (auto x : n->data) strings.push_back(integer_to_string(x, is_signed_integer(e)));
  } else {
    for (const auto& x : std::get<Tensor<typename D::Scalar>>(v).data) strings.push_back(d.to_string(x));
  }
  return strings;
}

/// Reads `text` and runs it in domain d on one replica per entry of `inputs`
/// (inputs[replica][argument], literals as typed_value reads them): each replica's outputs.
template <class D>
std::vector<std::vector<Strings>> run_typed_replicas(const D& d, const std::string& text,
                                                     const std::vector<std::vector<Strings>>& inputs) {
  const Module m = parse_module(text, "test.mlir");
  std::vector<std::vector<Value<D>>> per_replica;
  for (const auto& replica_inputs : inputs) {
    std::vector<Value<D>> values;
    for (std::size_t i = 0; i < replica_inputs.size(); ++i)
      values.push_back(typed_value(d, m.function().arguments.at(i).type, replica_inputs[i]));
    per_replica.push_back(std::move(values));
  }
  RunOptions options;
  options.replicas = static_cast<int>(inputs.size());
  const RunResult<D> result = run_program(m, d, std::move(per_replica), options);
  std::vector<std::vector<Strings>> out(result.outputs.size());
  for (std::size_t r = 0; r < result.outputs.size(); ++r)
    for (std::size_t k = 0; k < result.outputs[r].size(); ++k)
      out[r].push_back(typed_strings(d, result.outputs[r][k], m.function().return_types.at(k).element));
  return out;
}

/// The outputs of a one-replica run of `text` in domain d, on inputs[argument].
template <class D>
std::vector<Strings> run_typed_all(const D& d, const std::string& text, const std::vector<Strings>& inputs = {}) {
  return run_typed_replicas(d, text, {inputs}).at(0);
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
