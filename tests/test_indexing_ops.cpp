// The indexing ops of issue 15 (dynamic_slice, dynamic_update_slice, gather, scatter), the
// shifts, all_reduce on integers and compare with TOTALORDER: parser (pretty and generic),
// printer round trip, the verifier's located errors, and values computed by hand in each
// domain, every check with a control that must fail.
#include <catch2/catch.hpp>

#include <algorithm>

#include "ast/mlir_print.hpp"
#include "interp/bound/bound.hpp"
#include "interp/cuda/backend.hpp"
#include "interp/cuda/executor.hpp"
#include "tests/typed_support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

std::string constant(const std::string& name, const std::string& value, const std::string& type) {
  return name + " = stablehlo.constant dense<" + value + "> : " + type;
}

// x.at[indices].OP(updates) on a rank-1 input (JAX's scatter of single elements): the body
// `body` ("add", ... or "set").
std::string scatter_1d(const std::string& body, const std::string& element, const std::string& input, const std::string& indices,
                       std::int64_t n_indices, const std::string& updates, std::int64_t n) {
  const std::string in = "tensor<" + std::to_string(n) + "x" + element + ">";
  const std::string idx = "tensor<" + std::to_string(n_indices) + "x1xi32>";
  const std::string upd = "tensor<" + std::to_string(n_indices) + "x" + element + ">";
  const std::string s = "tensor<" + element + ">";
  const std::string region = body == "set" ? "  stablehlo.return %new : " + s
                                           : "  %c = stablehlo." + body + " %old, %new : " + s + "\n      stablehlo.return %c : " + s;
  return program({constant("%x", input, in), constant("%i", indices, idx), constant("%u", updates, upd),
                  "%r = \"stablehlo.scatter\"(%x, %i, %u) <{indices_are_sorted = false, scatter_dimension_numbers = "
                  "#stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, "
                  "unique_indices = false}> ({\n    ^bb0(%old: " + s + ", %new: " + s + "):\n    " + region + "\n    }) : (" + in +
                      ", " + idx + ", " + upd + ") -> " + in},
                 in);
}

// jnp.take(table, indices, axis=0) on a 3x2 table: what JAX prints for x[i] with an index array.
std::string take_rows(const std::string& indices, std::int64_t n) {
  const std::string idx = "tensor<" + std::to_string(n) + "x1xi32>";
  const std::string out = "tensor<" + std::to_string(n) + "x2xf32>";
  return program({constant("%t", "[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]", "tensor<3x2xf32>"), constant("%i", indices, idx),
                  "%r = \"stablehlo.gather\"(%t, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims "
                  "= [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 2>}> "
                  ": (tensor<3x2xf32>, " + idx + ") -> " + out},
                 out);
}

}  // namespace

TEST_CASE("dynamic_slice: clamped starts, every element kind, any index type", "[indexing]") {
  const std::string grid = "[[0, 0, 1, 1], [0, 0, 1, 1], [0, 0, 0, 0], [0, 0, 0, 0]]";
  auto slice_at = [&](const std::string& i, const std::string& j) {
    return program({constant("%x", grid, "tensor<4x4xi32>"), constant("%i", i, "tensor<i64>"), constant("%j", j, "tensor<i64>"),
                    "%r = stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 2] : (tensor<4x4xi32>, tensor<i64>, tensor<i64>) -> "
                    "tensor<2x2xi32>"},
                   "tensor<2x2xi32>");
  };
  // spec example: start (-1, 3) clamps to (0, 2).
  CHECK(run_typed(E, slice_at("-1", "3")) == Strings{"1", "1", "1", "1"});
  CHECK(run_typed(F32, slice_at("-1", "3")) == Strings{"1", "1", "1", "1"});
  // control: an unclamped start elsewhere reads other elements.
  CHECK(run_typed(E, slice_at("1", "1")) == Strings{"0", "1", "0", "0"});

  // Floats, with an unsigned index beyond the end (255 clamps to 4 - 2 = 2).
  const std::string floats = program({constant("%x", "[1.5, 2.5, 3.5, 4.5]", "tensor<4xf32>"), constant("%i", "255", "tensor<ui8>"),
                                      "%r = stablehlo.dynamic_slice %x, %i, sizes = [2] : (tensor<4xf32>, tensor<ui8>) -> tensor<2xf32>"},
                                     "tensor<2xf32>");
  CHECK(run_typed(E, floats) == Strings{"7/2", "9/2"});
  CHECK(run_typed(F64, floats) == Strings{"3.5", "4.5"});
  CHECK(run_typed(MpfrDomain(24), floats) == Strings{"3.5", "4.5"});
  CHECK(run_typed(IntervalDomain(24), floats) == Strings{"[3.5, 3.5]", "[4.5, 4.5]"});
  // ui64 above INT64_MAX is still a large start (clamps to the end), not a negative one.
  auto one_at = [](const std::string& type, const std::string& i) {
    return program({constant("%x", "[10, 20, 30, 40]", "tensor<4xi32>"), constant("%i", i, type),
                    "%r = stablehlo.dynamic_slice %x, %i, sizes = [1] : (tensor<4xi32>, " + type + ") -> tensor<1xi32>"},
                   "tensor<1xi32>");
  };
  CHECK(run_typed(E, one_at("tensor<ui64>", "18446744073709551615")) == Strings{"40"});
  CHECK(run_typed(E, one_at("tensor<i64>", "-1")) == Strings{"10"});  // control: the signed -1 clamps to the start
  // i1 elements, and a slice of size 0.
  const std::string preds = program({constant("%x", "[true, false, true]", "tensor<3xi1>"), constant("%i", "1", "tensor<i32>"),
                                     "%r = stablehlo.dynamic_slice %x, %i, sizes = [2] : (tensor<3xi1>, tensor<i32>) -> tensor<2xi1>"},
                                    "tensor<2xi1>");
  CHECK(run_typed(E, preds) == Strings{"false", "true"});
  const std::string empty = program({constant("%x", "[1, 2]", "tensor<2xi8>"), constant("%i", "1", "tensor<i32>"),
                                     "%r = stablehlo.dynamic_slice %x, %i, sizes = [0] : (tensor<2xi8>, tensor<i32>) -> tensor<0xi8>"},
                                    "tensor<0xi8>");
  CHECK(run_typed(E, empty).empty());
  // The bound domain moves elements too.
  CHECK(run_typed(BoundDomain(float_profile("ieee")), floats).size() == 2);
}

