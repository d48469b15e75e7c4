// The text layer: parse/print round trips and located errors for bad input.
#include <fstream>
#include <sstream>

#include "ast/mlir_parse.hpp"
#include "ast/mlir_print.hpp"
#include "tests/support.hpp"

using namespace shlo;
using shlo::test::parse_error_of;
using shlo::test::read_file;
using shlo::test::module_text;

namespace {

}  // namespace

TEST_CASE("every artifact parses, and printing reproduces it byte for byte", "[mlir][artifacts]") {
  SHLO_REQUIRE_ARTIFACTS(dir);
  int files = 0;
  for (const auto& path : shlo::test::mlir_files(dir)) {
    INFO(path);
    const std::string text = read_file(path);
    const Module m = parse_module(text, path);
    const std::string printed = print_module(m);
    CHECK(printed == text);
    CHECK(parse_module(printed) == m);  // parse(print(p)) == p
    ++files;
  }
  CHECK(files == 30);  // the ladder (13) and the second ladder of real networks (17)
}

TEST_CASE("forms the artifacts do not contain round-trip too", "[mlir]") {
  const std::string body =
      "    %v0 = stablehlo.slice %x [0:2, 1:4:2] : (tensor<3x4xf32>) -> tensor<2x2xf32>\n"
      "    %v1 = stablehlo.constant dense<-1.5> : tensor<f32>\n"
      "    %v2 = stablehlo.pad %v0, %v1, low = [1, 0], high = [0, 2], interior = [1, 1] : (tensor<2x2xf32>, tensor<f32>) -> tensor<4x5xf32>\n"
      "    %v3 = stablehlo.concatenate %v2, %v2, dim = 0 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<8x5xf32>\n"
      "    %v4 = stablehlo.iota dim = 1 : tensor<8x5xf32>\n"
      "    %v5 = stablehlo.minimum %v3, %v4 : tensor<8x5xf32>\n"
      "    %v6 = stablehlo.abs %v5 : tensor<8x5xf32>\n"
      "    %v7 = stablehlo.tanh %v6 : tensor<8x5xf32>\n"
      "    %v8 = stablehlo.logistic %v7 : tensor<8x5xf32>\n"
      "    %v9 = stablehlo.compare LT, %v8, %v7 : (tensor<8x5xf32>, tensor<8x5xf32>) -> tensor<8x5xi1>\n"
      "    %v10 = stablehlo.compare GE, %v8, %v7 : (tensor<8x5xf32>, tensor<8x5xf32>) -> tensor<8x5xi1>\n"
      "    %v11 = stablehlo.and %v9, %v10 : tensor<8x5xi1>\n"
      "    %v12 = stablehlo.select %v11, %v8, %v7 : tensor<8x5xi1>, tensor<8x5xf32>\n"
      "    %v13 = stablehlo.constant dense<[[1.0, 2.0], [3.0, 0x7F800000]]> : tensor<2x2xf32>\n"
      "    %v14 = stablehlo.dot_general %v13, %v13, batching_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2xf32>\n"
      "    %v15 = stablehlo.convert %v12 : (tensor<8x5xf32>) -> tensor<8x5xbf16>\n"
      "    %v16 = \"stablehlo.reduce_window\"(%v12, %v1) ({\n"
      "      ^bb0(%pa: tensor<f32>, %pb: tensor<f32>):\n"
      "        %pm = stablehlo.add %pa, %pb : tensor<f32>\n"
      "        stablehlo.return %pm : tensor<f32>\n"
      "    }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 1>, base_dilations = array<i64: 1, 2>, window_dilations = array<i64: 2, 1>, padding = dense<[[0, 0], [1, 1]]> : tensor<2x2xi64>} : (tensor<8x5xf32>, tensor<f32>) -> tensor<6x10xf32>\n";
  const std::string text = module_text("%x: tensor<3x4xf32>", "tensor<6x10xf32>", body, "%v16");
  const Module m = parse_module(text);
  CHECK(print_module(m) == text);
  CHECK(parse_module(print_module(m)) == m);
  CHECK(m.function().body.size() == 17);
}

