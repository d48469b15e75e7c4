// The property catalogue.
#include <rapidcheck.h>

#include <algorithm>
#include <map>

#include "ast/emit.hpp"
#include "ast/expr_json.hpp"
#include "ast/lift.hpp"
#include "ast/mlir_parse.hpp"
#include "ast/mlir_print.hpp"
#include "ast/skel.hpp"
#include "fuzz/float_props.hpp"
#include "fuzz/gen.hpp"
#include "fuzz/gen_ops.hpp"
#include "fuzz/literal_props.hpp"
#include "fuzz/op_props.hpp"
#include "fuzz/property.hpp"
#include "fuzz/vjp.hpp"
#include "interp/den.hpp"
#include "oracle/agree.hpp"
#include "oracle/float_allowance.hpp"
#include "oracle/text_case.hpp"
#include "oracle/theorems/theorems.hpp"

namespace shlo::fuzz {

using nlohmann::json;

nlohmann::json instance_to_json(const Instance& i) {
  json j = {{"data", i.data}};
  if (i.expr) j["expr"] = expr_to_json(*i.expr);
  return j;
}

Instance instance_from_json(const nlohmann::json& j) {
  Instance i;
  if (j.contains("expr")) i.expr = expr_from_json(j["expr"], "/instance/expr");
  if (j.contains("data")) i.data = j["data"];
  return i;
}

nlohmann::json rationals_to_json(const std::vector<Rational>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& q : v) a.push_back(q.str());
  return a;
}

std::vector<Rational> rationals_from_json(const nlohmann::json& a) {
  std::vector<Rational> v;
  for (const auto& s : a) v.push_back(parse_literal(s.get<std::string>()).value);
  return v;
}