TEST_CASE("dynamic_slice and dynamic_update_slice: verifier rules and the generic form", "[indexing]") {
  // C3: start indices of one type; the error is located at the instruction.
  const std::string mixed = program({constant("%x", "[[1, 2], [3, 4]]", "tensor<2x2xi32>"), constant("%i", "0", "tensor<i32>"),
                                     constant("%j", "0", "tensor<i64>"),
                                     "%r = stablehlo.dynamic_slice %x, %i, %j, sizes = [1, 1] : (tensor<2x2xi32>, tensor<i32>, "
                                     "tensor<i64>) -> tensor<1x1xi32>"},
                                    "tensor<1x1xi32>");
  CHECK_THROWS_WITH(parse_module(mixed, "test.mlir"), Catch::Contains("test.mlir:6:5:") && Catch::Contains("(C3)"));
  // C4: a size beyond the operand; C5: the result shape is slice_sizes.
  const std::string too_big = program({constant("%x", "[1, 2]", "tensor<2xi32>"), constant("%i", "0", "tensor<i32>"),
                                       "%r = stablehlo.dynamic_slice %x, %i, sizes = [3] : (tensor<2xi32>, tensor<i32>) -> tensor<3xi32>"},
                                      "tensor<3xi32>");
  CHECK_THROWS_WITH(parse_module(too_big, "test.mlir"), Catch::Contains("(C4)"));
  const std::string wrong_result = program({constant("%x", "[1, 2]", "tensor<2xi32>"), constant("%i", "0", "tensor<i32>"),
                                            "%r = stablehlo.dynamic_slice %x, %i, sizes = [1] : (tensor<2xi32>, tensor<i32>) -> "
                                            "tensor<2xi32>"},
                                           "tensor<2xi32>");
  CHECK_THROWS_WITH(parse_module(wrong_result, "test.mlir"), Catch::Contains("(C1, C5)"));
  // A float start index is refused; control: the same program with an integer index parses.
  const std::string float_index = "%r = stablehlo.dynamic_slice %x, %i, sizes = [1] : (tensor<2xi32>, tensor<f32>) -> tensor<1xi32>";
  CHECK_THROWS_WITH(parse_module(program({constant("%x", "[1, 2]", "tensor<2xi32>"), constant("%i", "0.0", "tensor<f32>"), float_index},
                                         "tensor<1xi32>"),
                                 "test.mlir"),
                    Catch::Contains("must be a rank-0 integer tensor"));
  // The spec's generic form, with the older dense spelling of slice_sizes.
  const std::string generic = program({constant("%x", "[[1, 2, 3], [4, 5, 6]]", "tensor<2x3xi32>"), constant("%i", "1", "tensor<i64>"),
                                       constant("%j", "1", "tensor<i64>"),
                                       "%r = \"stablehlo.dynamic_slice\"(%x, %i, %j) {slice_sizes = dense<[1, 2]> : tensor<2xi64>} : "
                                       "(tensor<2x3xi32>, tensor<i64>, tensor<i64>) -> tensor<1x2xi32>"},
                                      "tensor<1x2xi32>");
  CHECK(run_typed(E, generic) == Strings{"5", "6"});

  // dynamic_update_slice, spec example: start (-1, 3) clamps to (0, 2).
  auto update_at = [](const std::string& operand, const std::string& update, const std::string& i, const std::string& j) {
    return program({constant("%x", operand, "tensor<4x4xi32>"), constant("%u", update, "tensor<2x2xi32>"), constant("%i", i, "tensor<i64>"),
                    constant("%j", j, "tensor<i64>"),
                    "%r = stablehlo.dynamic_update_slice %x, %u, %i, %j : (tensor<4x4xi32>, tensor<2x2xi32>, tensor<i64>, tensor<i64>) -> "
                    "tensor<4x4xi32>"},
                   "tensor<4x4xi32>");
  };
  const std::string spec_operand = "[[1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 1, 1], [1, 1, 1, 1]]";
  CHECK(run_typed(E, update_at(spec_operand, "[[1, 1], [1, 1]]", "-1", "3")) == Strings(16, "1"));
  // control: at (1, 0) the update lands elsewhere.
  CHECK(run_typed(F64, update_at(spec_operand, "[[7, 8], [9, 6]]", "1", "0")) ==
        Strings{"1", "1", "0", "0", "7", "8", "0", "0", "9", "6", "1", "1", "1", "1", "1", "1"});
  // The operand is unchanged afterwards (values are immutable): return both.
  const std::string both =
      "module @m {\n  func.func @f() -> (tensor<3xf32>, tensor<3xf32>) {\n"
      "    %x = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>\n"
      "    %u = stablehlo.constant dense<[9.0]> : tensor<1xf32>\n"
      "    %i = stablehlo.constant dense<1> : tensor<ui32>\n"
      "    %r = \"stablehlo.dynamic_update_slice\"(%x, %u, %i) : (tensor<3xf32>, tensor<1xf32>, tensor<ui32>) -> tensor<3xf32>\n"
      "    return %x, %r : tensor<3xf32>, tensor<3xf32>\n  }\n}\n";
  const auto outputs = run_typed_all(F32, both);
  CHECK(outputs.at(0) == Strings{"1", "2", "3"});
  CHECK(outputs.at(1) == Strings{"1", "9", "3"});
  // C6: an update larger than the operand.
  const std::string larger = program({constant("%x", "[1, 2]", "tensor<2xi32>"), constant("%u", "[1, 2, 3]", "tensor<3xi32>"),
                                      constant("%i", "0", "tensor<i32>"),
                                      "%r = stablehlo.dynamic_update_slice %x, %u, %i : (tensor<2xi32>, tensor<3xi32>, tensor<i32>) -> "
                                      "tensor<2xi32>"},
                                     "tensor<2xi32>");
  CHECK_THROWS_WITH(parse_module(larger, "test.mlir"), Catch::Contains("(C6)"));
}

