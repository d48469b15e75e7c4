// Threads and replicas: results bit-identical for any thread count in every domain; the one
// replica loop's all_reduce checks on the CUDA path; values serialised for MPI ranks losslessly.
#include <mpfr.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <cstring>
#include <set>

#include "interp/bound/bound.hpp"
#include "interp/cuda/executor.hpp"
#include "oracle/dp_check.hpp"
#include "support.hpp"
#ifdef SHLO_HAVE_MPI
#include "interp/mpi/mpi_exchange.hpp"
#endif

namespace shlo {
namespace {

// Every large op the threads split: convolution, elementwise, reduce_window, select_and_scatter,
// reduce and dot_general, each big enough to take the threaded path in every domain.
const char* kLargeOps = R"(module @m {
  func.func @f(%x: tensor<8x2x32x32xf32>, %k: tensor<4x2x3x3xf32>, %a: tensor<128x64xf32>, %b: tensor<64x64xf32>) -> (tensor<8x4x32x32xf32>, tensor<4xf32>, tensor<128x64xf32>, tensor<128xf32>) {
    %c = stablehlo.convolution(%x, %k)
      dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1],
      window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]}
      {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<8x2x32x32xf32>, tensor<4x2x3x3xf32>) -> tensor<8x4x32x32xf32>
    %zb = stablehlo.constant dense<0.0> : tensor<8x4x32x32xf32>
    %r = stablehlo.maximum %c, %zb : tensor<8x4x32x32xf32>
    %m = stablehlo.multiply %r, %c : tensor<8x4x32x32xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %p = "stablehlo.reduce_window"(%m, %z) ({
      ^bb0(%pa: tensor<f32>, %pb: tensor<f32>):
        %pm = stablehlo.maximum %pa, %pb : tensor<f32>
        stablehlo.return %pm : tensor<f32>
    }) {window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>} : (tensor<8x4x32x32xf32>, tensor<f32>) -> tensor<8x4x16x16xf32>
    %s = "stablehlo.select_and_scatter"(%m, %p, %z) ({
      ^bb0(%sa: tensor<f32>, %sb: tensor<f32>):
        %sge = stablehlo.compare GE, %sa, %sb : (tensor<f32>, tensor<f32>) -> tensor<i1>
        stablehlo.return %sge : tensor<i1>
    }, {
      ^bb0(%sc: tensor<f32>, %sd: tensor<f32>):
        %ss = stablehlo.add %sc, %sd : tensor<f32>
        stablehlo.return %ss : tensor<f32>
    }) {window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>} : (tensor<8x4x32x32xf32>, tensor<8x4x16x16xf32>, tensor<f32>) -> tensor<8x4x32x32xf32>
    %sum = stablehlo.reduce(%s init: %z) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<8x4x32x32xf32>, tensor<f32>) -> tensor<4xf32>
    %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<128x64xf32>, tensor<64x64xf32>) -> tensor<128x64xf32>
    %e = stablehlo.reduce(%d init: %z) applies stablehlo.add across dimensions = [1] : (tensor<128x64xf32>, tensor<f32>) -> tensor<128xf32>
    return %s, %sum, %d, %e : tensor<8x4x32x32xf32>, tensor<4xf32>, tensor<128x64xf32>, tensor<128xf32>
  }
})";

template <class D>
std::vector<Value<D>> inputs_of(const D& d, const Module& m, std::uint64_t seed) {
  std::vector<Value<D>> out;
  for (std::size_t i = 0; i < m.function().arguments.size(); ++i) {
    const NpyArray a = random_input(m.function().arguments[i].type, seed, 0, i, -1, 1);
    std::vector<typename D::Scalar> v;
    for (float x : std::get<std::vector<float>>(a.data)) v.push_back(d.from_double(x));
    out.push_back(Tensor<typename D::Scalar>(a.shape, std::move(v)));
  }
  return out;
}

// Element by element: bits for IEEE and bound scalars, the lossless text otherwise. The
// number of elements that differ.
template <class D>
std::int64_t differing(const D& d, const Value<D>& x, const Value<D>& y) {
  using S = typename D::Scalar;
  const auto& a = std::get<Tensor<S>>(x).data;
  const auto& b = std::get<Tensor<S>>(y).data;
  std::int64_t n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if constexpr (std::is_floating_point_v<S>) {
      n += std::memcmp(&a[i], &b[i], sizeof(S)) != 0;
    } else if constexpr (std::is_same_v<S, BoundScalar>) {
      // Every field, and the open-sum totals or closed statistics (one union) byte for byte.
      n += !(a[i].lo == b[i].lo && a[i].hi == b[i].hi && a[i].err == b[i].err && a[i].pdet == b[i].pdet &&
             a[i].events == b[i].events && a[i].terms == b[i].terms && a[i].flags == b[i].flags && a[i].source() == b[i].source() &&
             std::memcmp(&a[i].sum, &b[i].sum, sizeof(a[i].sum)) == 0);
    } else {
      n += d.to_string(a[i]) != d.to_string(b[i]);
    }
  }
  return n;
}

template <class D>
void same_for_1_and_4_threads(const D& d) {
  const Module m = parse_module(kLargeOps, "large.mlir");
  RunOptions o;
  set_thread_count(1);
  const auto one = run_program(m, d, {inputs_of(d, m, 5)}, o).outputs[0];
  set_thread_count(4);
  const auto four = run_program(m, d, {inputs_of(d, m, 5)}, o).outputs[0];
  REQUIRE(one.size() == 4);
  for (std::size_t i = 0; i < one.size(); ++i) {
    CAPTURE(d.name(), i);
    CHECK(differing(d, one[i], four[i]) == 0);
  }
  // Control: the comparison sees a change in one element's last bit.
  if constexpr (std::is_floating_point_v<typename D::Scalar>) {
    auto changed = four[2];
    auto& x = std::get<Tensor<typename D::Scalar>>(changed)[7];
    x = std::nextafter(x, typename D::Scalar(2));
    CHECK(differing(d, one[2], changed) == 1);
  }
}

}  // namespace