namespace {

Verdict from(const theorems::Result& r) { return r.holds ? Verdict::pass() : Verdict::fail(r.detail); }

rc::Gen<Instance> of_expr(rc::Gen<ExprPtr> g) {
  return rc::gen::map(std::move(g), [](ExprPtr e) { return Instance{std::move(e), json::object()}; });
}

rc::Gen<std::vector<Rational>> rationals(std::size_t n) {
  return rc::gen::container<std::vector<Rational>>(
      n, rc::gen::map(rc::gen::pair(rc::gen::inRange(-9, 10), rc::gen::element(1, 2, 3)),
                      [](const std::pair<int, int>& p) { return Rational(p.first) / Rational(p.second); }));
}

// --- text ---------------------------------------------------------------------------------
Verdict text_round_trip(const Instance& i, bool broken) {
  std::string text = text_case(*i.expr).text;
  if (broken) {  // control: the first result type loses a dimension
    const auto at = text.find("    %v0 = ");
    const auto t = text.find("tensor<1x", at);
    if (t != std::string::npos) text.replace(t, 9, "tensor<");
  }
  try {
    const Module m = parse_module(text, "emitted.mlir");
    if (print_module(m) != text) return Verdict::fail("print(parse(emit(e))) differs from emit(e)");
  } catch (const ParseError& e) {
    return Verdict::fail(std::string("emit(e) does not parse: ") + e.what());
  }
  return Verdict::pass();
}

// --- skeleton -------------------------------------------------------------------------------
// A row that prints an earlier row's text (.canonical = false) is read back as that row
// (SHLO_SEMANTICS.md 4.4 (b)): its token becomes the canonical row's, fields by name (through
// the template's renames), those the canonical row keeps and this one lacks as 0.
Token as_canonical(const Token& t) {
  const CtorSpec& c = token_spec(t);
  if (c.canonical) return t;
  const auto& rows = constructors();
  const auto peer = std::find_if(rows.begin(), rows.end(), [&](const CtorSpec& r) { return r.canonical && std::string(r.templ) == c.templ; });
  if (peer == rows.end()) return t;
  std::map<std::string, std::int64_t> nats;
  std::map<std::string, std::string> strings;
  for (std::size_t k = 0; k < c.skel_nats.size(); ++k) nats[c.skel_nats[k]] = t.nats[k];
  for (std::size_t k = 0; k < c.skel_strings.size(); ++k) strings[c.skel_strings[k]] = t.strings[k];
  for (const auto& [template_name, ours] : c.template_renames)
    if (nats.count(ours)) nats[template_name] = nats[ours];
  Token out = t;
  out.kind = peer->token;
  out.tag = peer->tag;
  out.nats.clear();
  out.strings.clear();
  for (const char* n : peer->skel_nats) out.nats.push_back(nats.count(n) ? nats[n] : 0);
  for (const char* f : peer->skel_strings) out.strings.push_back(strings[f]);
  return out;
}

// The lifter cannot see fields the text does not print (SHLO_SEMANTICS.md 4.4 (c)); they are
// compared as 0.
Skel without_unprinted(Skel s) {
  s.token = as_canonical(s.token);
  if (s.token.kind == "convBiasGrad" || s.token.kind == "convBiasSgd") {
    const CtorSpec& c = token_spec(s.token);
    for (std::size_t k = 0; k < c.skel_nats.size(); ++k) {
      const std::string n = c.skel_nats[k];
      if (n == "ic" || n == "kH" || n == "kW") s.token.nats[k] = 0;
    }
  }
  for (auto& child : s.children) child = without_unprinted(child);
  return s;
}

Verdict skeleton_lift(const Instance& i, bool broken) {
  std::string text = text_case(*i.expr).text;
  if (broken) {  // control: one instruction changes its op
    const auto at = text.rfind("stablehlo.");
    text.replace(at, 10, "stablehlo.");
    const auto op = text.find(' ', at);
    const std::string name = text.substr(at + 10, op - at - 10);
    if (name == "add") text.replace(at + 10, 3, "subtract");
    else if (name == "subtract") text.replace(at + 10, 8, "add");
    else if (name == "multiply") text.replace(at + 10, 8, "divide");
    else if (name == "divide") text.replace(at + 10, 6, "multiply");
    else if (name == "maximum") text.replace(at + 10, 7, "minimum");
    else text.replace(at + 10, name.size(), name == "exponential" ? "logistic" : "exponential");
  }
  Module m;
  try {
    m = parse_module(text, "emitted.mlir");
  } catch (const ParseError& e) {
    return Verdict::fail(e.what());
  }
  const Lifted l = lift(m);
  if (l.report.verbatim != 0) return Verdict::fail(std::to_string(l.report.verbatim) + " instruction lines stayed verbatim");
  if (l.render.items.size() != 1) return Verdict::fail("the text lifted to " + std::to_string(l.render.items.size()) + " items, not one tree");
  const Skel got = skel(*l.render.items[0].expr), want = without_unprinted(skel(*i.expr));
  if (!(got == want)) return Verdict::fail("lift(parse(emit(e))) is not skel(e)");
  const auto tokens = to_tokens(want);
  if (!(parse_tokens(tokens) == want)) return Verdict::fail("the token round trip fails");
  return Verdict::pass();
}

// --- meaning --------------------------------------------------------------------------------
bool contains(const Expr& e, const std::string& ctor) {
  if (e.spec->name == ctor) return true;
  for (const auto& c : e.children)
    if (contains(*c, ctor)) return true;
  return false;
}

Verdict meaning(const Instance& i, bool perturb) {
  Agreement a;
  try {
    a = den_agrees_with_text(*i.expr, perturb);
  } catch (const std::exception& e) {
    // lambScaleF's text divides sqrt(wn2) by sqrt(rn2) before its guard selects 1 (section
    // 3.8); at rn2 = 0 the exact run refuses the unused quotient that IEEE would make inf, and
    // the interval run one whose divisor's enclosure reaches 0 (corpus: 478087167).
    const std::string what = e.what();
    const bool zero_divisor = what.find("division by zero") != std::string::npos ||
                              what.find("the divisor's enclosure contains 0") != std::string::npos;
    if (zero_divisor && contains(*i.expr, "lambScaleF"))
      return Verdict::discard("lambScaleF's unselected quotient divides by zero");
    // A reduced-precision value beyond its format (interp/domain/rounding.hpp's overflow policy).
    if (std::string(e.what()).find("overflows") != std::string::npos) return Verdict::discard("a bf16/f8E4M3FN value overflows");
    throw;
  }
  if (!a.comparable) return Verdict::discard("den raised " + a.detail);
  if (!a.agree) return Verdict::fail("in " + a.domain + ": " + a.detail);
  return Verdict::pass();
}

// --- domains --------------------------------------------------------------------------------
// Op-level programs (op_program, fuzz/op_props) travel in the instance's data: the text and the inputs.
TextCase case_of(const Instance& i) {
  if (i.expr) return text_case(*i.expr);
  TextCase tc;
  tc.text = i.data.at("program").get<std::string>();
  tc.inputs.resize(1);
  for (const auto& [name, v] : i.data.at("inputs").items()) tc.inputs[0][name] = rationals_from_json(v);
  return tc;
}

Verdict interval_encloses_exact(const Instance& i, bool shrink) {
  const TextCase tc = case_of(i);
  const int p = i.data.value("precision", 53);
  std::vector<std::vector<std::string>> exact, enclosure;
  try {
    exact = run_text_case(tc, "exact");
  } catch (const std::exception& e) {
    return Verdict::discard(std::string("exact run: ") + e.what());
  }
  enclosure = run_text_case(tc, "interval:" + std::to_string(p));
  for (std::size_t r = 0; r < exact.size(); ++r)
    for (std::size_t k = 0; k < exact[r].size(); ++k) {
      std::string box = enclosure[r][k];
      if (shrink) {  // control: the enclosure collapsed to its lower end
        const auto comma = box.find(',');
        box = box.substr(0, comma) + "," + box.substr(1, comma - 1) + "]";
      }
      if (!interval_contains(box, exact[r][k], p))
        return Verdict::fail("element " + std::to_string(k) + ": " + box + " does not contain " + exact[r][k]);
    }
  return Verdict::pass();
}

Verdict mpfr_in_interval(const Instance& i, bool coarse) {
  const TextCase tc = case_of(i);
  const int p = i.data.value("precision", 53);
  std::vector<std::vector<std::string>> point, enclosure;
  try {
    enclosure = run_text_case(tc, "interval:" + std::to_string(p));
  } catch (const std::exception& e) {  // a zero divisor or a root of a negative: outside the domain
    return Verdict::discard(std::string("the program leaves the real domain: ") + e.what());
  }
  point = run_text_case(tc, "mpfr:" + std::to_string(coarse ? p / 4 : p));
  for (std::size_t r = 0; r < point.size(); ++r)
    for (std::size_t k = 0; k < point[r].size(); ++k) {
      if (point[r][k] == "nan") return Verdict::discard("nan");
      if (!interval_contains_point(enclosure[r][k], point[r][k], p))
        return Verdict::fail("element " + std::to_string(k) + ": mpfr " + point[r][k] + " outside " + enclosure[r][k]);
    }
  return Verdict::pass();
}

Verdict float_allowance(const Instance& i, bool perturb) {
  for (const char* domain : {"f32", "f64"}) {
    const FloatCheck c = float_run_within_allowance(case_of(i), domain, perturb);
    if (!c.within) return Verdict::fail(std::string(domain) + ": " + c.detail);
  }
  return Verdict::pass();
}

rc::Gen<Instance> with_precision(rc::Gen<ExprPtr> g) {
  return rc::gen::exec([g] {
    Instance i{*g, json::object()};
    i.data["precision"] = *rc::gen::element(24, 53, 113);
    return i;
  });
}

// --- theorems -------------------------------------------------------------------------------
const Expr& family_in(const Expr& e) {
  if (e.spec->arity == Arity::Family) return e;
  for (const auto& c : e.children)
    if (c->spec->arity != Arity::Leaf) return family_in(*c);
  throw ExprError("no allReduceMeanF in the instance");
}

rc::Gen<Instance> family_only() {
  return rc::gen::map(gen_family(true), [](ExprPtr e) {
    return Instance{std::make_shared<const Expr>(family_in(*e)), json::object()};
  });
}

rc::Gen<Instance> shard_instance() {
  return rc::gen::exec([] {
    const auto R = *rc::gen::inRange<std::int64_t>(1, 5), N = *rc::gen::inRange<std::int64_t>(1, 4),
               a = *rc::gen::inRange<std::int64_t>(1, 4), c = *rc::gen::inRange<std::int64_t>(1, 4);
    Instance i;
    i.data = {{"R", R}, {"N", N}, {"a", a}, {"c", c}, {"X", rationals_to_json(*rationals(static_cast<std::size_t>(R * N * a)))},
              {"U", rationals_to_json(*rationals(static_cast<std::size_t>(R * N * c)))}};
    return i;
  });
}

Verdict shard(const Instance& i, bool drop) {
  const auto& d = i.data;
  return from(theorems::shard_gradient(d["R"], d["N"], d["a"], d["c"], rationals_from_json(d["X"]), rationals_from_json(d["U"]), drop));
}

rc::Gen<Instance> bn_instance() {
  return rc::gen::exec([] {
    Instance i;
    json shards = json::array();
    const int R = *rc::gen::inRange(1, 5), N = *rc::gen::inRange(1, 4);  // R shards of N examples
    for (int r = 0; r < R; ++r) shards.push_back(rationals_to_json(*rationals(static_cast<std::size_t>(N))));
    i.data = {{"shards", shards}};
    return i;
  });
}

Verdict bn_gap(const Instance& i, bool merge) {
  std::vector<std::vector<Rational>> shards;
  for (const auto& s : i.data["shards"]) shards.push_back(rationals_from_json(s));
  if (merge) {  // control: DP = global is claimed, i.e. the gap is asserted to be 0
    Rational mean_gap = 0;
    const auto res = theorems::batch_bn_gap(shards);
    if (!res.holds) return from(res);
    // With two or more shards of different means the gap is not 0; claim it is.
    std::vector<Rational> means;
    for (const auto& s : shards) {
      Rational m = 0;
      for (const auto& x : s) m += x;
      means.push_back(m / Rational(static_cast<long>(s.size())));
    }
    for (const auto& m : means) mean_gap += (m - means[0]) * (m - means[0]);
    return mean_gap == 0 ? Verdict::pass() : Verdict::fail("DP differs from the global-batch gradient (the counterexample)");
  }
  return from(theorems::batch_bn_gap(shards));
}

// Synchronised batch norm on R = 2..4 replicas (docs/lean/transformer-families-2.md section 5):
// shards of N examples of oc x h x w. Channel 0's cells are drawn; channel c holds them reversed
// (another split across the replicas) plus c, so every channel has the same global variance V,
// and eps = t^2 - V with the integer t > sqrt(V) makes every global 1/sqrt(var + eps) rational:
// the comparison is exact.
rc::Gen<Instance> sync_bn_instance() {
  return rc::gen::exec([] {
    const std::int64_t R = *rc::gen::inRange<std::int64_t>(2, 5), N = *rc::gen::inRange<std::int64_t>(1, 3),
                       oc = *rc::gen::inRange<std::int64_t>(1, 3), h = *rc::gen::element<std::int64_t>(1, 2),
                       w = *rc::gen::element<std::int64_t>(1, 2);
    const std::int64_t hw = h * w, M = R * N * hw;  // cells of a channel over the whole batch
    const auto cells = *rationals(static_cast<std::size_t>(M));
    Rational mean = 0, var = 0;
    for (const auto& v : cells) mean += v;
    mean /= M;
    for (const auto& v : cells) var += (v - mean) * (v - mean);
    var /= M;
    const Integer t = sqrt(Integer(numerator(var) / denominator(var))) + 1;
    json shards = json::array(), cots = json::array();
    for (std::int64_t r = 0; r < R; ++r) {
      std::vector<Rational> shard;
      for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t c = 0; c < oc; ++c)
          for (std::int64_t p = 0; p < hw; ++p) {
            const std::int64_t cell = (r * N + n) * hw + p;  // the cell's place in the global order
            shard.push_back(c == 0 ? cells[static_cast<std::size_t>(cell)] : cells[static_cast<std::size_t>(M - 1 - cell)] + Rational(c));
          }
      shards.push_back(rationals_to_json(shard));
      cots.push_back(rationals_to_json(*rationals(static_cast<std::size_t>(N * oc * hw))));
    }
    Instance i;
    i.data = {{"oc", oc}, {"h", h}, {"w", w}, {"shards", shards}, {"cotangents", cots},
              {"gamma", rationals_to_json(*rationals(static_cast<std::size_t>(oc)))},
              {"beta", rationals_to_json(*rationals(static_cast<std::size_t>(oc)))}, {"eps", (Rational(t * t) - var).str()}};
    return i;
  });
}