TEST_CASE("gather: jnp.take, clamping, an implicit index vector, verifier rules", "[indexing]") {
  CHECK(run_typed(E, take_rows("[[2], [0]]", 2)) == Strings{"5", "6", "1", "2"});
  CHECK(run_typed(F32, take_rows("[[2], [0]]", 2)) == Strings{"5", "6", "1", "2"});
  CHECK(run_typed(IntervalDomain(24), take_rows("[[1]]", 1)) == Strings{"[3.0, 3.0]", "[4.0, 4.0]"});
  // An index beyond the table clamps to the last row, a negative one to the first.
  CHECK(run_typed(E, take_rows("[[7], [-3]]", 2)) == Strings{"5", "6", "1", "2"});
  // control: in-range indices read the rows they name.
  CHECK(run_typed(E, take_rows("[[1], [1]]", 2)) == Strings{"3", "4", "3", "4"});
  // index_vector_dim = rank(start_indices): each index is a vector of one element.
  const std::string implicit = program({constant("%t", "[10, 20, 30]", "tensor<3xi64>"), constant("%i", "[[2, 0], [1, 1]]", "tensor<2x2xui8>"),
                                        "%r = \"stablehlo.gather\"(%t, %i) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = "
                                        "[0], start_index_map = [0], index_vector_dim = 2>, slice_sizes = array<i64: 1>} : "
                                        "(tensor<3xi64>, tensor<2x2xui8>) -> tensor<2x2xi64>"},
                                       "tensor<2x2xi64>");
  CHECK(run_typed(E, implicit) == Strings{"30", "10", "20", "20"});
  // C22: the result shape; the message names the rule and the location.
  const std::string wrong = program({constant("%t", "[10, 20, 30]", "tensor<3xi64>"), constant("%i", "[1]", "tensor<1xi32>"),
                                     "%r = \"stablehlo.gather\"(%t, %i) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], "
                                     "start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1>} : (tensor<3xi64>, "
                                     "tensor<1xi32>) -> tensor<2xi64>"},
                                    "tensor<2xi64>");
  CHECK_THROWS_WITH(parse_module(wrong, "test.mlir"), Catch::Contains("test.mlir:5:5:") && Catch::Contains("C22"));
  // C9: a collapsed dimension's slice size is at most 1; an unknown field is named.
  const std::string wide = program({constant("%t", "[10, 20, 30]", "tensor<3xi64>"), constant("%i", "[1]", "tensor<1xi32>"),
                                    "%r = \"stablehlo.gather\"(%t, %i) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], "
                                    "start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 2>} : (tensor<3xi64>, "
                                    "tensor<1xi32>) -> tensor<1xi64>"},
                                   "tensor<1xi64>");
  CHECK_THROWS_WITH(parse_module(wide, "test.mlir"), Catch::Contains("(C9)"));
  std::string typo = wrong;
  typo.replace(typo.find("start_index_map"), 15, "start_index_mop");
  CHECK_THROWS_WITH(parse_module(typo, "test.mlir"), Catch::Contains("unknown gather dimension numbers field 'start_index_mop'"));
  // The CUDA kernels hold no integer values, so a program with indices is refused at them, located.
  auto host = cuda::make_host_backend();
  CHECK_THROWS_WITH(cuda::run_on_backend(parse_module(take_rows("[[1]]", 1), "p.mlir"), *host, {{}}, 1),
                    Catch::Contains("p.mlir:4:5:") && Catch::Contains("is not supported by the CUDA backend"));
}

