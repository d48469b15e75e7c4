#include "ast/template.hpp"

#include "ast/expr.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace shlo {

namespace {

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

void add_literal(std::vector<TemplatePiece>& pieces, char c) {
  if (pieces.empty() || pieces.back().kind != TemplatePiece::Kind::Literal) pieces.push_back({});
  pieces.back().text += c;
}

// Parses the placeholders of one line into pieces (appended).
void parse_line(const std::string& line, std::vector<TemplatePiece>& pieces, Template& t) {
  using K = TemplatePiece::Kind;
  for (std::size_t i = 0; i < line.size();) {
    const char c = line[i];
    if (c == '$') {
      if (std::isdigit(static_cast<unsigned char>(line[i + 1]))) {
        std::size_t j = i + 1;
        while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
        TemplatePiece p{K::Fresh, "", std::stoi(line.substr(i + 1, j - i - 1)), "", {}};
        t.fresh_count = std::max(t.fresh_count, p.index + 1);
        pieces.push_back(p);
        i = j;
      } else {
        const char letter = line[i + 1];
        pieces.push_back({K::Operand, std::string(1, letter), 0, "", {}});
        bool seen = false;
        for (char o : t.operands) seen = seen || o == letter;
        if (!seen) t.operands.push_back(letter);
        i += 2;
      }
    } else if (c == '{' && i + 1 < line.size() && std::isalpha(static_cast<unsigned char>(line[i + 1])) &&
               [&] {  // {name}: an identifier and the closing brace (not an attribute dictionary)
                 std::size_t j = i + 1;
                 while (j < line.size() && is_ident(line[j])) ++j;
                 return j < line.size() && line[j] == '}';
               }()) {
      const std::size_t j = line.find('}', i);
      pieces.push_back({K::Field, line.substr(i + 1, j - i - 1), 0, "", {}});
      i = j + 1;
    } else if (c == '#') {
      if (line.compare(i, 6, "#dims(") == 0 || line.compare(i, 10, "#replicas(") == 0) {
        const bool dims = line[i + 1] == 'd';
        const std::size_t j = line.find(')', i);
        pieces.push_back({dims ? K::Dims : K::Replicas, "", 0, "", {}});
        i = j + 1;
      } else if (line[i + 1] == '(') {  // #(expr), expr may hold parentheses: "#((h+1)*d)"
        std::size_t j = i + 2;
        for (int depth = 1; j < line.size(); ++j) {
          depth += line[j] == '(' ? 1 : line[j] == ')' ? -1 : 0;
          if (depth == 0) break;
        }
        pieces.push_back({K::Nat, line.substr(i + 2, j - i - 2), 0, "", {}});
        i = j + 1;
      } else {
        std::size_t j = i + 1;
        while (j < line.size() && is_ident(line[j])) ++j;
        pieces.push_back({K::Nat, line.substr(i + 1, j - i - 1), 0, "", {}});
        i = j;
      }
    } else if ((line.compare(i, 2, "T[") == 0 || line.compare(i, 3, "I1[") == 0 || line.compare(i, 5, "BF16[") == 0 ||
                line.compare(i, 3, "F8[") == 0) &&
               (i == 0 || !is_ident(line[i - 1]))) {
      const std::size_t open = line.find('[', i), close = line.find(']', i);
      const std::string head = line.substr(i, open - i);
      TemplatePiece p{K::Type, "", 0, head == "T" ? "f32" : head == "I1" ? "i1" : head == "F8" ? "f8E4M3FN" : "bf16", {}};
      std::string inner = line.substr(open + 1, close - open - 1);
      for (std::size_t a = 0; a <= inner.size();) {
        std::size_t b = inner.find(',', a);
        if (b == std::string::npos) b = inner.size();
        p.dims.push_back(inner.substr(a, b - a));
        a = b + 1;
      }
      pieces.push_back(p);
      i = close + 1;
    } else {
      add_literal(pieces, c);
      ++i;
    }
  }
  add_literal(pieces, '\n');
}

Template parse_template(const char* name, const std::string& text) {
  Template t;
  t.name = name;
  t.comment = true;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    const auto first = line.find_first_not_of(' ');
    t.comment = t.comment && first != std::string::npos && line.compare(first, 2, "//") == 0;
    // A chunk starts at an instruction line indented by exactly four spaces.
    const bool starts = line.size() > 4 && line.compare(0, 4, "    ") == 0 && (line[4] == '$' || line[4] == '%');
    if (starts || t.chunks.empty()) t.chunks.push_back({});
    parse_line(line, t.chunks.back().pieces, t);
    start = end + 1;
  }
  // Operands by role, not by first appearance: left ($a, $s) before right ($b, $e).
  std::stable_sort(t.operands.begin(), t.operands.end(), [](char x, char y) {
    auto rank = [](char c) { return c == 'b' || c == 'e' ? 1 : 0; };
    return rank(x) < rank(y);
  });
  return t;
}

