// Elementwise ops that write their result into a dying operand's storage (f32, f64): the
// results equal those computed into new tensors (keep_values, which never reuses storage),
// with 1 and 4 threads, and the values computed by hand; the storage is reused exactly where
// the operand dies (seen through the data pointers), and never where the operand is still read
// later, is returned, or is the instruction's other operand too.
#include <cstring>
#include <map>
#include <string>

#include "interp/domain/ieee.hpp"
#include "interp/run.hpp"
#include "support.hpp"

namespace shlo {
namespace {

// 64x1024 elements: above the elementwise grain, so the threaded path runs too.
//   %a: both operands are read later: a new tensor (and %a is returned);
//   %b: %a and %y are read later: a new tensor;
//   %c: %b dies here: written into %b (%a, returned, never);
//   %d: %c is both operands: a new tensor;
//   %e: %d dies here: the select writes into %d (%x, an argument, is not its first dying
//       branch; the predicate %p is not of the result's type);
//   %n: %y, an argument, dies here: written into %y.
const char* kChain = R"(module @m {
  func.func @f(%x: tensor<64x1024xT>, %y: tensor<64x1024xT>) -> (tensor<64x1024xT>, tensor<64x1024xT>, tensor<64x1024xT>) {
    %a = stablehlo.add %x, %y : tensor<64x1024xT>
    %b = stablehlo.multiply %a, %y : tensor<64x1024xT>
    %c = stablehlo.subtract %b, %a : tensor<64x1024xT>
    %d = stablehlo.multiply %c, %c : tensor<64x1024xT>
    %p = stablehlo.compare GT, %d, %x : (tensor<64x1024xT>, tensor<64x1024xT>) -> tensor<64x1024xi1>
    %e = stablehlo.select %p, %d, %x : tensor<64x1024xi1>, tensor<64x1024xT>
    %n = stablehlo.negate %y : tensor<64x1024xT>
    return %a, %e, %n : tensor<64x1024xT>, tensor<64x1024xT>, tensor<64x1024xT>
  }
})";

constexpr std::int64_t kElements = 64 * 1024;

template <class F>
Module chain_module() {
  std::string text = kChain;
  const std::string element = sizeof(F) == 4 ? "f32" : "f64";
  for (std::size_t at = text.find("xT>"); at != std::string::npos; at = text.find("xT>", at)) text.replace(at + 1, 1, element);
  return parse_module(text, "chain.mlir");
}

// Inputs with fractions, signs and both orders of x and d: (i mod 97)/32 - 1.5 and (i mod 89)/16 - 2.75.
template <class F>
F x_of(std::int64_t i) { return static_cast<F>(i % 97) / 32 - F(1.5); }
template <class F>
F y_of(std::int64_t i) { return static_cast<F>(i % 89) / 16 - F(2.75); }

template <class F>
std::vector<Value<IeeeDomain<F>>> chain_inputs() {
  std::vector<F> x, y;
  for (std::int64_t i = 0; i < kElements; ++i) {
    x.push_back(x_of<F>(i));
    y.push_back(y_of<F>(i));
  }
  return {Tensor<F>({64, 1024}, std::move(x)), Tensor<F>({64, 1024}, std::move(y))};
}

template <class F>
const Storage<F>& data_of(const Value<IeeeDomain<F>>& v) {
  return std::get<Tensor<F>>(v).data;
}

// The run's outputs, and the storage address of every value right after the instruction that
// defines it (arguments: after the first instruction, which reads both).
template <class F>
struct ObservedRun {
  std::vector<Value<IeeeDomain<F>>> outputs;
  std::map<std::string, const F*> storage;
};

