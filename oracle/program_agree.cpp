#include "oracle/program_agree.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "ast/emit.hpp"
#include "ast/lift.hpp"
#include "ast/template.hpp"
#include "interp/domain/interval.hpp"
#include "interp/domain/magnitude.hpp"
#include "interp/den.hpp"
#include "interp/run.hpp"
#include "oracle/text_case.hpp"

namespace shlo {

const char* to_string(BatchReading r) {
  switch (r) {
    case BatchReading::Whole: return "whole";
    case BatchReading::PerRow: return "per row";
    case BatchReading::BatchSum: return "batch sum";
  }
  return "?";
}

const NodeAgreement* ProgramAgreement::first_failure() const {
  for (const auto& n : nodes)
    if (n.compared && !n.agree) return &n;
  return nullptr;
}

bool den_reads_parameter(const CtorSpec& spec, const std::string& nat) {
  const auto mentions = [&](const char* expression) { return expression && length_uses(expression, nat); };
  if (mentions(spec.result_length)) return true;
  for (const char* l : spec.child_lengths)
    if (mentions(l)) return true;
  for (const char* t : spec.child_types)
    if (mentions(t)) return true;
  for (const RealField& f : spec.reals) {
    bool from_text = f.draw == Draw::FromLiteral;
    for (const TextInput& in : spec.inputs) from_text = from_text || (in.value && std::string(in.value) == f.name);
    if (from_text && mentions(f.length)) return true;
  }
  return false;
}

namespace {

// The literal-string fields and the real field each spells (SHLO_SEMANTICS.md 2.6, source 1).

// A lifted node and the names the text gives its value and its children's values.
struct Site {
  const Expr* node;
  std::string result;
  std::vector<std::string> children;  // per child (an allReduceMeanF: the one name, per replica)
};

// Replays the printer's name stack over the render, token by token, so that every node is
// paired with the name of its value: emit_render(lift(m)) is the text, so these are the
// text's names.
class SiteCollector {
 public:
  explicit SiteCollector(std::int64_t batch) : batch_(batch) {}
  std::vector<Site> sites;

  void item(const Expr& e, std::int64_t counter) {
    tokens_ = to_tokens(skel(e));
    next_ = 0;
    if (counter >= 0) state_.counter = counter;
    state_.stack.clear();
    walk(e);
  }

 private:
  std::string walk(const Expr& e) {
    const bool family = e.spec->arity == Arity::Family;
    std::vector<std::string> kids;
    for (std::size_t k = 0; k < (family ? std::min<std::size_t>(1, e.children.size()) : e.children.size()); ++k)
      kids.push_back(walk(*e.children[k]));
    emit_tokens(batch_, {tokens_.at(next_++)}, state_);
    const std::string result = state_.stack.empty() ? "%MALFORMED" : state_.stack.back();
    if (e.spec->arity != Arity::Leaf) sites.push_back({&e, result, kids});
    return result;
  }

  std::int64_t batch_;
  std::vector<Token> tokens_;
  std::size_t next_ = 0;
  EmitState state_;
};

// A node could not be compared: why.
struct NotComparable {
  std::string why;
};

// A shape disagreement between den's index and the text's type: a finding, not a skip.
struct Mismatch {
  std::string what;
};

// How a domain's values are compared and read into den.
template <class D>
struct AgreeTraits {
  using S = typename D::Scalar;
  static constexpr bool kFloat = std::is_floating_point_v<S>;
  static constexpr bool kInterval = std::is_same_v<D, IntervalDomain>;

  // A rational that stands for x where den decides a comparison on a field's exact value
  // (the masks): x itself, or an enclosure's midpoint. The midpoint is sound there because
  // the text makes the same decision on the same value, and the interval run stops on a
  // comparison that its enclosure does not decide.
  static Rational representative(const S& x) {
    if constexpr (kFloat) {
      return rational_from_double(static_cast<double>(x));
    } else if constexpr (kInterval) {
      Rational lo, hi;
      mpfr_get_q(lo.backend().data(), x.lo());
      mpfr_get_q(hi.backend().data(), x.hi());
      return (lo + hi) / 2;
    } else {
      return x.q;
    }
  }
  static bool finite(const S& x) {
    if constexpr (kFloat) return std::isfinite(x);
    else if constexpr (kInterval) return mpfr_number_p(x.lo()) && mpfr_number_p(x.hi());
    else return x.finite();
  }
};

template <class D>
class NodeJudge {
 public:
  using S = typename D::Scalar;
  using Traits = AgreeTraits<D>;
  static constexpr bool kFloat = Traits::kFloat;
  static constexpr bool kInterval = Traits::kInterval;