std::string replica_list(std::int64_t r) {
  std::string s;
  for (std::int64_t i = 0; i < r; ++i) s += (i ? ", " : "") + std::to_string(i);
  return s;
}

// The derived pads, in natural arithmetic: (k - 1) / 2, and 0 for k = 0.
void add_derived(std::map<std::string, std::int64_t>& nats) {
  if (nats.count("kH") && !nats.count("pH")) nats["pH"] = nats["kH"] > 0 ? (nats["kH"] - 1) / 2 : 0;
  if (nats.count("kW") && !nats.count("pW")) nats["pW"] = nats["kW"] > 0 ? (nats["kW"] - 1) / 2 : 0;
}

}  // namespace

bool eval_nat(const std::string& expr, const std::map<std::string, std::int64_t>& nats, std::int64_t& out) {
  std::map<std::string, std::int64_t> all = nats;
  add_derived(all);
  try {
    out = eval_length(expr, all);
  } catch (const ExprError&) {
    return false;
  }
  return true;
}

const Template& get_template(const std::string& name) {
  static const std::map<std::string, Template> all = [] {
    std::map<std::string, Template> m;
    for (const auto& c : constructors())
      if (c.text) m.emplace(c.name, parse_template(c.name, c.text));
    return m;
  }();
  auto it = all.find(name);
  if (it == all.end()) throw std::logic_error("no template named '" + name + "'");
  return it->second;
}

bool printed_as_comment(const CtorSpec& c) { return c.templ && *c.templ && get_template(c.templ).comment; }

bool template_prints(const CtorSpec& c, const std::string& nat) {
  if (!c.templ || !*c.templ) return false;
  std::vector<std::string> names = {nat};  // the template's names for it
  for (const auto& [template_name, ours] : c.template_renames)
    if (nat == ours) names.push_back(template_name);
  if (nat == "kH") names.push_back("pH");
  if (nat == "kW") names.push_back("pW");
  const auto uses = [&](const std::string& expr) {
    return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return length_uses(expr, n); });
  };
  for (const auto& chunk : get_template(c.templ).chunks)
    for (const auto& p : chunk.pieces) {
      if (p.kind == TemplatePiece::Kind::Nat && uses(p.text)) return true;
      if (p.kind == TemplatePiece::Kind::Type && std::any_of(p.dims.begin(), p.dims.end(), uses)) return true;
    }
  return false;
}

std::string expand(const Template& t, const TemplateEnv& env) {
  using K = TemplatePiece::Kind;
  std::string out;
  auto nat = [&](const std::string& expr) {
    std::int64_t v = 0;
    if (!eval_nat(expr, env.nats, v)) throw std::logic_error("template " + t.name + ": '" + expr + "' is not set");
    return std::to_string(v);
  };
  for (const auto& chunk : t.chunks)
    for (const auto& p : chunk.pieces) {
      switch (p.kind) {
        case K::Literal: out += p.text; break;
        case K::Fresh: out += env.fresh.at(static_cast<std::size_t>(p.index)); break;
        case K::Operand: out += env.operands.at(p.text[0]); break;
        case K::Field: out += env.strings.at(p.text); break;
        case K::Nat: out += nat(p.text); break;
        case K::Dims: {
          for (std::size_t i = 0; i < env.ds.size(); ++i) out += (i ? ", " : "") + std::to_string(i);
          break;
        }
        case K::Replicas: out += replica_list(std::stoll(nat("R"))); break;
        case K::Type: {
          out += "tensor<";
          if (p.dims.size() == 1 && p.dims[0] == "ds") {
            for (auto d : env.ds) out += std::to_string(d) + "x";
          } else {
            for (const auto& d : p.dims) out += nat(d) + "x";
          }
          out += p.element + ">";
          break;
        }
      }
    }
  return out;
}