// The property, or (per_replica) the counterexample: each replica's batch norm of its shard alone.
Verdict sync_bn(const Instance& i, bool per_replica) {
  const auto& d = i.data;
  std::vector<std::vector<Rational>> shards, cots;
  for (const auto& s : d["shards"]) shards.push_back(rationals_from_json(s));
  for (const auto& s : d["cotangents"]) cots.push_back(rationals_from_json(s));
  return from(theorems::sync_bn(shards, cots, d["oc"], d["h"], d["w"], rationals_from_json(d["gamma"]), rationals_from_json(d["beta"]),
                                parse_literal(d["eps"].get<std::string>()).value, per_replica));
}

rc::Gen<Instance> loss_instance() {
  return rc::gen::exec([] {
    const auto R = *rc::gen::inRange<std::int64_t>(1, 5), m = *rc::gen::inRange<std::int64_t>(1, 4), n = *rc::gen::inRange<std::int64_t>(1, 4);
    json xs = json::array(), ys = json::array();
    for (std::int64_t r = 0; r < R; ++r) {
      xs.push_back(rationals_to_json(*rationals(static_cast<std::size_t>(m))));
      ys.push_back(rationals_to_json(*rationals(static_cast<std::size_t>(n))));
    }
    Instance i;
    i.data = {{"m", m}, {"n", n}, {"xs", xs}, {"ys", ys}, {"W", rationals_to_json(*rationals(static_cast<std::size_t>(m * n)))}};
    return i;
  });
}

