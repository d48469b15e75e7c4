// interpreter.run_parallel (docs/mlir-forms.md section 13.1): the StableHLO interpreter's way to
// run a function as a grid of processes, with collectives inside. Read, printed and verified as
// the interpreter dialect defines it; run over the replica loop for a one-column grid of one
// function; every other grid, and the all_reduce forms outside the spec, refused where written.
// The runs of the interpreter's own all_reduce tests are tests/shlo_test/outside/all_reduce_parallel.mlir.
#include "ast/mlir_parse.hpp"
#include "ast/mlir_print.hpp"
#include "interp/domain/domain_spec.hpp"
#include "interp/memory.hpp"
#include "interp/run.hpp"
#include "oracle/check_dialect.hpp"
#include "tests/support.hpp"

using namespace shlo;
using shlo::test::parse_error_of;
using shlo::test::replaced;

namespace {

std::vector<TestOutcome> run_tests(const std::string& text) { return run_test_file(text, "t.mlir", parse_domain("exact")); }

// @sum adds its operand over replica groups GROUPS; @main runs it on a grid GRID with OPERANDS.
const std::string kProgram =
    "func.func private @sum(%x: tensor<2xi32>) -> tensor<2xi32> {\n"
    "  %r = \"stablehlo.all_reduce\"(%x) ({\n"
    "    ^bb0(%a: tensor<i32>, %b: tensor<i32>):\n"
    "      %s = stablehlo.add %a, %b : tensor<i32>\n"
    "      stablehlo.return %s : tensor<i32>\n"
    "  }) {replica_groups = GROUPS} : (tensor<2xi32>) -> tensor<2xi32>\n"
    "  return %r : tensor<2xi32>\n"
    "}\n"
    "func.func private @twice(%x: tensor<2xi32>) -> tensor<2xi32> {\n"
    "  %r = stablehlo.add %x, %x : tensor<2xi32>\n"
    "  return %r : tensor<2xi32>\n"
    "}\n"
    "func.func @main() {\n"
    "  %p0 = stablehlo.constant dense<[1, -2]> : tensor<2xi32>\n"
    "  %p1 = stablehlo.constant dense<[10, 20]> : tensor<2xi32>\n"
    "  %r:2 = \"interpreter.run_parallel\"(%p0, %p1) {programs = GRID} : (tensor<2xi32>, tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>)\n"
    "  check.expect_eq_const %r#0, dense<WANT0> : tensor<2xi32>\n"
    "  check.expect_eq_const %r#1, dense<WANT1> : tensor<2xi32>\n"
    "  func.return\n"
    "}\n";

std::string program(const std::string& grid, const std::string& groups = "dense<[[0, 1]]> : tensor<1x2xi64>",
                    const std::string& want0 = "[11, 18]", const std::string& want1 = "[11, 18]") {
  return replaced(replaced(replaced(replaced(kProgram, "GROUPS", groups), "GRID", grid), "WANT0", want0), "WANT1", want1);
}

TestOutcome only(const std::vector<TestOutcome>& outcomes) {
  REQUIRE(outcomes.size() == 1);
  return outcomes[0];
}

}  // namespace

TEST_CASE("run_parallel runs one function per replica, with the operands and results process by process", "[run_parallel]") {
  // [1, -2] + [10, 20] = [11, 18] on both replicas
  CHECK(only(run_tests(program("[[@sum], [@sum]]"))).status == TestOutcome::Status::Pass);
  // one group per replica: each keeps its own operand, in its own place among the results
  CHECK(only(run_tests(program("[[@sum], [@sum]]", "dense<[[0], [1]]> : tensor<2x1xi64>", "[1, -2]", "[10, 20]"))).status ==
        TestOutcome::Status::Pass);
  // a function without collectives, on each process's own operand
  CHECK(only(run_tests(program("[[@twice], [@twice]]", "dense<[[0, 1]]> : tensor<1x2xi64>", "[2, -4]", "[20, 40]"))).status ==
        TestOutcome::Status::Pass);
  // control: the results swapped fail at the first check, index 0
  const TestOutcome swapped = only(run_tests(program("[[@sum], [@sum]]", "dense<[[0], [1]]> : tensor<2x1xi64>", "[10, 20]", "[1, -2]")));
  CHECK(swapped.status == TestOutcome::Status::Fail);
  CHECK(swapped.detail == "check.expect_eq_const at line 17: index [0], got 1, expected 10");
}

TEST_CASE("run_parallel prints back as it reads, in either attribute place", "[run_parallel]") {
  const Module m = parse_module(program("[[@sum], [@sum]]"), "t.mlir");
  const auto* call = std::get_if<Call>(&m.functions[2].body[2]);
  REQUIRE(call);
  CHECK(call->programs == std::vector<std::vector<std::string>>{{"sum"}, {"sum"}});
  CHECK(call->operands == std::vector<std::string>{"%p0", "%p1"});
  CHECK(call->results == std::vector<std::string>{"%r#0", "%r#1"});
  const std::string printed = print_module(m);
  CHECK(printed.find("%r:2 = \"interpreter.run_parallel\"(%p0, %p1) {programs = [[@sum], [@sum]]} : (tensor<2xi32>, tensor<2xi32>) -> "
                     "(tensor<2xi32>, tensor<2xi32>)\n") != std::string::npos);
  CHECK(parse_module(printed, "t.mlir") == m);
  // the properties form reads to the same op
  const std::string properties = replaced(program("[[@sum], [@sum]]"), "{programs = [[@sum], [@sum]]}", "<{programs = [[@sum], [@sum]]}>");
  CHECK(parse_module(properties, "t.mlir") == m);
}

