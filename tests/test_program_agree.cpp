// shlo agree: den of a program's lifted nodes against the op-level run of its text. Each
// passing case has a control that must fail: the lift of the text against the run of the same
// text with one constant or one operand changed (the lift reads fields from the text, so the
// change must be made to the run alone, or it would be read back into den).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <string>

#include "ast/emit.hpp"
#include "ast/lift.hpp"
#include "ast/mlir_parse.hpp"
#include "ast/rebatch.hpp"
#include "ast/template.hpp"
#include "interp/domain/magnitude.hpp"
#include "interp/program_inputs.hpp"
#include "interp/run.hpp"
#include "oracle/program_agree.hpp"
#include "oracle/text_case.hpp"
#include "tests/expr_support.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

// Replaces the one occurrence of `from` in `text`.
std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  REQUIRE(text.find(from, at + 1) == std::string::npos);
  return text.replace(at, from.size(), to);
}

template <class D>
ProgramAgreement agree_on_text(const D& d, const std::string& text, const std::string& run_text, std::uint64_t seed, double lo,
                               double hi, int replicas = 1) {
  const Module m = parse_module(text, "program.mlir");
  const Module run = parse_module(run_text, "program.mlir");
  const auto in = random_inputs(m.function(), seed, replicas, lo, hi);
  return agree_program(m, d, npy_values(d, m.function(), in), replicas, &run);
}

const NodeAgreement* node_of(const ProgramAgreement& a, const std::string& constructor) {
  for (const auto& n : a.nodes)
    if (n.constructor == constructor) return &n;
  return nullptr;
}

// addBcast(dotIn(x)) at B = 2, m = n = 2, as the printer writes it.
const char* kAffine = R"(module @m {
  func.func @f(%x: tensor<2x2xf32>, %W0: tensor<2x2xf32>, %b0: tensor<2xf32>) -> tensor<2x2xf32> {
    %v0 = stablehlo.dot_general %x, %W0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %v1 = stablehlo.broadcast_in_dim %b0, dims = [1] : (tensor<2xf32>) -> tensor<2x2xf32>
    %v2 = stablehlo.add %v0, %v1 : tensor<2x2xf32>
    return %v2 : tensor<2x2xf32>
  }
}
)";

std::vector<std::vector<Value<ExactDomain>>> affine_inputs() {
  const ExactDomain E;
  auto t = [&](Shape s, std::vector<const char*> v) {
    std::vector<ExtRational> x;
    for (const char* q : v) x.push_back(E.parse(q));
    return Value<ExactDomain>(Tensor<ExtRational>(std::move(s), std::move(x)));
  };
  // x = [[1, 2], [3, 4]], W = [[1, 1], [0, 1]], b = [1/2, 1/4]: x W = [[1, 3], [3, 7]].
  return {{t({2, 2}, {"1", "2", "3", "4"}), t({2, 2}, {"1", "1", "0", "1"}), t({2}, {"1/2", "1/4"})}};
}

}  // namespace

TEST_CASE("agree: progress before each instruction, with the nodes judged so far", "[agree]") {
  const Module m = parse_module(kAffine, "affine.mlir");
  std::vector<AgreeProgress> seen;
  const auto a = agree_program(m, ExactDomain{}, affine_inputs(), 1, nullptr, [&](const AgreeProgress& p) { seen.push_back(p); });
  REQUIRE(a.pass());
  const std::size_t count = instructions(m.function()).size();
  REQUIRE(seen.size() == count);  // one call per instruction
  for (std::size_t k = 0; k < seen.size(); ++k) {
    CHECK(seen[k].run.done == k);
    CHECK(seen[k].run.total == count);
    CHECK(seen[k].failed == 0);
  }
  CHECK(seen.front().judged == 0);  // nothing judged before the first instruction has run
  CHECK(seen.back().judged >= 1);   // dotIn is judged before addBcast's instruction runs
  CHECK(seen.back().judged < a.compared + a.not_comparable);  // control: the last node is judged after it
  // Without a callback the run is the same (the default).
  CHECK(agree_program(m, ExactDomain{}, affine_inputs(), 1).compared == a.compared);
}

