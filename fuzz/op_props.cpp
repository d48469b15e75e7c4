// The op-level properties: the printer on generated programs, bit-identity of the f32 and f64
// runs with the naive evaluator, and every domain at the edges of the real domain.
#include "fuzz/op_props.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>

#include "ast/mlir_parse.hpp"
#include "ast/mlir_print.hpp"
#include "fuzz/gen_ops.hpp"
#include "interp/domain/exact.hpp"
#include "interp/domain/ieee.hpp"
#include "interp/domain/interval.hpp"
#include "interp/domain/mpfr.hpp"
#include "interp/run.hpp"
#include "oracle/naive_eval.hpp"

namespace shlo::fuzz {

using nlohmann::json;

rc::Gen<Instance> op_program(bool transcendental, bool float_ops, bool infinities) {
  return rc::gen::exec([transcendental, float_ops, infinities] {
    const TextCase tc = *gen_op_program(transcendental, float_ops, infinities);
    Instance i;
    json inputs = json::object();
    for (const auto& [name, values] : tc.inputs[0]) {
      json a = json::array();
      for (const auto& q : values) a.push_back(q.str());
      inputs[name] = a;
    }
    i.data = {{"program", tc.text}, {"inputs", inputs}, {"precision", *rc::gen::element(24, 53, 113)}};
    return i;
  });
}

namespace {

Module program_of(const Instance& i) { return parse_module(i.data.at("program").get<std::string>(), "generated.mlir"); }

// --- the printer ----------------------------------------------------------------------------

// The control: the last instruction that has attributes loses them, as from a printer that
// forgot to write them (its literal, reduce body and replica groups stay: without them
// nothing prints at all).
Module with_attributes_dropped(Module m) {
  for (auto it = m.function().body.rbegin(); it != m.function().body.rend(); ++it) {
    auto* inst = std::get_if<Instruction>(&*it);
    if (!inst) continue;
    Attributes kept;
    kept.literal = inst->attributes.literal;
    kept.reduce_body = inst->attributes.reduce_body;
    kept.replica_groups = inst->attributes.replica_groups;
    if (!(kept == inst->attributes)) {
      inst->attributes = kept;
      break;
    }
  }
  return m;
}

std::string first_difference(const Module& want, const Module& got) {
  const auto a = instructions(want.function()), b = instructions(got.function());
  for (std::size_t k = 0; k < std::min(a.size(), b.size()); ++k)
    if (!(*a[k] == *b[k])) return "instruction " + std::to_string(k) + ": " + print_instruction(*a[k], 0) + " came back as " + print_instruction(*b[k], 0);
  return a.size() != b.size() ? "the number of instructions" : "the signature or the return";
}

Verdict ops_round_trip(const Instance& i, bool drop) {
  const Module p = program_of(i);
  const std::string printed = print_module(drop ? with_attributes_dropped(p) : p);
  Module q;
  try {
    q = parse_module(printed, "printed.mlir");
  } catch (const ParseError& e) {
    return Verdict::fail(std::string("print(p) does not parse: ") + e.what());
  }
  if (!(q == p)) return Verdict::fail("parse(print(p)) != p at " + first_difference(p, q));
  if (print_module(q) != printed) return Verdict::fail("print(parse(print(p))) != print(p)");
  return Verdict::pass();
}

// --- bit for bit against the naive evaluator -----------------------------------------------

template <class T>
bool same_bits(T a, T b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof a) == 0;
}

std::string hex(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", x);
  return buf;
}

// "" when the run and the naive evaluator agree bit for bit, else the first difference.
template <class T>
std::string run_against_naive(const Module& m, const json& inputs, NaiveSumOrder order) {
  using D = IeeeDomain<T>;
  std::vector<std::vector<T>> args;
  std::vector<std::vector<Value<D>>> in(1);
  for (const auto& a : m.function().arguments) {
    std::vector<T> v;
    for (const auto& s : inputs.at(a.name)) v.push_back(round_rational<T>(parse_literal(s.get<std::string>()).value));
    args.push_back(v);
    in[0].push_back(Tensor<T>(a.type.shape, std::move(v)));
  }
  const D d;
  RunOptions options;
  const auto got = std::get<Tensor<T>>(run_program(m, d, std::move(in), options).outputs[0][0]).data;
  const auto want = naive_run<T>(m, args, order);
  if (got.size() != want.size()) return d.name() + ": " + std::to_string(got.size()) + " elements, naive " + std::to_string(want.size());
  for (std::size_t k = 0; k < got.size(); ++k)
    if (!same_bits(got[k], want[k]))
      return d.name() + ", element " + std::to_string(k) + ": run " + hex(got[k]) + ", naive " + hex(want[k]);
  return "";
}

Verdict ieee_equals_naive(const Instance& i, NaiveSumOrder order) {
  const Module m = program_of(i);
  const json& inputs = i.data.at("inputs");
  std::string why = run_against_naive<float>(m, inputs, order);
  if (why.empty()) why = run_against_naive<double>(m, inputs, order);
  return why.empty() ? Verdict::pass() : Verdict::fail(why);
}

}  // namespace