TEST_CASE("run_parallel's own rules are located parse errors", "[run_parallel]") {
  CHECK(parse_error_of(program("[[@sum], [@nope]]")) == "t.mlir:16:3: interpreter.run_parallel: program @nope is not a function of the module");
  CHECK(parse_error_of(program("[[@sum, @sum], [@sum]]")) ==
        "t.mlir:16:3: interpreter.run_parallel: every row of `programs` (a replica) needs the same number of programs (partitions): row "
        "0 has 2, row 1 has 1");
  // three processes for two operands
  CHECK(parse_error_of(program("[[@sum], [@sum], [@sum]]")) ==
        "t.mlir:16:3: interpreter.run_parallel: the programs take (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) in turn (replica-major), "
        "the op passes (tensor<2xi32>, tensor<2xi32>)");
  CHECK(parse_error_of(replaced(program("[[@sum], [@sum]]"), "{programs", "{infeed = [@q], programs")) ==
        "t.mlir:16:48: interpreter.run_parallel with `infeed` (the processes' infeed queues) is not supported: no op here reads an infeed");
  // control: the well-formed grid parses
  CHECK(parse_error_of(program("[[@sum], [@sum]]")).empty());
}

TEST_CASE("run_parallel grids beyond one column of one function are refused where written", "[run_parallel]") {
  const TestOutcome partitions = only(run_tests(program("[[@sum, @sum]]")));
  CHECK(partitions.status == TestOutcome::Status::Error);
  CHECK(partitions.detail ==
        "t.mlir:16:3: interpreter.run_parallel: a grid of 1 x 2 programs (replicas x partitions): only one partition per replica "
        "(programs = [[@f], [@f], ...]) runs here");
  const TestOutcome mpmd = only(run_tests(program("[[@sum], [@twice]]")));
  CHECK(mpmd.status == TestOutcome::Status::Error);
  CHECK(mpmd.detail ==
        "t.mlir:16:3: interpreter.run_parallel: different programs per process (@sum and @twice): only one program for every process "
        "(SPMD) runs here, the replicas in lockstep");
}

TEST_CASE("all_reduce forms outside the spec stay refused, naming the rule or the form", "[run_parallel]") {
  // the interpreter's ragged groups pad with -1: the spec's C3 (0 <= replica_groups) has no padding
  const std::string ragged = parse_error_of(program("[[@sum], [@sum]]", "dense<[[0, 1], [2, -1]]> : tensor<2x2xi64>"));
  CHECK(ragged.starts_with("t.mlir:2:"));
  CHECK(ragged.find("the spec's all_reduce C3 (0 <= replica_groups) allows no padding") != std::string::npos);
  const std::string mesh = parse_error_of(program(
      "[[@sum], [@sum]]",
      "#stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = \"x\", size = 2>]>, axes = "
      "[#stablehlo.axis_ref<name = \"x\">]>"));
  CHECK(mesh.starts_with("t.mlir:6:24: replica_groups in the mesh-axes form #stablehlo.replica_group_mesh_axes<...> is not supported"));
}

TEST_CASE("the memory estimate and the run count every process of a run_parallel", "[run_parallel][memory]") {
  const Module m = parse_module(R"(func.func @main(%x0: tensor<4xf32>, %x1: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = "interpreter.run_parallel"(%x0, %x1) {programs = [[@big], [@big]]} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}
func.func private @big(%a: tensor<4xf32>) -> tensor<4xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<4xf32>) -> tensor<1000x4xf32>
  %s = stablehlo.reduce(%b init: %z) applies stablehlo.add across dimensions = [0] : (tensor<1000x4xf32>, tensor<f32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}
)",
                                "grid.mlir");
  // By hand, 4 bytes per f32 scalar: one process of @big peaks at %a 16 + %z 4 + %b 16000 =
  // 16020; two side by side 32040; @main's %x0 and %x1 (32) are live beside them: 32072.
  CHECK(estimate_peak_memory(m, 4, 1).peak_bytes == 32072);
  const auto run = run_program(m, F32Domain(), {{Tensor<float>({4}, {1, 2, 3, 4}), Tensor<float>({4}, {-1, 0, 0.5, 8})}}, RunOptions{});
  CHECK(run.peak_live_bytes == 32072);
  // each process sums 1000 copies of its own operand
  CHECK(std::get<Tensor<float>>(run.outputs[0][0]).to_vector() == std::vector<float>{1000, 2000, 3000, 4000});
  CHECK(std::get<Tensor<float>>(run.outputs[0][1]).to_vector() == std::vector<float>{-1000, 0, 500, 8000});
  // control: a grid of one process counts @big once: 16020 + @main's %x0 and %x1 (returned) 32
  std::string one = print_module(m);
  one = replaced(one, "(%x0, %x1) {programs = [[@big], [@big]]} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)",
                 "(%x0) {programs = [[@big]]} : (tensor<4xf32>) -> (tensor<4xf32>)");
  one = replaced(replaced(one, "%r:2", "%r:1"), "return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>", "return %r#0, %x1 : tensor<4xf32>, tensor<4xf32>");
  CHECK(estimate_peak_memory(parse_module(one, "grid.mlir"), 4, 1).peak_bytes == 16052);
}