  NodeJudge(const D& d, std::int64_t batch) : d_(d), batch_(batch) {}

  /// den's reading of `site`'s value on `replica`, which the text holds in `n` elements, its
  /// inputs read from `values` (den_program: den's own values of the nodes before it). Throws
  /// NotComparable, ExprError or DomainError when den cannot give it.
  std::vector<S> denote_node(const Site& site, int replica, std::int64_t n, const ValueEnv<D>& values) {
    values_ = &values;
    NodeAgreement out;
    out.replica = replica;
    NodeEval p;
    if (!prepare(site, n, p, out)) throw NotComparable{out.detail};
    std::vector<double> unused;
    return den_reading(p, out, unused);
  }

  /// Judges `site` on the run's values as they are now.
  void judge(const Site& site, NodeAgreement& out, const ValueEnv<D>& values) {
    values_ = &values;
    auto not_comparable = [&](std::string why) {
      out.compared = false;
      out.agree = true;
      out.why_not = std::move(why);
    };
    try {
      judge_or_throw(site, out);
      out.compared = true;
    } catch (const NotComparable& n) {
      not_comparable(n.why);
    } catch (const ExprError& e) {
      not_comparable(std::string("den: ") + e.what());
    } catch (const DomainError& e) {  // den needs what the domain cannot give (exp in exact)
      not_comparable(std::string("den: ") + e.what());
    }
  }

 private:
  // What den's copy of an input holds: a row (-1: the whole), or zeros.
  struct Setting {
    std::int64_t row = -1;
    bool zero = false;
    bool operator==(const Setting&) const = default;
  };
  // One input of the node: its value on every row, and where den reads it.
  struct Input {
    std::string label;                 // "child 0 (%v3)", "W (%W0)"
    int child = -1;                    // child index, or -1 for a real field
    std::string field;                 // the real field
    std::int64_t length = 0;           // what den reads
    bool per_row = false;              // the text holds B rows of it
    const Storage<S>* values = nullptr;  // all of the text's elements
    std::optional<Setting> set;        // what den's copy of it holds now
  };

  const Storage<S>& tensor(int replica, const std::string& name, const std::string& what) const {
    const auto& env = values_->at(static_cast<std::size_t>(replica));
    const auto it = env.find(name);
    if (it == env.end()) throw NotComparable{what + ": the text has no value " + name};
    const auto* t = std::get_if<Tensor<S>>(&it->second);
    if (!t) throw NotComparable{what + ": " + name + " is a predicate"};
    for (const auto& x : t->data)
      if (!Traits::finite(x)) throw NotComparable{what + " (" + name + ") holds a non-finite value"};
    return t->data;
  }

  Input make_input(const Storage<S>& text, std::string label, std::int64_t length) const {
    Input in;
    in.label = std::move(label);
    in.length = length;
    const auto n = static_cast<std::int64_t>(text.size());
    if (n == length) {
      in.per_row = false;
    } else if (batch_ > 1 && n == batch_ * length) {
      in.per_row = true;
    } else {
      throw Mismatch{in.label + " has " + std::to_string(n) + " elements in the text; den reads " + std::to_string(length) +
                     (batch_ > 1 ? " (or B = " + std::to_string(batch_) + " rows of it)" : std::string())};
    }
    in.values = &text;
    return in;
  }

