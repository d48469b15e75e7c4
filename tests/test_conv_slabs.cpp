// The float kernels of dot_general and convolution against the naive evaluator, bit for bit,
// on shapes chosen to reach every path of the kernels: the register blocks of the IEEE
// product and their edges (rows not a multiple of 4, columns not a multiple of a strip), the
// convolution's slabs of k (more than one), its stacked images (a weight gradient's shape,
// with feature and batch groups), its channels-last patches, and 1 and 2 threads. The inputs
// span many binades, so that a sum in another order gives other bits (the control).
#include <random>

#include "ast/mlir_parse.hpp"
#include "interp/domain/ieee.hpp"
#include "interp/ops/contraction.hpp"
#include "interp/run.hpp"
#include "oracle/naive_eval.hpp"
#include "tests/support.hpp"

using namespace shlo;
using shlo::test::same_bits;

namespace {

// Values of both signs over 2^-12 .. 2^12, exactly representable in T.
template <class T>
std::vector<T> spread(std::int64_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mantissa(-1, 1);
  std::uniform_int_distribution<int> binade(-12, 12);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = static_cast<T>(std::ldexp(mantissa(rng), binade(rng)));
  return v;
}

std::string tensor_type(const Shape& s, const char* element) {
  std::string t = "tensor<";
  for (auto d : s) t += std::to_string(d) + "x";
  return t + element + ">";
}

// A program of one instruction over two arguments %x and %k, returning %r.
Module binary_program(const Shape& x, const Shape& k, const Shape& r, const char* element, const std::string& op) {
  const std::string tx = tensor_type(x, element), tk = tensor_type(k, element), tr = tensor_type(r, element);
  return parse_module("module @m {\n  func.func @f(%x: " + tx + ", %k: " + tk + ") -> " + tr + " {\n    %r = " + op + " : (" + tx + ", " +
                          tk + ") -> " + tr + "\n    return %r : " + tr + "\n  }\n}\n",
                      "slabs.mlir");
}

template <class T>
std::vector<T> interpreter(const Module& m, const std::vector<std::vector<T>>& args, int threads) {
  std::vector<std::vector<Value<IeeeDomain<T>>>> in(1);
  for (std::size_t i = 0; i < args.size(); ++i) in[0].push_back(Tensor<T>(m.function().arguments[i].type.shape, args[i]));
  set_thread_count(threads);
  auto out = std::get<Tensor<T>>(run_program(m, IeeeDomain<T>{}, std::move(in), RunOptions{}).outputs[0][0]).to_vector();
  set_thread_count(1);
  return out;
}

// The run equals the naive evaluator bit for bit with 1 and 2 threads, and (sums of two or more
// terms) differs from the naive evaluator summing in reverse: the inputs tell the orders apart.
template <class T>
void check_against_naive(const Module& m, const Shape& x, const Shape& k, bool order_matters = true) {
  const std::vector<std::vector<T>> args = {spread<T>(num_elements(x), 1), spread<T>(num_elements(k), 2)};
  const auto want = naive_run<T>(m, args);
  for (int threads : {1, 2}) {
    INFO(threads << " thread(s)");
    CHECK(same_bits(interpreter<T>(m, args, threads), want));
  }
  if (order_matters) CHECK_FALSE(same_bits(naive_run<T>(m, args, NaiveSumOrder::Reversed), want));
}

struct ConvCase {
  const char* what;
  Shape x, k, r;
  std::string dims = "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]";
  std::string window;
  int feature_groups = 1, batch_groups = 1;
};

std::string convolution_op(const ConvCase& c) {
  return "stablehlo.convolution(%x, %k)\n      dim_numbers = " + c.dims + ",\n      window = {" + c.window +
         "}\n      {batch_group_count = " + std::to_string(c.batch_groups) + " : i64, feature_group_count = " +
         std::to_string(c.feature_groups) + " : i64}";
}

}  // namespace