TEST_CASE("agree: a hand-sized affine layer, row by row, exactly", "[agree]") {
  const Module m = parse_module(kAffine, "affine.mlir");
  const auto a = agree_program(m, ExactDomain{}, affine_inputs(), 1);
  INFO(format_agreement(a));
  CHECK(a.pass());
  CHECK(a.batch == 2);
  CHECK(a.compared == 2);  // dotIn and addBcast
  CHECK(a.elements == 8);
  REQUIRE(a.outputs.size() == 1);
  CHECK(a.outputs[0].constructor == "addBcast");
  CHECK(a.outputs[0].verdict == "PASS");
  REQUIRE(node_of(a, "dotIn"));
  CHECK(node_of(a, "dotIn")->reading == BatchReading::PerRow);

  // Control: the text adds %v0 to itself. Row 0 of den is x_0 W + b = [3/2, 13/4]; the text's
  // row 0 is 2 x_0 W = [2, 6].
  const Module wrong = parse_module(replace_once(kAffine, "stablehlo.add %v0, %v1", "stablehlo.add %v0, %v0"), "affine.mlir");
  const auto c = agree_program(m, ExactDomain{}, affine_inputs(), 1, &wrong);
  CHECK_FALSE(c.pass());
  CHECK(c.failed == 1);
  REQUIRE(c.first_failure());
  CHECK(c.first_failure()->constructor == "addBcast");
  CHECK(c.first_failure()->line == 5);
  CHECK(c.first_failure()->detail == "row 0, element 0: den = 3/2, text = 2");
  CHECK(c.outputs[0].verdict == "FAIL");
  CHECK(node_of(c, "dotIn")->agree);
}

TEST_CASE("agree: an allReduceMeanF block on two replicas, and its divisor changed", "[agree][replicas]") {
  // allReduceMeanF(R = 2, t = "g", ds = [3]) over one named operand per replica.
  const auto e = node("allReduceMeanF", {{"n", 3}}, {}, {leaf("%g", {"1", "2", "3"}), leaf("%g", {"5", "1/2", "-3"})}, {{"t", "g"}}, {3}, 2);
  const TextCase tc = text_case(*e);
  REQUIRE(tc.replicas == 2);
  const Module m = parse_module(tc.text, "dp.mlir");
  const ExactDomain E;
  std::vector<std::vector<Value<ExactDomain>>> inputs(2);
  for (int r = 0; r < 2; ++r) {
    std::vector<ExtRational> v;
    for (const auto& q : tc.inputs[static_cast<std::size_t>(r)].at("%g")) v.push_back(E.from_rational(q));
    inputs[static_cast<std::size_t>(r)].push_back(Tensor<ExtRational>({3}, std::move(v)));
  }
  const auto a = agree_program(m, E, inputs, 2);
  INFO(format_agreement(a));
  CHECK(a.pass());
  CHECK(a.compared == 2);  // the node, on each replica
  REQUIRE(a.outputs.size() == 2);
  CHECK(a.outputs[1].verdict == "PASS");

  // Control: dividing by 3: element 0 is (1 + 5)/3 = 2 in the text, the mean 3 in den.
  const Module wrong = parse_module(replace_once(tc.text, "dense<2.0>", "dense<3.0>"), "dp.mlir");
  const auto c = agree_program(m, E, inputs, 2, &wrong);
  REQUIRE(c.first_failure());
  CHECK(c.first_failure()->constructor == "allReduceMeanF");
  CHECK(c.first_failure()->detail == "element 0: den = 3, text = 2");
}

TEST_CASE("agree: linear_fwd exactly and in f64, a changed operand fails", "[agree][artifacts]") {
  SHLO_REQUIRE_ARTIFACTS(dir);
  const std::string text = read_file(dir + "/linear_fwd.mlir");
  const auto exact = agree_on_text(ExactDomain{}, text, text, 1, -1, 1);
  INFO(format_agreement(exact));
  CHECK(exact.pass());
  CHECK(exact.compared == 2);
  const auto f64 = agree_on_text(F64Domain{}, text, text, 2, -1, 1);
  CHECK(f64.pass());
  const std::string wrong = replace_once(text, "stablehlo.add %v0, %v1", "stablehlo.add %v1, %v1");
  const auto c = agree_on_text(F64Domain{}, text, wrong, 2, -1, 1);
  REQUIRE(c.first_failure());
  CHECK(c.first_failure()->constructor == "addBcast");
}

