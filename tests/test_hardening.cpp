// Hostile input below the command line: shape arithmetic, literals, nesting limits, .npy
// headers, the memory estimate. Each case is a reproducer of a crash or a silent wrong answer
// (tests/cli_hardening_test.sh has the command-line ones), with a control that must pass.
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "ast/expr_json.hpp"
#include "ast/mlir_parse.hpp"
#include "interp/memory.hpp"
#include "interp/npy.hpp"
#include "oracle/text_case.hpp"
#include "tests/expr_support.hpp"
#include "tests/support.hpp"

using namespace shlo;
using Catch::Contains;

namespace {

// A module around one function body.
std::string module_text(const std::string& signature, const std::string& result, const std::string& body) {
  return "module @m {\n  func.func @f(" + signature + ") -> " + result + " {\n" + body + "  }\n}\n";
}

std::string temp_path(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / "shlo_hardening_test";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

}  // namespace

TEST_CASE("shape arithmetic in the verifier never wraps", "[hardening][verify]") {
  // A reshape whose result count wraps to 4 once verified and a slice then read past the buffer.
  CHECK_THROWS_WITH(parse_module(module_text("%x: tensor<4xf32>", "tensor<4x4611686018427387905xf32>",
                                             "    %v0 = stablehlo.reshape %x : (tensor<4xf32>) -> tensor<4x4611686018427387905xf32>\n"
                                             "    return %v0 : tensor<4x4611686018427387905xf32>\n"),
                                 "r.mlir"),
                    Contains("r.mlir:2:47: the tensor type has more elements than a 64-bit count holds"));
  // Control: the largest representable count is accepted.
  CHECK_NOTHROW(parse_module(module_text("%x: tensor<3074457345618258602x3xf32>", "tensor<3074457345618258602x3xf32>",
                                         "    return %x : tensor<3074457345618258602x3xf32>\n"),
                             "ok.mlir"));
  // Pad with interior INT64_MAX verified as a 1-element result.
  CHECK_THROWS_WITH(parse_module(module_text("%x: tensor<2xf32>, %z: tensor<f32>", "tensor<1xf32>",
                                             "    %v0 = stablehlo.pad %x, %z, low = [0], high = [0], interior = [9223372036854775807]"
                                             " : (tensor<2xf32>, tensor<f32>) -> tensor<1xf32>\n    return %v0 : tensor<1xf32>\n"),
                                 "p.mlir"),
                    Contains("p.mlir:3:5: stablehlo.pad: the padded size of dimension 0 does not fit in 64 bits"));
  // Control: an honest interior padding still gives its size, 2 + 1 * 3 = 5.
  CHECK_NOTHROW(parse_module(module_text("%x: tensor<2xf32>, %z: tensor<f32>", "tensor<5xf32>",
                                         "    %v0 = stablehlo.pad %x, %z, low = [0], high = [0], interior = [3]"
                                         " : (tensor<2xf32>, tensor<f32>) -> tensor<5xf32>\n    return %v0 : tensor<5xf32>\n"),
                             "p.mlir"));
  // A slice stride near INT64_MAX: ceil((3 - 1) / stride) = 1 element, no overflow.
  const auto slice = [](const std::string& result) {
    return parse_module(module_text("%x: tensor<3xf32>", result,
                                    "    %v0 = stablehlo.slice %x [1:3:9223372036854775807] : (tensor<3xf32>) -> " + result +
                                        "\n    return %v0 : " + result + "\n"),
                        "s.mlir");
  };
  CHECK_NOTHROW(slice("tensor<1xf32>"));
  CHECK_THROWS_WITH(slice("tensor<0xf32>"), Contains("the result type must be tensor<1xf32>"));
  // Convolution: a dilation that wraps.
  CHECK_THROWS_WITH(parse_module(module_text("%x: tensor<1x1x4xf32>, %w: tensor<1x1x2xf32>", "tensor<1x1x3xf32>",
                                             "    %v0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0],"
                                             " window = {lhs_dilate = [4611686018427387904]} {batch_group_count = 1 : i64,"
                                             " feature_group_count = 1 : i64} : (tensor<1x1x4xf32>, tensor<1x1x2xf32>) -> tensor<1x1x3xf32>\n"
                                             "    return %v0 : tensor<1x1x3xf32>\n"),
                                 "c.mlir"),
                    Contains("stablehlo.convolution: the padded size of spatial dimension 0 does not fit in 64 bits"));
}

TEST_CASE("literals the interpreter cannot read are verify errors", "[hardening][verify]") {
  auto constant = [](const std::string& literal, const std::string& type) {
    return parse_module(module_text("", type, "    %v0 = stablehlo.constant " + literal + " : " + type + "\n    return %v0 : " + type + "\n"),
                        "k.mlir");
  };
  CHECK_THROWS_WITH(constant("dense<0x123456789ABCDEF0123>", "tensor<f32>"),
                    Contains("k.mlir:3:5: stablehlo.constant: hex literal '0x123456789ABCDEF0123' has more than the 8 digits of f32"));
  CHECK_THROWS_WITH(constant("dense<0x123456789>", "tensor<f32>"), Contains("more than the 8 digits"));
  CHECK_NOTHROW(constant("dense<0x0000FF800000>", "tensor<f32>"));   // leading zeros do not count
  CHECK_NOTHROW(constant("dense<0x7FF0000000000000>", "tensor<f64>"));
  CHECK_THROWS_WITH(constant("dense<0x7F800>", "tensor<bf16>"), Contains("more than the 4 digits of bf16"));
  CHECK_THROWS_WITH(constant("dense<2>", "tensor<i1>"), Contains("an i1 constant must be true or false, found '2'"));
  // [[1, 2], 3]: rows of equal length, yet 3 elements where the nesting promises 4.
  CHECK_THROWS_WITH(constant("dense<[[1.0, 2.0], 3.0]>", "tensor<2x2xf32>"),
                    Contains("k.mlir:3:36: ragged dense literal: 3 element(s) in a nesting of 4"));
  CHECK_NOTHROW(constant("dense<[[1.0, 2.0], [3.0, 4.0]]>", "tensor<2x2xf32>"));
}

TEST_CASE("ops the interpreter cannot run on their element type are verify errors", "[hardening][verify]") {
  // compare and select on i1 run since integer and boolean types exist (tests/test_int_types.cpp);
  // a float-only op on i1 or an integer type is still a located verify error.
  CHECK_THROWS_WITH(parse_module(module_text("%p: tensor<2xi1>", "tensor<2xi1>",
                                             "    %v0 = stablehlo.tanh %p : tensor<2xi1>\n"
                                             "    return %v0 : tensor<2xi1>\n"),
                                 "c.mlir"),
                    Contains("c.mlir:3:5: stablehlo.tanh: the element type of operand %p must be float, found tensor<2xi1>"));
  CHECK_THROWS_WITH(parse_module(module_text("%p: tensor<2xi32>", "tensor<2xi32>",
                                             "    %v0 = stablehlo.sqrt %p : tensor<2xi32>\n"
                                             "    return %v0 : tensor<2xi32>\n"),
                                 "s.mlir"),
                    Contains("stablehlo.sqrt: the element type of operand %p must be float"));
  CHECK_THROWS_WITH(parse_module(module_text("", "tensor<3xi1>", "    %v0 = stablehlo.iota dim = 0 : tensor<3xi1>\n    return %v0 : tensor<3xi1>\n"),
                                 "i.mlir"),
                    Contains("stablehlo.iota: the result must have an integer or float element type"));
  CHECK_NOTHROW(parse_module(module_text("%x: tensor<2xf32>", "tensor<2xi1>",
                                         "    %v0 = stablehlo.compare LT, %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>\n"
                                         "    return %v0 : tensor<2xi1>\n"),
                             "ok.mlir"));
}

TEST_CASE("replica_groups with an empty row and a literal: an error, not a division by zero", "[hardening][mlir]") {
  const std::string region =
      "    %v0 = \"stablehlo.all_reduce\"(%x) ({\n    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
      "      %c = stablehlo.add %a, %b : tensor<f32>\n      stablehlo.return %c : tensor<f32>\n    }) {replica_groups = ";
  auto with_groups = [&](const std::string& groups) {
    return parse_module(module_text("%x: tensor<2xf32>", "tensor<2xf32>", region + groups + "} : (tensor<2xf32>) -> tensor<2xf32>\n"
                                                                         "    return %v0 : tensor<2xf32>\n"),
                        "g.mlir");
  };
  CHECK_THROWS_WITH(with_groups("dense<[[], 5]> : tensor<2x0xi64>"), Contains("g.mlir:7:32: ragged dense literal: 1 element(s) in a nesting of 0"));
  CHECK_THROWS_WITH(with_groups("dense<[[99999999999999999999]]> : tensor<1x1xi64>"), Contains("expected a 64-bit integer"));
  CHECK(with_groups("dense<[[0, 1]]> : tensor<1x2xi64>").function().body.size() == 1);
}

TEST_CASE("nested regions stop at a located limit, not at the stack's end", "[hardening][mlir]") {
  auto nested = [](int depth) {
    std::string body;
    // Each op reads the block argument %a of the region around it (regions are isolated).
    for (int i = 0; i < depth; ++i) body += "%v = \"stablehlo.all_reduce\"(%a) ({ ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n";
    return module_text("%a: tensor<f32>", "tensor<f32>", body + "return %v : tensor<f32>\n");
  };
  CHECK_THROWS_WITH(parse_module(nested(5000), "d.mlir"), Contains("d.mlir:35:6: regions nested more than 32 deep"));
  // Control: at the limit the parser goes on and fails on the body instead.
  CHECK_THROWS_WITH(parse_module(nested(32), "d.mlir"), !Contains("nested"));
}

TEST_CASE("a program file that is missing or not a regular file: its reason", "[hardening][mlir]") {
  CHECK_THROWS_WITH(parse_module_file(temp_path("missing.mlir")), Contains("missing.mlir:0:0: cannot open file: No such file or directory"));
  CHECK_THROWS_WITH(parse_module_file(std::filesystem::temp_directory_path().string()), Contains("not a regular file"));
}

TEST_CASE("deep expressions are refused by the JSON reader and by text_case", "[hardening][expr]") {
  auto chain = [](int depth) {
    nlohmann::json j = {{"constructor", "operand"}, {"nats", {{"n", 1}}}, {"strings", {{"name", "%x"}}}, {"reals", {{"v", {"1"}}}}};
    for (int i = 0; i < depth; ++i) j = {{"constructor", "expe"}, {"nats", {{"n", 1}}}, {"children", nlohmann::json::array({j})}};
    return j;
  };
  CHECK_THROWS_WITH(expr_from_json(chain(kMaxExprDepth + 1)), Contains("expression nested more than 200 deep"));
  REQUIRE_NOTHROW(expr_from_json(chain(kMaxExprDepth)));
  // The same depth built in memory reaches text_case's walk, which refuses it too.
  ExprPtr e = test::leaf("%x", {"1"});
  for (int i = 0; i < kMaxExprDepth + 1; ++i) e = test::node("expe", {{"n", 1}}, {}, {e});
  CHECK_THROWS_WITH(text_case(*e), Contains("text_case: the expression is nested more than 200 deep"));
  ExprPtr shallow = test::node("expe", {{"n", 1}}, {}, {test::leaf("%x", {"1"})});
  CHECK(text_case(*shallow).argument_order == std::vector<std::string>{"%x"});
  // A document nested deeper than any expression is refused while it is parsed.
  const std::string path = temp_path("deep.json");
  std::ofstream(path) << std::string(100000, '[') << std::string(100000, ']');
  CHECK_THROWS_WITH(parse_json_file(path), Contains("deep.json: JSON nested more than 416 deep"));
  std::ofstream(path) << std::string(100, '[') << std::string(100, ']');
  CHECK(parse_json_file(path).is_array());
}

TEST_CASE("a JSON number beyond a double is a named error (found by corpus_json_fuzzer)", "[hardening][expr]") {
  const std::string path = temp_path("overflow.json");
  std::ofstream(path) << "{\"a\": 885207e779157}";
  CHECK_THROWS_WITH(parse_json_file(path), Contains("overflow.json: number overflow parsing '885207e779157'") && !Contains("json.exception"));
  std::ofstream(path) << "{\"a\": 885207e77}";
  CHECK(parse_json_file(path)["a"].get<double>() == 885207e77);
}

namespace {
// A .npy v1.0 file written byte by byte: `dict`, padded, then `payload`.
void write_npy_bytes(const std::string& path, std::string dict, const std::string& payload) {
  dict.append((64 - (10 + dict.size() + 1) % 64) % 64, ' ');
  dict += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  out.put(static_cast<char>(dict.size() & 0xFF));
  out.put(static_cast<char>(dict.size() >> 8));
  out << dict << payload;
}
}  // namespace

TEST_CASE(".npy: an element count that overflows fails the truncation check", "[hardening][npy]") {
  const std::string path = temp_path("huge.npy");
  // 2^30 x 2^30 x 4 elements of 4 bytes: 2^64 bytes, which wrapped to 0 and passed the check.
  write_npy_bytes(path, "{'descr': '<f4', 'fortran_order': False, 'shape': (1073741824, 1073741824, 4), }", std::string(16, '\0'));
  CHECK_THROWS_WITH(read_npy(path), Contains("huge.npy: truncated: the header promises 4611686018427387904 elements"));
  write_npy_bytes(path, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", std::string(16, '\0'));
  CHECK(read_npy(path).shape == Shape{4});
}

TEST_CASE(".npy: an empty array in any byte order and layout (found by npy_fuzzer)", "[hardening][npy]") {
  // A 0x2 big-endian Fortran-order f64 array: memcpy from an empty buffer (null) was undefined.
  const std::string path = temp_path("empty.npy");
  write_npy_bytes(path, "{'descr': '>f8', 'fortran_order': True, 'shape': (0, 2,), }", "");
  const NpyArray a = read_npy(path);
  CHECK(a.shape == Shape{0, 2});
  CHECK(std::get<std::vector<double>>(a.data).empty());
}

TEST_CASE(".npy: a FIFO is refused, not waited on", "[hardening][npy]") {
  const std::string path = temp_path("fifo.npy");
  std::remove(path.c_str());
  REQUIRE(mkfifo(path.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(read_npy(path), Contains("fifo.npy: not a regular file"));
  std::remove(path.c_str());
  CHECK_THROWS_WITH(read_npy(path), Contains("fifo.npy: cannot open file: No such file or directory"));
}

TEST_CASE("the memory estimate follows the live tensors", "[hardening][memory]") {
  // x (10 f32) -> v0 = x + x -> v1 = -v0 -> v2 = exp(v1); x dies at v0, v0 at v1, v1 at v2.
  const Module m = parse_module(module_text("%x: tensor<10xf32>", "tensor<10xf32>",
                                            "    %v0 = stablehlo.add %x, %x : tensor<10xf32>\n"
                                            "    %v1 = stablehlo.negate %v0 : tensor<10xf32>\n"
                                            "    %v2 = stablehlo.exponential %v1 : tensor<10xf32>\n"
                                            "    return %v2 : tensor<10xf32>\n"),
                                "m.mlir");
  const MemoryEstimate e = estimate_peak_memory(m, 4, 1);
  CHECK(e.peak_bytes == 80);  // two tensors of 40 bytes at any time
  REQUIRE(e.peak_at != nullptr);
  CHECK(e.peak_at->result == "%v0");  // first reached while making %v0
  CHECK(estimate_peak_memory(m, 4, 3).peak_bytes == 240);
  CHECK(estimate_peak_memory(m, 1128, 1).peak_bytes == 2 * 10 * 1128);
  CHECK_NOTHROW(check_memory(m, "f32", 4, 1, 80, "a test"));
  CHECK_THROWS_WITH(check_memory(m, "f32", 4, 1, 79, "a test"),
                    Contains("m.mlir:3:5: %v0 = stablehlo.add: the live tensors would take 80 B in f32") &&
                        Contains("more than the 79 B of a test"));
  // A product beyond 64 bits saturates instead of wrapping to a small number.
  const Module huge = parse_module(module_text("%x: tensor<4611686018427387904xf32>", "tensor<4611686018427387904xf32>",
                                               "    return %x : tensor<4611686018427387904xf32>\n"),
                                   "h.mlir");
  CHECK_THROWS_WITH(check_memory(huge, "f32", 4, 1, 1ull << 40, "a test"), Contains("h.mlir: the inputs: the live tensors would take more than 16 EiB"));
}

TEST_CASE("bytes per scalar count the limbs", "[hardening][memory]") {
  CHECK(scalar_bytes(F32Domain{}) == 4);
  CHECK(scalar_bytes(F64Domain{}) == 8);
  // 256 bits: MPFR asks for 4 limbs and a size word, 40 bytes: a 48-byte block in glibc, a
  // 64-byte one (a cache line) in the shlo command's limb caches; the estimate takes the larger.
  // An interval has two.
  CHECK(scalar_bytes(MpfrDomain(256)) == sizeof(BigFloat) + 64);
  CHECK(scalar_bytes(IntervalDomain(256)) == sizeof(BigInterval) + 2 * 64);
  CHECK(scalar_bytes(MpfrDomain(53)) == sizeof(BigFloat) + 32);  // 16 bytes asked: glibc's least block
  CHECK(scalar_bytes(IntervalDomain(4096)) == sizeof(BigInterval) + 2 * 528);
  CHECK(scalar_bytes(IntervalDomain(4096)) > scalar_bytes(IntervalDomain(256)));
}

TEST_CASE("memory sizes and the precision bound", "[hardening][memory]") {
  CHECK(parse_memory_size("4G") == 4ull << 30);
  CHECK(parse_memory_size("512M") == 512ull << 20);
  CHECK(parse_memory_size("1000") == 1000);
  CHECK_THROWS_AS(parse_memory_size("12Q"), std::invalid_argument);
  CHECK_THROWS_AS(parse_memory_size("-1G"), std::invalid_argument);
  CHECK_THROWS_AS(parse_memory_size("99999999999T"), std::invalid_argument);
  CHECK(format_bytes(3ull << 29) == "1.5 GiB");
  CHECK_THROWS_WITH(parse_domain("interval:1048576"), Contains("from 2 to 16384"));
  CHECK_NOTHROW(parse_domain("mpfr:16384"));
  CHECK_THROWS_WITH(parse_domain("mpfr:16385"), Contains("from 2 to 16384"));
}

TEST_CASE("GMP allocation failure is an exception, not an abort", "[hardening][memory]") {
#if defined(__SANITIZE_ADDRESS__)
  WARN("skipped under AddressSanitizer, which stops an impossible allocation before malloc returns null");
#else
  install_throwing_gmp_allocator();
  // An MPFR number of 2^60 bits asks for 2^57 bytes: no machine has them.
  mpfr_t big;
  CHECK_THROWS_AS(mpfr_init2(big, mpfr_prec_t{1} << 60), std::bad_alloc);
#endif
}