namespace {

bool is_name_char(char c) { return is_ident(c) || c == '.' || c == '$' || c == '-'; }

// Binds a nat by name or defers an expression.
bool bind_nat(TemplateMatch& m, const std::string& expr, std::int64_t value) {
  bool simple = !expr.empty();
  for (char c : expr) simple = simple && is_ident(c);
  if (simple && !std::isdigit(static_cast<unsigned char>(expr[0]))) {
    auto [it, fresh] = m.env.nats.emplace(expr, value);
    return fresh || it->second == value;
  }
  m.deferred.emplace_back(expr, value);
  return true;
}

bool read_number(std::string_view text, std::size_t& pos, std::int64_t& out) {
  const std::size_t start = pos;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
  if (pos == start || pos - start > 15) return false;
  out = std::stoll(std::string(text.substr(start, pos - start)));
  return true;
}

// "0, 1, ..., k-1" -> k.
bool read_index_list(std::string_view text, std::size_t& pos, std::int64_t& count) {
  count = 0;
  if (pos < text.size() && text[pos] == ']') return true;
  for (;;) {
    std::int64_t v = 0;
    if (!read_number(text, pos, v) || v != count) return false;
    ++count;
    if (text.compare(pos, 2, ", ") != 0) return true;
    pos += 2;
  }
}

bool bind_string(std::map<std::string, std::string>& m, const std::string& key, const std::string& value) {
  auto [it, fresh] = m.emplace(key, value);
  return fresh || it->second == value;
}

}  // namespace

bool match_chunk(const TemplateChunk& chunk, std::string_view text, TemplateMatch& m) {
  using K = TemplatePiece::Kind;
  std::size_t pos = 0;
  const auto& pieces = chunk.pieces;
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    const auto& p = pieces[k];
    switch (p.kind) {
      case K::Literal:
        if (text.compare(pos, p.text.size(), p.text) != 0) return false;
        pos += p.text.size();
        break;
      case K::Fresh:
      case K::Operand: {
        const std::size_t start = pos;
        if (pos >= text.size() || text[pos] != '%') return false;
        ++pos;
        while (pos < text.size() && is_name_char(text[pos])) ++pos;
        const std::string name(text.substr(start, pos - start));
        if (p.kind == K::Fresh) {
          auto& fresh = m.env.fresh;
          if (fresh.size() <= static_cast<std::size_t>(p.index)) fresh.resize(static_cast<std::size_t>(p.index) + 1);
          auto& slot = fresh[static_cast<std::size_t>(p.index)];
          if (!slot.empty() && slot != name) return false;
          slot = name;
        } else {
          auto [it, fresh] = m.env.operands.emplace(p.text[0], name);
          if (!fresh && it->second != name) return false;
        }
        break;
      }
      case K::Field: {
        // Up to the first character of the next literal (an SSA name or a dense<...> literal).
        const char stop = k + 1 < pieces.size() && pieces[k + 1].kind == K::Literal ? pieces[k + 1].text[0] : '\n';
        const std::size_t end = text.find(stop, pos);
        if (end == std::string_view::npos || end == pos) return false;
        if (!bind_string(m.env.strings, p.text, std::string(text.substr(pos, end - pos)))) return false;
        pos = end;
        break;
      }
      case K::Nat: {
        std::int64_t v = 0;
        if (!read_number(text, pos, v) || !bind_nat(m, p.text, v)) return false;
        break;
      }
      case K::Dims: {
        std::int64_t count = 0;
        if (!read_index_list(text, pos, count)) return false;
        if (m.has_ds && static_cast<std::int64_t>(m.env.ds.size()) != count) return false;
        m.deferred.emplace_back("#dims", count);
        break;
      }
      case K::Replicas: {
        std::int64_t count = 0;
        if (!read_index_list(text, pos, count) || !bind_nat(m, "R", count)) return false;
        break;
      }
      case K::Type: {
        if (text.compare(pos, 7, "tensor<") != 0) return false;
        pos += 7;
        std::vector<std::int64_t> dims;
        for (;;) {
          if (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
            std::int64_t v = 0;
            if (!read_number(text, pos, v) || pos >= text.size() || text[pos] != 'x') return false;
            ++pos;
            dims.push_back(v);
          } else {
            break;
          }
        }
        if (text.compare(pos, p.element.size() + 1, p.element + ">") != 0) return false;
        pos += p.element.size() + 1;
        if (p.dims.size() == 1 && p.dims[0] == "ds") {
          if (m.has_ds && m.env.ds != dims) return false;
          m.env.ds = dims;
          m.has_ds = true;
        } else {
          if (dims.size() != p.dims.size()) return false;
          for (std::size_t i = 0; i < dims.size(); ++i)
            if (!bind_nat(m, p.dims[i], dims[i])) return false;
        }
        break;
      }
    }
  }
  return pos == text.size();
}