TEST_CASE("agree: linear_train_step in f64 (batch sums), a changed learning rate fails", "[agree][artifacts]") {
  SHLO_REQUIRE_ARTIFACTS(dir);
  const std::string text = read_file(dir + "/linear_train_step.mlir");
  const auto a = agree_on_text(F64Domain{}, text, text, 3, -1, 1);
  INFO(format_agreement(a));
  CHECK(a.pass());
  CHECK(a.not_comparable == 0);
  REQUIRE(node_of(a, "weightSgd"));
  CHECK(node_of(a, "weightSgd")->reading == BatchReading::BatchSum);
  CHECK(node_of(a, "biasSgd")->reading == BatchReading::BatchSum);
  CHECK(node_of(a, "softmaxDiv")->reading == BatchReading::PerRow);
  // Control: the weight update's learning rate (line 14) moves by one in its last digit.
  const std::string wrong = replace_once(text, "%v10 = stablehlo.constant dense<0.00078125>", "%v10 = stablehlo.constant dense<0.00078126>");
  const auto c = agree_on_text(F64Domain{}, text, wrong, 3, -1, 1);
  REQUIRE(c.first_failure());
  CHECK(c.first_failure()->constructor == "weightSgd");
  CHECK(c.first_failure()->line == 16);
  CHECK(c.failed == 1);  // biasSgd has its own constant
}

TEST_CASE("agree: mlp_fwd in f64, the second relu's zero changed fails there", "[agree][artifacts][slow]") {
  SHLO_REQUIRE_ARTIFACTS(dir);
  const std::string text = read_file(dir + "/mlp_fwd.mlir");
  const auto a = agree_on_text(F64Domain{}, text, text, 4, -0.5, 0.5);
  INFO(format_agreement(a));
  CHECK(a.pass());
  CHECK(a.compared == 8);  // three dense layers (dotIn, addBcast) and two reluF
  CHECK(a.elements == 395776);
  // Control: the second relu clamps at 1/2 instead of 0 (line 11); the first stays correct.
  const std::string wrong = replace_once(text, "%v8 = stablehlo.constant dense<0.0>", "%v8 = stablehlo.constant dense<0.5>");
  const auto c = agree_on_text(F64Domain{}, text, wrong, 4, -0.5, 0.5);
  REQUIRE(c.first_failure());
  CHECK(c.first_failure()->constructor == "reluF");
  CHECK(c.first_failure()->line == 12);
}

TEST_CASE("agree: interval:64 on the hand-sized affine layer, a changed operand gives disjoint enclosures", "[agree][interval]") {
  const Module m = parse_module(kAffine, "affine.mlir");
  const IntervalDomain I(64);
  // The exact inputs of affine_inputs(), as point enclosures.
  auto to_interval = [&](const std::vector<std::vector<Value<ExactDomain>>>& exact) {
    std::vector<std::vector<Value<IntervalDomain>>> out(exact.size());
    for (std::size_t r = 0; r < exact.size(); ++r)
      for (const auto& v : exact[r]) {
        const auto& t = std::get<Tensor<ExtRational>>(v);
        std::vector<BigInterval> x;
        for (const auto& q : t.data) x.push_back(I.from_rational(q.q));
        out[r].push_back(Tensor<BigInterval>(t.shape, std::move(x)));
      }
    return out;
  };
  const auto a = agree_program(m, I, to_interval(affine_inputs()), 1);
  INFO(format_agreement(a));
  CHECK(a.pass());
  CHECK(a.domain == "interval:64");
  CHECK(a.compared == 2);
  CHECK(a.elements == 8);
  CHECK(a.outputs.at(0).verdict == "PASS");
  // Control: as in exact, den's row 0 is [3/2, 13/4] and the text's 2 x_0 W = [2, 6]: the point
  // enclosures [3/2, 3/2] and [2, 2] are disjoint.
  const Module wrong = parse_module(replace_once(kAffine, "stablehlo.add %v0, %v1", "stablehlo.add %v0, %v0"), "affine.mlir");
  const auto c = agree_program(m, I, to_interval(affine_inputs()), 1, &wrong);
  CHECK_FALSE(c.pass());
  CHECK(c.failed == 1);
  REQUIRE(c.first_failure());
  CHECK(c.first_failure()->constructor == "addBcast");
  CHECK(c.first_failure()->line == 5);
  CHECK(c.first_failure()->detail == "row 0, element 0: den = [1.5, 1.5], text = [2.0, 2.0] (disjoint)");
  CHECK(node_of(c, "dotIn")->agree);
}