  std::vector<Input> inputs(const Site& site, int replica, Expr& eval) const {
    const Expr& e = *site.node;
    std::vector<Input> in;
    // Children: the text's values of their results (each replica's, for an allReduceMeanF).
    if (e.spec->arity == Arity::Family) {
      for (std::size_t r = 0; r < e.children.size(); ++r) {
        const std::string& name = site.children.at(0);
        in.push_back(make_input(tensor(static_cast<int>(r), name, "child"), "replica " + std::to_string(r) + "'s " + name,
                                e.children[r]->length()));
        in.back().child = static_cast<int>(r);
      }
    } else {
      for (std::size_t k = 0; k < e.children.size(); ++k) {
        const std::string& name = site.children.at(k);
        in.push_back(make_input(tensor(replica, name, "child"), "child " + std::to_string(k) + " (" + name + ")", e.children[k]->length()));
        in.back().child = static_cast<int>(k);
      }
    }
    // Real fields: from the SSA values the name fields read, from literal strings, or (when
    // nothing prints them, so den does not read them) zeros.
    std::map<std::string, bool> filled;
    for (const TextInput& ni : e.spec->inputs) {  // the row's text inputs
      const std::string value = ni.value;
      if (value.rfind("1-", 0) == 0) continue;  // the text's 1 - beta; den reads beta itself
      const auto s = e.strings.find(ni.field);
      if (s == e.strings.end()) throw NotComparable{std::string("the field ") + ni.field + " was not recovered from the text"};
      in.push_back(make_input(tensor(replica, s->second, ni.field), value + " (" + s->second + ")", field_length(e, value)));
      in.back().field = value;
      filled[value] = true;
    }
    for (const RealField& f : e.spec->reals) {  // the row's literal-valued fields (lrStr -> lr, ...)
      if (f.draw != Draw::FromLiteral) continue;
      const std::string string_field = f.literal;
      const auto s = e.strings.find(string_field);
      if (s == e.strings.end()) continue;
      const Literal lit = parse_literal(s->second);
      if (lit.kind != Literal::Kind::Finite) throw NotComparable{string_field + " = " + s->second + " is not finite"};
      eval.reals[f.name] = {lit.value};
      filled[f.name] = true;
    }
    for (const RealField& f : e.spec->reals)
      if (!filled.count(f.name)) eval.reals[f.name] = std::vector<Rational>(static_cast<std::size_t>(eval_length(f.length, eval.nats)), Rational(0));
    return in;
  }

  static std::int64_t field_length(const Expr& e, const std::string& name) {
    for (const RealField& f : e.spec->reals)
      if (name == f.name) return eval_length(f.length, e.nats);
    throw NotComparable{"den has no field " + name};
  }

  // den with the inputs set to row `row` of the per-row ones (the whole of the others);
  // `zero_children`: den_0, at a zero cotangent. The inputs are bound to den as domain values
  // (DenBindings); a field also gets its representatives as rationals, for a den that decides
  // on them. An input is only rewritten when what den should read of it changed (a weight is
  // set once, not per row).
  std::vector<S> den_at(Expr& eval, std::vector<std::shared_ptr<Expr>>& leaves, std::vector<Input>& in, DenBindings<D>& bound,
                        std::int64_t row, bool zero_children, const std::string& constructor) {
    for (auto& x : in) {
      const bool zero = x.child >= 0 && zero_children;
      const Setting want{x.per_row && !zero ? row : -1, zero};
      if (x.set && *x.set == want) continue;
      x.set = want;
      std::vector<S> v = zero ? std::vector<S>(static_cast<std::size_t>(x.length), d_.from_rational(Rational(0))) : row_of(x, row);
      if (x.child >= 0) {
        bound.fields[{leaves[static_cast<std::size_t>(x.child)].get(), "v"}] = std::move(v);
      } else {
        eval.reals[x.field] = representatives(v);
        bound.fields[{&eval, x.field}] = std::move(v);
      }
    }
    auto r = denote(d_, eval, bound, DenOptions{RoundingModel::NearestEven});
    refuse_events(r.events, constructor);
    return std::move(r.value);
  }

  // What den reads of input x on row `row`: that row of a per-row input, else the whole.
  static std::vector<S> row_of(const Input& x, std::int64_t row) {
    const auto first = x.values->begin() + static_cast<std::ptrdiff_t>(x.per_row ? row * x.length : 0);
    return std::vector<S>(first, first + x.length);
  }
  // Rationals that stand for a field's values where den decides on them (the masks).
  static std::vector<Rational> representatives(const std::vector<S>& v) {
    std::vector<Rational> reps;
    reps.reserve(v.size());
    for (const auto& y : v) reps.push_back(Traits::representative(y));
    return reps;
  }
  // den recorded an event (a tie it cannot decide, ...): the node is not comparable.
  static void refuse_events(const std::vector<DenEvent>& events, const std::string& constructor) {
    if (!events.empty())
      throw NotComparable{"den: " + events[0].kind + " in " + constructor + " (element " + std::to_string(events[0].index) + ")"};
  }

  // A node made ready for den: its evaluation copy, the leaves standing for its children, its
  // inputs read from the values, and how the text holds its value (`reading`).
  struct NodeEval {
    Expr eval;
    std::vector<std::shared_ptr<Expr>> leaves;
    std::vector<Input> in;
    DenBindings<D> bound;
    std::int64_t length = 0, scalars = 16;
    std::string constructor;
  };