namespace {

// The names an expression uses that `nats` does not bind yet.
std::vector<std::string> unbound_names(const std::string& expr, const std::map<std::string, std::int64_t>& nats) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : expr + " ") {
    if (is_ident(ch)) {
      cur += ch;
      continue;
    }
    if (!cur.empty() && !std::isdigit(static_cast<unsigned char>(cur[0])) && !nats.count(cur) &&
        std::find(out.begin(), out.end(), cur) == out.end())
      out.push_back(cur);
    cur.clear();
  }
  return out;
}

// A name printed only inside expressions ("tk" in T[B,tk+1,D], "head" in #(head*d)): solved from
// an expression with one unknown, which the templates' expressions are monotone in, by
// bisection; only a unique solution is taken (another expression may pin an ambiguous one).
bool solve_for(TemplateMatch& m, const std::string& expr, const std::string& name, std::int64_t value) {
  std::int64_t bound = value;
  for (const auto& [n, v] : m.env.nats) bound = std::max(bound, v);
  std::int64_t lo = 0, hi = 2 * bound + 2;
  auto f = [&](std::int64_t x) {
    auto nats = m.env.nats;
    nats[name] = x;
    std::int64_t v = 0;
    return eval_nat(expr, nats, v) ? v : -1;
  };
  const bool increasing = f(lo) <= f(hi);
  while (lo < hi) {  // the first x where f has reached `value` (from below or from above)
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (increasing ? f(mid) >= value : f(mid) <= value) hi = mid;
    else lo = mid + 1;
  }
  if (f(lo) != value || f(lo + 1) == value) return false;  // none, or not unique yet ("(heads-1-h)*d" = 0)
  m.env.nats[name] = lo;
  return true;
}

}  // namespace

bool finish_match(TemplateMatch& m) {
  for (bool progress = true; progress;) {
    progress = false;
    for (const auto& [expr, value] : m.deferred) {
      if (expr == "#dims") continue;
      const auto unknown = unbound_names(expr, m.env.nats);
      if (unknown.size() == 1 && solve_for(m, expr, unknown[0], value)) progress = true;
    }
  }
  for (const auto& [expr, value] : m.deferred) {
    if (expr == "#dims") {
      if (static_cast<std::int64_t>(m.env.ds.size()) != value) return false;
      continue;
    }
    std::int64_t v = 0;
    if (!eval_nat(expr, m.env.nats, v) || v != value) return false;
  }
  // Pads printed as #pH / #pW must be the derived ones.
  for (const auto& [pad, k] : {std::pair<const char*, const char*>{"pH", "kH"}, {"pW", "kW"}}) {
    auto p = m.env.nats.find(pad), kk = m.env.nats.find(k);
    if (p != m.env.nats.end() && kk != m.env.nats.end() && p->second != (kk->second > 0 ? (kk->second - 1) / 2 : 0)) return false;
  }
  return true;
}

}  // namespace shlo