TEST_CASE("agree: linear_train_step in interval:64 (batch sums), a changed learning rate fails", "[agree][interval][artifacts]") {
  SHLO_REQUIRE_ARTIFACTS(dir);
  const std::string text = read_file(dir + "/linear_train_step.mlir");
  const IntervalDomain I(64);
  const auto a = agree_on_text(I, text, text, 3, -1, 1);
  INFO(format_agreement(a));
  CHECK(a.pass());
  CHECK(a.not_comparable == 0);
  CHECK(node_of(a, "weightSgd")->reading == BatchReading::BatchSum);
  CHECK(node_of(a, "softmaxDiv")->reading == BatchReading::PerRow);
  // Control: the learning rate moves by 1e-5 of itself; the enclosures are about 2^-60 wide.
  const std::string wrong = replace_once(text, "%v10 = stablehlo.constant dense<0.00078125>", "%v10 = stablehlo.constant dense<0.00078126>");
  const auto c = agree_on_text(I, text, wrong, 3, -1, 1);
  INFO(format_agreement(c));
  REQUIRE(c.first_failure());
  CHECK(c.first_failure()->constructor == "weightSgd");
  CHECK(c.first_failure()->line == 16);
  CHECK(c.failed == 1);
  CHECK(c.first_failure()->detail.find("(disjoint)") != std::string::npos);
}

TEST_CASE("agree: mlp_train_step in interval:64, its relu masks decided on the enclosures' midpoints", "[agree][interval][artifacts][slow]") {
  SHLO_REQUIRE_ARTIFACTS(dir);
  const std::string text = read_file(dir + "/mlp_train_step.mlir");
  const IntervalDomain I(64);
  const auto a = agree_on_text(I, text, text, 5, -0.5, 0.5);
  INFO(format_agreement(a));
  CHECK(a.pass());
  CHECK(a.not_comparable == 0);
  REQUIRE(node_of(a, "selectPos"));
  CHECK(node_of(a, "selectPos")->compared);
}

TEST_CASE("agree: values are freed after their last use and judgement, as in shlo run", "[agree][memory][artifacts]") {
  SHLO_REQUIRE_ARTIFACTS(dir);
  const std::string text = read_file(dir + "/linear_train_step.mlir");
  const Module m = parse_module(text, "linear_train_step.mlir");
  const F64Domain d;
  const auto in = random_inputs(m.function(), 3, 1, -1, 1);
  const auto a = agree_program(m, d, npy_values(d, m.function(), in), 1);
  REQUIRE(a.pass());
  RunOptions plain;
  const auto run = run_program(m, d, npy_values(d, m.function(), in), plain);
  RunOptions keep;
  keep.keep_values = true;
  const auto kept = run_program(m, d, npy_values(d, m.function(), in), keep);
  INFO("agree " << a.peak_live_bytes << ", run " << run.peak_live_bytes << ", every value kept " << kept.peak_live_bytes);
  // The judgements keep a node's inputs only until the node is judged, which is about where the
  // text reads them last (a field may be read a few lines before the node's value). shlo run also
  // writes an elementwise result into a dying operand's storage, which agree may not do with a
  // value it still has to judge: 1,011,536 bytes against shlo run's 1,001,296 (1.02%).
  CHECK(a.peak_live_bytes >= run.peak_live_bytes);
  CHECK(a.peak_live_bytes <= run.peak_live_bytes + run.peak_live_bytes / 50);
  // Control: keeping every value (what agree did before) costs 1,272,488 bytes, 19% more.
  CHECK(kept.peak_live_bytes > a.peak_live_bytes + run.peak_live_bytes / 10);
}