rc::Gen<Instance> conv_instance() {
  return rc::gen::exec([] {
    const auto R = *rc::gen::inRange<std::int64_t>(1, 4), N = *rc::gen::inRange<std::int64_t>(1, 3),
               ic = *rc::gen::inRange<std::int64_t>(1, 3), oc = *rc::gen::inRange<std::int64_t>(1, 3),
               h = *rc::gen::inRange<std::int64_t>(1, 4), w = *rc::gen::inRange<std::int64_t>(1, 4), k = *rc::gen::inRange<std::int64_t>(1, 4);
    json xs = json::array(), cots = json::array();
    for (std::int64_t r = 0; r < R; ++r) {
      xs.push_back(rationals_to_json(*rationals(static_cast<std::size_t>(N * ic * h * w))));
      cots.push_back(rationals_to_json(*rationals(static_cast<std::size_t>(N * oc * h * w))));
    }
    Instance i;
    i.data = {{"N", N}, {"ic", ic}, {"oc", oc}, {"h", h}, {"w", w}, {"k", k}, {"xs", xs}, {"cots", cots},
              {"W", rationals_to_json(*rationals(static_cast<std::size_t>(oc * ic * k * k)))}};
    return i;
  });
}

Verdict conv_fold(const Instance& i, bool sum) {
  std::vector<std::vector<Rational>> xs, cots;
  for (const auto& x : i.data["xs"]) xs.push_back(rationals_from_json(x));
  for (const auto& c : i.data["cots"]) cots.push_back(rationals_from_json(c));
  const auto& d = i.data;
  return from(theorems::conv_fold(xs, cots, rationals_from_json(d["W"]), d["N"], d["ic"], d["oc"], d["h"], d["w"], d["k"], sum));
}