  // Prepares `site` on `replica` for a value the text holds in `n` elements; false (with
  // `out` failed) on a shape disagreement.
  bool prepare(const Site& site, std::int64_t n, NodeEval& p, NodeAgreement& out) {
    const Expr& e = *site.node;
    p.eval.spec = e.spec;
    p.eval.nats = e.nats;
    for (auto& [name, value] : p.eval.nats)
      if (value == 0 && !template_prints(*e.spec, name)) {  // a 0 the text prints (head 0) is a value
        if (den_reads_parameter(*e.spec, name))
          throw NotComparable{"its shape parameter " + name + " is not printed (the lift could not recover it)"};
        value = 1;  // sizes only fields no text gives (den_reads_parameter)
      }
    p.eval.strings = e.strings;
    p.eval.ds = e.ds;
    p.eval.replicas = e.replicas;
    p.length = e.length();
    p.constructor = e.spec->name;
    try {
      p.in = inputs(site, out.replica, p.eval);
    } catch (const Mismatch& m) {
      fail(out, m.what);
      return false;
    }
    for (const auto& child : e.children) {
      auto leaf = std::make_shared<Expr>();
      leaf->spec = find_constructor("operand");
      leaf->nats["n"] = child->length();
      leaf->strings["name"] = "%in";
      leaf->reals["v"] = {};  // den reads the bound values
      p.leaves.push_back(leaf);
      p.eval.children.push_back(leaf);
    }
    bool batched = false;
    for (const auto& x : p.in) {
      batched = batched || x.per_row;
      p.scalars += x.length;
    }
    if (n == batch_ * p.length && batch_ > 1) out.reading = BatchReading::PerRow;
    else if (n == p.length) out.reading = batched ? BatchReading::BatchSum : BatchReading::Whole;
    else {
      fail(out, "the text's value has " + std::to_string(n) + " elements; den's index is " + std::to_string(p.length) +
                    " (B = " + std::to_string(batch_) + ")");
      return false;
    }
    return true;
  }

  // M of the float allowance on row `row`: den in the magnitude domain
  // (interp/domain/magnitude.hpp) on the text's values of the inputs. It leaves the fields'
  // rationals at this row, so den_at rewrites them next time.
  std::vector<double> magnitude_at(NodeEval& p, std::int64_t row) {
    DenBindings<MagnitudeDomain> bound;
    for (auto& x : p.in) {
      const std::vector<S> values = row_of(x, row);
      std::vector<Magnitude> v;
      v.reserve(values.size());
      for (const S& y : values) v.push_back(MagnitudeDomain::leaf(d_.to_double(y)));
      if (x.child >= 0) {
        bound.fields[{p.leaves[static_cast<std::size_t>(x.child)].get(), "v"}] = std::move(v);
      } else {
        p.eval.reals[x.field] = representatives(values);
        bound.fields[{&p.eval, x.field}] = std::move(v);
        x.set.reset();
      }
    }
    const auto r = denote(MagnitudeDomain{}, p.eval, bound, DenOptions{RoundingModel::NearestEven});
    refuse_events(r.events, p.constructor);
    std::vector<double> m;
    m.reserve(r.value.size());
    for (const Magnitude& y : r.value) m.push_back(y.m);
    return m;
  }

  // den's reading of the text's value (in out.reading); for a batch sum in a float domain,
  // also M of the allowance, the sum of |den_b|.
  std::vector<S> den_reading(NodeEval& p, const NodeAgreement& out, std::vector<double>& magnitude) {
    std::vector<S> den;
    const std::int64_t rows = out.reading == BatchReading::Whole ? 1 : batch_;
    if (out.reading == BatchReading::BatchSum) {
      const std::vector<S> zero = den_at(p.eval, p.leaves, p.in, p.bound, 0, true, p.constructor);
      den = zero;
      if (kFloat) magnitude.assign(zero.size(), 0.0);
      for (std::size_t i = 0; i < magnitude.size(); ++i) magnitude[i] = std::fabs(d_.to_double(zero[i]));
      for (std::int64_t b = 0; b < rows; ++b) {
        const std::vector<S> y = den_at(p.eval, p.leaves, p.in, p.bound, b, false, p.constructor);
        for (std::size_t i = 0; i < den.size(); ++i) {
          den[i] = d_.add(den[i], d_.sub(y[i], zero[i]));
          if (kFloat) magnitude[i] += std::fabs(d_.to_double(y[i]));
        }
      }
      p.scalars += 2 * batch_;
    } else {
      for (std::int64_t b = 0; b < rows; ++b) {
        std::vector<S> y = den_at(p.eval, p.leaves, p.in, p.bound, b, false, p.constructor);
        den.insert(den.end(), std::make_move_iterator(y.begin()), std::make_move_iterator(y.end()));
      }
    }
    return den;
  }

