#include "fuzz/vjp.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <csignal>
#include <map>
#include <set>

#include "ast/expr_json.hpp"
#include "fuzz/gen.hpp"
#include "fuzz/vjp_den.hpp"

namespace shlo::fuzz {

using nlohmann::json;

bool g_fault_vjp_crash = false;

namespace {

// --- the table ------------------------------------------------------------------------------

// A table cell as written: a name ("batchOp/relu", quoted or not) or a registry identifier
// ("batchOp_relu"), resolved to the registry's name; an unknown one is kept for the report.
std::string canonical_name(std::string cell) {
  if (cell.size() >= 2 && cell.front() == '"' && cell.back() == '"') cell = cell.substr(1, cell.size() - 2);
  if (find_constructor(cell)) return cell;
  static const std::map<std::string, std::string> by_identifier = {
#define SHLO_CTOR(ID, NAME, ...) {#ID, NAME},
#include "ast/ctors/all.def"
#undef SHLO_CTOR
  };
  const auto it = by_identifier.find(cell);
  return it == by_identifier.end() ? cell : it->second;
}

std::string line_text(const VjpPair& p) {
  return "SHLO_VJP(" + p.backward + ", " + p.forward + ", \"" + p.wrt + "\", \"" + p.saved + "\")";
}

bool has_real(const CtorSpec& c, const std::string& name) {
  return std::any_of(c.reals.begin(), c.reals.end(), [&](const RealField& f) { return name == f.name; });
}

// --- drawing --------------------------------------------------------------------------------

// The variable's values are offset by (i + 1) / 1000003: distinct from each other, never 0
// (relu's kink), never a tie with another drawn value, and no other field or constant of den
// has a denominator divisible by that prime, so the dual domain can tell the variable by value.
const Rational kVariableStep(1, 1000003);

std::vector<Rational> as_variable(std::vector<Rational> v) {
  for (std::size_t i = 0; i < v.size(); ++i) v[i] += kVariableStep * Rational(static_cast<long>(i + 1));
  return v;
}

// A shape parameter from its name alone: kernels odd (the printer's same padding, section
// 7.2), everything else 1..3 (small enough for exact arithmetic).
std::int64_t draw_nat(const std::string& name) {
  if (name.size() >= 2 && name[0] == 'k' && std::isupper(static_cast<unsigned char>(name[1])))
    return *rc::gen::element<std::int64_t>(1, 3);
  return *rc::gen::inRange<std::int64_t>(1, 4);
}

std::vector<Rational> draw_direction(std::size_t n) {
  std::vector<Rational> v;
  for (std::size_t i = 0; i < n; ++i)
    v.push_back(Rational(*rc::gen::inRange(-6, 7)) / Rational(*rc::gen::element(1, 2, 3)));
  return v;
}

ExprPtr operand_plan(const std::string& name, std::int64_t n) { return make_skeleton("operand", {{"n", n}}, {}, {{"name", name}}); }

ExprPtr with_values(const ExprPtr& node, const std::string& field, std::vector<Rational> values) {
  Expr e = *node;
  e.reals[field] = std::move(values);
  return make_expr(std::move(e));
}

// Whether a line pairs a batched backward (nat N) with a per-example forward (no N): the forward
// is then taken once per example, and its Jacobian is block diagonal over the N examples.
bool per_example(const CtorSpec& backward, const CtorSpec& forward) {
  auto has_N = [](const CtorSpec& c) { return std::any_of(c.nats.begin(), c.nats.end(), [](const char* n) { return std::string(n) == "N"; }); };
  return has_N(backward) && !has_N(forward);
}

// The values of example e of `whole` (N blocks of `len`).
std::vector<Rational> block(const std::vector<Rational>& whole, std::size_t e, std::size_t len) {
  return {whole.begin() + static_cast<std::ptrdiff_t>(e * len), whole.begin() + static_cast<std::ptrdiff_t>((e + 1) * len)};
}

Instance build_case(const VjpPair& pair) {
  Instance out;
  out.data = {{"line", line_text(pair)}, {"problem", ""}, {"forward", ""}, {"direction", json::array()}, {"wrt", pair.wrt}, {"saved", pair.saved}};
  if (std::string why = vjp_pair_problem(pair); !why.empty()) {
    out.data["problem"] = why;
    return out;
  }
  const CtorSpec& B = *find_constructor(pair.backward);
  const CtorSpec& F = *find_constructor(pair.forward);
  try {
    // The backward node by its row's recipes; its child is the cotangent dy.
    std::map<std::string, std::int64_t> nats;
    for (const char* n : B.nats) nats[n] = draw_nat(n);
    // One constraint between names: a head index is below the head count (headSlice/headPad).
    if (nats.count("head") && nats.count("heads")) nats["head"] = *rc::gen::inRange<std::int64_t>(0, nats.at("heads"));
    ExprPtr dy = operand_plan("%dy", eval_length(B.child_lengths.at(0), nats));
    ExprPtr back = *gen_values(make_skeleton(B.name, nats, {dy}, *gen_strings(B.name)));
    // The forward peer: the backward's nats and shared fields by name, the rest drawn; one node
    // per example when the forward is the per-example peer of a batched backward.
    const std::size_t examples = per_example(B, F) ? static_cast<std::size_t>(nats.at("N")) : 1;
    std::map<std::string, std::int64_t> fnats;
    for (const char* n : F.nats) fnats[n] = nats.count(n) ? nats.at(n) : draw_nat(n);
    auto fstrings = *gen_strings(F.name);
    for (auto& [field, value] : fstrings)
      if (back->strings.count(field)) value = back->strings.at(field);
    ExprPtr x = operand_plan("%x", eval_length(F.child_lengths.at(0), fnats));
    std::vector<Expr> fwds;
    for (std::size_t e = 0; e < examples; ++e) fwds.push_back(**gen_values(make_skeleton(F.name, fnats, {x}, fstrings)));
    // A shared field is the backward's whole (batch-invariant) or, per example, its block.
    for (const auto& f : F.reals) {
      if (!back->reals.count(f.name)) continue;
      const auto& shared = back->reals.at(f.name);
      const std::size_t len = fwds[0].reals.at(f.name).size();
      for (std::size_t e = 0; e < examples; ++e) {
        if (shared.size() == len) fwds[e].reals[f.name] = shared;
        else if (examples > 1 && shared.size() == examples * len) fwds[e].reals[f.name] = block(shared, e, len);
      }
    }
    // The point: the forward's child is the backward's saved field, where there is one.
    const std::size_t child_len = static_cast<std::size_t>(fwds[0].children[0]->length());
    std::vector<Rational> child;
    for (const auto& f : fwds) child.insert(child.end(), f.children[0]->real("v").begin(), f.children[0]->real("v").end());
    if (!pair.saved.empty()) {
      child = back->real(pair.saved);
      if (child.size() != examples * child_len)
        throw ExprError("the saved field '" + pair.saved + "' has " + std::to_string(child.size()) + " values, the forward's child " +
                        std::to_string(examples * child_len));
    }
    // The variable gets values the dual domain can recognise; the backward sees the same point.
    std::size_t variables = 0;
    if (pair.wrt.empty()) {
      child = as_variable(child);
      variables = child.size();
      if (!pair.saved.empty()) back = with_values(back, pair.saved, child);
    } else {
      const std::size_t len = fwds[0].reals.at(pair.wrt).size();
      std::vector<Rational> variable;
      for (const auto& f : fwds) variable.insert(variable.end(), f.reals.at(pair.wrt).begin(), f.reals.at(pair.wrt).end());
      variable = as_variable(variable);
      for (std::size_t e = 0; e < examples; ++e) fwds[e].reals[pair.wrt] = block(variable, e, len);
      variables = variable.size();
      if (back->reals.count(pair.wrt) && back->reals.at(pair.wrt).size() == variables) back = with_values(back, pair.wrt, variable);
    }
    // One forward is stored as its JSON; the per-example forwards as a JSON array of them.
    json forwards = json::array();
    for (std::size_t e = 0; e < examples; ++e) {
      fwds[e].children[0] = with_values(fwds[e].children[0], "v", block(child, e, child_len));
      forwards.push_back(expr_to_json(*make_expr(std::move(fwds[e]))));
    }
    out.expr = back;
    out.data["forward"] = (examples == 1 ? forwards[0] : forwards).dump();
    out.data["direction"] = rationals_to_json(draw_direction(variables));
  } catch (const ExprError& e) {
    out.data["problem"] = std::string("no node can be built from the rows: ") + e.what();
  }
  return out;
}

// --- judging --------------------------------------------------------------------------------

// The backward deliberately wrong (the control): at the other phase (the saved point negated)
// and with the cotangent reversed (a transpose missing) and its first entry moved by one (so
// that a backward that only sums the cotangent, a bias or beta gradient, is wrong too).
ExprPtr wrong_backward(const Expr& back, const std::string& saved) {
  Expr b = back;
  if (!saved.empty())
    for (auto& q : b.reals.at(saved)) q = -q;
  Expr dy = *back.children.at(0);
  auto& v = dy.reals.at("v");
  std::reverse(v.begin(), v.end());
  if (!v.empty()) v.front() += Rational(1);
  b.children[0] = make_expr(std::move(dy));
  return make_expr(std::move(b));
}

// The backward times 2: a scaleF node (s = 2) over it.
ExprPtr doubled_backward(const ExprPtr& back) {
  Expr twice;
  twice.spec = find_constructor("scaleF");
  twice.nats = {{"n", back->length()}};
  twice.strings = {{"sStr", "2.0"}};
  twice.reals = {{"s", {Rational(2)}}};
  twice.children = {back};
  return make_expr(std::move(twice));
}

std::string joined(const std::vector<DenEvent>& events) {
  std::string s;
  for (const auto& e : events) s += (s.empty() ? "" : ", ") + e.constructor + " " + e.kind;
  return s;
}

bool contains_text(const std::string& what, const char* part) { return what.find(part) != std::string::npos; }

// Both sides in one domain (exact, or interval:128), as DenSides: the inner products.
template <class D>
struct Sides {
  typename D::Scalar lhs, rhs;
  std::vector<DenEvent> events;
};

// The forwards are one node, or one per example whose results follow each other in dy.
template <class D>
Sides<D> both_sides(const D& d, const Expr& back, const std::vector<ExprPtr>& fwds, const std::vector<Rational>& dy,
                    const std::vector<Rational>& v, const typename DualDomain<D>::Seeds& seeds) {
  const auto b = denote(d, back);
  Sides<D> s{d.from_rational(0), d.from_rational(0), b.events};
  for (std::size_t i = 0; i < v.size(); ++i) d.mac(s.lhs, b.value[i], d.from_rational(v[i]));
  std::size_t j = 0;
  for (const auto& fwd : fwds) {
    const auto f = denote(DualDomain<D>(d, seeds), *fwd);
    s.events.insert(s.events.end(), f.events.begin(), f.events.end());
    for (const auto& y : f.value) d.mac(s.rhs, d.from_rational(dy[j++]), y.tangent);
  }
  return s;
}

Verdict compare_exact(const Expr& back, const std::vector<ExprPtr>& fwd, const std::vector<Rational>& dy, const std::vector<Rational>& v,
                      const DualDomain<ExactDomain>::Seeds& seeds) {
  const ExactDomain d;
  const auto s = both_sides(d, back, fwd, dy, v, seeds);
  if (!s.events.empty()) return Verdict::discard("Lean's total division or root at this point (not differentiable): " + joined(s.events));
  if (s.lhs == s.rhs) return {Verdict::Status::Pass, "exact: both sides " + d.to_string(s.lhs)};
  return Verdict::fail("exact: <back(dy), v> = " + d.to_string(s.lhs) + " but <dy, J v> = " + d.to_string(s.rhs));
}

// Enclosures must overlap, and be narrow: relative width below 2^-80, so that overlapping
// means agreeing to about 24 decimal digits.
Verdict compare_interval(const Expr& back, const std::vector<ExprPtr>& fwd, const std::vector<Rational>& dy, const std::vector<Rational>& v,
                         const DualDomain<IntervalDomain>::Seeds& seeds) {
  const IntervalDomain d(128);
  const auto s = both_sides(d, back, fwd, dy, v, seeds);
  if (!s.events.empty()) return Verdict::discard("Lean's total division or root at this point (not differentiable): " + joined(s.events));
  const std::string shown = "<back(dy), v> in " + d.to_string(s.lhs) + ", <dy, J v> in " + d.to_string(s.rhs);
  double widest = 0;
  for (const auto* side : {&s.lhs, &s.rhs}) {
    const double relative = IntervalDomain::width(*side) / std::max(1.0, std::fabs(d.to_double(*side)));
    if (relative > std::ldexp(1.0, -80)) return Verdict::discard("interval:128 enclosures too wide to decide: " + shown);
    widest = std::max(widest, relative);
  }
  const bool apart = d.compare(CompareDirection::LT, s.lhs, s.rhs) == Tri::True || d.compare(CompareDirection::GT, s.lhs, s.rhs) == Tri::True;
  if (apart) return Verdict::fail("interval:128: the enclosures are disjoint: " + shown);
  return {Verdict::Status::Pass, "interval:128: the enclosures overlap, relative width at most " + std::to_string(widest) + ": " + shown};
}

}  // namespace

const std::vector<VjpPair>& vjp_pairs() {
  static const std::vector<VjpPair> table = [] {
    std::vector<VjpPair> out;
#define SHLO_VJP(BACKWARD, FORWARD, WRT, SAVED) out.push_back({canonical_name(#BACKWARD), canonical_name(#FORWARD), WRT, SAVED});
#include "fuzz/vjp_pairs.def"
#undef SHLO_VJP
    return out;
  }();
  return table;
}

std::string vjp_pair_problem(const VjpPair& pair) {
  const CtorSpec* B = find_constructor(pair.backward);
  const CtorSpec* F = find_constructor(pair.forward);
  if (!B) return "unknown backward constructor '" + pair.backward + "'";
  if (!F) return "unknown forward constructor '" + pair.forward + "'";
  if (B->arity != Arity::Unary) return "the backward '" + pair.backward + "' does not take one child (the cotangent)";
  if (F->arity != Arity::Unary) return "the forward '" + pair.forward + "' does not take one child";
  if (!pair.wrt.empty() && !has_real(*F, pair.wrt)) return "the forward '" + pair.forward + "' has no real field '" + pair.wrt + "'";
  if (!pair.saved.empty() && !has_real(*B, pair.saved)) return "the backward '" + pair.backward + "' has no real field '" + pair.saved + "'";
  return "";
}

rc::Gen<Instance> gen_vjp_case(const VjpPair& pair) {
  return rc::gen::exec([pair] { return build_case(pair); });
}

rc::Gen<Instance> gen_vjp_case() {
  return rc::gen::exec([] { return build_case(*rc::gen::elementOf(vjp_pairs())); });
}

Verdict check_vjp(const Instance& inst, VjpSide side) {
  if (g_fault_vjp_crash) std::raise(SIGSEGV);
  const json& data = inst.data;
  const std::string line = data.at("line").get<std::string>();
  if (const std::string problem = data.at("problem").get<std::string>(); !problem.empty()) return Verdict::fail(line + ": " + problem);
  // One forward, or (a JSON array) one per example.
  const json forward = json::parse(data.at("forward").get<std::string>());
  std::vector<ExprPtr> fwds;
  if (forward.is_array())
    for (std::size_t e = 0; e < forward.size(); ++e) fwds.push_back(expr_from_json(forward[e], "/instance/data/forward/" + std::to_string(e)));
  else
    fwds.push_back(expr_from_json(forward, "/instance/data/forward"));
  const std::string wrt = data.at("wrt").get<std::string>(), saved = data.at("saved").get<std::string>();
  const std::vector<Rational> v = rationals_from_json(data.at("direction"));
  const Expr& back = *inst.expr;
  if (back.children.size() != 1 || back.children[0]->spec->name != std::string("operand") || fwds.empty())
    return Verdict::fail(line + ": the backward's child must be an operand, and there must be a forward");
  for (const auto& fwd : fwds)
    if (fwd->children.size() != 1 || fwd->children[0]->spec->name != std::string("operand"))
      return Verdict::fail(line + ": the forward's child must be an operand");
  const std::vector<Rational>& dy = back.children[0]->real("v");
  // The variable: the forwards' children or their field `wrt`, example after example.
  std::vector<Rational> variable;
  std::size_t forward_length = 0;
  for (const auto& fwd : fwds) {
    const auto& part = wrt.empty() ? fwd->children[0]->real("v") : fwd->real(wrt);
    variable.insert(variable.end(), part.begin(), part.end());
    forward_length += static_cast<std::size_t>(fwd->length());
  }
  // The shapes say whether the line pairs the right constructors.
  if (back.length() != static_cast<std::int64_t>(variable.size()))
    return Verdict::fail(line + ": the backward's result has " + std::to_string(back.length()) + " values, the forward's variable " +
                         std::to_string(variable.size()));
  if (forward_length != dy.size())
    return Verdict::fail(line + ": the forward's result has " + std::to_string(forward_length) + " values, the cotangent " + std::to_string(dy.size()));
  if (v.size() != variable.size()) return Verdict::fail(line + ": the direction has " + std::to_string(v.size()) + " values, the variable " + std::to_string(variable.size()));
  // The variable's values must identify it: distinct, and held by no other field of a forward.
  DualDomain<ExactDomain>::Seeds seeds;
  for (std::size_t i = 0; i < variable.size(); ++i)
    if (!seeds.emplace(variable[i], v[i]).second) return Verdict::fail(line + ": the variable's values are not distinct");
  for (const auto& fwd : fwds)
    for (const Expr* node : {fwd.get(), fwd->children[0].get()})
      for (const auto& [name, values] : node->reals) {
        const bool is_variable = node == fwd.get() ? name == wrt : wrt.empty() && name == "v";
        if (is_variable) continue;
        for (const auto& q : values)
          if (seeds.count(q)) return Verdict::fail(line + ": the field '" + name + "' holds a value of the variable");
      }
  const ExprPtr judged = side == VjpSide::Den                      ? nullptr
                         : side == VjpSide::WrongPhaseAndTranspose ? wrong_backward(back, saved)
                                                                   : doubled_backward(inst.expr);
  const Expr& b = judged ? *judged : back;
  try {
    return compare_exact(b, fwds, dy, v, seeds);
  } catch (const ExprError& e) {  // a drawn shape the row's den does not admit (a stride that does not divide, say)
    return Verdict::discard(std::string("shape not admitted by den: ") + e.what());
  } catch (const DomainError& e) {
    const std::string what = e.what();
    if (contains_text(what, "not differentiable")) return Verdict::discard(what);
    if (!contains_text(what, "irrational")) throw;
  }
  try {
    return compare_interval(b, fwds, dy, v, seeds);
  } catch (const DomainError& e) {
    if (contains_text(e.what(), "not differentiable")) return Verdict::discard(e.what());
    throw;  // undecided comparisons are discarded by the runner; anything else fails
  }
}

std::vector<Property> vjp_properties() {
  return {{"vjp.transpose_jacobian",
           "for each line of fuzz/vjp_pairs.def, <den(back)(dy), v> == <dy, J_forward v>, J v by dual numbers over den: exactly where "
           "both are rational, else in interval:128 (enclosures overlap, each narrower than 2^-80 relative); non-differentiable "
           "points are discarded, not passed",
           "*_has_vjp", [] { return gen_vjp_case(); }, [](const Instance& i) { return check_vjp(i); },
           [](const Instance& i) { return check_vjp(i, VjpSide::WrongPhaseAndTranspose); }}};
}

}  // namespace shlo::fuzz