TEST_CASE("agree: cifar8_bn_fwd in f64 (every line lifted, per-channel batch norm included), the first relu's zero changed fails there", "[agree][artifacts]") {
  SHLO_REQUIRE_ARTIFACTS(dir);
  const std::string text = read_file(dir + "/cifar8_bn_fwd.mlir");
  const auto a = agree_on_text(F64Domain{}, text, text, 2, -0.05, 0.05);
  INFO(format_agreement(a));
  CHECK(a.pass());
  CHECK(a.verbatim == 0);  // the per-channel batch norm lifts too (ast/ctors/bn_channel.def)
  CHECK(a.compared == 36);
  CHECK(a.not_comparable == 0);
  // Control: the first relu clamps at 1/2 (line 31); only that node disagrees, since every node
  // is judged on the text's own values of its inputs.
  const std::string wrong = replace_once(text, "%v25 = stablehlo.constant dense<0.0>", "%v25 = stablehlo.constant dense<0.5>");
  const auto c = agree_on_text(F64Domain{}, text, wrong, 2, -0.05, 0.05);
  REQUIRE(c.first_failure());
  CHECK(c.first_failure()->constructor == "reluF");
  CHECK(c.first_failure()->line == 32);
  CHECK(c.failed == 1);
}

TEST_CASE("agree: cifar8_train_step in f64, the conv bias steps compared though their ic is not printed, a changed bias rate fails there", "[agree][artifacts]") {
  SHLO_REQUIRE_ARTIFACTS(dir);
  const std::string text = read_file(dir + "/cifar8_train_step.mlir");
  const auto a = agree_on_text(F64Domain{}, text, text, 1, 0, 0.01);
  INFO(format_agreement(a));
  CHECK(a.pass());
  // convBiasSgd's ic, kH and kW are not printed; they size only its kernel and input fields,
  // which no text gives and den does not read, so the eight bias steps are judged.
  CHECK(a.not_comparable == 0);
  int bias_steps = 0;
  for (const auto& n : a.nodes) bias_steps += n.constructor == "convBiasSgd" && n.compared;
  CHECK(bias_steps == 8);
  // Control: the first bias step's learning rate (line 291) moves by one in its last digit.
  const std::string wrong =
      replace_once(text, "%v191 = stablehlo.constant dense<0.00078125> : tensor<16xf32>", "%v191 = stablehlo.constant dense<0.00078126> : tensor<16xf32>");
  const auto c = agree_on_text(F64Domain{}, text, wrong, 1, 0, 0.01);
  REQUIRE(c.first_failure());
  CHECK(c.first_failure()->constructor == "convBiasSgd");
  CHECK(c.first_failure()->line == 293);
  CHECK(c.failed == 1);
}

TEST_CASE("agree: a parameter the text does not print is set aside only when den reads nothing it sizes", "[agree]") {
  // convBiasSgd: ic, kH, kW size only the kernel and input fields, which no text gives.
  const CtorSpec* bias = find_constructor("convBiasSgd");
  REQUIRE(bias);
  CHECK_FALSE(den_reads_parameter(*bias, "ic"));
  CHECK_FALSE(den_reads_parameter(*bias, "kH"));
  CHECK(den_reads_parameter(*bias, "oc"));  // the result's length and the bias read from the text
  CHECK(den_reads_parameter(*bias, "h"));   // the child's length
  // Control: the weight step reads the kernel from the text, so its ic matters.
  const CtorSpec* weight = find_constructor("convWeightSgd");
  REQUIRE(weight);
  CHECK(den_reads_parameter(*weight, "ic"));
  CHECK_FALSE(den_reads_parameter(*weight, "ic_"));  // a name is matched whole
}

