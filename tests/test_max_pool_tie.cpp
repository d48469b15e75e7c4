// The 2x2 max-pool backward at a tie (issue 10): den gives the cotangent to every tied maximum
// (Lean's poolBack), the text's select_and_scatter with a GE selector to one, so a tied window
// records a "max-pool-tie" event, as the 3x3/s2 pool's den does, and `shlo agree` reports the
// node as not comparable instead of FAIL. The control, a window without a tie, is compared.
#include <catch2/catch.hpp>

#include "ast/mlir_parse.hpp"
#include "oracle/program_agree.hpp"
#include "oracle/text_case.hpp"
#include "tests/expr_support.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

// agree on the printed text of e, in exact, its text inputs the values den reads.
ProgramAgreement agree_on(const Expr& e) {
  const TextCase tc = text_case(e);
  const Module m = parse_module(tc.text, "pool.mlir");
  const ExactDomain E;
  std::vector<Value<ExactDomain>> inputs;
  for (const auto& arg : m.function().arguments) {
    std::vector<ExtRational> v;
    for (const auto& q : tc.inputs.at(0).at(arg.name)) v.push_back(E.from_rational(q));
    inputs.push_back(Tensor<ExtRational>(arg.type.shape, std::move(v)));
  }
  return agree_program(m, E, {inputs}, 1);
}

const Nats kOneWindowEach = {{"c", 1}, {"h", 1}, {"w", 2}};  // one channel, a 2 x 4 input, two windows

}  // namespace

TEST_CASE("maxPoolBack: a tied 2x2 window records max-pool-tie at its cotangent index", "[ctor-pool-tie]") {
  // Rows [1, 9, 3, 4], [9, 2, 0, 8]: window 0 holds 9 twice, window 1 has the single maximum 8.
  const Strings tied = {"1", "9", "3", "4", "9", "2", "0", "8"};
  std::vector<DenEvent> events;
  CHECK(den_exact(node("maxPoolBack", kOneWindowEach, {{"x", tied}}, {leaf("%d", {"10", "100"})}), &events) ==
        Strings{"0", "10", "0", "0", "10", "0", "0", "100"});  // both 9s receive 10 (every tied maximum)
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == "max-pool-tie");
  CHECK(events[0].index == 0);
  CHECK(events[0].constructor == "maxPoolBack");
  // Batched: the second example's window is tied; its index counts the first example's window.
  CHECK(den_exact(node("maxPoolBackB", {{"N", 2}, {"c", 1}, {"h", 1}, {"w", 1}}, {{"x", {"1", "5", "3", "2", "4", "4", "2", "1"}}},
                       {leaf("%d", {"7", "8"})}),
                  &events) == Strings{"0", "7", "0", "0", "8", "8", "0", "0"});
  REQUIRE(events.size() == 1);
  CHECK(events[0].index == 1);
  CHECK(events[0].constructor == "maxPoolBackB");

  // Control: distinct values in every window, no event.
  const Strings distinct = {"1", "9", "3", "4", "7", "2", "0", "8"};
  CHECK(den_exact(node("maxPoolBack", kOneWindowEach, {{"x", distinct}}, {leaf("%d", {"10", "100"})}), &events) ==
        Strings{"0", "10", "0", "0", "0", "0", "0", "100"});
  CHECK(events.empty());
}

TEST_CASE("agree: maxPoolBack with a tied window is not comparable, not a FAIL, and without a tie it is compared", "[agree][ctor-pool-tie]") {
  const Strings tied = {"1", "9", "3", "4", "9", "2", "0", "8"};
  const auto with_tie = agree_on(*node("maxPoolBack", kOneWindowEach, {{"x", tied}}, {leaf("%d", {"10", "100"})}, {{"xName", "%x"}}));
  INFO(format_agreement(with_tie));
  CHECK(with_tie.failed == 0);
  CHECK(with_tie.compared == 0);
  CHECK(with_tie.not_comparable == 1);
  REQUIRE(with_tie.nodes.size() == 1);
  CHECK(with_tie.nodes[0].constructor == "maxPoolBack");
  CHECK(with_tie.nodes[0].why_not.find("max-pool-tie") != std::string::npos);
  REQUIRE(with_tie.outputs.size() == 1);
  CHECK(with_tie.outputs[0].verdict == "N/C");

  // Control: no tie, the node is compared and agrees (8 elements).
  const Strings distinct = {"1", "9", "3", "4", "7", "2", "0", "8"};
  const auto without = agree_on(*node("maxPoolBack", kOneWindowEach, {{"x", distinct}}, {leaf("%d", {"10", "100"})}, {{"xName", "%x"}}));
  INFO(format_agreement(without));
  CHECK(without.pass());
  CHECK(without.compared == 1);
  CHECK(without.not_comparable == 0);
  CHECK(without.elements == 8);
  CHECK(without.outputs[0].verdict == "PASS");
}