  void judge_or_throw(const Site& site, NodeAgreement& out) {
    const Storage<S>& text = tensor(out.replica, site.result, "the node's value");
    NodeEval p;
    if (!prepare(site, static_cast<std::int64_t>(text.size()), p, out)) return;
    std::vector<double> magnitude;  // float domains: M of the allowance
    const std::vector<S> den = den_reading(p, out, magnitude);
    if (kFloat && out.reading != BatchReading::BatchSum && den.size() == text.size()) {
      // M is only needed where |den - text| exceeds the allowance without it (cancellation):
      // it is evaluated for those rows alone, which gives the same verdicts as evaluating it
      // everywhere at a fraction of the cost.
      const std::int64_t rows = out.reading == BatchReading::Whole ? 1 : batch_;
      magnitude.assign(den.size(), 0.0);
      const std::int64_t width = static_cast<std::int64_t>(den.size()) / rows;
      for (std::int64_t b = 0; b < rows; ++b) {
        bool needed = false;
        for (std::int64_t i = b * width; i < (b + 1) * width && !needed; ++i)
          needed = !agrees(den[static_cast<std::size_t>(i)], text[static_cast<std::size_t>(i)], 0.0, gamma_of(p.scalars));
        if (!needed) continue;
        const std::vector<double> m = magnitude_at(p, b);
        std::copy(m.begin(), m.end(), magnitude.begin() + b * width);
      }
    }
    compare(den, text, magnitude, p.scalars, p.length, out);
  }

  // gamma_K = K u / (1 - K u) for K scalars read (0 outside the float domains).
  static double gamma_of(std::int64_t scalars) {
    if constexpr (!kFloat) {
      return 0;
    } else {
      const double u = std::ldexp(1.0, -std::numeric_limits<S>::digits);
      const double k = static_cast<double>(scalars);
      return k * u < 1 ? k * u / (1 - k * u) : std::numeric_limits<double>::infinity();
    }
  }

  // f64, f32: |den - text| <= gamma (|den| + |text| + M); interval: the enclosures overlap;
  // exact: equal.
  bool agrees(const S& den, const S& text, double magnitude, double gamma) const {
    if constexpr (kFloat) {
      const double a = static_cast<double>(den), b = static_cast<double>(text);
      return std::fabs(a - b) <= gamma * (std::fabs(a) + std::fabs(b) + magnitude);
    } else if constexpr (kInterval) {
      return d_.compare(CompareDirection::EQ, den, text) != Tri::False;
    } else {
      return den == text;
    }
  }

  void compare(const std::vector<S>& den, const Storage<S>& text, const std::vector<double>& magnitude, std::int64_t scalars,
               std::int64_t length, NodeAgreement& out) {
    out.elements = static_cast<std::int64_t>(text.size());
    if (den.size() != text.size())
      return fail(out, "den gives " + std::to_string(den.size()) + " values, the text " + std::to_string(text.size()));
    const double gamma = gamma_of(scalars);
    for (std::size_t i = 0; i < text.size(); ++i) {
      const double m = i < magnitude.size() ? magnitude[i] : 0.0;
      double allowance = 0;
      if constexpr (kFloat) {
        const double a = static_cast<double>(den[i]), b = static_cast<double>(text[i]);
        if (!std::isfinite(a) || !std::isfinite(b)) {
          if (a == b) continue;
          throw NotComparable{"a non-finite value at element " + std::to_string(i)};
        }
        allowance = gamma * (std::fabs(a) + std::fabs(b) + m);
        out.max_difference = std::max(out.max_difference, std::fabs(a - b));
      }
      const bool same = agrees(den[i], text[i], m, gamma);
      if (!same && out.agree) {
        const auto flat = static_cast<std::int64_t>(i);
        std::string where = "element " + std::to_string(flat);
        if (out.reading == BatchReading::PerRow) where = "row " + std::to_string(flat / length) + ", element " + std::to_string(flat % length);
        std::string detail = where + ": den = " + d_.to_string(den[i]) + ", text = " + d_.to_string(text[i]);
        if constexpr (kFloat) {
          char buf[64];
          std::snprintf(buf, sizeof buf, " (allowance %.3g)", allowance);
          detail += buf;
        }
        if constexpr (kInterval) detail += " (disjoint)";
        fail(out, detail);
      }
    }
  }

