// D1 (den_allReduceMeanF_eq_dpMean) and D2 (skel_allReduceMeanF_of_spmd).
#include "ast/emit.hpp"
#include "ast/skel.hpp"
#include "interp/den.hpp"
#include "interp/domain/exact.hpp"
#include "oracle/agree.hpp"
#include "oracle/theorems/theorems.hpp"

namespace shlo::theorems {

Result dp_mean(const Expr& family, bool sum_instead) {
  const ExactDomain E;
  const auto node = denote(E, family).value;
  std::vector<ExtRational> mean(node.size(), Rational(0));
  for (const auto& g : family.children) {
    const auto v = denote(E, *g).value;
    for (std::size_t i = 0; i < v.size(); ++i) mean[i] = E.add(mean[i], v[i]);
  }
  if (!sum_instead)
    for (auto& x : mean) x = E.div(x, Rational(family.replicas));
  for (std::size_t i = 0; i < node.size(); ++i)
    if (!(node[i] == mean[i]))
      return {false, "element " + std::to_string(i) + ": den = " + E.to_string(node[i]) + ", dpMean = " + E.to_string(mean[i])};
  const Agreement text = den_agrees_with_text(family);
  if (!text.agree) return {false, "the emitted all_reduce program disagrees: " + text.detail};
  return {};
}

Result spmd_skeleton(const Expr& family) {
  const auto report = is_spmd(family);
  if (!report.spmd) return {false, report.message};
  const Skel whole = skel(family);
  std::string first_text;
  for (std::size_t r = 0; r < family.children.size(); ++r) {
    if (!(whole.children.at(0) == skel(*family.children[r]))) return {false, "skel differs from replica " + std::to_string(r) + "'s"};
    Expr moved = family;  // print with replica r's subtree in front
    std::swap(moved.children[0], moved.children[r]);
    std::int64_t counter = 0;
    const std::string text = emit(1, moved, counter).text;
    if (r == 0) first_text = text;
    else if (text != first_text) return {false, "the text printed from replica " + std::to_string(r) + " differs"};
  }
  return {};
}

}  // namespace shlo::theorems