TEST_CASE("magnitude domain: M follows each rule on hand values", "[agree][magnitude]") {
  const MagnitudeDomain M;
  const auto x = MagnitudeDomain::leaf(3), y = MagnitudeDomain::leaf(-1), z = MagnitudeDomain::leaf(3);
  auto is = [](Magnitude a, double v, double m) { return a.v == v && a.m == m; };
  CHECK(is(x, 3, 3));
  CHECK(is(M.sub(x, z), 0, 6));         // cancellation: the terms' magnitudes
  CHECK(is(M.add(x, y), 2, 4));
  CHECK(is(M.mul(M.sub(x, z), y), 0, 6));
  CHECK(is(M.div(x, M.add(x, y)), 1.5, (3 + 1.5 * 4) / 2));  // (Ma + |v| Mb) / |b|
  CHECK(is(M.sqrt(MagnitudeDomain::leaf(4)), 2, 2));
  CHECK(is(M.sqrt(M.add(x, y)), std::sqrt(2.0), 4 / std::sqrt(2.0)));
  CHECK(is(M.max(y, M.sub(x, z)), 0, 6));
  CHECK(is(M.neg(y), 1, 1));
  Magnitude acc = MagnitudeDomain::leaf(0);
  M.mac(acc, x, y);
  M.mac(acc, z, MagnitudeDomain::leaf(1));
  CHECK(is(acc, 0, 6));  // 3 (-1) + 3 1: den on |inputs| would say 6 as well
  // A root of an exact 0 is exact; of a 0 that cancelled, no first-order bound exists.
  CHECK(is(M.sqrt(MagnitudeDomain::leaf(0)), 0, 0));
  CHECK_THROWS_AS(M.sqrt(M.sub(x, z)), DomainError);
  // Control: a sum without cancellation has M = |v|.
  CHECK(is(M.add(x, z), 6, 6));
}

TEST_CASE("agree: f64 allowance of a quotient of cancelled values (Adam's theta - lr dir with theta at lr dir), leaving out eps fails", "[agree][magnitude]") {
  // adamWParamF with g = 3: m' = 0.9 + 0.1 * 3 = 1.2, v' = 0.999 + 0.001 * 9 = 1.008,
  // dir = 1.2 / (sqrt(1.008) + 1e-8), and theta set to dir's double, lr = 1, wd = 0: the update
  // cancels to a few ulps of 1. den reads 1 - beta as 1 - 0.9 in f64, the text as the double
  // of 0.1, so the two land on different ulps.
  const double dir = (0.9 + 0.1 * 3) / (std::sqrt(0.999 + 0.001 * 9) + 1e-8);
  char theta[64];
  std::snprintf(theta, sizeof theta, "%.17g", dir);
  const Reals adam = {{"beta1", {"9/10"}}, {"beta2", {"999/1000"}}, {"eps", {"1e-8"}}, {"lr", {"1"}}, {"wd", {"0"}}, {"bc1", {"1"}},
                      {"bc2", {"1"}}, {"theta", {theta}}, {"m", {"1"}}, {"v", {"1"}}};
  const auto e = node("adamWParamF", {{"n", 1}}, adam, {leaf("%g", {"3"})}, {}, {1});
  const TextCase tc = text_case(*e);
  const Module m = parse_module(tc.text, "adam.mlir");
  const F64Domain F;
  std::vector<std::vector<Value<F64Domain>>> inputs(1);
  for (const auto& arg : m.function().arguments) {
    std::vector<double> v;
    for (const auto& q : tc.inputs[0].at(arg.name)) v.push_back(F.from_rational(q));
    inputs[0].push_back(Tensor<double>(Shape(arg.type.shape.begin(), arg.type.shape.end()), std::move(v)));
  }
  const auto a = agree_program(m, F, inputs, 1);
  INFO(format_agreement(a));
  REQUIRE(a.nodes.size() == 1);
  CHECK(a.pass());
  const double den = std::get<Tensor<double>>(den_program(m, F, inputs, 1)[0][0]).data.at(0);
  const double gap = a.nodes[0].max_difference;
  CHECK(den == std::ldexp(1.0, -52));
  CHECK(gap == std::ldexp(1.0, -52));  // the text's value is 0
  // Why the magnitude domain: every input is positive, so den on |inputs| is den itself, and
  // even with K = 1000 scalars that allowance, gamma_K (|den| + |text| + |den|), is far below the gap.
  const double gamma_1000 = 1000 * std::ldexp(1.0, -53) / (1 - 1000 * std::ldexp(1.0, -53));
  CHECK(gamma_1000 * (2 * std::fabs(den) + std::fabs(den - gap)) < gap * 1e-12);
  // Control: a text that leaves eps out of the denominator moves dir by a relative 1e-8.
  const Module wrong = parse_module(replace_once(tc.text, "stablehlo.divide %v13, %v18", "stablehlo.divide %v13, %v17"), "adam.mlir");
  const auto c = agree_program(m, F, inputs, 1, &wrong);
  REQUIRE(c.first_failure());
  CHECK(c.first_failure()->constructor == "adamWParamF");
  CHECK(c.first_failure()->max_difference > 1e-8);
}

