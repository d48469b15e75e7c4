#include "fuzz/gen.hpp"

#include <algorithm>
#include <cctype>

#include "ast/emit.hpp"
#include "fuzz/gen_internal.hpp"

namespace shlo::fuzz {

using namespace gen_detail;

namespace {

// The decimal literals that generators draw (scales, learning rates, and through
// gen_decimal_literal the op-level programs' constants), read exactly by the text and by den:
// dyadic ones, and non-dyadic ones that no binary type holds (0.1, 0.3, 0.00078125 = 1/1280),
// with exponents and long mantissas, so that a reader that rounds cannot go unseen.
const std::vector<std::string> kScales = {"0.5",      "-2.0",     "0.25",    "1.5",    "3.0", "-0.75", "0.1", "-0.3", "0.00078125",
                                          "2.5e-1", "-1.25e+1", "1.0e-05", "0.3333333333333333333", "7.0E-1"};

// The one place literals are drawn: the decimal a literal string field prints (read back
// exactly by parse_literal, so the text and den agree).
std::string draw_literal(Lit kind) {
  switch (kind) {
    case Lit::Scale: return *rc::gen::elementOf(kScales);
    case Lit::Divisor: return *rc::gen::element<std::string>("2.0", "4.0", "0.5");
    case Lit::Epsilon: return *rc::gen::element<std::string>("0.25", "1.0", "0.5");
    case Lit::Clip: return *rc::gen::element<std::string>("1.0", "0.5", "4.0");
    case Lit::Rounding: return "bfloat16";  // the text's f32 -> bf16 -> f32 pair (section 7.7)
  }
  return "1.0";
}

}  // namespace

namespace gen_detail {

// geluF's text uses the decimal 0.7978845608028654 for sqrt(2/pi) (SHLO_SEMANTICS.md 7.9): den
// and the text differ below f32 resolution, so it is generated only where values are not
// compared with den.
// The flag lives in this file only (a function-local access, not an extern thread_local: the
// sanitizers' build reported the other file's stores through it as stores to a null pointer).
namespace {
thread_local bool t_gelu_rows = false;
}
bool gelu_rows_allowed() { return t_gelu_rows; }
GeluRows::GeluRows(bool allowed) : previous_(t_gelu_rows) { t_gelu_rows = allowed; }
GeluRows::~GeluRows() { t_gelu_rows = previous_; }

// The string fields of a node, by the row's recipe: a literal where the row says so, else a
// fresh SSA name named after the field ("%w_3" for wName; the underscore keeps it apart from
// the printer's %v<k> and from other fields' names).
std::map<std::string, std::string> strings_for(const char* ctor, Names& names) {
  const CtorSpec& c = *find_constructor(ctor);
  std::map<std::string, std::string> out;
  for (const char* f : c.strings) {
    const auto lit = std::find_if(c.literals.begin(), c.literals.end(), [&](const LiteralField& l) { return std::string(f) == l.field; });
    std::string stem = f;
    if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, "Name") == 0) stem.resize(stem.size() - 4);
    out[f] = lit != c.literals.end() ? draw_literal(lit->kind) : names.fresh((stem + "_").c_str());
  }
  return out;
}

}  // namespace gen_detail