  void fail(NodeAgreement& out, const std::string& detail) const {
    out.agree = false;
    out.detail = detail;
  }

  const D& d_;
  const ValueEnv<D>* values_ = nullptr;
  std::int64_t batch_;
};

// The text's names a node's judgement reads: its value, its children's, its name fields'.
std::vector<std::string> names_read(const Site& site) {
  std::vector<std::string> names{site.result};
  names.insert(names.end(), site.children.begin(), site.children.end());
  for (const TextInput& ni : site.node->spec->inputs) {
    const auto s = site.node->strings.find(ni.field);
    if (s != site.node->strings.end()) names.push_back(s->second);
  }
  return names;
}

}  // namespace

template <Domain D>
ProgramAgreement agree_program(const Module& m, const D& d, std::vector<std::vector<Value<D>>> inputs, int replicas,
                               const Module* run_instead, const std::function<void(const AgreeProgress&)>& progress) {
  ProgramAgreement out;
  out.file = m.file;
  out.domain = d.name();
  out.replicas = replicas;
  const Lifted lifted = lift(m);
  out.batch = lifted.render.batch;
  out.instructions = lifted.report.instructions;
  out.in_nodes = lifted.report.as_nodes;
  out.verbatim = lifted.report.verbatim;

  SiteCollector collector(lifted.render.batch);
  for (const auto& item : lifted.render.items)
    if (item.expr) collector.item(*item.expr, item.counter);

  const Module& text = run_instead ? *run_instead : m;
  const auto insts = instructions(text.function());
  std::map<std::string, int> line_of;
  std::unordered_map<std::string, std::size_t> defined_at;
  std::set<std::string> arguments;
  for (const auto& a : text.function().arguments) arguments.insert(a.name);
  for (std::size_t k = 0; k < insts.size(); ++k) {
    line_of[insts[k]->result] = insts[k]->location.line;
    defined_at[insts[k]->result] = k;
  }

  // Each node is judged during the run, right after the last of the values it reads has been
  // computed; the run keeps those values until then and frees every value after its last
  // use, so agree needs about the memory of `shlo run` rather than all of the program's values.
  RunOptions options;
  options.replicas = replicas;
  if (progress)
    options.progress = [&](const RunProgress& p) { progress({p, out.compared + out.not_comparable, out.failed}); };
  std::vector<std::vector<const Site*>> judge_after(insts.size());
  if (!insts.empty())
    for (const auto& site : collector.sites) {
      const std::vector<std::string> names = names_read(site);
      std::size_t when = 0;
      for (const auto& name : names) {
        const auto it = defined_at.find(name);
        if (it != defined_at.end()) when = std::max(when, it->second);
        else if (!arguments.count(name)) when = insts.size() - 1;  // the text lacks it: judged (not comparable) at the end
      }
      judge_after[when].push_back(&site);
      for (const auto& name : names) options.keep_until[name] = std::max(options.keep_until[name], when);
    }

  NodeJudge<D> judge(d, out.batch);
  const RunResult<D> run = run_program_observed(text, d, std::move(inputs), options, [&](std::size_t k, const ValueEnv<D>& values) {
    for (const Site* site : judge_after[k])
      for (int r = 0; r < replicas; ++r) {
        NodeAgreement n;
        n.result = site->result;
        n.constructor = site->node->spec->name;
        n.line = line_of[site->result];
        n.replica = r;
        judge.judge(*site, n, values);
        if (n.compared) {
          ++out.compared;
          out.elements += n.elements;
          out.failed += !n.agree;
        } else {
          ++out.not_comparable;
        }
        out.nodes.push_back(std::move(n));
      }
  });
  out.peak_live_bytes = run.peak_live_bytes;
  // Text order: by the line that defines the node's value.
  std::stable_sort(out.nodes.begin(), out.nodes.end(),
                   [](const NodeAgreement& a, const NodeAgreement& b) { return std::tie(a.line, a.replica) < std::tie(b.line, b.replica); });
  std::map<std::pair<int, std::string>, std::size_t> by_result;  // (replica, name) -> node
  for (std::size_t i = 0; i < out.nodes.size(); ++i) by_result[{out.nodes[i].replica, out.nodes[i].result}] = i;

  const Function& f = m.function();
  for (int r = 0; r < replicas; ++r)
    for (std::size_t i = 0; i < f.return_values.size(); ++i) {
      OutputAgreement o;
      o.replica = r;
      o.name = f.return_values[i];
      o.type = f.return_types[i];
      const auto it = by_result.find({r, o.name});
      if (it == by_result.end()) {
        o.verdict = "TEXT";
        o.detail = "no lifted node gives this value (a verbatim line or an argument)";
      } else {
        const NodeAgreement& n = out.nodes[it->second];
        o.constructor = n.constructor;
        o.verdict = !n.compared ? "N/C" : n.agree ? "PASS" : "FAIL";
        o.detail = !n.compared ? n.why_not : n.agree ? std::string(to_string(n.reading)) : n.detail;
      }
      out.outputs.push_back(std::move(o));
    }
  return out;
}

template ProgramAgreement agree_program(const Module&, const ExactDomain&, std::vector<std::vector<Value<ExactDomain>>>, int, const Module*,
                                        const std::function<void(const AgreeProgress&)>&);
template ProgramAgreement agree_program(const Module&, const F64Domain&, std::vector<std::vector<Value<F64Domain>>>, int, const Module*,
                                        const std::function<void(const AgreeProgress&)>&);
template ProgramAgreement agree_program(const Module&, const F32Domain&, std::vector<std::vector<Value<F32Domain>>>, int, const Module*,
                                        const std::function<void(const AgreeProgress&)>&);
template ProgramAgreement agree_program(const Module&, const IntervalDomain&, std::vector<std::vector<Value<IntervalDomain>>>, int, const Module*,
                                        const std::function<void(const AgreeProgress&)>&);

namespace {

// Why den of a program cannot be taken: the instructions the lift kept verbatim, the first
// located.
std::string verbatim_message(const Module& m, const LiftReport& report) {
  const VerbatimLine& first = report.why.front();
  const std::string text = first.text.substr(std::min(first.text.find_first_not_of(" "), first.text.size()));
  int column = 1;
  for (const Instruction* i : instructions(m.function()))
    if (i->location.line == first.line) column = i->location.column;
  std::string s = m.file + ":" + std::to_string(first.line) + ":" + std::to_string(column) +
                  ": den of the program needs every instruction in an SHlo node, and the lift kept " +
                  std::to_string(report.why.size()) + " verbatim; the first, `" + text + "`: " + first.reason;
  for (std::size_t k = 1; k < report.why.size() && k <= 5; ++k) s += (k == 1 ? "; also lines " : ", ") + std::to_string(report.why[k].line);
  if (report.why.size() > 6) s += ", ...";
  return s;
}

}  // namespace

template <Domain D>
std::vector<std::vector<Value<D>>> den_program(const Module& m, const D& d, std::vector<std::vector<Value<D>>> inputs, int replicas) {
  using S = typename D::Scalar;
  const Function& f = m.function();
  const Lifted lifted = lift(m);
  if (!lifted.report.why.empty()) throw RunError(verbatim_message(m, lifted.report));
  SiteCollector collector(lifted.render.batch);
  for (const auto& item : lifted.render.items)
    if (item.expr) collector.item(*item.expr, item.counter);
  std::map<std::string, const Instruction*> defined;
  for (const Instruction* i : instructions(f)) defined[i->result] = i;

  if (inputs.size() != static_cast<std::size_t>(replicas))
    throw RunError(std::to_string(inputs.size()) + " input lists for " + std::to_string(replicas) + " replicas");
  ValueEnv<D> values(static_cast<std::size_t>(replicas));
  for (int r = 0; r < replicas; ++r) {
    auto& given = inputs[static_cast<std::size_t>(r)];
    if (given.size() != f.arguments.size())
      throw RunError(std::to_string(given.size()) + " inputs for the " + std::to_string(f.arguments.size()) + " arguments");
    for (std::size_t i = 0; i < f.arguments.size(); ++i) values[static_cast<std::size_t>(r)][f.arguments[i].name] = std::move(given[i]);
  }
  // In text order, each node's den on den's own values of what it reads (the arguments, the
  // nodes before it): den of the whole expression, held as the text holds the node's value.
  NodeJudge<D> judge(d, lifted.render.batch);
  for (const Site& site : collector.sites) {
    const auto it = defined.find(site.result);
    const Instruction* inst = it == defined.end() ? nullptr : it->second;
    const std::string where = m.file + ":" + (inst ? std::to_string(inst->location.line) + ":" + std::to_string(inst->location.column) : "0") +
                              ": den of " + site.result + " = " + site.node->spec->name + ": ";
    if (!inst) throw RunError(where + "no instruction of the text defines it");
    std::vector<std::vector<S>> den(static_cast<std::size_t>(replicas));
    for (int r = 0; r < replicas; ++r) {
      try {
        den[static_cast<std::size_t>(r)] = judge.denote_node(site, r, num_elements(inst->result_type.shape), values);
      } catch (const NotComparable& n) {
        throw RunError(where + n.why);
      } catch (const ExprError& e) {
        throw RunError(where + e.what());
      } catch (const DomainError& e) {
        throw RunError(where + e.what());
      }
    }
    for (int r = 0; r < replicas; ++r)
      values[static_cast<std::size_t>(r)][site.result] = Tensor<S>(inst->result_type.shape, std::move(den[static_cast<std::size_t>(r)]));
  }
  std::vector<std::vector<Value<D>>> outputs(static_cast<std::size_t>(replicas));
  for (int r = 0; r < replicas; ++r)
    for (const auto& name : f.return_values) {
      const auto found = values[static_cast<std::size_t>(r)].find(name);
      if (found == values[static_cast<std::size_t>(r)].end()) throw RunError(m.file + ": den gives no value for the result " + name);
      outputs[static_cast<std::size_t>(r)].push_back(found->second);
    }
  return outputs;
}

template std::vector<std::vector<Value<ExactDomain>>> den_program(const Module&, const ExactDomain&, std::vector<std::vector<Value<ExactDomain>>>, int);
template std::vector<std::vector<Value<F64Domain>>> den_program(const Module&, const F64Domain&, std::vector<std::vector<Value<F64Domain>>>, int);
template std::vector<std::vector<Value<F32Domain>>> den_program(const Module&, const F32Domain&, std::vector<std::vector<Value<F32Domain>>>, int);
template std::vector<std::vector<Value<IntervalDomain>>> den_program(const Module&, const IntervalDomain&,
                                                                      std::vector<std::vector<Value<IntervalDomain>>>, int);

std::string format_agreement(const ProgramAgreement& a) {
  std::string s;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s in %s on %d replica(s), B = %lld: %d of %d instructions in lifted nodes, %d verbatim\n",
                a.file.c_str(), a.domain.c_str(), a.replicas, static_cast<long long>(a.batch), a.in_nodes, a.instructions, a.verbatim);
  s += buf;
  std::snprintf(buf, sizeof buf, "%-8s %-10s %-22s %-16s %-7s %s\n", "replica", "output", "type", "node", "verdict", "");
  s += buf;
  for (const auto& o : a.outputs) {
    std::snprintf(buf, sizeof buf, "%-8d %-10s %-22s %-16s %-7s %s\n", o.replica, o.name.c_str(), to_string(o.type).c_str(),
                  o.constructor.empty() ? "-" : o.constructor.c_str(), o.verdict.c_str(), o.detail.c_str());
    s += buf;
  }
  std::snprintf(buf, sizeof buf, "values compared: %lld (%lld elements), not comparable: %lld, disagreeing: %lld\n",
                static_cast<long long>(a.compared), static_cast<long long>(a.elements), static_cast<long long>(a.not_comparable),
                static_cast<long long>(a.failed));
  s += buf;
  int shown = 0;
  for (const auto& n : a.nodes)
    if (!n.compared && shown++ < 5) s += "  not comparable: " + n.result + " = " + n.constructor + " (line " + std::to_string(n.line) + "): " + n.why_not + "\n";
  if (const NodeAgreement* f = a.first_failure())
    s += "first disagreement: " + f->result + " = " + f->constructor + " at " + a.file + ":" + std::to_string(f->line) + " (replica " +
         std::to_string(f->replica) + ", " + to_string(f->reading) + "): " + f->detail + "\n";
  s += a.pass() ? "PASS\n" : a.compared == 0 ? "FAIL: no value was compared\n" : "FAIL\n";
  return s;
}

}  // namespace shlo