TEST_CASE("IEEE products: dot_general equals the naive sums bit for bit at every edge of the register blocks", "[ops][slabs]") {
  for (std::int64_t M : {1, 2, 3, 4, 5, 6, 7, 9})
    for (std::int64_t N : {1, 7, 8, 9, 16, 17, 33})
      for (std::int64_t K : {1, 37}) {
        INFO(M << " x " << K << " times " << K << " x " << N);
        const Shape x = {M, K}, k = {K, N}, r = {M, N};
        const std::string op = "stablehlo.dot_general %x, %k, contracting_dims = [1] x [0]";
        check_against_naive<float>(binary_program(x, k, r, "f32", op), x, k, K > 1);
        check_against_naive<double>(binary_program(x, k, r, "f64", op), x, k, K > 1);
      }
  // Large enough to split over 2 threads, each block with its own rows left over from the 4-row
  // step: 27 rows as 13 + 14 (1 and 2 left over), 26 as 13 + 13 (1 and 1), 25 as 12 + 13 (0 and 1).
  for (std::int64_t M : {25, 26, 27})
    for (std::int64_t N : {16, 17}) {
      INFO(M << " x 700 times 700 x " << N);
      const Shape x = {M, 700}, k = {700, N}, r = {M, N};
      const std::string op = "stablehlo.dot_general %x, %k, contracting_dims = [1] x [0]";
      check_against_naive<float>(binary_program(x, k, r, "f32", op), x, k);
      check_against_naive<double>(binary_program(x, k, r, "f64", op), x, k);
    }
}

TEST_CASE("IEEE convolutions equal the naive sums bit for bit across slabs, stacked images and groups", "[ops][slabs]") {
  const std::vector<ConvCase> cases = {
      // A weight gradient's shape (output positions fewer than output features): the images
      // stacked; K = 64 * 81 = 5184 in two slabs in f64.
      {"stacked, two slabs", {3, 64, 11, 11}, {16, 64, 9, 9}, {3, 16, 3, 3}, "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]",
       "stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]"},
      // Output positions first (X = 1024 >= 8 features): K = 288 in two slabs in f64.
      {"lanes over positions, two slabs", {2, 32, 32, 32}, {8, 32, 3, 3}, {2, 8, 32, 32}, "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]",
       "stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]"},
      // Four images: split over 2 threads, each image's product then on its own thread.
      {"lanes over positions, images in parallel", {4, 32, 16, 16}, {8, 32, 3, 3}, {4, 8, 16, 16},
       "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]", "stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]"},
      {"stacked, feature groups", {2, 64, 6, 6}, {32, 32, 5, 5}, {2, 32, 2, 2}, "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]",
       "stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]", 2, 1},
      {"stacked, batch groups", {4, 16, 7, 7}, {32, 16, 5, 5}, {2, 32, 3, 3}, "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]",
       "stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]", 1, 2},
      // 5 -> 9 by lhs dilation (the input at even positions), a 5-wide dilated kernel (taps at
      // 0, 2, 4) at stride 2: 3 x 3 positions whose every tap meets an input value.
      {"stacked, strides and dilations", {2, 8, 5, 5}, {32, 8, 3, 3}, {2, 32, 3, 3}, "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]",
       "stride = [2, 2], pad = [[0, 0], [0, 0]], lhs_dilate = [2, 2], rhs_dilate = [2, 2]"},
      // The printer's other layout (features last): transposed to the canonical one first.
      {"stacked, features last", {3, 11, 11, 64}, {9, 9, 64, 16}, {3, 3, 3, 16}, "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]",
       "stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]"},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    check_against_naive<float>(binary_program(c.x, c.k, c.r, "f32", convolution_op(c)), c.x, c.k);
    check_against_naive<double>(binary_program(c.x, c.k, c.r, "f64", convolution_op(c)), c.x, c.k);
  }
  // The first two do cross slabs in f64 (else this test would not reach the slab boundaries).
  CHECK(ops::detail::slab_length<double>(5184, 3 * 9, 16) < 5184);
  CHECK(ops::detail::slab_length<double>(288, 1024, 8) < 288);
}
