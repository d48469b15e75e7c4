#include "ast/skel.hpp"

#include <map>

namespace shlo {

namespace {

std::string key(const std::string& kind, const std::string& tag) { return tag.empty() ? kind : kind + "/" + tag; }
// Rows may share a token and tag when their skeletons keep different numbers of naturals
// (the per-example and batched 3x3/s2 max pool: [c, h, w] versus [N, c, h, w]).
std::string key_with_arity(const std::string& kind, const std::string& tag, std::size_t nats) {
  return key(kind, tag) + "#" + std::to_string(nats);
}

const std::map<std::string, const CtorSpec*>& by_token() {
  static const std::map<std::string, const CtorSpec*> m = [] {
    std::map<std::string, const CtorSpec*> out;
    for (const auto& c : constructors()) out.emplace(key_with_arity(c.token, c.tag, c.skel_nats.size()), &c);  // first row wins
    return out;
  }();
  return m;
}

}  // namespace

const CtorSpec& token_spec(const Token& t) {
  auto it = by_token().find(key_with_arity(t.kind, t.tag, t.nats.size()));
  if (it == by_token().end())
    throw ExprError("unknown token '" + key(t.kind, t.tag) + "' with " + std::to_string(t.nats.size()) + " naturals");
  return *it->second;
}

int token_arity(const Token& t) {
  switch (token_spec(t).arity) {
    case Arity::Leaf: return 0;
    case Arity::Unary: return 1;
    case Arity::Binary: return 2;
    case Arity::Family: return 1;  // allReduceMean keeps one child (replica 0)
  }
  return 1;
}

std::string to_string(const Token& t) {
  std::string s = t.kind;
  auto list = [](const auto& v, auto show) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + show(v[i]);
    return out + "]";
  };
  auto num = [](std::int64_t x) { return std::to_string(x); };
  auto str = [](const std::string& x) { return x; };
  if (t.kind == "batched" || t.kind == "batched2") return s + " " + t.tag + " " + list(t.strings, str) + " " + list(t.nats, num);
  if (t.kind == "allReduceMean") return s + " " + std::to_string(t.replicas) + " " + t.strings.at(0) + " " + list(t.ds, num);
  for (const auto& x : t.strings) s += " " + x;
  for (auto x : t.nats) s += " " + std::to_string(x);
  if (!t.ds.empty() || token_spec(t).has_ds) s += " " + list(t.ds, num);
  return s;
}

Skel skel(const Expr& e) {
  Skel s;
  const CtorSpec& c = *e.spec;
  s.token.kind = c.token;
  s.token.tag = c.tag;
  for (const char* name : c.skel_strings) s.token.strings.push_back(e.string(name));
  for (const char* name : c.skel_nats) s.token.nats.push_back(e.nat(name));
  s.token.ds = e.ds;
  s.token.replicas = e.replicas;
  if (c.arity == Arity::Family) {
    s.children.push_back(skel(*e.children.at(0)));  // replica 0 (section 3.10)
  } else {
    for (const auto& child : e.children) s.children.push_back(skel(*child));
  }
  return s;
}

namespace {
void postorder(const Skel& s, std::vector<Token>& out) {
  for (const auto& c : s.children) postorder(c, out);
  out.push_back(s.token);
}
}  // namespace

std::vector<Token> to_tokens(const Skel& s) {
  std::vector<Token> out;
  postorder(s, out);
  return out;
}

Skel parse_tokens(const std::vector<Token>& tokens) {
  std::vector<Skel> stack;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const int arity = token_arity(tokens[i]);
    if (static_cast<int>(stack.size()) < arity)
      throw ExprError("token " + std::to_string(i) + " (" + to_string(tokens[i]) + ") needs " + std::to_string(arity) +
                      " operand(s), the stack holds " + std::to_string(stack.size()));
    Skel node{tokens[i], {}};
    node.children.resize(static_cast<std::size_t>(arity));
    for (int k = arity; k-- > 0;) {  // the right operand is on top
      node.children[static_cast<std::size_t>(k)] = std::move(stack.back());
      stack.pop_back();
    }
    stack.push_back(std::move(node));
  }
  if (stack.size() != 1)
    throw ExprError("the token stream leaves " + std::to_string(stack.size()) + " trees on the stack, expected 1");
  return std::move(stack.back());
}

namespace {

// The first node (preorder path) where two skeletons differ, or "" if equal.
std::string first_difference(const Skel& a, const Skel& b, const std::string& path) {
  if (!(a.token == b.token)) return path + " (" + to_string(a.token) + " vs " + to_string(b.token) + ")";
  if (a.children.size() != b.children.size()) return path + " (different number of children)";
  for (std::size_t i = 0; i < a.children.size(); ++i) {
    std::string d = first_difference(a.children[i], b.children[i], path + "/" + std::to_string(i));
    if (!d.empty()) return d;
  }
  return "";
}

void check_spmd(const Expr& e, const std::string& path, SpmdReport& report) {
  if (!report.spmd) return;
  if (e.spec->arity == Arity::Family) {
    const Skel first = skel(*e.children.at(0));
    for (std::size_t r = 1; r < e.children.size(); ++r) {
      const std::string d = first_difference(first, skel(*e.children[r]), "child");
      if (!d.empty()) {
        report.spmd = false;
        report.message = "allReduceMeanF at " + path + " (tag " + e.string("t") + "): replica " + std::to_string(r) +
                         " differs from replica 0 at " + d;
        return;
      }
    }
  }
  for (std::size_t i = 0; i < e.children.size(); ++i) check_spmd(*e.children[i], path + "/" + std::to_string(i), report);
}

}  // namespace

SpmdReport is_spmd(const Expr& e) {
  SpmdReport report;
  check_spmd(e, "root", report);
  return report;
}

}  // namespace shlo