TEST_CASE("scatter: set and add bodies, order of updates, skipped targets", "[indexing]") {
  // x.at[[1, 1, 0]].add([5, 7, 2]) and .set(...): updates apply in row-major order.
  CHECK(run_typed(E, scatter_1d("add", "i32", "[0, 0, 0]", "[[1], [1], [0]]", 3, "[5, 7, 2]", 3)) == Strings{"2", "12", "0"});
  CHECK(run_typed(F32, scatter_1d("set", "i32", "[0, 0, 0]", "[[1], [1], [0]]", 3, "[5, 7, 2]", 3)) == Strings{"2", "7", "0"});
  // control: first-wins (the reverse order) would keep 5.
  CHECK(run_typed(F32, scatter_1d("set", "i32", "[0, 0, 0]", "[[1], [1], [0]]", 3, "[5, 7, 2]", 3)) != Strings{"2", "5", "0"});
  CHECK(run_typed(E, scatter_1d("maximum", "ui8", "[100, 0]", "[[0], [0]]", 2, "[200, 50]", 2)) == Strings{"200", "0"});
  CHECK(run_typed(E, scatter_1d("maximum", "i8", "[100, 0]", "[[0], [0]]", 2, "[-56, 50]", 2)) == Strings{"100", "0"});  // signed
  CHECK(run_typed(E, scatter_1d("or", "i1", "[false, false]", "[[1]]", 1, "[true]", 2)) == Strings{"false", "true"});
  // Out-of-bounds targets (3 and -1) are skipped, not clamped.
  CHECK(run_typed(E, scatter_1d("add", "i32", "[1, 1, 1]", "[[3], [-1], [2]]", 3, "[5, 7, 2]", 3)) == Strings{"1", "1", "3"});
  // Float sums follow the order: in f32 (1e8 + 1) rounds back to 1e8, exact keeps the 1.
  const std::string cancel = scatter_1d("add", "f32", "[0.0]", "[[0], [0], [0]]", 3, "[1.0e8, 1.0, -1.0e8]", 1);
  CHECK(run_typed(F32, cancel) == Strings{"0"});
  CHECK(run_typed(E, cancel) == Strings{"1"});
  CHECK(run_typed(F64, cancel) == Strings{"1"});
  CHECK(run_typed(MpfrDomain(53), cancel) == Strings{"1.0"});
  CHECK(run_typed(IntervalDomain(53), cancel) == Strings{"[1.0, 1.0]"});
  // The bound domain runs the set body (a movement) and refuses a combining one.
  CHECK(run_typed(BoundDomain(float_profile("ieee")), scatter_1d("set", "f32", "[0.0, 0.0]", "[[1]]", 1, "[2.0]", 2)).size() == 2);
  CHECK_THROWS_WITH(run_typed(BoundDomain(float_profile("ieee")), cancel), Catch::Contains("combining update_computation"));

  // A window partly outside: per element, as the spec's exec says (column 3 is skipped).
  const std::string window = program(
      {constant("%x", "[[0, 0, 0], [0, 0, 0]]", "tensor<2x3xi32>"), constant("%i", "[[2]]", "tensor<1x1xi32>"),
       constant("%u", "[[[1, 2], [3, 4]]]", "tensor<1x2x2xi32>"),
       "%r = \"stablehlo.scatter\"(%x, %i, %u) ({\n    ^bb0(%a: tensor<i32>, %b: tensor<i32>):\n      stablehlo.return %b : tensor<i32>\n    }) "
       "{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1, 2], scatter_dims_to_operand_dims = [1], "
       "index_vector_dim = 1>} : (tensor<2x3xi32>, tensor<1x1xi32>, tensor<1x2x2xi32>) -> tensor<2x3xi32>"},
      "tensor<2x3xi32>");
  CHECK(run_typed(E, window) == Strings{"0", "0", "1", "0", "0", "3"});

  // A body of two ops runs as a program: (old + new) + new, so 10 + 2 * 3 = 16.
  std::string two_ops = scatter_1d("add", "i32", "[10]", "[[0]]", 1, "[3]", 1);
  const std::string one_op = "  %c = stablehlo.add %old, %new : tensor<i32>\n";
  two_ops.replace(two_ops.find(one_op), one_op.size(),
                  "  %s = stablehlo.add %old, %new : tensor<i32>\n      %c = stablehlo.add %s, %new : tensor<i32>\n");
  CHECK(run_typed(E, two_ops) == Strings{"16"});
  CHECK(run_typed(F32, two_ops) == Strings{"16"});
  CHECK(run_typed(E, scatter_1d("add", "i32", "[10]", "[[0]]", 1, "[3]", 1)) == Strings{"13"});  // control: one add
  // Arguments in the other order (update - current) are another function, run as written.
  std::string swapped = scatter_1d("subtract", "i32", "[10]", "[[0]]", 1, "[3]", 1);
  swapped.replace(swapped.find("%old, %new :"), 12, "%new, %old :");
  CHECK(run_typed(E, swapped) == Strings{"-7"});
  CHECK(run_typed(E, scatter_1d("subtract", "i32", "[10]", "[[0]]", 1, "[3]", 1)) == Strings{"7"});  // control: in order
}