namespace {

// One activation constructor on top of `in`.

Step grow(Names& names, Step in, bool transcendental) {
  std::vector<std::string> ops = {"dotIn", "dotOut", "addBcast", "sub", "scaleF", "reluF", "selectPos", "relu6F", "selectMid",
                                  "softmaxDiv"};
  if (transcendental) {
    ops.insert(ops.end(), {"expe", "sigmoidF", "bnF", "bnBack", "convertF"});
    if (gelu_rows_allowed()) ops.push_back("geluF");
  }
  ops.insert(ops.end(), {"addV", "gapBack"});
  if (transcendental) ops.insert(ops.end(), {"swishF", "swishBack", "sigmoidBack"});
  if (in.layout.image()) {
    ops.push_back("flatConvF");
    ops.push_back("convBack");
    ops.push_back("maxPoolBack");
    if (in.layout.h % 2 == 0 && in.layout.w % 2 == 0) ops.push_back("maxPoolF");
    const auto conv = conv_names(kConvMaps, in.layout, false);
    ops.insert(ops.end(), conv.begin(), conv.end());
    ops.insert(ops.end(), {"gapF", "broadcastBack", "maxPool3s2Back"});
    if (in.layout.h % 2 == 0 && in.layout.w % 2 == 0) ops.push_back("maxPool3s2F");
    if (transcendental) ops.insert(ops.end(), {"bnPerChannelF", "bnPerChannelBack", "bnPerChannelEvalF"});
  }
  for (const auto& row : transformer_rows({&kActivationRows}, in.layout)) ops.push_back(row);
  if (transcendental) ops.insert(ops.end(), kActivationRowsIrrational.begin(), kActivationRowsIrrational.end());
  if (transcendental && gelu_rows_allowed()) ops.insert(ops.end(), kGeluRows.begin(), kGeluRows.end());
  if (in.layout.image()) ops.insert(ops.end(), kImageRows.begin(), kImageRows.end());
  ops.push_back("dotInBf16");  // reduced precision (ast/ctors/low_precision.def)
  if (in.layout.image()) ops.push_back("flatConvFBf16");
  const std::string stem = strided_forward(in.layout, false);
  const std::string op = !stem.empty() ? stem : *rc::gen::elementOf(ops);
  if (is_transformer_row(op)) return transformer_step(names, op, in, 0);
  if (const ConvOp* conv = find_conv_op(op)) return conv_step(names, in, *conv, 0, false);
  const std::int64_t n = in.layout.width;
  if (op == "dotInBf16") {
    const std::int64_t m2 = *rc::gen::inRange<std::int64_t>(1, 5);
    return {plan("dotInBf16", {{"m", n}, {"n", m2}}, {in.e}, strings_for("dotInBf16", names)), {m2}};
  }
  if (op == "flatConvFBf16") {
    const std::int64_t k = *rc::gen::element<std::int64_t>(1, 3), oc = *rc::gen::inRange<std::int64_t>(1, 3);
    const Layout L = in.layout;
    return {plan("flatConvFBf16", {{"ic", L.c}, {"oc", oc}, {"h", L.h}, {"w", L.w}, {"kH", k}, {"kW", k}}, {in.e}, strings_for("flatConvFBf16", names)),
            {oc * L.h * L.w, oc, L.h, L.w}};
  }
  if (op == "dotIn") {
    const std::int64_t m2 = *rc::gen::inRange<std::int64_t>(1, 5);
    return {plan("dotIn", {{"m", n}, {"n", m2}}, {in.e}, strings_for("dotIn", names)), {m2}};
  }
  if (op == "dotOut") {
    const std::int64_t m2 = *rc::gen::inRange<std::int64_t>(1, 5);
    return {plan("dotOut", {{"m", m2}, {"n", n}}, {in.e}, strings_for("dotOut", names)), {m2}};
  }
  if (op == "addBcast") return {plan("addBcast", {{"n", n}}, {in.e}, strings_for("addBcast", names)), in.layout};
  if (op == "sub" || op == "addV") {
    const bool left = *rc::gen::arbitrary<bool>();
    ExprPtr other = leaf(names, n);
    return {plan(op.c_str(), {{"n", n}}, left ? std::vector<ExprPtr>{in.e, other} : std::vector<ExprPtr>{other, in.e}), in.layout};
  }
  if (op == "swishBack" || op == "sigmoidBack") return {plan(op.c_str(), {{"n", n}}, {in.e}, strings_for(op.c_str(), names)), in.layout};
  if (op == "gapBack") {  // the width is the channel count of an image
    const std::int64_t h = *rc::gen::element<std::int64_t>(1, 2), w = *rc::gen::element<std::int64_t>(1, 2);
    return {plan(op.c_str(), {{"c", n}, {"h", h}, {"w", w}}, {in.e}), {n * h * w, n, h, w}};
  }
  if (op == "gapF" || op == "broadcastBack") {
    const Layout L = in.layout;
    return {plan(op.c_str(), {{"c", L.c}, {"h", L.h}, {"w", L.w}}, {in.e}), {L.c}};
  }
  if (op == "bnPerChannelF" || op == "bnPerChannelBack" || op == "bnPerChannelEvalF") {
    const Layout L = in.layout;
    return {plan(op.c_str(), {{"oc", L.c}, {"h", L.h}, {"w", L.w}}, {in.e}, strings_for(op.c_str(), names)), L};
  }
  if (op == "maxPool3s2F") {
    const Layout L = in.layout;
    return {plan(op.c_str(), {{"c", L.c}, {"h", L.h / 2}, {"w", L.w / 2}}, {in.e}), {L.c * L.h * L.w / 4, L.c, L.h / 2, L.w / 2}};
  }
  if (op == "maxPool3s2Back") {
    const Layout L = in.layout;
    return {plan(op.c_str(), {{"c", L.c}, {"h", L.h}, {"w", L.w}}, {in.e}, strings_for(op.c_str(), names)), {L.c * L.h * L.w * 4, L.c, 2 * L.h, 2 * L.w}};
  }
  // scaleF, the masks, convertF, bnF and bnBack keep the layout; their fields by the recipe.
  if (op == "scaleF" || op == "selectPos" || op == "selectMid" || op == "convertF" || op == "bnF" || op == "bnBack")
    return {plan(op.c_str(), {{"n", n}}, {in.e}, strings_for(op.c_str(), names)), in.layout};
  if (op == "flatConvF" || op == "convBack") {
    const std::int64_t k = *rc::gen::element<std::int64_t>(1, 3);  // odd kernels (section 7.2)
    const std::int64_t other = *rc::gen::inRange<std::int64_t>(1, 3);
    const Layout L = in.layout;
    const std::int64_t ic = op == "flatConvF" ? L.c : other, oc = op == "flatConvF" ? other : L.c;
    std::map<std::string, std::int64_t> nats = {{"ic", ic}, {"oc", oc}, {"h", L.h}, {"w", L.w}, {"kH", k}, {"kW", k}};
    const auto s = strings_for(op.c_str(), names);
    const std::int64_t out_c = op == "flatConvF" ? oc : ic;
    return {plan(op.c_str(), nats, {in.e}, s), {out_c * L.h * L.w, out_c, L.h, L.w}};
  }
  if (op == "maxPoolF") {
    const Layout L = in.layout;
    return {plan("maxPoolF", {{"c", L.c}, {"h", L.h / 2}, {"w", L.w / 2}}, {in.e}), {L.c * L.h * L.w / 4, L.c, L.h / 2, L.w / 2}};
  }
  if (op == "maxPoolBack") {
    const Layout L = in.layout;
    return {plan("maxPoolBack", {{"c", L.c}, {"h", L.h}, {"w", L.w}}, {in.e}, strings_for("maxPoolBack", names)),
            {L.c * L.h * L.w * 4, L.c, 2 * L.h, 2 * L.w}};
  }
  return {plan(op.c_str(), {{"n", n}}, {in.e}), in.layout};
}

Step activation(Names& names, bool transcendental) {
  Layout start;
  if (*rc::gen::arbitrary<bool>()) {
    const std::int64_t c = *rc::gen::inRange<std::int64_t>(1, 3), h = *rc::gen::element<std::int64_t>(1, 2, 4),
                       w = *rc::gen::element<std::int64_t>(1, 2, 4);
    start = {c * h * w, c, h, w};
  } else {
    start = {*rc::gen::inRange<std::int64_t>(1, 5)};
  }
  Step s{leaf(names, start.width), start};
  const int depth = *rc::gen::inRange(0, 4);
  for (int i = 0; i < depth; ++i) s = grow(names, s, transcendental);
  return s;
}

// A parameter gradient or SGD update on top of an activation (batch 1).
Step parameter(Names& names, Step s, bool transcendental = false) {
  std::vector<std::string> ops = {"none", "weightGrad", "weightSgd", "biasGrad", "biasSgd", "biasGradB"};
  if (s.layout.image()) {
    ops.push_back("convWeightGrad");
    ops.push_back("convBiasGrad");
    ops.push_back("convWeightSgd");
    ops.push_back("convBiasSgd");
    const auto conv = conv_names(kConvGradients, s.layout, false);
    ops.insert(ops.end(), conv.begin(), conv.end());
    ops.insert(ops.end(), {"bnBetaGrad", "bnBetaSgd"});
    if (transcendental) ops.insert(ops.end(), {"bnGammaGrad", "bnGammaSgd"});  // 1/sqrt of the statistics
  }
  for (const auto& row : transformer_rows({&kGradientRows}, s.layout)) ops.push_back(row);
  if (transcendental) ops.insert(ops.end(), kGradientRowsIrrational.begin(), kGradientRowsIrrational.end());
  if (s.layout.image()) ops.insert(ops.end(), kImageGradientRows.begin(), kImageGradientRows.end());
  const std::string op = *rc::gen::elementOf(ops);
  if (is_transformer_row(op)) return transformer_step(names, op, s, 0);
  if (const ConvOp* conv = find_conv_op(op)) return conv_step(names, s, *conv, 0, true);
  const std::int64_t n = s.layout.width;
  if (op == "none") return s;
  if (op == "weightGrad" || op == "weightSgd") {
    const std::int64_t m = *rc::gen::inRange<std::int64_t>(1, 4);
    return {plan(op.c_str(), {{"m", m}, {"n", n}}, {s.e}, strings_for(op.c_str(), names)), {m * n}};
  }
  if (op == "biasGrad" || op == "biasSgd") return {plan(op.c_str(), {{"n", n}}, {s.e}, strings_for(op.c_str(), names)), {n}};
  if (op == "biasGradB") return {plan(op.c_str(), {{"N", 1}, {"n", n}}, {s.e}), {n}};  // den = text at N = 1 only
  const Layout L = s.layout;  // the cotangent is the conv (or BN) output (oc = L.c)
  if (op.rfind("bn", 0) == 0) return {plan(op.c_str(), {{"oc", L.c}, {"h", L.h}, {"w", L.w}}, {s.e}, strings_for(op.c_str(), names)), {L.c}};
  const std::int64_t ic = *rc::gen::inRange<std::int64_t>(1, 3), k = *rc::gen::element<std::int64_t>(1, 3);
  std::map<std::string, std::int64_t> nats = {{"ic", ic}, {"oc", L.c}, {"h", L.h}, {"w", L.w}, {"kH", k}, {"kW", k}};
  const bool weight = op == "convWeightGrad" || op == "convWeightSgd";
  return {plan(op.c_str(), nats, {s.e}, strings_for(op.c_str(), names)), {weight ? L.c * ic * k * k : L.c}};
}

// The shape the text gives a value (batch 1): the parameter shape `ds` of a node above it.
std::vector<std::int64_t> printed_shape(const ExprPtr& e) {
  std::int64_t counter = 0;
  const std::string text = emit(1, *e, counter).text;
  std::vector<std::int64_t> dims;
  const auto at = text.rfind("tensor<");
  if (at == std::string::npos) return {e->length()};  // a leaf prints nothing
  std::size_t i = at + 7;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    std::size_t j = i;
    while (std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    dims.push_back(std::stoll(text.substr(i, j - i)));
    i = j + 1;  // past 'x'
  }
  return dims;
}

// An optimizer node on a parameter-shaped gradient.
ExprPtr optimizer(Names& names, ExprPtr g, bool rational) {
  std::vector<std::string> ops = {"sgdParamF", "momVNextF", "momParamF", "adamMNextF", "adamVNextF", "gradSumSqAccF"};
  if (!rational) ops.insert(ops.end(), {"adamWParamF", "rmsBufNextF", "lambDirF", "clipScaleF", "lambScaleF"});
  const std::string op = *rc::gen::elementOf(ops);
  const std::vector<std::int64_t> ds = printed_shape(g);
  const auto s = strings_for(op.c_str(), names);
  if (find_constructor(op)->arity == Arity::Binary)  // the left operand: a running scalar
    return plan(op.c_str(), {}, {plan("operand", {{"n", 1}}, {}, {{"name", names.fresh("s")}}), std::move(g)}, s, ds);
  return plan(op.c_str(), {}, {std::move(g)}, s, ds);
}

rc::Gen<Rational> small_rational() {
  return rc::gen::map(rc::gen::pair(rc::gen::inRange(-12, 13), rc::gen::element(1, 1, 2, 3, 4, 8)),
                      [](const std::pair<int, int>& p) { return Rational(p.first) / Rational(p.second); });
}

// Values for one field of a node, by the row's recipe (its Draw).
std::vector<Rational> field_values(const Expr& e, const RealField& f) {
  const auto len = static_cast<std::size_t>(eval_length(f.length, e.nats));
  switch (f.draw) {
    case Draw::FromLiteral: return {parse_literal(e.string(f.literal)).value};
    case Draw::Fraction: return {*rc::gen::element(Rational(1, 2), Rational(9, 10), Rational(3, 4))};
    case Draw::Rho: return {*rc::gen::element(Rational(1, 2), Rational(9, 10))};
    case Draw::BiasCorrection: return {*rc::gen::element(Rational(1), Rational(1, 2), Rational(1, 4))};
    case Draw::Epsilon: return {*rc::gen::element(Rational(1, 100), Rational(1, 10))};
    case Draw::WeightDecay: return {*rc::gen::element(Rational(0), Rational(1, 10))};
    case Draw::LearningRate: return {*rc::gen::element(Rational(1, 10), Rational(1, 2), Rational(2))};
    case Draw::Small:
    case Draw::NonNegative:
    case Draw::Distinct: break;
  }
  // A running sum of squares (the left operand of the clipping nodes) is not negative.
  const bool running_sum = e.spec->arity == Arity::Leaf && e.strings.at("name").rfind("%s", 0) == 0;
  std::vector<Rational> v;
  for (std::size_t i = 0; i < len; ++i) {
    Rational q = *small_rational();
    if (f.draw == Draw::Distinct) q += Rational(101 * static_cast<long>(i));
    if ((f.draw == Draw::NonNegative || running_sum) && q < 0) q = -q;
    v.push_back(q);
  }
  return v;
}

ExprPtr fill(const ExprPtr& p) {
  Expr e = *p;
  std::vector<ExprPtr> kids;
  for (const auto& k : p->children) kids.push_back(fill(k));
  e.children = std::move(kids);
  e.reals.clear();
  for (const auto& f : p->spec->reals) e.reals[f.name] = field_values(e, f);
  return make_expr(std::move(e));
}

ExprPtr family_of(Names& names, ExprPtr child_plan, std::int64_t R, bool rational_tail, bool spmd) {
  std::vector<ExprPtr> kids;
  for (std::int64_t r = 0; r < R; ++r) {
    ExprPtr p = child_plan;
    if (!spmd && r == R - 1) p = plan("scaleF", {{"n", child_plan->length()}}, {child_plan}, {{"sStr", "0.5"}});
    kids.push_back(*gen_values(p));
  }
  Expr e;
  e.spec = find_constructor("allReduceMeanF");
  e.strings = {{"t", names.fresh("g").substr(1)}};
  e.ds = printed_shape(child_plan);
  e.replicas = R;
  e.children = kids;
  ExprPtr fam = make_expr(std::move(e));
  if (!*rc::gen::arbitrary<bool>()) return fam;
  // An optimizer tail over the all-reduced gradient (values shared by all replicas).
  ExprPtr tail_plan = optimizer(names, fam, rational_tail);
  Expr t = *fill(tail_plan);
  t.children.back() = fam;  // the gradient is the right (or only) operand
  return make_expr(std::move(t));
}

}  // namespace

