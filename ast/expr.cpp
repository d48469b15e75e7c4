#include "ast/expr.hpp"

#include <cctype>

namespace shlo {

namespace {

using A = Arity;

// The core set, in the order of SHLO_SEMANTICS.md section 3. Where two rows print the same
// text, the earlier one is canonical for the lifter.
std::vector<CtorSpec> make_table() {
  const std::vector<const char*> conv6 = {"ic", "oc", "h", "w", "kH", "kW"};
  const std::vector<const char*> nconv7 = {"N", "ic", "oc", "h", "w", "kH", "kW"};
  const char* kernel = "oc*ic*kH*kW";
  return {
      // 3.1 leaf
      {"operand", {"n"}, {"name"}, {{"v", "n"}}, false, A::Leaf, {}, "n", "operand", "", {"name"}, {"n"}, "", {}, true},
      // 3.2 dense, elementwise and loss pieces
      {"dotIn", {"m", "n"}, {"wName"}, {{"W", "m*n"}}, false, A::Unary, {"m"}, "n", "dotIn", "", {"wName"}, {"m", "n"}, "dotIn", {}, true},
      {"dotOut", {"m", "n"}, {"wName"}, {{"W", "m*n"}}, false, A::Unary, {"n"}, "m", "dotOut", "", {"wName"}, {"m", "n"}, "dotOut", {}, true},
      {"addBcast", {"n"}, {"bName"}, {{"b", "n"}}, false, A::Unary, {"n"}, "n", "addBcast", "", {"bName"}, {"n"}, "addBcast", {}, true},
      {"expe", {"n"}, {}, {}, false, A::Unary, {"n"}, "n", "expe", "", {}, {"n"}, "expe", {}, true},
      {"softmaxDiv", {"n"}, {}, {}, false, A::Unary, {"n"}, "n", "softmaxDiv", "", {}, {"n"}, "softmaxDiv", {}, true},
      {"sub", {"n"}, {}, {}, false, A::Binary, {"n", "n"}, "n", "sub", "", {}, {"n"}, "sub", {}, true},
      {"scaleF", {"n"}, {"sStr"}, {{"s", "1"}}, false, A::Unary, {"n"}, "n", "scaleF", "", {"sStr"}, {"n"}, "scaleF", {}, true},
      // 3.3 activations and masks
      {"reluF", {"n"}, {}, {}, false, A::Unary, {"n"}, "n", "reluF", "", {}, {"n"}, "reluF", {}, true},
      {"selectPos", {"n"}, {"xName"}, {{"x", "n"}}, false, A::Unary, {"n"}, "n", "selectPos", "", {"xName"}, {"n"}, "selectPos", {}, true},
      {"relu6F", {"n"}, {}, {}, false, A::Unary, {"n"}, "n", "relu6F", "", {}, {"n"}, "relu6F", {}, true},
      {"selectMid", {"n"}, {"xName"}, {{"x", "n"}}, false, A::Unary, {"n"}, "n", "selectMid", "", {"xName"}, {"n"}, "selectMid", {}, true},
      {"sigmoidF", {"n"}, {}, {}, false, A::Unary, {"n"}, "n", "sigmoidF", "", {}, {"n"}, "sigmoidF", {}, true},
      {"geluF", {"n"}, {}, {}, false, A::Unary, {"n"}, "n", "geluF", "", {}, {"n"}, "geluF", {}, true},
      {"convertF", {"n"}, {"rnd"}, {}, false, A::Unary, {"n"}, "n", "convertF", "", {}, {"n"}, "convertF", {}, true},
      // 3.4 convolution and pooling
      {"flatConvF", conv6, {"wName", "bName"}, {{"W", kernel}, {"b", "oc"}}, false, A::Unary, {"ic*h*w"}, "oc*h*w",
       "flatConvF", "", {"wName", "bName"}, conv6, "flatConvF", {}, true},
      {"convBack", conv6, {"wName"}, {{"W", kernel}, {"b", "oc"}, {"v", "ic*h*w"}}, false, A::Unary, {"oc*h*w"}, "ic*h*w",
       "convBack", "", {"wName"}, conv6, "convBack", {}, true},
      {"maxPoolF", {"c", "h", "w"}, {}, {}, false, A::Unary, {"c*2*h*2*w"}, "c*h*w", "maxPoolF", "", {}, {"c", "h", "w"}, "maxPoolF", {}, true},
      {"maxPoolBack", {"c", "h", "w"}, {"xName"}, {{"x", "c*2*h*2*w"}}, false, A::Unary, {"c*h*w"}, "c*2*h*2*w",
       "maxPoolBack", "", {"xName"}, {"c", "h", "w"}, "maxPoolBack", {}, true},
      // 3.5 fused SGD updates
      {"weightSgd", {"m", "n"}, {"xName", "wName", "lrStr"}, {{"x", "m"}, {"W", "m*n"}, {"lr", "1"}}, false, A::Unary, {"n"}, "m*n",
       "weightSgd", "", {"xName", "wName", "lrStr"}, {"m", "n"}, "weightSgd", {}, true},
      {"biasSgd", {"n"}, {"bName", "lrStr"}, {{"b", "n"}, {"lr", "1"}}, false, A::Unary, {"n"}, "n", "biasSgd", "",
       {"bName", "lrStr"}, {"n"}, "biasSgd", {}, true},
      {"convWeightSgd", conv6, {"xName", "wName", "lrStr"}, {{"b", "oc"}, {"x", "ic*h*w"}, {"W", kernel}, {"lr", "1"}}, false,
       A::Unary, {"oc*h*w"}, kernel, "convWeightSgd", "", {"xName", "wName", "lrStr"}, conv6, "convWeightSgd", {}, true},
      {"convBiasSgd", conv6, {"bName", "lrStr"}, {{"W", kernel}, {"x", "ic*h*w"}, {"b", "oc"}, {"lr", "1"}}, false, A::Unary,
       {"oc*h*w"}, "oc", "convBiasSgd", "", {"bName", "lrStr"}, {"oc", "h", "w"}, "convBiasSgd", {}, true},
      // 3.6 un-fused parameter gradients
      {"weightGrad", {"m", "n"}, {"xName"}, {{"x", "m"}}, false, A::Unary, {"n"}, "m*n", "weightGrad", "", {"xName"}, {"m", "n"},
       "weightGrad", {}, true},
      {"biasGrad", {"n"}, {}, {}, false, A::Unary, {"n"}, "n", "biasGrad", "", {}, {"n"}, "biasGrad", {}, true},
      {"convWeightGrad", conv6, {"xName"}, {{"b", "oc"}, {"x", "ic*h*w"}, {"W", kernel}}, false, A::Unary, {"oc*h*w"}, kernel,
       "convWeightGrad", "", {"xName"}, conv6, "convWeightGrad", {}, true},
      {"convBiasGrad", conv6, {}, {{"W", kernel}, {"x", "ic*h*w"}, {"b", "oc"}}, false, A::Unary, {"oc*h*w"}, "oc",
       "convBiasGrad", "", {}, conv6, "convBiasGrad", {}, true},
      // 3.7 batch normalisation
      {"bnF", {"n"}, {"gName", "bName", "epsStr"}, {{"eps", "1"}, {"gamma", "1"}, {"beta", "1"}}, false, A::Unary, {"n"}, "n",
       "bnF", "", {"gName", "bName", "epsStr"}, {"n"}, "bnF", {}, true},
      {"bnBack", {"n"}, {"gName", "xName", "epsStr"}, {{"eps", "1"}, {"gamma", "1"}, {"x", "n"}}, false, A::Unary, {"n"}, "n",
       "bnBack", "", {"gName", "xName", "epsStr"}, {"n"}, "bnBack", {}, true},
      {"bnBatchF", {"N", "oc", "h", "w"}, {"gName", "bName", "epsStr"}, {{"eps", "1"}, {"gamma", "oc"}, {"beta", "oc"}}, false,
       A::Unary, {"N*oc*h*w"}, "N*oc*h*w", "batched", "bnBatch", {"gName", "bName", "epsStr"}, {"N", "oc", "h", "w"}, "bnBatchF", {}, true},
      {"bnBatchBack", {"N", "oc", "h", "w"}, {"gName", "xName", "epsStr"}, {{"eps", "1"}, {"gamma", "oc"}, {"x", "N*oc*h*w"}}, false,
       A::Unary, {"N*oc*h*w"}, "N*oc*h*w", "batched", "bnBatchBack", {"gName", "xName", "epsStr"}, {"N", "oc", "h", "w"},
       "bnBatchBack", {}, true},
      // 3.8 optimizer and clipping nodes
      {"adamMNextF", {"n"}, {"mName", "b1Name", "ob1Name"}, {{"beta1", "1"}, {"m", "n"}}, true, A::Unary, {"n"}, "n",
       "adamMNextF", "", {"mName", "b1Name", "ob1Name"}, {}, "adamMNextF", {}, true},
      {"adamVNextF", {"n"}, {"vName", "b2Name", "ob2Name"}, {{"beta2", "1"}, {"v", "n"}}, true, A::Unary, {"n"}, "n",
       "adamVNextF", "", {"vName", "b2Name", "ob2Name"}, {}, "adamVNextF", {}, true},
      {"adamWParamF", {"n"},
       {"thetaName", "mName", "vName", "b1Name", "ob1Name", "b2Name", "ob2Name", "bc1Name", "bc2Name", "lrName", "epsName", "wdName"},
       {{"beta1", "1"}, {"beta2", "1"}, {"eps", "1"}, {"lr", "1"}, {"wd", "1"}, {"bc1", "1"}, {"bc2", "1"},
        {"theta", "n"}, {"m", "n"}, {"v", "n"}},
       true, A::Unary, {"n"}, "n", "adamWParamF", "",
       {"thetaName", "mName", "vName", "b1Name", "ob1Name", "b2Name", "ob2Name", "bc1Name", "bc2Name", "lrName", "epsName", "wdName"},
       {}, "adamWParamF", {}, true},
      {"sgdParamF", {"n"}, {"thetaName", "lrName"}, {{"lr", "1"}, {"theta", "n"}}, true, A::Unary, {"n"}, "n", "sgdParamF", "",
       {"thetaName", "lrName"}, {}, "sgdParamF", {}, true},
      {"momVNextF", {"n"}, {"vName", "muName"}, {{"mu", "1"}, {"v", "n"}}, true, A::Unary, {"n"}, "n", "momVNextF", "",
       {"vName", "muName"}, {}, "momVNextF", {}, true},
      {"momParamF", {"n"}, {"thetaName", "vName", "muName", "lrName"}, {{"mu", "1"}, {"lr", "1"}, {"theta", "n"}, {"v", "n"}}, true,
       A::Unary, {"n"}, "n", "momParamF", "", {"thetaName", "vName", "muName", "lrName"}, {}, "momParamF", {}, true},
      {"rmsBufNextF", {"n"}, {"sqName", "bufName", "rhoName", "orhoName", "muName", "epsName"},
       {{"rho", "1"}, {"mu", "1"}, {"eps", "1"}, {"sq", "n"}, {"buf", "n"}}, true, A::Unary, {"n"}, "n", "rmsBufNextF", "",
       {"sqName", "bufName", "rhoName", "orhoName", "muName", "epsName"}, {}, "rmsBufNextF", {}, true},
      {"lambDirF", {"n"},
       {"thetaName", "mName", "vName", "b1Name", "ob1Name", "b2Name", "ob2Name", "bc1Name", "bc2Name", "epsName", "wdName"},
       {{"beta1", "1"}, {"beta2", "1"}, {"eps", "1"}, {"wd", "1"}, {"bc1", "1"}, {"bc2", "1"}, {"theta", "n"}, {"m", "n"}, {"v", "n"}},
       true, A::Unary, {"n"}, "n", "lambDirF", "",
       {"thetaName", "mName", "vName", "b1Name", "ob1Name", "b2Name", "ob2Name", "bc1Name", "bc2Name", "epsName", "wdName"}, {},
       "lambDirF", {}, true},
      {"gradSumSqAccF", {"n"}, {}, {}, true, A::Binary, {"1", "n"}, "1", "gradSumSqAccF", "", {}, {}, "gradSumSqAccF", {}, true},
      {"clipScaleF", {"n"}, {"clipStr", "epsStr"}, {{"c", "1"}, {"eps", "1"}}, true, A::Binary, {"1", "n"}, "n", "clipScaleF", "",
       {"clipStr", "epsStr"}, {}, "clipScaleF", {}, true},
      {"lambScaleF", {"n"}, {}, {}, true, A::Binary, {"1", "n"}, "n", "lambScaleF", "", {}, {}, "lambScaleF", {}, true},
      // 3.9 the batched set
      {"batchOp/dense", {"N", "a", "c"}, {"wName", "bName"}, {{"W", "a*c"}, {"bias", "c"}}, false, A::Unary, {"N*a"}, "N*c",
       "batched", "dense", {"wName", "bName"}, {"N", "a", "c"}, "batchOp/dense", {}, false},
      {"batchOp/conv", nconv7, {"wName", "bName"}, {{"W", kernel}, {"bias", "oc"}}, false, A::Unary, {"N*ic*h*w"}, "N*oc*h*w",
       "batched", "conv", {"wName", "bName"}, nconv7, "batchOp/conv", {}, true},
      {"batchOp/relu", {"N", "n"}, {}, {}, false, A::Unary, {"N*n"}, "N*n", "batched", "relu", {}, {"N", "n"}, "reluF", {}, false},
      {"batchOp/maxPool", {"N", "c", "h", "w"}, {}, {}, false, A::Unary, {"N*c*2*h*2*w"}, "N*c*h*w", "batched", "maxPool", {},
       {"N", "c", "h", "w"}, "maxPoolF", {}, false},
      {"batchOp/expe", {"N", "n"}, {}, {}, false, A::Unary, {"N*n"}, "N*n", "batched", "expeP", {}, {"N", "n"}, "expe", {}, false},
      {"batchOp/softmaxDiv", {"N", "n"}, {}, {}, false, A::Unary, {"N*n"}, "N*n", "batched", "softmaxDivP", {}, {"N", "n"},
       "softmaxDiv", {}, false},
      {"batchOp/dotOut", {"N", "m", "n"}, {"wName"}, {{"W", "m*n"}}, false, A::Unary, {"N*n"}, "N*m", "batched", "dotOutP",
       {"wName"}, {"N", "m", "n"}, "dotOut", {}, false},
      {"subB", {"N", "n"}, {}, {}, false, A::Binary, {"N*n", "N*n"}, "N*n", "batched2", "sub", {}, {"N", "n"}, "sub", {}, false},
      {"divConstB", {"N", "n"}, {"sStr"}, {{"s", "1"}}, false, A::Unary, {"N*n"}, "N*n", "batched", "divConst", {"sStr"}, {"N", "n"},
       "divConstB", {}, true},
      {"selectPosB", {"N", "n"}, {"xName"}, {{"x", "N*n"}}, false, A::Unary, {"N*n"}, "N*n", "batched", "selectPosP", {"xName"},
       {"N", "n"}, "selectPos", {}, false},
      {"maxPoolBackB", {"N", "c", "h", "w"}, {"xName"}, {{"x", "N*c*2*h*2*w"}}, false, A::Unary, {"N*c*h*w"}, "N*c*2*h*2*w",
       "batched", "maxPoolBackP", {"xName"}, {"N", "c", "h", "w"}, "maxPoolBack", {}, false},
      {"convBackBatched", nconv7, {"wName"}, {{"W", kernel}, {"b", "oc"}}, false, A::Unary, {"N*oc*h*w"}, "N*ic*h*w", "batched",
       "convBackBatched", {"wName"}, nconv7, "convBackBatched", {}, true},
      {"convWeightGradB", nconv7, {"xName"}, {{"b", "oc"}, {"x", "N*ic*h*w"}, {"W", kernel}}, false, A::Unary, {"N*oc*h*w"}, kernel,
       "batched", "convWeightGrad", {"xName"}, nconv7, "convWeightGrad", {}, false},
      {"convBiasGradB", nconv7, {}, {{"W", kernel}, {"x", "N*ic*h*w"}, {"b", "oc"}}, false, A::Unary, {"N*oc*h*w"}, "oc", "batched",
       "convBiasGrad", {}, {"N", "oc", "h", "w"}, "convBiasGrad", {}, false},
      {"denseWeightGradB", {"N", "a", "c"}, {"xName"}, {{"x", "N*a"}}, false, A::Unary, {"N*c"}, "a*c", "batched", "denseWeightGrad",
       {"xName"}, {"N", "a", "c"}, "weightGrad", {{"m", "a"}, {"n", "c"}}, false},
      {"denseBiasGradB", {"N", "c"}, {}, {}, false, A::Unary, {"N*c"}, "c", "batched", "denseBiasGrad", {}, {"N", "c"}, "biasGrad",
       {{"n", "c"}}, false},
      // 3.10 the data-parallel node
      {"allReduceMeanF", {"n"}, {"t"}, {}, true, A::Family, {"n"}, "n", "allReduceMean", "", {"t"}, {}, "allReduceMeanF", {}, true},
  };
}

[[noreturn]] void fail(const Expr& e, const std::string& what) {
  throw ExprError(std::string("constructor '") + e.spec->name + "': " + what);
}

}  // namespace

const std::vector<CtorSpec>& constructors() {
  static const std::vector<CtorSpec> table = make_table();
  return table;
}

const CtorSpec* find_constructor(const std::string& name) {
  for (const auto& c : constructors())
    if (name == c.name) return &c;
  return nullptr;
}

std::int64_t eval_length(const std::string& expr, const std::map<std::string, std::int64_t>& nats) {
  std::int64_t value = 1;
  std::size_t i = 0;
  while (i < expr.size()) {
    std::size_t j = expr.find('*', i);
    if (j == std::string::npos) j = expr.size();
    const std::string factor = expr.substr(i, j - i);
    if (!factor.empty() && std::isdigit(static_cast<unsigned char>(factor[0]))) {
      value *= std::stoll(factor);
    } else {
      auto it = nats.find(factor);
      if (it == nats.end()) throw ExprError("length expression '" + expr + "' uses '" + factor + "', which is not set");
      value *= it->second;
    }
    i = j + 1;
  }
  return value;
}

std::int64_t Expr::nat(const std::string& name) const {
  auto it = nats.find(name);
  if (it == nats.end()) fail(*this, "shape parameter '" + name + "' is not set");
  return it->second;
}

const std::string& Expr::string(const std::string& name) const {
  auto it = strings.find(name);
  if (it == strings.end()) fail(*this, "string field '" + name + "' is not set");
  return it->second;
}

const std::vector<Rational>& Expr::real(const std::string& name) const {
  auto it = reals.find(name);
  if (it == reals.end())
    fail(*this, "real field '" + name + "' has no values (a skeleton-only expression has no meaning)");
  return it->second;
}

std::int64_t Expr::length() const { return eval_length(spec->result_length, nats); }

bool Expr::has_values() const {
  if (!spec->reals.empty() && reals.empty()) return false;
  for (const auto& c : children)
    if (!c->has_values()) return false;
  return true;
}

ExprPtr make_skeleton(const std::string& ctor, std::map<std::string, std::int64_t> nats, std::vector<ExprPtr> kids,
                      std::map<std::string, std::string> strings, std::vector<std::int64_t> ds, std::int64_t R) {
  Expr e;
  e.spec = find_constructor(ctor);
  if (!e.spec) throw ExprError("unknown constructor '" + ctor + "'");
  e.nats = std::move(nats);
  e.strings = std::move(strings);
  e.children = std::move(kids);
  e.ds = std::move(ds);
  e.replicas = R;
  return make_expr(std::move(e), false);
}

ExprPtr make_expr(Expr e, bool values) {
  if (!e.spec) throw ExprError("expression without a constructor");
  for (const char* n : e.spec->nats) {
    if (!e.nats.count(n)) {
      if (e.spec->has_ds && std::string(n) == "n") {  // n follows from ds
        std::int64_t prod = 1;
        for (auto d : e.ds) prod *= d;
        e.nats["n"] = prod;
        continue;
      }
      fail(e, "shape parameter '" + std::string(n) + "' is missing");
    }
    if (e.nats.at(n) < 0) fail(e, "shape parameter '" + std::string(n) + "' is negative");
  }
  for (const auto& [name, v] : e.nats) {
    bool known = false;
    for (const char* n : e.spec->nats) known = known || name == n;
    if (!known) fail(e, "unknown shape parameter '" + name + "'");
  }
  for (const char* s : e.spec->strings)
    if (!e.strings.count(s)) {
      if (std::string(s) == "rnd") e.strings["rnd"] = "identity";
      else fail(e, "string field '" + std::string(s) + "' is missing");
    }
  for (const auto& [name, v] : e.strings) {
    bool known = false;
    for (const char* s : e.spec->strings) known = known || name == s;
    if (!known) fail(e, "unknown string field '" + name + "'");
  }
  if (e.spec->has_ds) {
    std::int64_t prod = 1;
    for (auto d : e.ds) {
      if (d < 0) fail(e, "ds has a negative entry");
      prod *= d;
    }
    if (prod != e.nats.at("n"))
      fail(e, "field 'ds': the product of ds is " + std::to_string(prod) + " but n = " + std::to_string(e.nats.at("n")));
  } else if (!e.ds.empty()) {
    fail(e, "field 'ds' does not belong to this constructor");
  }
  if (values || !e.reals.empty()) {
    for (const auto& f : e.spec->reals) {
      auto it = e.reals.find(f.name);
      if (it == e.reals.end()) fail(e, "real field '" + std::string(f.name) + "' is missing");
      const std::int64_t want = eval_length(f.length, e.nats);
      if (static_cast<std::int64_t>(it->second.size()) != want)
        fail(e, "real field '" + std::string(f.name) + "' has " + std::to_string(it->second.size()) + " values, expected " +
                    f.length + " = " + std::to_string(want));
    }
    for (const auto& [name, v] : e.reals) {
      bool known = false;
      for (const auto& f : e.spec->reals) known = known || name == f.name;
      if (!known) fail(e, "unknown real field '" + name + "'");
    }
  }
  const auto arity = e.spec->arity;
  const std::size_t want_children = arity == Arity::Leaf ? 0 : arity == Arity::Unary ? 1 : arity == Arity::Binary ? 2
                                                                                               : static_cast<std::size_t>(e.replicas);
  if (arity == Arity::Family) {
    if (e.replicas < 1) fail(e, "R must be at least 1, found " + std::to_string(e.replicas));
  } else if (e.replicas != 0) {
    fail(e, "field 'R' belongs to allReduceMeanF only");
  }
  if (e.children.size() != want_children)
    fail(e, "has " + std::to_string(e.children.size()) + " children, expected " + std::to_string(want_children));
  for (std::size_t i = 0; i < e.children.size(); ++i) {
    if (!e.children[i]) fail(e, "child " + std::to_string(i) + " is missing");
    const char* len = e.spec->child_lengths[arity == Arity::Family ? 0 : i];
    const std::int64_t want = eval_length(len, e.nats), got = e.children[i]->length();
    if (want != got)
      fail(e, "child " + std::to_string(i) + " (" + e.children[i]->spec->name + ") has length " + std::to_string(got) +
                  ", expected " + len + " = " + std::to_string(want));
  }
  return std::make_shared<const Expr>(std::move(e));
}

}  // namespace shlo