TEST_CASE("agree: a shape parameter the text prints as 0 is a value (headSliceF at head 0)", "[agree]") {
  // head 0 of two heads of one row: the text slices [0:1], den reads u[0] = 1 (head 1 would be 2).
  const auto e = node("headSliceF", {{"tk", 1}, {"heads", 2}, {"d", 1}, {"head", 0}}, {}, {leaf("%x", {"1", "2"})});
  const TextCase tc = text_case(*e);
  const Module m = parse_module(tc.text, "heads.mlir");
  const ExactDomain E;
  std::vector<std::vector<Value<ExactDomain>>> inputs(1);
  std::vector<ExtRational> x;
  for (const auto& q : tc.inputs[0].at("%x")) x.push_back(E.from_rational(q));
  inputs[0].push_back(Tensor<ExtRational>({1, 2}, std::move(x)));
  const auto a = agree_program(m, E, inputs, 1);
  INFO(format_agreement(a));
  CHECK(a.pass());
  CHECK(a.compared == 1);
  CHECK(a.not_comparable == 0);
  // The template prints head (in the slice's bounds) but not convBiasSgd's ic.
  CHECK(template_prints(*find_constructor("headSliceF"), "head"));
  CHECK(template_prints(*find_constructor("batchOp/headSlice"), "head"));  // through the row it prints like
  CHECK_FALSE(template_prints(*find_constructor("convBiasSgd"), "ic"));
  CHECK(template_prints(*find_constructor("convBiasSgd"), "oc"));
  // Control: the text slicing head 1 disagrees with den at head 0.
  const Module wrong = parse_module(replace_once(tc.text, "[0:1, 0:1, 0:1]", "[0:1, 0:1, 1:2]"), "heads.mlir");
  const auto c = agree_program(m, E, inputs, 1, &wrong);
  REQUIRE(c.first_failure());
  CHECK(c.first_failure()->detail == "element 0: den = 1, text = 2");
}

namespace {
// A printer program at another batch size (ast/rebatch.hpp, `shlo rebatch`).
std::string rebatched(const std::string& text, std::int64_t batch) { return rebatch(parse_module(text, "sample.mlir"), batch).text; }
}  // namespace

TEST_CASE("agree: printer programs re-emitted at other batch sizes agree in f64, and a changed rate fails", "[agree][artifacts]") {
  SHLO_REQUIRE_ARTIFACTS(dir);
  const std::string step = read_file(dir + "/cifar8_train_step.mlir"), bn = read_file(dir + "/cifar8_bn_fwd.mlir");
  for (const std::int64_t batch : {1, 3}) {
    INFO("B = " << batch);
    const std::string text = rebatched(step, batch);
    CHECK(text.find("%x: tensor<" + std::to_string(batch) + "x3072xf32>") != std::string::npos);
    const auto a = agree_on_text(F64Domain{}, text, text, 1, 0, 0.01);
    INFO(format_agreement(a));
    CHECK(a.pass());
    CHECK(a.batch == batch);
    CHECK(a.compared == 77);
    const auto f = agree_on_text(F64Domain{}, rebatched(bn, batch), rebatched(bn, batch), 1, 0, 0.01);
    INFO(format_agreement(f));
    CHECK(f.pass());
    CHECK(f.compared == 36);
  }
  // Control: at B = 3, the first bias step's learning rate moved in its last digit.
  const std::string text = rebatched(step, 3);
  const std::string wrong =
      replace_once(text, "%v191 = stablehlo.constant dense<0.00078125> : tensor<16xf32>", "%v191 = stablehlo.constant dense<0.00078126> : tensor<16xf32>");
  const auto c = agree_on_text(F64Domain{}, text, wrong, 1, 0, 0.01);
  REQUIRE(c.first_failure());
  CHECK(c.first_failure()->constructor == "convBiasSgd");
  CHECK(c.failed == 1);
}