TEST_CASE("shift_left, shift_right_arithmetic, shift_right_logical", "[indexing]") {
  auto shift = [](const std::string& op, const std::string& type, const std::string& lhs, const std::string& rhs) {
    return program({constant("%a", lhs, type), constant("%b", rhs, type), "%r = stablehlo." + op + " %a, %b : " + type}, type);
  };
  // spec examples
  CHECK(run_typed(E, shift("shift_left", "tensor<3xi64>", "[-1, 0, 1]", "[1, 2, 3]")) == Strings{"-2", "0", "8"});
  CHECK(run_typed(F32, shift("shift_right_arithmetic", "tensor<3xi64>", "[-1, 0, 8]", "[1, 2, 3]")) == Strings{"-1", "0", "1"});
  CHECK(run_typed(F64, shift("shift_right_logical", "tensor<3xi64>", "[-1, 0, 8]", "[1, 2, 3]")) ==
        Strings{"9223372036854775807", "0", "1"});
  // Amounts at or above the width, and negative ones (read unsigned): every bit shifted out.
  CHECK(run_typed(E, shift("shift_left", "tensor<4xi8>", "[1, 1, 1, 3]", "[7, 8, -1, 100]")) == Strings{"-128", "0", "0", "0"});
  CHECK(run_typed(E, shift("shift_right_arithmetic", "tensor<4xi8>", "[-128, -128, 64, 64]", "[7, 100, 8, -2]")) ==
        Strings{"-1", "-1", "0", "0"});
  CHECK(run_typed(E, shift("shift_right_logical", "tensor<3xi8>", "[-1, -1, -1]", "[1, 8, 7]")) == Strings{"127", "0", "1"});
  // Unsigned: the logical shift fills with zeros, the arithmetic one repeats the top bit.
  CHECK(run_typed(E, shift("shift_right_logical", "tensor<2xui8>", "[255, 128]", "[1, 1]")) == Strings{"127", "64"});
  CHECK(run_typed(E, shift("shift_right_arithmetic", "tensor<2xui8>", "[255, 128]", "[1, 1]")) == Strings{"255", "192"});
  CHECK(run_typed(E, shift("shift_right_arithmetic", "tensor<ui32>", "2147483648", "31")) == Strings{"4294967295"});
  // control: a shift by less than the width keeps bits.
  CHECK(run_typed(E, shift("shift_left", "tensor<ui16>", "3", "14")) == Strings{"49152"});
  // Floats are refused by the verifier.
  CHECK_THROWS_WITH(parse_module(shift("shift_left", "tensor<2xf32>", "[1.0, 2.0]", "[1.0, 1.0]"), "test.mlir"),
                    Catch::Contains("must be integer"));
}

TEST_CASE("all_reduce on integers: exact, wrapping, signed or unsigned order", "[indexing]") {
  auto all_reduce = [](const std::string& body, const std::string& type) {
    const std::string s = "tensor<" + type.substr(type.find('x') + 1);
    return module_text("%x: " + type, type,
                       "    %r = \"stablehlo.all_reduce\"(%x) ({\n    ^bb0(%a: " + s + ", %b: " + s + "):\n      %c = stablehlo." + body +
                           " %a, %b : " + s + "\n      stablehlo.return %c : " + s + "\n    }) {replica_groups = dense<[[0, 1]]> : "
                           "tensor<1x2xi64>} : (" + type + ") -> " + type + "\n",
                       "%r");
  };
  // Replica 1's result, replicas 0 and 1 holding r0 and r1.
  auto run2 = [](const auto& d, const std::string& text, const Strings& r0, const Strings& r1) {
    return run_typed_replicas(d, text, {{r0}, {r1}}).at(1).at(0);
  };
  // add wraps: INT32_MAX + 1 = INT32_MIN.
  CHECK(run2(E, all_reduce("add", "tensor<3xi32>"), Strings{"2147483647", "-5", "7"}, Strings{"1", "3", "-9"}) ==
        Strings{"-2147483648", "-2", "-2"});
  CHECK(run2(F32, all_reduce("add", "tensor<3xi32>"), Strings{"2147483647", "-5", "7"}, Strings{"1", "3", "-9"}) ==
        Strings{"-2147483648", "-2", "-2"});
  // maximum: the order of the type (200 > 100 unsigned; the same bits are -56 < 100 signed).
  CHECK(run2(IntervalDomain(24), all_reduce("maximum", "tensor<2xui8>"), Strings{"200", "1"}, Strings{"100", "2"}) == Strings{"200", "2"});
  CHECK(run2(MpfrDomain(24), all_reduce("maximum", "tensor<2xi8>"), Strings{"-56", "1"}, Strings{"100", "2"}) == Strings{"100", "2"});
  CHECK(run2(F64, all_reduce("xor", "tensor<2xui16>"), Strings{"65280", "5"}, Strings{"4080", "5"}) == Strings{"61680", "0"});
  CHECK(run2(E, all_reduce("minimum", "tensor<1xi64>"), Strings{"-9"}, Strings{"4"}) == Strings{"-9"});
  // control: the f32 path of an integer all_reduce is not the float fold (1 + 2^24 is exact here).
  CHECK(run2(F32, all_reduce("add", "tensor<1xi64>"), Strings{"16777216"}, Strings{"1"}) == Strings{"16777217"});
}