// --- the edges of the real domain -------------------------------------------------------------

const std::vector<std::string> kEdgeOps = {"log", "sqrt", "rsqrt", "divide"};
// With x > 0 not dyadic (1/3, ...): -x, and zeros whose interval enclosure straddles 0
// (x - x), touches it from above (|x - x|) or below (-|x - x|), or is the point 0 (-0.0).
const std::vector<std::string> kEdges = {"-x", "x - x", "|x - x|", "-|x - x|", "-0.0"};

namespace {

enum class Ieee { NaN, PosInf, NegInf, PosZero, NegZero, Finite };
const char* name(Ieee v) {
  switch (v) {
    case Ieee::NaN: return "nan";
    case Ieee::PosInf: return "+inf";
    case Ieee::NegInf: return "-inf";
    case Ieee::PosZero: return "+0";
    case Ieee::NegZero: return "-0";
    case Ieee::Finite: return "a finite non-zero value";
  }
  return "?";
}

// What each domain must give, derived by hand: the exact value (none: a DomainError), whether
// interval refuses (else it encloses the exact value), and the IEEE result (f32, f64, mpfr).
struct Expectation {
  std::optional<Rational> exact;
  bool interval_refuses;
  Ieee ieee;
  Rational ieee_value;  // when ieee == Finite
};

Expectation expected(const std::string& op, const std::string& edge, const Rational& x) {
  const bool negative = edge == "-x";
  const bool negative_zero = edge == "-|x - x|" || edge == "-0.0";
  if (op == "log")  // log(-x) is undefined, log(0) a pole: -inf in IEEE whatever the zero's sign
    return {std::nullopt, true, negative ? Ieee::NaN : Ieee::NegInf, 0};
  if (op == "sqrt") {
    // sqrt(0) = 0 exactly; intervals refuse any enclosure reaching below 0; IEEE keeps the sign of zero.
    if (negative) return {std::nullopt, true, Ieee::NaN, 0};
    const bool reaches_below = edge == "x - x" || edge == "-|x - x|";
    return {Rational(0), reaches_below, negative_zero ? Ieee::NegZero : Ieee::PosZero, 0};
  }
  if (op == "rsqrt") return {std::nullopt, true, negative ? Ieee::NaN : negative_zero ? Ieee::NegInf : Ieee::PosInf, 0};
  // divide: 1 / operand.
  if (negative) return {Rational(-1) / x, false, Ieee::Finite, Rational(-1) / x};
  return {std::nullopt, true, negative_zero ? Ieee::NegInf : Ieee::PosInf, 0};
}

std::string edge_program(const std::string& op, const std::string& edge, bool absolute) {
  std::string body;
  auto line = [&](const std::string& s) { body += "    " + s + " : tensor<f32>\n"; };
  if (edge == "-x") line("%e = stablehlo.negate %x");
  if (edge == "-0.0") line("%e = stablehlo.constant dense<-0.0>");
  if (edge != "-x" && edge != "-0.0") line(std::string("%") + (edge == "x - x" ? "e" : "d") + " = stablehlo.subtract %x, %x");
  if (edge == "|x - x|") line("%e = stablehlo.abs %d");
  if (edge == "-|x - x|") {
    line("%m = stablehlo.abs %d");
    line("%e = stablehlo.negate %m");
  }
  std::string operand = "%e";
  if (absolute) {
    line("%a = stablehlo.abs %e");
    operand = "%a";
  }
  if (op == "divide") {
    line("%one = stablehlo.constant dense<1.0>");
    line("%r = stablehlo.divide %one, " + operand);
  } else {
    line("%r = stablehlo." + op + " " + operand);
  }
  return "module @edge {\n  func.func @main(%x: tensor<f32>) -> tensor<f32> {\n" + body + "    return %r : tensor<f32>\n  }\n}\n";
}

template <class D>
typename D::Scalar run_scalar(const D& d, const Module& m, const Rational& x) {
  using S = typename D::Scalar;
  std::vector<std::vector<Value<D>>> in(1);
  in[0].push_back(Tensor<S>(Shape{}, std::vector<S>{d.from_rational(x)}));
  RunOptions options;
  return std::get<Tensor<S>>(run_program(m, d, std::move(in), options).outputs[0][0]).data.at(0);
}

Ieee classify(double y) {
  if (std::isnan(y)) return Ieee::NaN;
  if (std::isinf(y)) return y > 0 ? Ieee::PosInf : Ieee::NegInf;
  if (y == 0) return std::signbit(y) ? Ieee::NegZero : Ieee::PosZero;
  return Ieee::Finite;
}

// An IEEE-style result (as a double: f32 and f64 exactly, mpfr rounded) against the expectation;
// a finite one within a few units of the precision `p`.
std::string judge_ieee(const std::string& domain, double y, const Expectation& e, int p) {
  const Ieee got = classify(y);
  if (got != e.ieee) return domain + " gave " + name(got) + " (" + hex(y) + "), expected " + name(e.ieee);
  if (got == Ieee::Finite) {
    const double want = static_cast<double>(e.ieee_value);
    if (!(std::fabs(y / want - 1) <= std::ldexp(1.0, 2 - std::min(p, 53))))
      return domain + " gave " + hex(y) + ", expected about " + hex(want);
  }
  return "";
}

}  // namespace

