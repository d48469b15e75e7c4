// registry_problems(): what a row of the family files (ast/ctors/*.def) can get wrong that the
// compiler does not see. The test suite requires the list to be empty.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "ast/expr.hpp"
#include "ast/template.hpp"

namespace shlo {

namespace {

bool contains(const Fields& v, const std::string& x) {
  return std::any_of(v.begin(), v.end(), [&](const char* f) { return x == f; });
}

// The names a length or template expression uses ("c*2*h*2*w" -> c, h, w; "R-1" -> R).
std::vector<std::string> names_in(const std::string& expr) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : expr + "*") {
    if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') {
      cur += ch;
    } else {
      if (!cur.empty() && !std::isdigit(static_cast<unsigned char>(cur[0]))) out.push_back(cur);
      cur.clear();
    }
  }
  return out;
}

std::size_t children_of(Arity a) {
  switch (a) {
    case Arity::Leaf: return 0;
    case Arity::Unary: return 1;
    case Arity::Binary: return 2;
    case Arity::Family: return 1;  // one length for all R children
  }
  return 0;
}

void check_row(const CtorSpec& c, std::vector<std::string>& out) {
  const std::string who = std::string("constructor '") + c.name + "': ";
  auto problem = [&](const std::string& what) { out.push_back(who + what); };
  if (!c.result_length) problem("no result_length");
  if (c.child_lengths.size() != children_of(c.arity))
    problem(std::to_string(c.child_lengths.size()) + " child lengths for its arity");
  std::vector<std::string> lengths;
  if (c.result_length) lengths.push_back(c.result_length);
  for (const char* l : c.child_lengths) lengths.push_back(l);
  for (const auto& f : c.reals) lengths.push_back(f.length);
  for (const auto& l : lengths)
    for (const auto& n : names_in(l))
      if (!contains(c.nats, n)) problem("length '" + l + "' uses '" + n + "', which is not a shape parameter");
  // Every string field is a text input, a literal, or structural (the leaf's name, the
  // family's tag, a field of a row the printer writes as a comment).
  for (const char* s : c.strings) {
    const bool input = std::any_of(c.inputs.begin(), c.inputs.end(), [&](const TextInput& t) { return std::string(s) == t.field; });
    const bool literal = std::any_of(c.literals.begin(), c.literals.end(), [&](const LiteralField& l) { return std::string(s) == l.field; });
    const bool structural = c.arity == Arity::Leaf || c.arity == Arity::Family || printed_as_comment(c);
    if (!input && !literal && !structural) problem(std::string("string field '") + s + "' is neither a text input nor a literal");
  }
  for (const auto& t : c.inputs) {
    if (!contains(c.strings, t.field)) problem(std::string("text input '") + t.field + "' is not a string field");
    std::string v = t.value ? t.value : "";
    if (v.rfind("1-", 0) == 0) v = v.substr(2);
    if (std::none_of(c.reals.begin(), c.reals.end(), [&](const RealField& f) { return v == f.name; }))
      problem(std::string("text input '") + t.field + "' holds '" + v + "', which is not a real field");
  }
  for (const auto& l : c.literals)
    if (!contains(c.strings, l.field)) problem(std::string("literal '") + l.field + "' is not a string field");
  for (const auto& f : c.reals)
    if (f.draw == Draw::FromLiteral && (!f.literal || !contains(c.strings, f.literal)))
      problem(std::string("real field '") + f.name + "' is drawn from a literal that is not a string field");
  // The printer: a template (own or shared) for every node but the leaf, naming only fields
  // the skeleton keeps.
  if (c.arity == Arity::Leaf) {
    if (c.text || c.prints_like) problem("a leaf prints no text");
    return;
  }
  if (!c.text == !c.prints_like) problem("needs exactly one of text and prints_like");
  if (!c.templ || !*c.templ) return;
  const Template& t = get_template(c.templ);
  Fields nats = c.skel_nats;
  for (const auto& [tn, ours] : c.template_renames)
    if (contains(nats, ours)) nats.push_back(tn);
  for (const char* extra : {"B", "pH", "pW", "R"}) nats.push_back(extra);
  for (const auto& chunk : t.chunks)
    for (const auto& p : chunk.pieces) {
      using K = TemplatePiece::Kind;
      std::vector<std::string> used;
      if (p.kind == K::Field && !contains(c.skel_strings, p.text))
        problem("template field {" + p.text + "} is not a string the skeleton keeps");
      if (p.kind == K::Nat) used = names_in(p.text);
      if (p.kind == K::Type)
        for (const auto& d : p.dims)
          if (d != "ds")
            for (const auto& n : names_in(d)) used.push_back(n);
      if (p.kind == K::Type && p.dims.size() == 1 && p.dims[0] == "ds" && !c.has_ds) problem("template uses T[ds] without ds");
      for (const auto& n : used)
        if (!contains(nats, n)) problem("template uses '" + n + "', which the skeleton does not keep");
    }
}

}  // namespace

std::vector<std::string> registry_problems() {
  std::vector<std::string> out;
  std::set<std::string> names;
  std::map<std::string, const CtorSpec*> tokens;
  const auto& table = constructors();
  for (std::size_t i = 0; i < table.size(); ++i) {
    const CtorSpec& c = table[i];
    if (!names.insert(c.name).second) out.push_back(std::string("constructor '") + c.name + "' is stated twice");
    // A token is its name, tag and number of kept naturals (ast/skel.cpp).
    const auto [taken, fresh] = tokens.emplace(std::string(c.token) + "/" + c.tag + "#" + std::to_string(c.skel_nats.size()), &c);
    // A row may share an earlier row's token when it prints like that row and is not
    // canonical: its skeleton then reads back as that row, as Lean's does (weightGradB).
    const bool alias = !c.canonical && c.prints_like && *c.prints_like == taken->second->id;
    if (!fresh && !alias)
      out.push_back(std::string("constructor '") + c.name + "': token " + c.token + " " + c.tag + " is taken by an earlier row");
    if (static_cast<std::size_t>(c.id) != i) out.push_back(std::string("constructor '") + c.name + "': its enumerator is out of step with its row");
    check_row(c, out);
  }
  return out;
}

std::vector<std::string> row_problems(const CtorSpec& c) {
  std::vector<std::string> out;
  check_row(c, out);
  return out;
}

}  // namespace shlo