template <class F>
ObservedRun<F> observed_run(int threads, bool keep_values, const std::string& kept_until_c = "") {
  const IeeeDomain<F> d;
  const Module m = chain_module<F>();
  const char* defined[] = {"%a", "%b", "%c", "%d", "%p", "%e", "%n"};
  ObservedRun<F> run;
  RunOptions options;
  options.keep_values = keep_values;
  if (!kept_until_c.empty()) options.keep_until[kept_until_c] = 2;  // an observer reads it after %c
  set_thread_count(threads);
  run.outputs = run_program_observed(m, d, {chain_inputs<F>()}, options, [&](std::size_t k, const ValueEnv<IeeeDomain<F>>& env) {
                  if (k == 0)
                    for (const char* arg : {"%x", "%y"}) run.storage[arg] = data_of<F>(env[0].at(arg)).data();
                  if (const auto* t = std::get_if<Tensor<F>>(&env[0].at(defined[k]))) run.storage[defined[k]] = t->data.data();
                }).outputs[0];
  set_thread_count(2);
  return run;
}

// Elements (of every output) whose bits differ.
template <class F>
std::int64_t differing(const std::vector<Value<IeeeDomain<F>>>& p, const std::vector<Value<IeeeDomain<F>>>& q) {
  std::int64_t n = 0;
  for (std::size_t k = 0; k < p.size(); ++k)
    for (std::size_t i = 0; i < data_of<F>(p[k]).size(); ++i)
      n += std::memcmp(&data_of<F>(p[k])[i], &data_of<F>(q[k])[i], sizeof(F)) != 0;
  return n;
}

template <class F>
void in_place_equals_out_of_place() {
  const ObservedRun<F> in_place = observed_run<F>(4, false), one_thread = observed_run<F>(1, false),
                       fresh = observed_run<F>(4, true);
  REQUIRE(in_place.outputs.size() == 3);
  CHECK(differing<F>(in_place.outputs, fresh.outputs) == 0);
  CHECK(differing<F>(in_place.outputs, one_thread.outputs) == 0);

  // By hand, each op one IEEE operation in F (no contraction: the build passes -ffp-contract=off).
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < kElements; ++i) {
    const F x = x_of<F>(i), y = y_of<F>(i);
    const F a = x + y, b = a * y, c = b - a, dd = c * c, e = dd > x ? dd : x;
    wrong += data_of<F>(in_place.outputs[0])[static_cast<std::size_t>(i)] != a;
    wrong += data_of<F>(in_place.outputs[1])[static_cast<std::size_t>(i)] != e;
    wrong += data_of<F>(in_place.outputs[2])[static_cast<std::size_t>(i)] != -y;
  }
  CHECK(wrong == 0);
  // Control: the comparison sees one changed element.
  auto changed = fresh.outputs;
  std::get<Tensor<F>>(changed[1]).data[7] += 1;
  CHECK(differing<F>(in_place.outputs, changed) == 1);
}

template <class F>
void storage_reused_only_where_the_operand_dies() {
  auto s = observed_run<F>(2, false).storage;
  CHECK(s["%c"] == s["%b"]);  // %b died at %c
  CHECK(s["%e"] == s["%d"]);  // %d died at %e
  CHECK(s["%n"] == s["%y"]);  // the argument %y died at %n
  // Controls: operands still read later, the returned %a, and %c used twice.
  CHECK(s["%a"] != s["%x"]);
  CHECK(s["%a"] != s["%y"]);
  CHECK(s["%b"] != s["%a"]);
  CHECK(s["%b"] != s["%y"]);
  CHECK(s["%d"] != s["%c"]);
  CHECK(s["%e"] != s["%x"]);
  // A value an observer reads after its last use is not written over either.
  auto observed = observed_run<F>(2, false, "%b").storage;
  CHECK(observed["%c"] != observed["%b"]);
  CHECK(observed["%e"] == observed["%d"]);
  // With keep_values nothing is reused.
  auto kept = observed_run<F>(2, true).storage;
  CHECK(kept["%c"] != kept["%b"]);
  CHECK(kept["%e"] != kept["%d"]);
  CHECK(kept["%n"] != kept["%y"]);
}

TEST_CASE("in-place elementwise results equal new tensors' (f32, f64)", "[threads][inplace]") {
  in_place_equals_out_of_place<float>();
  in_place_equals_out_of_place<double>();
}

TEST_CASE("a result takes a dying operand's storage, never a live one's (f32, f64)", "[threads][inplace]") {
  storage_reused_only_where_the_operand_dies<float>();
  storage_reused_only_where_the_operand_dies<double>();
}

}  // namespace
}  // namespace shlo