TEST_CASE("threads: the threaded loop really runs on several threads, and MPFR keeps per-thread state", "[threads]") {
  set_thread_count(4);
  CHECK(thread_count() == 4);
  std::vector<int> who(4096, -1);
  parallel_for_elements({4096}, 4096, [&](std::int64_t i) {
#ifdef _OPENMP
    who[static_cast<std::size_t>(i)] = omp_get_thread_num();
#else
    who[static_cast<std::size_t>(i)] = 0;
#endif
  });
  CHECK(std::set<int>(who.begin(), who.end()).size() == 4);
#ifdef _OPENMP
  // Inside an active region (a convolution's images split over the threads) nested regions run
  // on one thread, so an op called there must see one thread and not split its work into
  // pieces run one after another (the control: outside it, the count set above).
  std::vector<int> inside(2, -1);
#pragma omp parallel num_threads(2)
  inside[static_cast<std::size_t>(omp_get_thread_num())] = thread_count();
  CHECK(inside == std::vector<int>{1, 1});
  CHECK(thread_count() == 4);
#endif
  // The least failing element's error, as the serial loop reports it.
  CHECK_THROWS_WITH(parallel_for_elements({64, 64}, 4096, [](std::int64_t i) {
                      if (i == 100 || i == 4000) throw DomainError("bad " + std::to_string(i));
                    }), Catch::Contains("bad 100") && Catch::Contains("at index [1, 36]"));
  // Exponent ranges and caches are per thread only in a thread-safe MPFR.
  CHECK(mpfr_buildopt_tls_p() != 0);
}

TEST_CASE("threads: 1 and 4 threads give the same bits in every domain", "[threads]") {
  same_for_1_and_4_threads(F32Domain{});
  same_for_1_and_4_threads(F64Domain{});
  same_for_1_and_4_threads(ExactDomain{});
  same_for_1_and_4_threads(IntervalDomain(64));
  same_for_1_and_4_threads(MpfrDomain(80));
  same_for_1_and_4_threads(BoundDomain(float_profile("ieee")));
  set_thread_count(2);
}

TEST_CASE("replica loop: the CUDA path checks that replica_groups partition the replicas", "[replicas][cuda]") {
  const std::string text = test::module_text(
      "%a: tensor<2xf32>", "tensor<2xf32>",
      "    %s = \"stablehlo.all_reduce\"(%a) ({\n    ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
      "      %z = stablehlo.add %x, %y : tensor<f32>\n      stablehlo.return %z : tensor<f32>\n"
      "    }) { replica_groups = dense<[[0, 1]]> : tensor<1x2xi64> } : (tensor<2xf32>) -> tensor<2xf32>\n",
      "%s");
  const Module m = parse_module(text, "ar.mlir");
  auto host = cuda::make_host_backend();
  auto in = [](int replicas) {
    std::vector<std::vector<Value<F32Domain>>> v;
    for (int r = 0; r < replicas; ++r) v.push_back({Tensor<float>({2}, std::vector<float>{1.5f * static_cast<float>(r + 1), 0.25f})});
    return v;
  };
  const auto two = cuda::run_on_backend(m, *host, in(2), 2).outputs;
  CHECK(std::get<Tensor<float>>(two[1][0]).to_vector() == std::vector<float>{4.5f, 0.5f});
  CHECK_THROWS_WITH(cuda::run_on_backend(m, *host, in(3), 3), Catch::Contains("ar.mlir:3:5:") && Catch::Contains("cover 2 of the 3 replicas"));
  CHECK_THROWS_WITH(cuda::run_on_backend(m, *host, in(1), 1), Catch::Contains("--replicas 2"));
}

#ifdef SHLO_HAVE_MPI
TEST_CASE("mpi: values cross ranks losslessly in every domain", "[mpi]") {
  const Module m = parse_module(kLargeOps, "large.mlir");
  auto round_trip = [&](const auto& d) {
    const auto in = inputs_of(d, m, 9);
    // A value that is not a float: a third, and an interval of a sum.
    auto v = d.add(std::get<0>(in[1]).data[0], d.div(d.from_double(1), d.from_double(3)));
    auto t = std::get<0>(in[1]);
    t.data[0] = v;
    const Value<std::decay_t<decltype(d)>> value = t;
    const auto back = mpi::deserialize(d, mpi::serialize(d, value));
    CAPTURE(d.name());
    CHECK(differing(d, value, back) == 0);
    CHECK(std::get<0>(back).shape == Shape{4, 2, 3, 3});
  };
  round_trip(F32Domain{});
  round_trip(F64Domain{});
  round_trip(ExactDomain{});
  round_trip(IntervalDomain(256));
  round_trip(MpfrDomain(113));
  round_trip(BoundDomain(float_profile("ieee")));
  const PredTensor p({3}, std::vector<Pred>{1, 0, 1});
  CHECK(std::get<PredTensor>(mpi::deserialize(ExactDomain{}, mpi::serialize(ExactDomain{}, Value<ExactDomain>(p)))).data == p.data);
  CHECK_THROWS_WITH(mpi::deserialize(F32Domain{}, mpi::serialize(F32Domain{}, Value<F32Domain>(std::get<0>(inputs_of(F32Domain{}, m, 1)[1]))).substr(0, 40)),
                    Catch::Contains("truncated"));
}
#endif

}  // namespace shlo
