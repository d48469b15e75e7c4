// The kernels that split over the threads for the f64 speed-up: data movement (transpose,
// broadcast, reverse, slice, pad, concatenate, reshape copies, splat constants), select, and
// select_and_scatter's disjoint-window pass: the same bits with 1 and 4 threads in f32, f64,
// exact and interval, and the values the serial definitions give.
#include <cstring>

#include <algorithm>

#include "interp/domain/exact.hpp"
#include "interp/domain/ieee.hpp"
#include "interp/domain/interval.hpp"
#include "interp/run.hpp"
#include "support.hpp"

namespace shlo {
namespace {

// Every op large enough (over 2^15 elements) to take the threaded path even for floats; the
// reshape of a live value is copied. %s's windows overlap (stride 1), %t's do not.
const char* kMovement = R"(module @m {
  func.func @f(%x: tensor<16x8x32x32xf32>, %y: tensor<16x8x32x32xf32>, %b: tensor<8xf32>) -> (tensor<32x32x8x16xf32>, tensor<16x8x34x33xf32>, tensor<16x16x32x32xf32>, tensor<16x8x32x32xf32>, tensor<16x8x32x32xf32>, tensor<16x8x16x32xf32>, tensor<16x8x32x32xf32>, tensor<16x8x32x32xf32>) {
    %t = stablehlo.transpose %x, dims = [3, 2, 1, 0] : (tensor<16x8x32x32xf32>) -> tensor<32x32x8x16xf32>
    %z = stablehlo.constant dense<0.5> : tensor<f32>
    %p = stablehlo.pad %x, %z, low = [0, 0, 1, -1], high = [0, 0, 1, 2], interior = [0, 0, 0, 0] : (tensor<16x8x32x32xf32>, tensor<f32>) -> tensor<16x8x34x33xf32>
    %c = stablehlo.concatenate %x, %y, dim = 1 : (tensor<16x8x32x32xf32>, tensor<16x8x32x32xf32>) -> tensor<16x16x32x32xf32>
    %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<8xf32>) -> tensor<16x8x32x32xf32>
    %g = stablehlo.compare GT, %x, %bb : (tensor<16x8x32x32xf32>, tensor<16x8x32x32xf32>) -> tensor<16x8x32x32xi1>
    %sel = stablehlo.select %g, %x, %y : tensor<16x8x32x32xi1>, tensor<16x8x32x32xf32>
    %r = stablehlo.reverse %sel, dims = [3] : tensor<16x8x32x32xf32>
    %sl = stablehlo.slice %r [0:16, 0:8, 0:32:2, 0:32] : (tensor<16x8x32x32xf32>) -> tensor<16x8x16x32xf32>
    %flat = stablehlo.reshape %x : (tensor<16x8x32x32xf32>) -> tensor<16x8192xf32>
    %back = stablehlo.reshape %flat : (tensor<16x8192xf32>) -> tensor<16x8x32x32xf32>
    %m = stablehlo.add %back, %x : tensor<16x8x32x32xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %pool = "stablehlo.reduce_window"(%x, %zero) ({
      ^bb0(%pa: tensor<f32>, %pb: tensor<f32>):
        %pm = stablehlo.maximum %pa, %pb : tensor<f32>
        stablehlo.return %pm : tensor<f32>
    }) {window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>} : (tensor<16x8x32x32xf32>, tensor<f32>) -> tensor<16x8x16x16xf32>
    %s = "stablehlo.select_and_scatter"(%x, %pool, %zero) ({
      ^bb0(%sa: tensor<f32>, %sb: tensor<f32>):
        %sge = stablehlo.compare GE, %sa, %sb : (tensor<f32>, tensor<f32>) -> tensor<i1>
        stablehlo.return %sge : tensor<i1>
    }, {
      ^bb0(%sc: tensor<f32>, %sd: tensor<f32>):
        %ss = stablehlo.add %sc, %sd : tensor<f32>
        stablehlo.return %ss : tensor<f32>
    }) {window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>} : (tensor<16x8x32x32xf32>, tensor<16x8x16x16xf32>, tensor<f32>) -> tensor<16x8x32x32xf32>
    %src = stablehlo.constant dense<1.0> : tensor<16x8x31x31xf32>
    %o = "stablehlo.select_and_scatter"(%x, %src, %zero) ({
      ^bb0(%oa: tensor<f32>, %ob: tensor<f32>):
        %oge = stablehlo.compare GE, %oa, %ob : (tensor<f32>, tensor<f32>) -> tensor<i1>
        stablehlo.return %oge : tensor<i1>
    }, {
      ^bb0(%oc: tensor<f32>, %od: tensor<f32>):
        %os = stablehlo.add %oc, %od : tensor<f32>
        stablehlo.return %os : tensor<f32>
    }) {window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 1, 1>} : (tensor<16x8x32x32xf32>, tensor<16x8x31x31xf32>, tensor<f32>) -> tensor<16x8x32x32xf32>
    return %t, %p, %c, %sel, %m, %sl, %s, %o : tensor<32x32x8x16xf32>, tensor<16x8x34x33xf32>, tensor<16x16x32x32xf32>, tensor<16x8x32x32xf32>, tensor<16x8x32x32xf32>, tensor<16x8x16x32xf32>, tensor<16x8x32x32xf32>, tensor<16x8x32x32xf32>
  }
})";

