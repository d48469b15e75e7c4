// A diagnostic, not a check (hidden: run it by name): the bound analysis of one program, printed
// per intermediate value, to see where the statistical tier's bound grows and of what it is made.
//   SHLO_TRACE_FILE=prog.mlir [SHLO_TRACE_RANGE=-0.1,0.1] [SHLO_TRACE_SEED=1]
//   [SHLO_TRACE_PROFILE=ieee] [SHLO_TRACE_UNTIL=LINE] shlo_tests "[.bound_trace]"
// Inputs are drawn as the statistical tier's tests draw them (uniform in the range). Per value
// whose type is float (constants, reshapes and broadcasts left out), medians over its elements
// (at most 20,000, evenly spread) of: the sound bound over |exact|, the statistical bound over
// |exact|, the value's plain part pdet and random part lambda sigma over |exact| as the value
// stores them (a value that shares a source's random part, kShared, has it closed to a plain
// part at its next use: "shared" counts those elements), the exact enclosure's width over
// |exact|; and the count of elements whose bounds are both infinite.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ast/mlir_parse.hpp"
#include "interp/run.hpp"
#include "tests/stat_support.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

double median_of(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

}  // namespace

TEST_CASE("bound trace: per intermediate value, where the bounds grow", "[.bound_trace]") {
  const char* file = std::getenv("SHLO_TRACE_FILE");
  if (!file) {
    WARN("set SHLO_TRACE_FILE to a program");
    return;
  }
  const std::string range = env_or("SHLO_TRACE_RANGE", "-0.1,0.1");
  const auto [lo, hi] = range_of(range);
  const auto seed = static_cast<std::uint64_t>(std::stoull(env_or("SHLO_TRACE_SEED", "1")));
  const int until = std::stoi(env_or("SHLO_TRACE_UNTIL", "1000000000"));
  const Module m = parse_module_file(file);
  const Arrays in = random_inputs(m, seed, lo, hi);
  const double lambda = 9;  // about what `shlo check` takes for a program of this size at delta 1e-9
  const BoundDomain d(float_profile(env_or("SHLO_TRACE_PROFILE", "ieee")), lambda);
  std::vector<std::vector<Value<BoundDomain>>> args(1);
  for (const NpyArray& a : in) {
    std::vector<BoundScalar> v;
    for (float x : data(a)) v.push_back(d.from_double(x));
    args[0].push_back(Tensor<BoundScalar>(a.shape, std::move(v)));
  }
  const auto body = instructions(m.function());
  std::printf("%-6s %-22s %10s %10s %10s %10s %10s %8s %8s\n", "line", "value", "err/|x|", "perr/|x|", "pdet/|x|", "l.sig/|x|",
              "width/|x|", "shared", "infinite");
  bool stop = false;
  run_program_observed(m, d, std::move(args), RunOptions{}, [&](std::size_t k, const ValueEnv<BoundDomain>& values) {
    if (stop || k >= body.size()) return;
    const Instruction& inst = *body[k];
    if (inst.location.line > until) {
      stop = true;
      return;
    }
    if (inst.op == Op::Constant || inst.op == Op::Reshape || inst.op == Op::BroadcastInDim) return;
    const auto found = values[0].find(inst.result);
    if (found == values[0].end()) return;
    const auto* t = std::get_if<Tensor<BoundScalar>>(&found->second);
    if (!t || t->size() == 0) return;
    const std::int64_t stride = std::max<std::int64_t>(1, t->size() / 20000);
    std::vector<double> err, perr, plain, random, width;
    std::int64_t infinite = 0, shared = 0, seen = 0;
    for (std::int64_t i = 0; i < t->size(); i += stride) {
      const BoundScalar s = d.closed((*t)[i]);
      const double x = std::fabs(0.5 * (s.lo + s.hi));
      const double e = d.bound(s), p = d.pbound(s);
      ++seen;
      if (!std::isfinite(e) && !std::isfinite(p)) {
        ++infinite;
        continue;
      }
      if (x == 0 || !std::isfinite(x)) continue;
      err.push_back(e / x);
      perr.push_back(p / x);
      plain.push_back(s.pdet / x);
      random.push_back(lambda * s.st.sigma / x);
      width.push_back((s.hi - s.lo) / x);
      shared += (s.flags & kShared) != 0;
    }
    std::printf("%-6d %-22s %10.3g %10.3g %10.3g %10.3g %10.3g %7.0f%% %8lld\n", inst.location.line,
                (inst.result + " " + op_name(inst.op)).c_str(), median_of(err), median_of(perr), median_of(plain),
                median_of(random), median_of(width), 100.0 * static_cast<double>(shared) / static_cast<double>(std::max<std::int64_t>(seen, 1)),
                static_cast<long long>(infinite));
    std::fflush(stdout);
  });
}