rc::Gen<ExprPtr> gen_plan(bool allow_transcendental) {
  return rc::gen::exec([allow_transcendental] {
    Names names;
    Step s = parameter(names, activation(names, allow_transcendental), allow_transcendental);
    if (s.e->spec->arity == Arity::Leaf) s = grow(names, s, allow_transcendental);  // something to print
    if (*rc::gen::inRange(0, 4) == 0) return optimizer(names, s.e, !allow_transcendental);
    return s.e;
  });
}

rc::Gen<ExprPtr> gen_values(const ExprPtr& plan_) {
  return rc::gen::exec([plan_] { return fill(plan_); });
}

rc::Gen<ExprPtr> gen_expr(bool allow_transcendental, bool with_gelu) {
  return rc::gen::exec([allow_transcendental, with_gelu] {
    ExprPtr plan_;
    {
      const GeluRows gelu(with_gelu);
      plan_ = *gen_plan(allow_transcendental);
    }
    return *gen_values(plan_);
  });
}

rc::Gen<ExprPtr> gen_family(bool rational_tail) {
  return rc::gen::exec([rational_tail] {
    Names names;
    names.next = 1000;  // apart from the child's names
    Names child_names;
    Step s = parameter(child_names, activation(child_names, false));
    if (s.e->spec->arity == Arity::Leaf) s = grow(child_names, s, false);
    return family_of(names, s.e, *rc::gen::inRange<std::int64_t>(1, 9), rational_tail, true);
  });
}

rc::Gen<ExprPtr> gen_non_spmd_family() {
  return rc::gen::exec([] {
    Names names, child_names;
    names.next = 1000;
    Step s = parameter(child_names, activation(child_names, false));
    if (s.e->spec->arity == Arity::Leaf) s = grow(child_names, s, false);
    return family_of(names, s.e, *rc::gen::inRange<std::int64_t>(2, 9), true, false);
  });
}

rc::Gen<std::string> gen_decimal_literal() { return rc::gen::elementOf(kScales); }

}  // namespace shlo::fuzz

namespace shlo::fuzz {

rc::Gen<std::map<std::string, std::string>> gen_strings(const std::string& ctor) {
  return rc::gen::exec([ctor] {
    Names names;
    return strings_for(ctor.c_str(), names);
  });
}

}  // namespace shlo::fuzz