TEST_CASE("compare with TOTALORDER", "[indexing]") {
  auto compare = [](const std::string& dir, const std::string& type, const std::string& lhs, const std::string& rhs,
                    const std::string& compare_type) {
    const std::string shape = type.substr(0, type.size() - 4);  // tensor<6x
    const std::string pred = shape + "i1>";
    return program({constant("%a", lhs, type), constant("%b", rhs, type),
                    "%r = stablehlo.compare " + dir + ", %a, %b, " + compare_type + " : (" + type + ", " + type + ") -> " + pred},
                   pred);
  };
  // -NaN < -inf, -inf < -1, -0 < +0, not +0 < -0, not NaN < inf, 1 < NaN.
  const std::string lhs = "[0xFFC00000, 0xFF800000, -0.0, 0.0, 0x7FC00000, 1.0]";
  const std::string rhs = "[0xFF800000, -1.0, 0.0, -0.0, 0x7F800000, 0x7FC00000]";
  const Strings total{"true", "true", "true", "false", "false", "true"};
  CHECK(run_typed(F32, compare("LT", "tensor<6xf32>", lhs, rhs, "TOTALORDER")) == total);
  CHECK(run_typed(F64, compare("LT", "tensor<6xf32>", lhs, rhs, "TOTALORDER")) == total);
  // control: FLOAT's quiet order says otherwise for the NaNs and the zeros.
  CHECK(run_typed(F32, compare("LT", "tensor<6xf32>", lhs, rhs, "FLOAT")) == Strings{"false", "true", "false", "false", "false", "false"});
  // EQ separates the zeros and matches a NaN with itself.
  CHECK(run_typed(F64, compare("EQ", "tensor<2xf64>", "[-0.0, 0x7FF8000000000000]", "[0.0, 0x7FF8000000000000]", "TOTALORDER")) ==
        Strings{"false", "true"});
  CHECK(run_typed(F64, compare("EQ", "tensor<2xf64>", "[-0.0, 0x7FF8000000000000]", "[0.0, 0x7FF8000000000000]", "FLOAT")) ==
        Strings{"true", "false"});
  // exact and interval have no signed zero: -0.0 is 0, and the order is FLOAT's.
  CHECK(run_typed(E, compare("LT", "tensor<2xf32>", "[-0.0, 1.0]", "[0.0, 2.0]", "TOTALORDER")) == Strings{"false", "true"});
  CHECK(run_typed(IntervalDomain(24), compare("GE", "tensor<2xf32>", "[-0.0, 1.0]", "[0.0, 2.0]", "TOTALORDER")) ==
        Strings{"true", "false"});
  // mpfr keeps the sign of zero, but a NaN's sign is not decided: refused.
  CHECK(run_typed(MpfrDomain(24), compare("LT", "tensor<2xf32>", "[-0.0, 1.0]", "[0.0, 2.0]", "TOTALORDER")) == Strings{"true", "true"});
  CHECK_THROWS_WITH(run_typed(MpfrDomain(24), compare("LT", "tensor<f32>", "0x7FC00000", "1.0", "TOTALORDER")),
                    Catch::Contains("TOTALORDER of a NaN"));
  // The bound domain (FLOAT's error analysis) refuses it.
  CHECK_THROWS_WITH(run_typed(BoundDomain(float_profile("ieee")), compare("LT", "tensor<f32>", "1.0", "2.0", "TOTALORDER")),
                    Catch::Contains("TOTALORDER is not supported in the"));
}

TEST_CASE("indexing ops print and parse back", "[indexing]") {
  const std::string text = program(
      {constant("%x", "[[1.0, 2.0], [3.0, 4.0]]", "tensor<2x2xf32>"), constant("%i", "1", "tensor<i32>"),
       constant("%k", "[[1], [0]]", "tensor<2x1xi64>"),
       "%s = stablehlo.dynamic_slice %x, %i, %i, sizes = [1, 1] : (tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<1x1xf32>",
       "%u = stablehlo.dynamic_update_slice %x, %s, %i, %i : (tensor<2x2xf32>, tensor<1x1xf32>, tensor<i32>, tensor<i32>) -> "
       "tensor<2x2xf32>",
       "%g = \"stablehlo.gather\"(%u, %k) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], "
       "start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = true, slice_sizes = array<i64: 1, 2>}> : "
       "(tensor<2x2xf32>, tensor<2x1xi64>) -> tensor<2x2xf32>",
       "%r = \"stablehlo.scatter\"(%g, %k, %g) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<"
       "update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, "
       "unique_indices = true}> ({\n    ^bb0(%p: tensor<f32>, %q: tensor<f32>):\n      %m = stablehlo.multiply %p, %q : tensor<f32>\n"
       "      stablehlo.return %m : tensor<f32>\n    }) : (tensor<2x2xf32>, tensor<2x1xi64>, tensor<2x2xf32>) -> tensor<2x2xf32>"},
      "tensor<2x2xf32>");
  const Module m = parse_module(text, "test.mlir");
  const std::string printed = print_module(m);
  const Module back = parse_module(printed, "printed.mlir");
  CHECK(back == m);
  CHECK(print_module(back) == printed);
  CHECK(printed.find("indices_are_sorted = true") != std::string::npos);
  CHECK(printed.find("unique_indices = true") != std::string::npos);
  // control: equality sees a changed attribute.
  Module changed = back;
  for (auto& item : changed.function().body)
    if (auto* inst = std::get_if<Instruction>(&item); inst && inst->op == Op::Gather) inst->attributes.indexing.index_vector_dim = 2;
  CHECK_FALSE(changed == m);
  // Values by hand: x = [[1,2],[3,4]]; s = [[4]]; u = x with u[1][1] = 4 (= x); g = rows [1, 0] of u
  // = [[3,4],[1,2]]; scatter multiplies row k[j] of g by g[j]: row 1 [1,2] *= [3,4] -> [3,8], row 0 [3,4] *= [1,2] -> [3,8].
  CHECK(run_typed(E, text) == Strings{"3", "8", "3", "8"});
  CHECK(run_typed(F32, printed) == Strings{"3", "8", "3", "8"});
}