Verdict domain_edge(const std::string& op, const std::string& edge, const std::string& x_text, int precision, bool absolute) {
  const Module m = parse_module(edge_program(op, edge, absolute), "edge.mlir");
  const Rational x = parse_literal(x_text).value;
  const Expectation e = expected(op, edge, x);
  const std::string what = op + "(" + edge + ") at x = " + x_text + ": ";
  // exact: the value, or a DomainError.
  std::optional<ExtRational> exact;
  try {
    exact = run_scalar(ExactDomain{}, m, x);
  } catch (const std::exception&) {
  }
  if (e.exact.has_value() != exact.has_value() || (exact && !(*exact == ExtRational(*e.exact))))
    return Verdict::fail(what + "exact gave " + (exact ? ExactDomain{}.to_string(*exact) : "an error") + ", expected " +
                         (e.exact ? rational_to_string(*e.exact) : "an error"));
  // interval: a refusal, or an enclosure of the exact value.
  const IntervalDomain interval(precision);
  std::optional<BigInterval> box;
  try {
    box = run_scalar(interval, m, x);
  } catch (const std::exception&) {
  }
  if (e.interval_refuses && box) return Verdict::fail(what + interval.name() + " gave " + interval.to_string(*box) + ", expected a refusal");
  if (!e.interval_refuses && (!box || !IntervalDomain::contains(*box, *e.exact)))
    return Verdict::fail(what + interval.name() + " gave " + (box ? interval.to_string(*box) : "a refusal") + ", expected an enclosure of " +
                         rational_to_string(*e.exact));
  // IEEE special values.
  std::string why = judge_ieee("f32", run_scalar(F32Domain{}, m, x), e, 24);
  if (why.empty()) why = judge_ieee("f64", run_scalar(F64Domain{}, m, x), e, 53);
  if (why.empty()) {
    const MpfrDomain mpfr(precision);
    const BigFloat y = run_scalar(mpfr, m, x);
    // mpfr_get_d keeps NaN, infinities and the sign of zero.
    why = judge_ieee(mpfr.name(), mpfr_get_d(y.get(), MPFR_RNDN), e, precision);
  }
  return why.empty() ? Verdict::pass() : Verdict::fail(what + why);
}

namespace {

rc::Gen<Instance> edge_case() {
  return rc::gen::exec([] {
    Instance i;
    i.data = {{"op", *rc::gen::elementOf(kEdgeOps)},
              {"edge", *rc::gen::elementOf(kEdges)},
              {"x", *rc::gen::element<std::string>("1/3", "2/7", "5/9", "0.1", "0.3")},
              {"precision", *rc::gen::element(24, 53, 113)}};
    return i;
  });
}

Verdict edge(const Instance& i, bool absolute) {
  const auto& d = i.data;
  return domain_edge(d.at("op"), d.at("edge"), d.at("x"), d.at("precision"), absolute);
}

}  // namespace

std::vector<Property> op_properties() {
  return {
      {"text.ops_round_trip", "on op-level programs of every op, parse(print(p)) == p (every attribute) and print(parse(print(p))) == print(p)", "",
       [] { return op_program(true, true); }, [](const Instance& i) { return ops_round_trip(i, false); },
       [](const Instance& i) { return ops_round_trip(i, true); }},
      {"domains.ieee_equals_naive", "on op-level programs of every op, the f32 and f64 runs equal the naive evaluator (documented sum orders) bit for bit",
       "", [] { return op_program(true, true); }, [](const Instance& i) { return ieee_equals_naive(i, NaiveSumOrder::Documented); },
       [](const Instance& i) { return ieee_equals_naive(i, NaiveSumOrder::Reversed); }},
      {"domains.edges", "log, sqrt, rsqrt, divide at, below and around 0: exact errors, interval refusals or enclosures, IEEE special values in f32, f64, mpfr",
       "", edge_case, [](const Instance& i) { return edge(i, false); }, [](const Instance& i) { return edge(i, true); }},
  };
}

}  // namespace shlo::fuzz
