// Shared helpers for the test suite.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ast/mlir_parse.hpp"

namespace shlo::test {

/// Whether two vectors of floats (or doubles) hold the same values bit for bit: a float
/// comparison would call 0 and -0 equal and NaN unequal to itself.
template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

/// The located error of parsing `text` as file "t.mlir", or "" if it parses.
inline std::string parse_error_of(const std::string& text) {
  try {
    parse_module(text, "t.mlir");
  } catch (const ParseError& e) {
    return e.what();
  }
  return "";
}

/// `text` with its one occurrence of `from` replaced by `to` (the test's own mistake if absent).
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

/// The folder of real printer output (../shared/artifacts/lean4-mlir), or "" if absent.
inline std::string artifacts_dir() {
  const std::filesystem::path dir = SHLO_ARTIFACTS_DIR;
  return std::filesystem::is_directory(dir) ? dir.string() : std::string();
}

/// The whole file as bytes ("" if it cannot be read).
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The .mlir files of a folder, sorted.
inline std::vector<std::string> mlir_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".mlir") out.push_back(entry.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

/// The first ladder of the artifact folder (its README's first table): the programs small
/// enough to run whole in a test. The second ladder's real networks take minutes each.
inline std::vector<std::string> ladder_files(const std::string& dir) {
  static const char* const names[] = {
      "linear_fwd", "mlp_fwd", "linear_train_step", "mlp_train_step", "cnn_fwd", "cifar_fwd", "cifar8_fwd",
      "cnn_train_step", "cifar8_train_step", "cifar8_bn_fwd", "cifar8_mom_train_step", "cifar8_adam_train_step",
      "cifar8_adamdp_train_step"};
  std::vector<std::string> out;
  for (const char* name : names) out.push_back(dir + "/" + name + ".mlir");
  return out;
}

/// Skips the rest of a test case (with a visible message) when the artifacts are absent.
#define SHLO_REQUIRE_ARTIFACTS(dir_var)                                                       \
  const std::string dir_var = ::shlo::test::artifacts_dir();                                 \
  if (dir_var.empty()) {                                                                     \
    WARN("SKIPPED: artifact folder " SHLO_ARTIFACTS_DIR " is absent");                       \
    return;                                                                                  \
  }

}  // namespace shlo::test

#include "ast/mlir_parse.hpp"
#include "interp/domain/domain_spec.hpp"
#include "interp/run.hpp"

namespace shlo::test {

/// A one-function module: `args` is the signature, `body` the instruction lines.
inline std::string module_text(const std::string& args, const std::string& result, const std::string& body,
                               const std::string& ret) {
  return "module @m {\n  func.func @f(" + args + ") -> " + result + " {\n" + body + "    return " + ret + " : " + result +
         "\n  }\n}\n";
}

/// Runs `text` in domain d on inputs[replica][argument] (row-major literals; "true"/"false"
/// for i1) and returns outputs[replica][result] as the domain's strings.
template <class D>
std::vector<std::vector<std::vector<std::string>>> run_text(const D& d, const std::string& text,
                                                            const std::vector<std::vector<std::vector<std::string>>>& inputs) {
  const Module m = parse_module(text, "test.mlir");
  std::vector<std::vector<Value<D>>> values(inputs.size());
  for (std::size_t r = 0; r < inputs.size(); ++r)
    for (std::size_t i = 0; i < inputs[r].size(); ++i) {
      const TensorType& t = m.function().arguments.at(i).type;
      if (t.element == ElementType::I1) {
        std::vector<Pred> v;
        for (const auto& s : inputs[r][i]) v.push_back(s == "true" ? 1 : 0);
        values[r].push_back(PredTensor(t.shape, v));
      } else {
        std::vector<typename D::Scalar> v;
        for (const auto& s : inputs[r][i]) v.push_back(d.from_literal(s));
        values[r].push_back(Tensor<typename D::Scalar>(t.shape, std::move(v)));
      }
    }
  RunOptions options;
  options.replicas = static_cast<int>(inputs.size());
  const RunResult<D> result = run_program(m, d, std::move(values), options);
  std::vector<std::vector<std::vector<std::string>>> out(result.outputs.size());
  for (std::size_t r = 0; r < result.outputs.size(); ++r)
    for (const auto& v : result.outputs[r]) {
      std::vector<std::string> strings;
      if (const auto* p = std::get_if<PredTensor>(&v)) {
        for (auto b : p->data) strings.push_back(b ? "true" : "false");
      } else {
        for (const auto& x : std::get<Tensor<typename D::Scalar>>(v).data) strings.push_back(d.to_string(x));
      }
      out[r].push_back(strings);
    }
  return out;
}

/// The single output of a single-replica run.
template <class D>
std::vector<std::string> run1(const D& d, const std::string& text, const std::vector<std::vector<std::string>>& inputs) {
  return run_text(d, text, {inputs}).at(0).at(0);
}

using Strings = std::vector<std::string>;

}  // namespace shlo::test

#include "interp/den.hpp"

namespace shlo::test {

/// den of e in the exact domain, each value as a string (the tests' hand values); the den's
/// events (Lean's totalities taken, max-pool ties) into `events` when given.
inline Strings den_exact(const ExprPtr& e, std::vector<DenEvent>* events = nullptr) {
  const ExactDomain exact;
  const auto r = denote(exact, *e);
  if (events) *events = r.events;
  Strings out;
  for (const auto& x : r.value) out.push_back(exact.to_string(x));
  return out;
}

}  // namespace shlo::test