namespace {

// A rank-1 scatter of single elements whose update_computation is `body` (lines after
// `^bb0(%old: tensor<B>, %new: tensor<B>):`, B the body's element type, which may be wider
// than the input's), returning a tensor of the body's type.
std::string scatter_1d_region(const std::string& body, const std::string& element, const std::string& body_element,
                              const std::string& input, const std::string& indices, const std::string& updates) {
  const auto count = [](const std::string& list) { return std::to_string(std::count(list.begin(), list.end(), ',') + 1); };
  const std::string in = "tensor<" + count(input) + "x" + element + ">";
  const std::string idx = "tensor<" + count(updates) + "x1xi32>";
  const std::string upd = "tensor<" + count(updates) + "x" + element + ">";
  const std::string out = "tensor<" + count(input) + "x" + body_element + ">";
  const std::string b = "tensor<" + body_element + ">";
  return program({constant("%x", input, in), constant("%i", indices, idx), constant("%u", updates, upd),
                  "%r = \"stablehlo.scatter\"(%x, %i, %u) ({\n    ^bb0(%old: " + b + ", %new: " + b + "):\n" + body +
                      "    }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], "
                      "scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (" + in + ", " + idx + ", " + upd + ") -> " + out},
                 out);
}

// new = old * 2 + update, of type T.
std::string twice_plus(const std::string& t) {
  return "      %two = stablehlo.constant dense<2> : " + t + "\n      %d = stablehlo.multiply %old, %two : " + t +
         "\n      %s = stablehlo.add %d, %new : " + t + "\n      stablehlo.return %s : " + t + "\n";
}

// Two inputs scattered together (values and their ids): the update wins where its value is
// greater, and brings its id (the running argmax of JAX's scatter-based segment ops).
std::string scatter_argmax(const std::string& region_types) {
  return "module @m {\n  func.func @f() -> (tensor<3xf32>, tensor<3xi32>) {\n"
         "    %v = stablehlo.constant dense<[1.0, 5.0, 2.0]> : tensor<3xf32>\n"
         "    %k = stablehlo.constant dense<[10, 11, 12]> : tensor<3xi32>\n"
         "    %i = stablehlo.constant dense<[[0], [1], [0]]> : tensor<3x1xi32>\n"
         "    %uv = stablehlo.constant dense<[4.0, 3.0, 0.5]> : tensor<3xf32>\n"
         "    %uk = stablehlo.constant dense<[20, 21, 22]> : tensor<3xi32>\n"
         "    %r:2 = \"stablehlo.scatter\"(%v, %k, %i, %uv, %uk) ({\n"
         "    ^bb0(" + region_types + "):\n"
         "      %gt = stablehlo.compare GT, %nv, %cv : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
         "      %mv = stablehlo.select %gt, %nv, %cv : tensor<i1>, tensor<f32>\n"
         "      %mk = stablehlo.select %gt, %nk, %ck : tensor<i1>, tensor<i32>\n"
         "      stablehlo.return %mv, %mk : tensor<f32>, tensor<i32>\n"
         "    }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
         "index_vector_dim = 1>} : (tensor<3xf32>, tensor<3xi32>, tensor<3x1xi32>, tensor<3xf32>, tensor<3xi32>) -> "
         "(tensor<3xf32>, tensor<3xi32>)\n"
         "    return %r#0, %r#1 : tensor<3xf32>, tensor<3xi32>\n  }\n}\n";
}
const std::string kArgmaxArguments = "%cv: tensor<f32>, %ck: tensor<i32>, %nv: tensor<f32>, %nk: tensor<i32>";

}  // namespace

TEST_CASE("scatter: an update_computation of several ops runs as a program, in row-major update order", "[indexing][scatter_body]") {
  // [1, 2, 3], targets 0, 2, 0 with 10, 20, 30: x[0] = 1*2+10 = 12, x[2] = 3*2+20 = 26, then
  // x[0] = 12*2+30 = 54.
  const std::string i32 = scatter_1d_region(twice_plus("tensor<i32>"), "i32", "i32", "[1, 2, 3]", "[[0], [2], [0]]", "[10, 20, 30]");
  CHECK(run_typed(E, i32) == Strings{"54", "2", "26"});
  CHECK(run_typed(F32, i32) == Strings{"54", "2", "26"});
  CHECK(run_typed(E, i32) != Strings{"74", "2", "26"});  // control: the last update first (1*2+30, then *2+10)
  const std::string f32 = scatter_1d_region(twice_plus("tensor<f32>"), "f32", "f32", "[1.0, 2.0, 3.0]", "[[0], [2], [0]]", "[10.0, 20.0, 30.0]");
  CHECK(run_typed(F32, f32) == Strings{"54", "2", "26"});
  CHECK(run_typed(E, f32) == Strings{"54", "2", "26"});
  CHECK(run_typed(IntervalDomain(64), f32) == Strings{"[5.4e1, 5.4e1]", "[2.0, 2.0]", "[2.6e1, 2.6e1]"});
  // An out-of-bounds target (5) is skipped by the region path too.
  CHECK(run_typed(E, scatter_1d_region(twice_plus("tensor<i32>"), "i32", "i32", "[1, 2]", "[[5], [1]]", "[7, 8]")) ==
        Strings{"1", "12"});
  // The region reads a value of the function (a capture): new = old + update * %k.
  const std::string captured = program(
      {constant("%x", "[1, 1]", "tensor<2xi32>"), constant("%i", "[[1]]", "tensor<1x1xi32>"), constant("%u", "[5]", "tensor<1xi32>"),
       constant("%k", "3", "tensor<i32>"),
       "%r = \"stablehlo.scatter\"(%x, %i, %u) ({\n    ^bb0(%old: tensor<i32>, %new: tensor<i32>):\n"
       "      %m = stablehlo.multiply %new, %k : tensor<i32>\n      %s = stablehlo.add %old, %m : tensor<i32>\n"
       "      stablehlo.return %s : tensor<i32>\n    }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], "
       "scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<2xi32>, tensor<1x1xi32>, tensor<1xi32>) -> tensor<2xi32>"},
      "tensor<2xi32>");
  CHECK(run_typed(E, captured) == Strings{"1", "16"});
  // The bound domain has no error model for a region run as a program.
  CHECK_THROWS_WITH(run_typed(BoundDomain(float_profile("ieee")), f32), Catch::Contains("not supported in the"));
}