Verdict loss_gradient(const Instance& i, bool sum) {
  std::vector<std::vector<Rational>> xs, ys;
  for (const auto& x : i.data["xs"]) xs.push_back(rationals_from_json(x));
  for (const auto& y : i.data["ys"]) ys.push_back(rationals_from_json(y));
  return from(theorems::mean_loss_gradient(xs, ys, rationals_from_json(i.data["W"]), i.data["m"], i.data["n"], sum));
}

rc::Gen<Instance> tail_instance(const std::string& optimizer) {
  return rc::gen::exec([optimizer] {
    Instance i = *family_only();
    const auto n = static_cast<std::size_t>(i.expr->length());
    auto pick = [](std::initializer_list<Rational> l) { return *rc::gen::elementOf(std::vector<Rational>(l)); };
    std::vector<Rational> hyper;
    if (optimizer == "rmsprop")
      hyper = {pick({Rational(9, 10), Rational(1, 2)}), pick({Rational(9, 10), Rational(0)}), pick({Rational(1), Rational(1, 1000)}),
               pick({Rational(1, 100), Rational(1)}), pick({Rational(0), Rational(1, 10000)})};
    else if (optimizer == "adamw" || optimizer == "lamb")
      hyper = {pick({Rational(9, 10), Rational(1, 2)}), pick({Rational(999, 1000), Rational(3, 4)}), pick({Rational(1, 100000000), Rational(1, 10)}),
               pick({Rational(1, 1000), Rational(1, 2)}), pick({Rational(0), Rational(1, 10000)}), pick({Rational(1, 10), Rational(1)}),
               pick({Rational(1, 1000), Rational(1)})};
    else
      hyper = {pick({Rational(9, 10), Rational(1, 2)}), pick({Rational(1, 10), Rational(1)})};
    auto v = *rationals(n);
    for (auto& x : v) x = x < 0 ? Rational(-x) : x;
    i.data = {{"optimizer", optimizer}, {"hyper", rationals_to_json(hyper)}, {"theta", rationals_to_json(*rationals(n))}, {"m", rationals_to_json(*rationals(n))},
              {"v", rationals_to_json(v)}};
    return i;
  });
}