TEST_CASE("bad input: each error names file, line, column and what was expected", "[mlir][errors]") {
  const std::string args = "%x: tensor<2x3xf32>";
  const std::string ty = "tensor<2x3xf32>";
  // unknown op
  CHECK(parse_error_of(module_text(args, ty, "    %v0 = stablehlo.frobnicate %x : tensor<2x3xf32>\n", "%v0")) ==
        "t.mlir:3:11: unsupported op 'stablehlo.frobnicate'");
  // undefined value
  CHECK(parse_error_of(module_text(args, ty, "    %v0 = stablehlo.add %x, %y : tensor<2x3xf32>\n", "%v0")) ==
        "t.mlir:3:29: use of undefined value %y (values must be defined before use)");
  // defined twice
  CHECK_THAT(parse_error_of(module_text(args, ty, "    %v0 = stablehlo.negate %x : tensor<2x3xf32>\n    %v0 = stablehlo.negate %x : tensor<2x3xf32>\n", "%v0")),
             Catch::StartsWith("t.mlir:4:5: redefinition of %v0 (first defined at line 3)"));
  // wrong type (operand type disagrees with its definition)
  CHECK_THAT(parse_error_of(module_text(args, "tensor<3x2xf32>", "    %v0 = stablehlo.negate %x : tensor<3x2xf32>\n", "%v0")),
             Catch::StartsWith("t.mlir:3:5: operand %x has type tensor<2x3xf32> but the instruction says tensor<3x2xf32>"));
  // shape mismatch (result type against the type rule)
  CHECK_THAT(parse_error_of(module_text(args, "tensor<3x3xf32>",
                                  "    %v0 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x3xf32>\n", "%v0")),
             Catch::StartsWith("t.mlir:3:5: stablehlo.transpose: the result type must be tensor<3x2xf32>, found tensor<3x3xf32>"));
  CHECK_THAT(parse_error_of(module_text(args, "tensor<2x4xf32>",
                                  "    %v0 = stablehlo.dot_general %x, %x, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x4xf32>\n", "%v0")),
             Catch::Contains("lhs dimension 1 (3) and rhs dimension 0 (2) must agree"));
  // bad attribute
  CHECK_THAT(parse_error_of(module_text(args, ty, "    %v0 = stablehlo.reverse %x, dims = [2] : tensor<2x3xf32>\n", "%v0")),
             Catch::StartsWith("t.mlir:3:5: stablehlo.reverse: dims entry 2 is out of range for rank 2"));
  CHECK_THAT(parse_error_of(module_text(args, "tensor<2x3xi1>", "    %v0 = stablehlo.compare GTE, %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>\n", "%v0")),
             Catch::Contains("unknown comparison direction 'GTE'"));
  CHECK_THAT(parse_error_of(module_text(args, ty, "    %v0 = stablehlo.add %x %x : tensor<2x3xf32>\n", "%v0")),
             Catch::StartsWith("t.mlir:3:28: expected ',', found '%x'"));
  // bad replica_groups
  const std::string all_reduce =
      "    %v0 = \"stablehlo.all_reduce\"(%x) ({\n    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
      "      %c = stablehlo.add %a, %b : tensor<f32>\n      stablehlo.return %c : tensor<f32>\n"
      "    }) { replica_groups = dense<[[0, 0]]> : tensor<1x2xi64> } : (tensor<2x3xf32>) -> tensor<2x3xf32>\n";
  CHECK_THAT(parse_error_of(module_text(args, ty, all_reduce, "%v0")),
             Catch::StartsWith("t.mlir:3:5: stablehlo.all_reduce: replica 0 is negative or in two groups"));
  std::string ragged = all_reduce;
  ragged.replace(ragged.find("[[0, 0]]"), 8, "[[0, 1], [2]]");
  CHECK_THAT(parse_error_of(module_text(args, ty, ragged, "%v0")), Catch::Contains("ragged dense literal"));
  // truncated file
  const std::string whole = module_text(args, ty, "    %v0 = stablehlo.negate %x : tensor<2x3xf32>\n", "%v0");
  for (std::size_t cut : {std::size_t(0), std::size_t(10), whole.size() / 2, whole.size() - 3}) {
    INFO("cut at " << cut);
    CHECK_THAT(parse_error_of(whole.substr(0, cut)), Catch::StartsWith("t.mlir:") && Catch::Contains("expected"));
  }
  CHECK(parse_error_of(whole).empty());  // control: the whole text parses
}

TEST_CASE("no input crashes or hangs the parser", "[mlir][errors]") {
  SHLO_REQUIRE_ARTIFACTS(dir);
  // Every prefix of a real program, and every single-byte corruption of its first 3000
  // bytes, is either parsed or rejected with a located error.
  const std::string text = read_file(dir + "/cnn_fwd.mlir");
  int rejected = 0;
  for (std::size_t cut = 0; cut < text.size(); cut += 7) rejected += !parse_error_of(text.substr(0, cut)).empty();
  CHECK(rejected == static_cast<int>((text.size() + 6) / 7));
  for (std::size_t i = 0; i < std::min<std::size_t>(text.size(), 3000); i += 3) {
    std::string bad = text;
    bad[i] = "}%x:\"[0"[i % 7];
    try {
      parse_module(bad, "t.mlir");
    } catch (const ParseError& e) {
      CHECK_THAT(std::string(e.what()), Catch::StartsWith("t.mlir:"));
    }
  }
}