TEST_CASE("scatter: several inputs and updates scattered together (variadic)", "[indexing][scatter_body]") {
  // Target 0: 4 > 1 takes (4, 20); target 1: 3 > 5 fails, keeps (5, 11); target 0: 0.5 > 4 fails.
  const std::string text = scatter_argmax(kArgmaxArguments);
  CHECK(run_typed_all(F32, text) == std::vector<Strings>{{"4", "5", "2"}, {"20", "11", "12"}});
  CHECK(run_typed_all(E, text) == std::vector<Strings>{{"4", "5", "2"}, {"20", "11", "12"}});
  // control: with the updates taken as the current values (a swapped argument order) the
  // last update of target 0 would lose to 4 and win over 1: another result.
  CHECK(run_typed_all(E, text) != std::vector<Strings>{{"0.5", "5", "2"}, {"22", "11", "12"}});
  // It prints and parses back to the same program.
  const std::string printed = print_module(parse_module(text, "test.mlir"));
  CHECK(print_module(parse_module(printed, "again.mlir")) == printed);
  CHECK(run_typed_all(E, printed) == std::vector<Strings>{{"4", "5", "2"}, {"20", "11", "12"}});

  // The region must take the inputs' types in order (current values, then updates).
  CHECK_THROWS_WITH(parse_module(scatter_argmax("%cv: tensor<f32>, %nv: tensor<f32>, %ck: tensor<i32>, %nk: tensor<i32>"), "v.mlir"),
                    Catch::Contains("v.mlir:8:") && Catch::Contains("stablehlo.scatter:") && Catch::Contains("(C23)"));
  std::string two_updates_of_one = text;
  two_updates_of_one.replace(two_updates_of_one.find("(%v, %k, %i, %uv, %uk)"), 22, "(%v, %k, %i, %uv)");
  const std::string five_types = "(tensor<3xf32>, tensor<3xi32>, tensor<3x1xi32>, tensor<3xf32>, tensor<3xi32>) ->";
  two_updates_of_one.replace(two_updates_of_one.find(five_types), five_types.size(),
                             "(tensor<3xf32>, tensor<3xi32>, tensor<3x1xi32>, tensor<3xf32>) ->");
  CHECK_THROWS_WITH(parse_module(two_updates_of_one, "v.mlir"), Catch::Contains("takes N inputs, scatter_indices and N updates"));
}

TEST_CASE("scatter: the update_computation may compute in a wider type (is_promotable)", "[indexing][promotable]") {
  // i8 input [100], two updates of 100 at index 0 summed in i32: 300, which i8 would wrap to 44.
  const std::string add = "      %s = stablehlo.add %old, %new : tensor<i32>\n      stablehlo.return %s : tensor<i32>\n";
  CHECK(run_typed(E, scatter_1d_region(add, "i8", "i32", "[100, 1]", "[[0], [0]]", "[100, 100]")) == Strings{"300", "1"});
  CHECK(run_typed(F32, scatter_1d_region(add, "i8", "i32", "[100, 1]", "[[0], [0]]", "[100, 100]")) == Strings{"300", "1"});
  const std::string add8 = "      %s = stablehlo.add %old, %new : tensor<i8>\n      stablehlo.return %s : tensor<i8>\n";
  CHECK(run_typed(E, scatter_1d_region(add8, "i8", "i8", "[100, 1]", "[[0], [0]]", "[100, 100]")) == Strings{"44", "1"});  // control
  // A narrower body, another kind, or a result of the input's type are refused, located.
  const std::string add16 = "      %s = stablehlo.add %old, %new : tensor<i16>\n      stablehlo.return %s : tensor<i16>\n";
  CHECK_THROWS_WITH(parse_module(scatter_1d_region(add8, "i16", "i8", "[1]", "[[0]]", "[1]"), "n.mlir"),
                    Catch::Contains("n.mlir:6:5: stablehlo.scatter:") && Catch::Contains("or a wider type of its kind"));
  const std::string addf = "      %s = stablehlo.add %old, %new : tensor<f32>\n      stablehlo.return %s : tensor<f32>\n";
  CHECK_THROWS_WITH(parse_module(scatter_1d_region(addf, "i16", "f32", "[1]", "[[0]]", "[1]"), "n.mlir"),
                    Catch::Contains("or a wider type of its kind"));
  std::string result_narrow = scatter_1d_region(add16, "i8", "i16", "[1]", "[[0]]", "[1]");
  result_narrow.replace(result_narrow.rfind("-> tensor<1xi16>"), 16, "-> tensor<1xi8>");
  CHECK_THROWS_WITH(parse_module(result_narrow, "n.mlir"), Catch::Contains("result 0 must be tensor<1xi16>"));
  CHECK_NOTHROW(parse_module(scatter_1d_region(add16, "i8", "i16", "[1]", "[[0]]", "[1]"), "n.mlir"));  // control
}