// Inputs k/64 - 1/2 for k = (i * 37 + arg) mod 64: exact in every domain, with ties in the pools.
template <class D>
std::vector<Value<D>> inputs_of(const D& d, const Module& m) {
  std::vector<Value<D>> out;
  for (std::size_t a = 0; a < m.function().arguments.size(); ++a) {
    const Shape& shape = m.function().arguments[a].type.shape;
    std::vector<typename D::Scalar> v;
    for (std::int64_t i = 0; i < num_elements(shape); ++i) v.push_back(d.from_double(static_cast<double>((i * 37 + static_cast<std::int64_t>(a)) % 64) / 64 - 0.5));
    out.push_back(Tensor<typename D::Scalar>(shape, std::move(v)));
  }
  return out;
}

template <class D>
std::vector<Value<D>> run_with(const D& d, int threads) {
  const Module m = parse_module(kMovement, "movement.mlir");
  set_thread_count(threads);
  auto outs = run_program(m, d, {inputs_of(d, m)}, RunOptions{}).outputs[0];
  set_thread_count(2);
  return outs;
}

template <class D>
double at(const D& d, const std::vector<Value<D>>& outs, std::size_t k, std::int64_t i) {
  return d.to_double(std::get<Tensor<typename D::Scalar>>(outs[k])[i]);
}

template <class D>
std::int64_t differing(const D& d, const Value<D>& x, const Value<D>& y) {
  const auto& a = std::get<Tensor<typename D::Scalar>>(x).data;
  const auto& b = std::get<Tensor<typename D::Scalar>>(y).data;
  if (a.size() != b.size()) return -1;
  std::int64_t n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) n += d.to_string(a[i]) != d.to_string(b[i]);
  return n;
}

template <class D>
void same_for_1_and_4_threads(const D& d) {
  const auto one = run_with(d, 1), four = run_with(d, 4);
  REQUIRE(one.size() == 8);
  for (std::size_t k = 0; k < one.size(); ++k) {
    CAPTURE(d.name(), k);
    CHECK(differing(d, one[k], four[k]) == 0);
  }
  // Values by hand. x[i] = ((i*37) mod 64)/64 - 1/2, y[i] = ((i*37+1) mod 64)/64 - 1/2.
  auto x = [](std::int64_t i) { return static_cast<double>(i * 37 % 64) / 64 - 0.5; };
  auto y = [](std::int64_t i) { return static_cast<double>((i * 37 + 1) % 64) / 64 - 0.5; };
  const std::int64_t n = 16 * 8 * 32 * 32, last = n - 1;
  CHECK(at(d, four, 0, 1) == x(8 * 32 * 32));          // %t[0,0,0,1] = x[1,0,0,0]
  CHECK(at(d, four, 1, 0) == 0.5);                     // %p's padded first row
  CHECK(at(d, four, 1, 33) == x(1));                   // %p[0,0,1,0] = x[0,0,0,1] (low -1 crops)
  CHECK(at(d, four, 1, 34 * 33 - 1) == 0.5);           // %p's padded last row
  CHECK(at(d, four, 2, 8 * 1024) == y(0));             // %c[0,8,0,0] = y[0]
  CHECK(at(d, four, 2, 16 * 1024) == x(8 * 1024));     // %c[1,0,0,0] = x[1,0,0,0]
  CHECK(at(d, four, 4, last) == 2 * x(last));          // the copied reshape added to x
  CHECK(at(d, four, 5, 0) == (x(31) > 0 ? x(31) : y(31)));  // %sl[0,0,0,0] = %sel[0,0,0,31] (b = 0)
  // %s: each 2x2 window's first maximum receives the window's maximum; the rest 0.
  double sum_s = 0, sum_x_max = 0;
  for (std::int64_t i = 0; i < n; ++i) sum_s += at(d, four, 6, i);
  for (std::int64_t w = 0; w < n / 4; ++w) {
    const std::int64_t row = w / 16, col = w % 16, base = row * 64 + col * 2;
    sum_x_max += std::max({x(base), x(base + 1), x(base + 32), x(base + 33)});
  }
  CHECK(sum_s == sum_x_max);
  // %o: overlapping windows; every source is 1, so the result sums to the number of windows.
  double sum_o = 0;
  for (std::int64_t i = 0; i < n; ++i) sum_o += at(d, four, 7, i);
  CHECK(sum_o == 16 * 8 * 31 * 31);
  // Control: the comparison sees one changed element.
  auto changed = four[3];
  auto& e = std::get<Tensor<typename D::Scalar>>(changed)[5];
  e = d.from_double(d.to_double(e) + 1);
  CHECK(differing(d, one[3], changed) == 1);
}

}  // namespace

TEST_CASE("threads s22: movement, select and select_and_scatter give the same bits with 1 and 4 threads", "[threads]") {
  same_for_1_and_4_threads(F32Domain{});
  same_for_1_and_4_threads(F64Domain{});
  same_for_1_and_4_threads(ExactDomain{});
  same_for_1_and_4_threads(IntervalDomain(64));
}

}  // namespace shlo
