// The serial-fraction meter (SplitWork, interp/ops/common.hpp) behind `shlo run --timing`:
// CPU time in loops that split over the threads (or would, with two or more) counts as split,
// the rest of an op's CPU time as serial; nested meters count once; with one thread the
// per-op figures of a run say which ops split.
#include <cstdint>
#include <string>
#include <vector>

#include "interp/domain/ieee.hpp"
#include "interp/run.hpp"
#include "support.hpp"

namespace shlo {
namespace {

// Spins until this thread has used `seconds` of CPU time.
void burn(double seconds) {
  const double until = thread_cpu_seconds() + seconds;
  volatile double sink = 0;
  while (thread_cpu_seconds() < until) sink = sink + 1;
}

TEST_CASE("SplitWork counts CPU time under a splitting meter once, nothing under a serial one", "[serial_fraction]") {
  const double before = SplitWork::seconds();
  {
    const SplitWork serial(false);
    burn(0.02);
  }
  CHECK(SplitWork::seconds() == before);  // control: a loop that does not split adds nothing

  const double cpu0 = thread_cpu_seconds(), split0 = SplitWork::seconds();
  {
    const SplitWork outer(true);
    burn(0.02);
    {
      const SplitWork inner(true);  // nested: already counted by the outer meter
      burn(0.02);
    }
  }
  const double cpu = thread_cpu_seconds() - cpu0, split = SplitWork::seconds() - split0;
  CHECK(split >= 0.04);
  CHECK(split <= cpu);  // counted twice, it would be about 0.06 of 0.04 s
}

TEST_CASE("SplitWork: a splitting loop inside one that does not split still counts", "[serial_fraction]") {
  // A convolution of three images does not split its images, but each image's product does:
  // that product's time is split work, and the images' own loop is not.
  const double cpu0 = thread_cpu_seconds(), split0 = SplitWork::seconds();
  {
    const SplitWork images(false);
    burn(0.02);  // serial: the images' loop itself
    {
      const SplitWork product(true);
      burn(0.03);
    }
  }
  const double cpu = thread_cpu_seconds() - cpu0, split = SplitWork::seconds() - split0;
  CHECK(split >= 0.03);         // the product counts (it counted nothing before)
  CHECK(split <= cpu - 0.019);  // control: the images' own 0.02 s stays serial
}

TEST_CASE("parallel_for_elements counts as split from its grain on, with any thread count", "[serial_fraction]") {
  for (int threads : {1, 2}) {
    set_thread_count(threads);
    std::vector<double> out(4096);
    const double small0 = SplitWork::seconds();
    parallel_for_elements({100}, 100, [&](std::int64_t i) { out[static_cast<std::size_t>(i)] = 1; }, 1024);
    CHECK(SplitWork::seconds() == small0);  // below the grain: serial
    const double big0 = SplitWork::seconds();
    parallel_for_elements({4096}, 4096, [&](std::int64_t i) {
      if (i == 0) burn(0.01);  // enough CPU time for the clock to see
      out[static_cast<std::size_t>(i)] = 2;
    }, 1024);
    if (threads == 1) CHECK(SplitWork::seconds() - big0 >= 0.01);
    else CHECK(SplitWork::seconds() >= big0);  // element 0 ran on this thread or another
    CHECK(out[4095] == 2);
  }
  set_thread_count(2);
}

// One large add (65536 elements: above the elementwise grain) and one of 4 elements.
const char* kTwoAdds = R"(module @m {
  func.func @f(%x: tensor<65536xf64>, %s: tensor<4xf64>) -> (tensor<65536xf64>, tensor<4xf64>) {
    %big = stablehlo.add %x, %x : tensor<65536xf64>
    %small = stablehlo.multiply %s, %s : tensor<4xf64>
    return %big, %small : tensor<65536xf64>, tensor<4xf64>
  }
})";

TEST_CASE("run_program's profile: the large op's CPU time is split, the small op's serial", "[serial_fraction]") {
  set_thread_count(1);
  const IeeeDomain<double> d;
  const Module m = parse_module(kTwoAdds, "two_adds.mlir");
  std::vector<double> x(65536), s = {1.5, -2, 0.25, 3};
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i) / 8;
  std::vector<Value<IeeeDomain<double>>> inputs = {Tensor<double>({65536}, x), Tensor<double>({4}, s)};
  RunOptions options;
  const auto result = run_program(m, d, {inputs}, options);
  set_thread_count(2);
  const auto& big = std::get<Tensor<double>>(result.outputs[0][0]);
  const auto& small = std::get<Tensor<double>>(result.outputs[0][1]);
  CHECK(big[65535] == 65535.0 / 4);
  CHECK(small[0] == 2.25);
  CHECK(small[1] == 4);
  const OpProfile& add = result.profile.at("add");
  const OpProfile& multiply = result.profile.at("multiply");
  CHECK(add.split_seconds > 0);
  CHECK(add.split_seconds <= add.cpu_seconds);
  CHECK(multiply.split_seconds == 0);  // control: 4 elements never split
  CHECK(multiply.cpu_seconds >= 0);
}

}  // namespace
}  // namespace shlo