Verdict tail(const Instance& i, bool wrong) {
  const auto& d = i.data;
  return from(theorems::optimizer_tail(*i.expr, d["optimizer"], rationals_from_json(d["hyper"]), rationals_from_json(d["theta"]), rationals_from_json(d["m"]),
                                       rationals_from_json(d["v"]), wrong));
}

std::vector<Property> make_catalogue() {
  auto expr_text = [] { return of_expr(gen_expr(true, true)); };
  // Per-example expressions at batch 1, or the batched set at N = B (half and half).
  auto expr_both = [] {
    return rc::gen::exec([] { return Instance{*rc::gen::arbitrary<bool>() ? *gen_expr(true) : *gen_batched_expr(true), json::object()}; });
  };
  auto expr_text_both = [] {
    return rc::gen::exec([] { return Instance{*rc::gen::arbitrary<bool>() ? *gen_expr(true, true) : *gen_batched_expr(true, true), json::object()}; });
  };
  return {
      {"text.round_trip", "emit(e) parses and verifies, and print(parse(emit(e))) == emit(e)", "", expr_text_both,
       [](const Instance& i) { return text_round_trip(i, false); }, [](const Instance& i) { return text_round_trip(i, true); }},
      {"skeleton.lift", "lift(parse(emit(e))) == skel(e) (unprinted fields as 0), and parse(toToks(skel e)) == skel e",
       "roundtrip", expr_text, [](const Instance& i) { return skeleton_lift(i, false); },
       [](const Instance& i) { return skeleton_lift(i, true); }},
      {"meaning.den_equals_text", "den(e) == run(parse(emit(e))) at B = 1, and for the batched set at N = B: exactly in exact, overlapping in interval:256", "", expr_both,
       [](const Instance& i) { return meaning(i, false); }, [](const Instance& i) { return meaning(i, true); }},
      {"meaning.replicas", "on an SPMD family (R = 1..8, optimizer tail), den == the emitted program on R replicas", "",
       [] { return of_expr(gen_family(false)); }, [](const Instance& i) { return meaning(i, false); },
       [](const Instance& i) { return meaning(i, true); }},
      {"domains.interval_encloses_exact", "interval:P (P = 24, 53, 113) encloses the exact run of a rational program", "",
       [] { return with_precision(gen_expr(false)); }, [](const Instance& i) { return interval_encloses_exact(i, false); },
       [](const Instance& i) { return interval_encloses_exact(i, true); }},
      {"domains.mpfr_in_interval", "the mpfr:P run of a program lies inside the interval:P run", "",
       [] { return with_precision(gen_expr(true)); }, [](const Instance& i) { return mpfr_in_interval(i, false); },
       [](const Instance& i) { return mpfr_in_interval(i, true); }},
      {"domains.ops_interval_encloses_exact", "on op-level programs from the spec's op rules (-inf inits included), interval:P encloses the exact run", "",
       [] { return op_program(false, false, true); }, [](const Instance& i) { return interval_encloses_exact(i, false); },
       [](const Instance& i) { return interval_encloses_exact(i, true); }},
      {"domains.ops_mpfr_in_interval", "on op-level programs with exp, logistic, tanh, sqrt, the mpfr:P run lies in interval:P", "",
       [] { return op_program(true); }, [](const Instance& i) { return mpfr_in_interval(i, false); },
       [](const Instance& i) { return mpfr_in_interval(i, true); }},
      {"domains.float_within_allowance", "every op of an f32 or f64 run lies in the interval enclosure of the exact op on its float operands, widened by the op's allowance",
       "", [] { return op_program(true); }, [](const Instance& i) { return float_allowance(i, false); },
       [](const Instance& i) { return float_allowance(i, true); }},
      {"theorem.dp_mean", "den(allReduceMeanF(g)) = dpMean(r -> den g_r), and so does the emitted all_reduce program",
       "den_allReduceMeanF_eq_dpMean", family_only, [](const Instance& i) { return from(theorems::dp_mean(*i.expr)); },
       [](const Instance& i) { return from(theorems::dp_mean(*i.expr, true)); }},
      {"theorem.spmd_skeleton", "under SPMD, skel(node) is each replica's and the printed text does not depend on r",
       "skel_allReduceMeanF_of_spmd", family_only, [](const Instance& i) { return from(theorems::spmd_skeleton(*i.expr)); },
       [](const Instance& i) {  // control: one more replica whose subtree is scaled
         Expr broken = *i.expr;
         const ExprPtr last = broken.children.back();
         Expr scaled;
         scaled.spec = find_constructor("scaleF");
         scaled.nats = {{"n", last->length()}};
         scaled.strings = {{"sStr", "0.5"}};
         scaled.reals = {{"s", {Rational(1, 2)}}};
         scaled.children = {last};
         broken.children.push_back(make_expr(std::move(scaled)));
         broken.replicas += 1;
         return from(theorems::spmd_skeleton(*make_expr(std::move(broken))));
       }},
      {"theorem.mean_loss_gradient", "the all-reduced node of per-replica loss gradients is the gradient of the mean loss (dual numbers)",
       "den_allReduceMeanF_eq_lossGrad_meanLoss", loss_instance, [](const Instance& i) { return loss_gradient(i, false); },
       [](const Instance& i) { return loss_gradient(i, true); }},
      {"theorem.conv_fold", "the all-reduced conv weight gradient is the replica mean of batch sums of the conv Jacobian times the cotangent (k = 1, 2, 3)",
       "den_allReduceMeanF_convWeightGradB", conv_instance, [](const Instance& i) { return conv_fold(i, false); },
       [](const Instance& i) { return conv_fold(i, true); }},
      {"theorem.shard_gradient", "the replica mean of per-replica batch-summed dense and conv weight gradients is the global-batch gradient / R",
       "dpMeanGrad_eq_globalBatchGrad_of_perExample", shard_instance, [](const Instance& i) { return shard(i, false); },
       [](const Instance& i) { return shard(i, true); }},
      {"theorem.batch_bn_counterexample", "with batch-coupled statistics DP - global = Var_r(shard means) (witness {0},{2}: 2 vs 1)",
       "dpMeanGrad_ne_globalBatchGrad", bn_instance, [](const Instance& i) { return bn_gap(i, false); },
       [](const Instance& i) { return bn_gap(i, true); }},
      {"theorem.sync_bn", "on R = 2..4 replicas the sync batch norm (statistics all-reduced) equals batch norm over the concatenated batch, exactly, forward and backward",
       "den_bnSyncF_allReduce_R1, at R replicas", sync_bn_instance, [](const Instance& i) { return sync_bn(i, false); },
       [](const Instance& i) { return sync_bn(i, true); }},
      {"theorem.adamw_tail", "the AdamW nodes at the all-reduced node equal adamWStep at dpMean", "adamW_at_allReduceMeanF",
       [] { return tail_instance("adamw"); }, [](const Instance& i) { return tail(i, false); },
       [](const Instance& i) { return tail(i, true); }},
      {"theorem.rmsprop_tail", "the RMSProp nodes (coupled L2, TF placement) at the all-reduced node equal rmsPropStep at dpMean",
       "adamW_at_allReduceMeanF (RMSProp)", [] { return tail_instance("rmsprop"); }, [](const Instance& i) { return tail(i, false); },
       [](const Instance& i) { return tail(i, true); }},
      {"theorem.lamb_tail", "the LAMB nodes (direction, trust-ratio guard, update) at the all-reduced node equal lambStep at dpMean",
       "adamW_at_allReduceMeanF (LAMB)", [] { return tail_instance("lamb"); }, [](const Instance& i) { return tail(i, false); },
       [](const Instance& i) { return tail(i, true); }},
      {"theorem.momentum_tail", "the Nesterov nodes at the all-reduced node equal momStep at dpMean", "adamW_at_allReduceMeanF (momentum)",
       [] { return tail_instance("momentum"); }, [](const Instance& i) { return tail(i, false); },
       [](const Instance& i) { return tail(i, true); }},
  };
}

}  // namespace

const std::vector<Property>& catalogue() {
  static const std::vector<Property> c = [] {
    auto all = make_catalogue();
    for (auto& p : float_properties()) all.push_back(std::move(p));
    for (auto& p : op_properties()) all.push_back(std::move(p));
    for (auto& p : literal_properties()) all.push_back(std::move(p));
    for (auto& p : vjp_properties()) all.push_back(std::move(p));
    return all;
  }();
  return c;
}

const Property* find_property(const std::string& name) {
  for (const auto& p : catalogue())
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace shlo::fuzz
