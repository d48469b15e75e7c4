#include "ast/expr.hpp"

#include <algorithm>
#include <cctype>

namespace shlo {

namespace {

// The rows of the family files, in order; derived members filled in once.
std::vector<CtorSpec> make_table() {
  std::vector<CtorSpec> table = {
#define SHLO_CTOR(ID, NAME, ...) CtorSpec{.id = Ctor::ID, .name = NAME, __VA_ARGS__},
#include "ast/ctors/all.def"
#undef SHLO_CTOR
  };
  for (auto& c : table) {
    if (!c.token) c.token = c.name;
    c.skel_strings = c.keep_strings.value_or(c.strings);
    c.skel_nats = c.keep_nats.value_or(c.nats);
  }
  for (auto& c : table) c.templ = c.text ? c.name : c.prints_like ? table[static_cast<std::size_t>(*c.prints_like)].name : "";
  return table;
}

[[noreturn]] void fail(const Expr& e, const std::string& what) {
  throw ExprError(std::string("constructor '") + e.spec->name + "': " + what);
}

}  // namespace

const std::vector<CtorSpec>& constructors() {
  static const std::vector<CtorSpec> table = make_table();
  return table;
}

const CtorSpec& spec_of(Ctor c) { return constructors()[static_cast<std::size_t>(c)]; }

const CtorSpec* find_constructor(const std::string& name) {
  for (const auto& c : constructors())
    if (name == c.name) return &c;
  return nullptr;
}

namespace {

// A recursive-descent reader of length expressions: sums of products of factors, a factor a
// number, a shape parameter or a parenthesised expression. Lean's natural arithmetic: a - b is
// 0 when b > a, a / b is 0 when b = 0 (the ViT rows need "(tk+1)*D", "H/P", "W-(P-1)").
class LengthReader {
 public:
  LengthReader(const std::string& expr, const std::map<std::string, std::int64_t>& nats) : expr_(expr), nats_(nats) {}
  std::int64_t read() {
    const std::int64_t v = sum();
    if (pos_ != expr_.size()) bad("unexpected '" + expr_.substr(pos_, 1) + "'");
    return v;
  }

 private:
  [[noreturn]] void bad(const std::string& what) const { throw ExprError("length expression '" + expr_ + "': " + what); }
  bool eat(char c) {
    if (pos_ < expr_.size() && expr_[pos_] == c) return ++pos_, true;
    return false;
  }
  std::int64_t sum() {
    std::int64_t v = product();
    for (;;) {
      if (eat('+')) v += product();
      else if (eat('-')) v = std::max<std::int64_t>(0, v - product());
      else return v;
    }
  }
  std::int64_t product() {
    std::int64_t v = factor();
    for (;;) {
      if (eat('*')) v *= factor();
      else if (eat('/')) {
        const std::int64_t q = factor();
        v = q == 0 ? 0 : v / q;
      } else {
        return v;
      }
    }
  }
  std::int64_t factor() {
    if (eat('(')) {
      const std::int64_t v = sum();
      if (!eat(')')) bad("a '(' without its ')'");
      return v;
    }
    const std::size_t start = pos_;
    while (pos_ < expr_.size() && (std::isalnum(static_cast<unsigned char>(expr_[pos_])) || expr_[pos_] == '_')) ++pos_;
    const std::string word = expr_.substr(start, pos_ - start);
    if (word.empty()) bad(pos_ < expr_.size() ? "unexpected '" + expr_.substr(pos_, 1) + "'" : "it ends too early");
    if (std::isdigit(static_cast<unsigned char>(word[0]))) return std::stoll(word);
    auto it = nats_.find(word);
    if (it == nats_.end()) throw ExprError("length expression '" + expr_ + "' uses '" + word + "', which is not set");
    return it->second;
  }

  const std::string& expr_;
  const std::map<std::string, std::int64_t>& nats_;
  std::size_t pos_ = 0;
};

}  // namespace

std::int64_t eval_length(const std::string& expr, const std::map<std::string, std::int64_t>& nats) {
  return LengthReader(expr, nats).read();
}

bool length_uses(const std::string& expr, const std::string& nat) {
  const auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t i = 0; i < expr.size();) {
    if (!word_char(expr[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < expr.size() && word_char(expr[j])) ++j;
    if (expr.compare(i, j - i, nat) == 0 && j - i == nat.size()) return true;
    i = j;
  }
  return false;
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
